"""Biped running and galloping after Raibert & Hodgins 1991 (RH91 §4): the
leg geometry read from the creature, the factory and the fall check (its
gains, speed ranges and timing are data, in ``biped.gains``).

The creature is ``raibert_biped`` (trunk, ball hips, telescoping sprung legs).
Each leg is driven the way RH91 drives its robot legs:

- its length by the rest length of its sprung slide joint (``qpos_spring``,
  Eq. 1): lengthened for landing, raised in thrust by the energy the hop
  needs (Eq. 2), shortened to clear the ground;
- its hip by a joint servo (Eq. 5): the hip's own spring-damper with a
  programmable set point, stiffened to ``hip_kp``/``hip_kv`` on the run's
  model copy, swings the leg to where Eq. 3 wants the foot;
- in stance the same hip spring-damper becomes the posture servo (Eq. 4).

RH91's ground model has a torsional spring about the surface normal; the
compiled foot contact has none (``condim`` 3), so ``reset`` gives the feet
``condim`` 4 with torsional friction ``gains.torsion`` [m] on the run's model
copy: without it a yaw torque at the hip only spins the leg about its axis.

The controllers (``biped.run``, ``biped.gallop``, on ``biped.base``) run
their control law compiled (``biped.kernel``): the physics runs in C
between ticks, and the controller must stay cheap next to it.

Geometry and timing come from the creature: hip offsets and the leg length
(``leg_geometries``), the fall height and the control interval scale with
its size (leg length / 0.83 m), so a creature scaled by L (``--scale``) runs
with its gains scaled by ``make_controller(..., scale=L)``.
"""
from __future__ import annotations

import warnings
from typing import Callable

from gaitforge.control.core.rotations import quat_to_mat  # noqa: F401 (re-exported)
from gaitforge.control.raibert.biped.body import SIDES, fall_check, leg_geometries, size  # noqa: F401 (re-exported)
from gaitforge.control.raibert.biped.gains import CONTROL_DT, GAITS, LEG_LENGTH, SPEED_RANGES, BipedGains
from gaitforge.control.raibert.scaling import factor, scale_gains
from gaitforge.control.paths import WaypointPath
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError

__all__ = ["CONTROL_DT", "GAITS", "LEG_LENGTH", "SIDES", "SPEED_RANGES", "BipedGains", "fall_check",
           "make_controller", "quat_to_mat"]


def _run(*args, **options):
    from gaitforge.control.raibert.biped.run import BipedRun  # (it imports this package's constants)

    return BipedRun(*args, **options)


def _gallop(*args, **options):
    from gaitforge.control.raibert.biped.gallop import BipedGallop

    return BipedGallop(*args, **options)


# Each gait's controller, as data: its maker and keyword options.
CONTROLLERS: dict[str, tuple[Callable, dict[str, str]]] = {
    "run": (_run, {}),
    "gallop_together": (_gallop, {"style": "together"}),
    "gallop_alternate": (_gallop, {"style": "alternate"}),
}


def make_controller(character: Character, gait: str, speed: float, *, gains: BipedGains | None = None,
                    heading: float = 0.0, path: WaypointPath | None = None, lookahead: float = 1.0,
                    scale: float = 1.0, clamp: bool = True):
    """A controller for ``raibert_biped``, to use with
    ``gaitforge.sim.run(..., control_dt=CONTROL_DT)``.

    gait: ``run`` (RH91 Fig. 4), ``gallop_together`` (legs swing forward
    together in flight) or ``gallop_alternate`` (each leg swings forward in
    the other's single support); speed [m/s], clamped into
    ``SPEED_RANGES[gait]`` (× √L for a creature scaled by L) with a warning
    (``clamp=False``: run as asked, to measure beyond the range); heading [rad]: direction of travel;
    path: follow these waypoints at ``speed`` (carrot ``lookahead`` [m]);
    scale: the factor L the creature was scaled by (RH91 Table 1): the gains
    (given or default) are scaled by it.
    """
    if gait not in GAITS:
        raise UnknownNameError(f"unknown biped gait {gait!r} (valid gaits: {', '.join(GAITS)})")
    if not scale > 0:
        raise GaitforgeError(f"scale must be positive, got {scale!r}")
    if not all(f"{s}_{part}" in character.joints for s in SIDES for part in ("upper_leg", "lower_leg")):
        raise GaitforgeError(f"the biped controllers need the raibert_biped creature, got {character.name!r}")
    lo, hi = (v * factor("velocity", size(character)) for v in SPEED_RANGES[gait])
    if clamp and not lo <= speed <= hi:
        clamped = min(max(speed, lo), hi)
        warnings.warn(f"biped {gait}: desired speed {speed} m/s is outside the supported range "
                      f"{lo}-{hi} m/s; using {clamped} m/s", stacklevel=2)
        speed = clamped
    gains = gains or BipedGains()
    if scale != 1.0:
        gains = scale_gains(gains, scale)
    make, options = CONTROLLERS[gait]
    return make(character, speed, gains, heading, path, lookahead, **options)

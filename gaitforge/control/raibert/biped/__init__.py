"""Biped running and galloping after Raibert & Hodgins 1991 (RH91 §4): gains,
supported speeds, the leg geometry read from the creature, the factory and
the fall check.

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

import math
import warnings
from dataclasses import dataclass, field
from typing import Callable

import mujoco

from gaitforge.control.core.rotations import quat_to_mat  # noqa: F401 (re-exported)
from gaitforge.control.raibert.biped.kernel import CONTROL_DT, LEG_LENGTH
from gaitforge.control.raibert.common import leg_geometry, trunk_fall_check
from gaitforge.control.raibert.scaling import factor, scale_gains
from gaitforge.control.paths import WaypointPath
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError

__all__ = ["CONTROL_DT", "GAITS", "LEG_LENGTH", "SIDES", "SPEED_RANGES", "BipedGains", "fall_check",
           "make_controller", "quat_to_mat"]

GAITS = ("run", "gallop_together", "gallop_alternate")
# Desired speeds [m/s] for which 60 s runs were measured to hold the mean
# speed of their last 20 s within 10 % without falling (the ends of each
# range are checked in tests/test_raibert_biped.py). Measured just above:
# run 5.0 m/s fell at 51 s, gallop_together 1.5 at 32 s, gallop_alternate
# 1.25 at 27 s. Under the 6.7 ms contacts (BipedGains.contact_timeconst) the
# alternating gallop at 1.0 m/s held 12 of 20 perturbed starts (the first
# fall at 10.3 s; benchmarks/robustness.py), at 0.85 and 0.9 m/s 20 of 20.
SPEED_RANGES: dict[str, tuple[float, float]] = {
    "run": (0.5, 4.0), "gallop_together": (0.5, 1.25), "gallop_alternate": (0.5, 0.9)}
SIDES = ("left", "right")


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
FALL_HEIGHT = 0.45  # m: trunk height of a fall for the unscaled robot (scaled with the leg length)


def _q(quantity: str, default: float):
    return field(default=default, metadata={"quantity": quantity})


@dataclass(frozen=True)
class BipedGains:
    """Control parameters (SI units), symbols after RH91.

    k_x [s]: Eq. 3 speed gain; stance_default [s]: T_s before one is
    measured; kp_posture/kv_posture [N m/rad, N m s/rad]: Eq. 4 roll and
    pitch servo; kp_yaw/kv_yaw: its yaw part (through the hip twist);
    hip_kp/hip_kv: swing hip servo (Eq. 5); landing/short [m]: slide set
    points (0 = the 0.83 m leg) to land with and to keep a leg clear; apex
    [m]: desired apex of the mass centre (Eq. 2); thrust_max [m]: largest
    thrust extension (the slide stops at +0.10 m); slew [m/s]: rate of all
    other rest-length changes; loss_gain: fraction of each apex error's
    energy added to the learned hop loss; torsion [m]: torsional friction of
    the feet; roll_lead: fraction of a flight's roll pre-compensated in the
    support before it (run); trim_gain, trim_max [m/s]: speed trim learning
    rate and bound; gallop_lag [s]: least delay of the leading footfall
    after the trailing one; gallop_share: share of the energy deficit the
    trailing leg injects; compress_eps [m]: the phase machine's (LOADING to
    COMPRESSION); touch_slack [m]: a leg this much shorter than its rest
    length is loaded; speed_floor [m/s]: the speed trim learns only while the
    desired velocity changed by less than 15 % of max(speed, speed_floor)
    since the last step; late_fall_speed [m/s], late_time [s]: a gallop leg
    lengthens regardless of its aim once the mass centre falls faster, or
    (leading leg) this long after the trailing foot landed;
    contact_timeconst [s]: the ground contacts' solref time constant on the
    run's model copy (0: the creature's own). Every field
    names its RH91 Table 1 quantity (``metadata["quantity"]``), so
    ``scaled.scale_gains`` scales them.
    """

    k_x: float = _q("time", 0.08)
    stance_default: float = _q("time", 0.18)
    kp_posture: float = _q("torsional_stiffness", 600.0)
    kv_posture: float = _q("torsional_damping", 50.0)
    kp_yaw: float = _q("torsional_stiffness", 30.0)
    kv_yaw: float = _q("torsional_damping", 16.0)
    hip_kp: float = _q("torsional_stiffness", 400.0)
    hip_kv: float = _q("torsional_damping", 10.0)
    landing: float = _q("displacement", 0.0)
    short: float = _q("displacement", -0.15)
    apex: float = _q("length", 0.86)
    thrust_max: float = _q("displacement", 0.09)
    slew: float = _q("velocity", 1.5)
    loss_gain: float = _q("angle", 0.5)
    torsion: float = _q("length", 0.02)
    roll_lead: float = _q("angle", 0.5)
    trim_gain: float = _q("angle", 0.3)
    trim_max: float = _q("velocity", 1.0)
    gallop_lag: float = _q("time", 0.0)
    gallop_share: float = _q("angle", 0.5)
    compress_eps: float = _q("displacement", 0.003)
    touch_slack: float = _q("displacement", 0.005)
    speed_floor: float = _q("velocity", 0.1)
    late_fall_speed: float = _q("velocity", 1.5)
    late_time: float = _q("time", 0.15)
    # 6.7 ms (twice the 3.3 ms step, the least MuJoCo takes): the 25 mm feet sink at most 11.3 mm (run at
    # 4 m/s), and no lower-leg capsule touches the ground; at the creature's 20 ms they sank 14–27 mm and the
    # 12 mm shin capsules touched
    contact_timeconst: float = _q("time", 0.0067)


def leg_geometries(character: Character):
    """The left and right legs' ``common.LegGeometry`` read from the model."""
    return tuple(leg_geometry(character, f"{s}_upper_leg", f"{s}_lower_leg", f"{s}_foot") for s in SIDES)


def size(character: Character) -> float:
    """The creature's size relative to the RH91 biped: leg length / 0.83 m."""
    return leg_geometries(character)[0].length / LEG_LENGTH


def fall_check(character: Character) -> Callable[[mujoco.MjData], str | None]:
    """Fall detector: trunk (hip) below 0.45 m (× ``size``) or tilted beyond 45°."""
    return trunk_fall_check(FALL_HEIGHT * size(character), math.radians(45.0), body=character.body_id("trunk"))


def make_controller(character: Character, gait: str, speed: float, *, gains: BipedGains | None = None,
                    heading: float = 0.0, path: WaypointPath | None = None, lookahead: float = 1.0,
                    scale: float = 1.0):
    """A controller for ``raibert_biped``, to use with
    ``gaitforge.sim.run(..., control_dt=CONTROL_DT)``.

    gait: ``run`` (RH91 Fig. 4), ``gallop_together`` (legs swing forward
    together in flight) or ``gallop_alternate`` (each leg swings forward in
    the other's single support); speed [m/s], clamped into
    ``SPEED_RANGES[gait]`` (× √L for a creature scaled by L) with a warning; heading [rad]: direction of travel;
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
    if not lo <= speed <= hi:
        clamped = min(max(speed, lo), hi)
        warnings.warn(f"biped {gait}: desired speed {speed} m/s is outside the supported range "
                      f"{lo}-{hi} m/s; using {clamped} m/s", stacklevel=2)
        speed = clamped
    gains = gains or BipedGains()
    if scale != 1.0:
        gains = scale_gains(gains, scale)
    make, options = CONTROLLERS[gait]
    return make(character, speed, gains, heading, path, lookahead, **options)

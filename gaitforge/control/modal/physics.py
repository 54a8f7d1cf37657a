"""The physics simulated modal control runs with, declared as data in one
place (docs/modal_physics.md): per creature the physics step, integrator and
ground-contact model under which its modal gaits are converged, and the
limits of what its joints may do.

Converged means (``benchmarks/modal_convergence.py``): halving the step moves
the travelled distance and the speed of every shipped gait by at most 5 %,
and no contact sinks deeper than half the radius of the thinnest geom that
touches the ground, nor deeper than 20 mm. The creatures' own models carry a
2 ms step and MuJoCo's soft default contacts (a 20 ms time constant), under
which the light modal creatures sink through the ground (the 12 mm worm by
up to 54 mm) and their gaits change with the step; the settings below
replace them on the run's model copy.

Joint limits: the drive of a joint (its spring toward the moving reference
plus any impulse torque) is at most ``torque_limit`` m g L in magnitude, with
m the creature's mass, g = 9.81 m/s² and L its length scale (``length``:
given per creature, else the rest extent along x, ``rollout.body_length``),
and it gives no torque along a joint's motion at ``speed_limit`` rad/s or
faster (full torque up to 90 % of it, tapering linearly to none at the
limit, like a motor's torque–speed curve; braking is always allowed). The
dampers are passive and not limited.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.constants import GRAVITY as G


_INTEGRATORS = {"euler": mujoco.mjtIntegrator.mjINT_EULER, "rk4": mujoco.mjtIntegrator.mjINT_RK4,
                "implicit": mujoco.mjtIntegrator.mjINT_IMPLICIT,
                "implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST}


@dataclass(frozen=True)
class ModalPhysics:
    """timestep [s] of physics and control (the controller acts every step);
    integrator (MuJoCo's name); solref (time constant [s], damping ratio)
    and solimp (d0, d_width, width [m], midpoint, power) of every contact;
    length [m] L of the torque limit (None: the rest extent along x);
    torque_limit (× m g L) and speed_limit [rad/s] of every joint's drive;
    impulse_window [s]: a modal impulse is a joint torque spread over this
    long (at least one step); why: what L is and where the figures come
    from (printed with the settings)."""

    timestep: float
    integrator: str = "implicitfast"
    solref: tuple[float, float] = (0.02, 1.0)
    solimp: tuple[float, float, float, float, float] = (0.9, 0.95, 0.001, 0.5, 2.0)
    length: float | None = None
    torque_limit: float = 3.0
    speed_limit: float = 40.0
    impulse_window: float = 0.004
    why: str = ""

    def __post_init__(self) -> None:
        from gaitforge.sim.physics import TIMESTEP_RANGE

        lo, hi = TIMESTEP_RANGE
        if not (isinstance(self.timestep, (int, float)) and math.isfinite(self.timestep)
                and lo <= self.timestep <= hi):
            raise GaitforgeError(f"timestep must be from {lo:g} to {hi:g} s, got {self.timestep!r}")
        if self.integrator not in _INTEGRATORS:
            raise GaitforgeError(f"unknown integrator {self.integrator!r} (choose from {', '.join(_INTEGRATORS)})")
        for name, v in (("torque_limit", self.torque_limit), ("speed_limit", self.speed_limit),
                        ("impulse_window", self.impulse_window), ("solref time constant", self.solref[0])):
            if not (math.isfinite(v) and v > 0):
                raise GaitforgeError(f"{name} must be a positive finite number, got {v!r}")
        if self.length is not None and not (math.isfinite(self.length) and self.length > 0):
            raise GaitforgeError(f"length must be a positive finite number of metres or None, got {self.length!r}")

    def with_timestep(self, timestep: float | None) -> ModalPhysics:
        """These settings with another step [s] (None: unchanged); the contact
        model stays, so a finer step tests convergence of the same physics."""
        return self if timestep is None else replace(self, timestep=float(timestep))

    def apply(self, model: mujoco.MjModel) -> None:
        """Set the step, the integrator and every contact's solref/solimp of
        ``model`` (a run's copy) in place; geoms and explicit pairs alike, so
        that every contact, however MuJoCo mixes it, gets these values."""
        if self.solref[0] < 2.0 * self.timestep:
            raise GaitforgeError(f"the contact time constant {1000 * self.solref[0]:g} ms must be at least twice "
                                 f"the step ({1000 * self.timestep:g} ms): MuJoCo would stiffen it silently")
        model.opt.timestep = self.timestep
        model.opt.integrator = _INTEGRATORS[self.integrator]
        for solref, solimp in ((model.geom_solref, model.geom_solimp), (model.pair_solref, model.pair_solimp)):
            solref[:] = self.solref
            solimp[:] = self.solimp

    def length_of(self, character) -> float:
        """L [m] of ``character`` under these settings."""
        if self.length is not None:
            return float(self.length)
        return body_length(character)


def body_length(character) -> float:
    """Extent [m] of the character's geoms along x at the rest pose (world axes)."""
    m = character.model
    d = character.make_data()
    lo, hi = math.inf, -math.inf
    for g in range(m.ngeom):
        if m.geom_bodyid[g] == 0:
            continue
        center = d.geom_xpos[g] + d.geom_xmat[g].reshape(3, 3) @ m.geom_aabb[g, :3]
        half = np.abs(d.geom_xmat[g].reshape(3, 3)) @ m.geom_aabb[g, 3:]
        lo, hi = min(lo, center[0] - half[0]), max(hi, center[0] + half[0])
    return float(hi - lo)


@dataclass(frozen=True)
class JointLimits:
    """torque [N m] and speed [rad/s] limits of every joint's drive; mgl [J]
    m g L, the torque scale they are reported in; length [m] L."""

    torque: float
    speed: float
    mgl: float
    length: float

    def __str__(self) -> str:
        return (f"joint limits: drive torque {self.torque / self.mgl:g} m g L = {self.torque:.3g} N m "
                f"(L = {self.length:.3g} m), speed {self.speed:g} rad/s")


def limits(character, physics: ModalPhysics) -> JointLimits:
    """The :class:`JointLimits` of ``character`` under ``physics``."""
    length = physics.length_of(character)
    mgl = character.mass * G * length
    return JointLimits(physics.torque_limit * mgl, physics.speed_limit, mgl, length)


# The settings of each creature with modal gaits, measured by benchmarks/modal_convergence.py
# (the table and its command are in docs/modal_physics.md).
PHYSICS: dict[str, ModalPhysics] = {
    "worm": ModalPhysics(0.00025, solref=(0.002, 1.0), why="L: the worm's length, 0.82 m (it has no legs)"),
    "loop": ModalPhysics(0.0005, solref=(0.003, 1.0), why="L: the ring's extent along x, 0.26 m"),
    "dog": ModalPhysics(0.00025, solref=(0.005, 1.0), length=0.5,
                        why="L: the leg length, the rest height of the chest (0.5 m)"),
}
# Any other creature driven by a recipe file: the settings of the dog, not checked for it.
DEFAULT = ModalPhysics(0.00025, solref=(0.005, 1.0),
                       why="L: the rest extent along x; default settings, not checked for this creature")


def physics_for(character_or_name, timestep: float | None = None) -> ModalPhysics:
    """The :class:`ModalPhysics` of a creature (a Character or its name),
    with ``timestep`` [s] replacing its step when given."""
    name = character_or_name if isinstance(character_or_name, str) else character_or_name.name
    return PHYSICS.get(name, DEFAULT).with_timestep(timestep)


def is_checked(character_or_name) -> bool:
    """Whether the creature's settings were measured (see :data:`PHYSICS`)."""
    name = character_or_name if isinstance(character_or_name, str) else character_or_name.name
    return name in PHYSICS

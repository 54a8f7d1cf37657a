"""Perturbed starts: the slightly different beginnings a runner's gait is
checked from (the ensembles of ``control.ensembles``), each drawn from
:class:`StartNoise` by its seed:

- every rotational joint coordinate moved by U(−joint, +joint) [rad] (ball
  joints by a rotation vector of such components; the free joint and slide
  joints unmoved);
- the root's forward velocity (along +x, where every runner starts heading)
  moved by U(−speed, +speed) × the commanded speed [m/s] (a runner that
  starts at its speed starts within ±5 % of it; one that starts at rest
  starts with a nudge);
- the ground contacts' sliding friction scaled by U(friction) (every geom's,
  so each contact pair's, which MuJoCo takes as the larger of the two).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError


@dataclass(frozen=True)
class StartNoise:
    """Size of a perturbed start: joint [rad] half-width of each rotational
    joint coordinate's offset; speed: half-width of the start velocity's
    offset as a fraction of the commanded speed; friction: (lo, hi) range of
    the ground friction factor."""

    joint: float = 0.01
    speed: float = 0.05
    friction: tuple[float, float] = (0.8, 1.2)

    def __post_init__(self) -> None:
        lo, hi = self.friction
        if not (math.isfinite(self.joint) and 0.0 <= self.joint <= 0.5):
            raise GaitforgeError(f"start noise: joint must be 0 to 0.5 rad, got {self.joint!r}")
        if not (math.isfinite(self.speed) and 0.0 <= self.speed <= 1.0):
            raise GaitforgeError(f"start noise: speed must be a fraction from 0 to 1, got {self.speed!r}")
        if not (math.isfinite(lo) and math.isfinite(hi) and 0.0 < lo <= hi <= 10.0):
            raise GaitforgeError(f"start noise: friction must be a range 0 < lo <= hi <= 10, got {self.friction!r}")


    def draw(self, seed: int, speed: float) -> "PerturbedStart":
        """The start this noise draws for ``seed`` at a commanded ``speed`` [m/s]."""
        return PerturbedStart(self, seed, speed)


QUIET = StartNoise(0.0, 0.0, (1.0, 1.0))  # the unperturbed start


class PerturbedStart:
    """The start drawn for ``seed``: ``apply_friction(model)`` scales the
    model's friction in place; ``__call__(model, data)`` (``sim.run``'s
    ``initial``) moves the joints and the start velocity. Seed 0 with
    :data:`QUIET` noise changes nothing."""

    def __init__(self, noise: StartNoise, seed: int, speed: float):
        rng = np.random.default_rng(seed)
        self.friction = float(rng.uniform(*noise.friction))
        self.velocity = float(rng.uniform(-noise.speed, noise.speed)) * float(speed)
        self._joint, self._rng = noise.joint, rng

    def apply_friction(self, model: mujoco.MjModel) -> None:
        model.geom_friction[:, 0] *= self.friction

    def __call__(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        dq = np.zeros(model.nv)
        for j in range(model.njnt):
            kind, a = model.jnt_type[j], model.jnt_dofadr[j]
            if kind == mujoco.mjtJoint.mjJNT_HINGE:
                dq[a] = self._rng.uniform(-self._joint, self._joint)
            elif kind == mujoco.mjtJoint.mjJNT_BALL:
                dq[a:a + 3] = self._rng.uniform(-self._joint, self._joint, 3)
        mujoco.mj_integratePos(model, data.qpos, dq, 1.0)
        if model.njnt and model.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE:
            data.qvel[model.jnt_dofadr[0]] += self.velocity



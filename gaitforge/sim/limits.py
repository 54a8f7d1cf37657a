"""Torque and joint-speed limits of a simulated creature: declared as data,
enforced on the drive torques, and reported after the run.

A runner's joints are driven by MuJoCo's joint springs and dampers (the
servos move their set points and gains) plus the controller's applied
torques (``qfrc_applied``). Their sum on a joint is the joint's *drive*:
what a motor (or a muscle) in that joint would have to produce. The limits:

- each rotational joint's drive torque |τ| ≤ ``torque`` × m g L [N m]
  (a ball joint's: the norm of its 3 components);
- each slide joint's drive force |F| ≤ ``force`` × m g [N];
- each rotational joint's angular speed |ω| ≤ ``speed`` [rad/s].

m is the creature's total mass [kg], g the model's gravity [m/s²] and L
(``length`` [m]) the creature's characteristic length, which each
controller family declares (its leg length, or the skills creatures' hip
height at rest).

Torques are *enforced*: :class:`Limiter` steps the physics one step at a
time (``mj_step1``/``mj_step2``) and, where a joint's drive (the passive
spring and damper forces MuJoCo computed for this step, plus the applied
torque) exceeds its bound, adds the difference to ``qfrc_applied`` so the
joint receives exactly the bound. Under the implicit integrators MuJoCo
also treats the joint dampers implicitly; the clip is explicit, so a
clipped step still carries the damper's implicit correction (small: the
damping force is a fraction of the drive). Joint speed is *measured*, not
enforced: slowing a joint with damping beyond a threshold would hide the
demand, not meet it, so the peak is reported and tests assert it stays
under the bound.

The joints on the first body (a free joint, or a planar creature's slides
and hinge) place the creature in the world and are not driven.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError


@dataclass(frozen=True)
class JointLimits:
    """length [m]: the characteristic length L; torque: bound on each
    rotational joint's drive torque, × m g L; force: bound on each slide
    joint's drive force, × m g; speed [rad/s]: bound on each rotational
    joint's angular speed (measured and reported, not enforced)."""

    length: float
    torque: float = 3.0
    force: float = 3.0
    speed: float = 40.0

    def __post_init__(self) -> None:
        for name in ("length", "torque", "force", "speed"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise GaitforgeError(f"joint limits: {name} must be positive, got {v!r}")

    def bounds(self, model: mujoco.MjModel) -> tuple[float, float]:
        """(torque bound [N m], force bound [N]) for ``model``'s creature:
        its total mass and gravity."""
        mg = float(model.body_mass.sum()) * float(np.linalg.norm(model.opt.gravity))
        return self.torque * mg * self.length, self.force * mg

    def __str__(self) -> str:
        return (f"limits: |τ| ≤ {self.torque:g} m g L (L = {self.length:.3g} m), |F| ≤ {self.force:g} m g, "
                f"|ω| ≤ {self.speed:g} rad/s")


@dataclass(frozen=True)
class LimitReport:
    """What a run asked of its joints against its limits: peak_torque, the
    largest drive of any joint as a fraction of its bound (torque or force)
    before clipping, and the joint; peak_speed, the largest rotational
    joint speed as a fraction of the speed bound, and the joint; clipped,
    the control ticks in which some joint's drive was clipped, of ticks;
    limits: the limits run under."""

    limits: JointLimits
    peak_torque: float
    torque_joint: str
    peak_speed: float
    speed_joint: str
    clipped: int
    ticks: int

    def __str__(self) -> str:
        return (f"joints: peak drive {self.peak_torque:.2f} of its limit ({self.torque_joint}), peak speed "
                f"{self.peak_speed:.2f} of {self.limits.speed:g} rad/s ({self.speed_joint}); "
                f"clipped in {self.clipped} of {self.ticks} ticks")


def _driven(model: mujoco.MjModel) -> list[int]:
    """Joints that are driven: every joint not on the first body."""
    return [j for j in range(model.njnt) if model.jnt_bodyid[j] != 1]


class Limiter:
    """Steps ``model`` with each joint's drive clipped to ``limits`` and
    keeps the peaks for a :class:`LimitReport`."""

    def __init__(self, model: mujoco.MjModel, limits: JointLimits):
        self.limits = limits
        torque, force = limits.bounds(model)
        names, scalar, bound, ball, speed_dofs = [], [], [], [], []
        for j in _driven(model):
            kind, a = int(model.jnt_type[j]), int(model.jnt_dofadr[j])
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint {j}"
            if kind == mujoco.mjtJoint.mjJNT_BALL:
                ball.append((a, name))
            elif kind in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
                scalar.append((a, name))
                bound.append(force if kind == mujoco.mjtJoint.mjJNT_SLIDE else torque)
                if kind == mujoco.mjtJoint.mjJNT_HINGE:
                    speed_dofs.append((a, name))
            names.append(name)
        self._sdof = np.array([a for a, _ in scalar], int)
        self._sname = [n for _, n in scalar]
        self._sbound = np.array(bound, float)
        self._bdof = np.array([[a, a + 1, a + 2] for a, _ in ball], int).reshape(-1, 3)
        self._bname = [n for _, n in ball]
        self._ball_bound = torque
        self._wdof = np.array([a for a, _ in speed_dofs], int)
        self._wname = [n for _, n in speed_dofs]
        self._peak_t, self._peak_tj = 0.0, "-"
        self._peak_w, self._peak_wj = 0.0, "-"
        self.clipped = self.ticks = 0

    def step(self, model: mujoco.MjModel, data: mujoco.MjData, nstep: int) -> None:
        """``nstep`` physics steps with the drives clipped; the controller's
        ``qfrc_applied`` is restored afterwards (it may read it back)."""
        applied = data.qfrc_applied.copy()
        clipped = False
        for _ in range(nstep):
            mujoco.mj_step1(model, data)
            tau = data.qfrc_passive + applied
            corr = np.zeros(model.nv)
            if len(self._sdof):
                t = tau[self._sdof]
                ratio = np.abs(t) / self._sbound
                i = int(np.argmax(ratio))
                if ratio[i] > self._peak_t:
                    self._peak_t, self._peak_tj = float(ratio[i]), self._sname[i]
                over = ratio > 1.0
                if over.any():
                    clipped = True
                    corr[self._sdof[over]] = np.sign(t[over]) * self._sbound[over] - t[over]
            if len(self._bdof):
                t3 = tau[self._bdof]
                norm = np.sqrt((t3 * t3).sum(axis=1))
                i = int(np.argmax(norm))
                if norm[i] / self._ball_bound > self._peak_t:
                    self._peak_t, self._peak_tj = float(norm[i] / self._ball_bound), self._bname[i]
                over = norm > self._ball_bound
                if over.any():
                    clipped = True
                    scale = self._ball_bound / norm[over] - 1.0
                    corr[self._bdof[over]] = t3[over] * scale[:, None]
            data.qfrc_applied[:] = applied + corr
            mujoco.mj_step2(model, data)
            self._speeds(data)
        data.qfrc_applied[:] = applied
        self.ticks += 1
        self.clipped += clipped

    def _speeds(self, data: mujoco.MjData) -> None:
        v = data.qvel
        if len(self._wdof):
            w = np.abs(v[self._wdof])
            i = int(np.argmax(w))
            if w[i] / self.limits.speed > self._peak_w:
                self._peak_w, self._peak_wj = float(w[i] / self.limits.speed), self._wname[i]
        if len(self._bdof):
            w3 = v[self._bdof]
            w = np.sqrt((w3 * w3).sum(axis=1))
            i = int(np.argmax(w))
            if w[i] / self.limits.speed > self._peak_w:
                self._peak_w, self._peak_wj = float(w[i] / self.limits.speed), self._bname[i]

    def report(self) -> LimitReport:
        """The peaks and clip count so far."""
        return LimitReport(self.limits, self._peak_t, self._peak_tj, self._peak_w, self._peak_wj,
                           self.clipped, self.ticks)


def limits_of(controller: object) -> JointLimits | None:
    """The controller's declared ``joint_limits`` (None: it declares none)."""
    limits = getattr(controller, "joint_limits", None)
    if limits is not None and not isinstance(limits, JointLimits):
        raise GaitforgeError(f"joint_limits must be a JointLimits, got {type(limits).__name__}")
    return limits

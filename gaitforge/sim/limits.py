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
joint receives exactly the bound. The clip is explicit: under MuJoCo's
implicit integrators a clipped step still carries the implicit part of the
joint's damper (``discrete``: of its spring too); what the joints received
is read back from the equation of motion in
``tests/test_joint_torques_only.py``. Joint speed is enforced by a
torque–speed envelope, as a motor's or a muscle's: a rotational joint's
drive *along its motion* may be its full bound up to 90 % of the speed
limit and falls linearly to zero at the limit (:data:`TAPER`), so no drive
speeds a joint past its limit; drive against the motion (braking) is never
reduced. Gravity, contacts and the other joints can still carry a joint
past the limit, so the peak speed is reported and tests bound it (each
step's speed is read at its start).

The joints on the first body (a free joint, or a planar creature's slides
and hinge) place the creature in the world and are not driven.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Mapping

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError

TAPER = 0.1  # share of the speed limit over which a joint's drive along its motion fades to zero


@dataclass(frozen=True)
class JointLimits:
    """length [m]: the characteristic length L; torque: bound on each
    rotational joint's drive torque, × m g L; force: bound on each slide
    joint's drive force, × m g; speed [rad/s]: bound on each rotational
    joint's angular speed (the drive along the motion fades to zero at it;
    the peak reached is reported)."""

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
    joints: each driven joint's (peak drive, peak speed) as those fractions
    (a slide's speed: nan); limits: the limits run under."""

    limits: JointLimits
    peak_torque: float
    torque_joint: str
    peak_speed: float
    speed_joint: str
    clipped: int
    ticks: int
    joints: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def __str__(self) -> str:
        return (f"joints: peak drive {self.peak_torque:.2f} of its limit ({self.torque_joint}), peak speed "
                f"{self.peak_speed:.2f} of {self.limits.speed:g} rad/s ({self.speed_joint}); "
                f"clipped in {self.clipped} of {self.ticks} ticks")


def _clip(passive, applied, qvel, sdof, sbound, srot, bdof, bbound, wbound, out, drive, speed) -> bool:
    """One physics step's clip: ``out`` (qfrc_applied (nv,)) = ``applied``
    (the controller's, (nv,)) plus, on each joint whose drive (``passive``
    + ``applied``) exceeds its bound, what brings the drive to the bound.
    Scalar joints: DOFs ``sdof``, bounds ``sbound`` [N m or N], ``srot``
    true for hinges (whose speed counts and whose drive along the motion
    follows the torque–speed envelope of ``wbound`` [rad/s]); ball joints:
    first DOFs ``bdof``, bound ``bbound`` [N m] on the norm, the envelope
    on the drive's component along the rotation. ``drive`` and ``speed``
    (per joint, scalar joints first) keep the peaks as fractions of the
    bounds (the drive before any clip), the speed (``qvel`` at the step's
    start) of ``wbound``. Returns whether any drive was clipped. Compiled
    with numba where available."""
    out[:] = applied
    clipped = False
    ns = sdof.shape[0]
    for i in range(ns):
        a = sdof[i]
        t = passive[a] + applied[a]
        r = abs(t) / sbound[i]
        if r > drive[i]:
            drive[i] = r
        cap = sbound[i]
        if srot[i]:
            w = abs(qvel[a])
            if w / wbound > speed[i]:
                speed[i] = w / wbound
            if t * qvel[a] > 0.0:
                cap *= min(1.0, max(0.0, (wbound - w) / (TAPER * wbound)))  # the torque–speed envelope
        if abs(t) > cap:
            out[a] = applied[a] + math.copysign(cap, t) - t
            clipped = True
    for k in range(bdof.shape[0]):
        a = bdof[k]
        t0, t1, t2 = passive[a] + applied[a], passive[a + 1] + applied[a + 1], passive[a + 2] + applied[a + 2]
        r = math.sqrt(t0 * t0 + t1 * t1 + t2 * t2) / bbound
        if r > drive[ns + k]:
            drive[ns + k] = r
        c0, c1, c2 = t0, t1, t2
        if r > 1.0:
            c0, c1, c2 = t0 / r, t1 / r, t2 / r
        w0, w1, w2 = qvel[a], qvel[a + 1], qvel[a + 2]
        w = math.sqrt(w0 * w0 + w1 * w1 + w2 * w2)
        if w / wbound > speed[ns + k]:
            speed[ns + k] = w / wbound
        if w > 0.0:
            along = (c0 * w0 + c1 * w1 + c2 * w2) / w  # the drive's component along the rotation [N m]
            cap = bbound * min(1.0, max(0.0, (wbound - w) / (TAPER * wbound)))
            if along > cap:
                f = (along - cap) / w
                c0, c1, c2 = c0 - f * w0, c1 - f * w1, c2 - f * w2
        if c0 != t0 or c1 != t1 or c2 != t2:
            out[a] += c0 - t0
            out[a + 1] += c1 - t1
            out[a + 2] += c2 - t2
            clipped = True
    return clipped


_COMPILED: list = []


def _clip_kernel():
    """``_clip`` compiled by numba (once, on first use, so that numba's cache
    folder is the one the controllers' kernels set up, ``gaitforge.jit``);
    itself under ``GAITFORGE_NO_JIT=1``."""
    if not _COMPILED:
        if os.environ.get("GAITFORGE_NO_JIT", "") in ("1", "true", "yes"):
            _COMPILED.append(_clip)
        else:
            import numba

            _COMPILED.append(numba.njit(cache=True)(_clip))
    return _COMPILED[0]


class Limiter:
    """Steps ``model`` with each joint's drive clipped to ``limits`` and
    keeps the peaks for a :class:`LimitReport`. The joints not on the first
    body are driven: hinges and slides (one DOF each), balls (three)."""

    def __init__(self, model: mujoco.MjModel, limits: JointLimits):
        self.limits = limits
        torque, force = limits.bounds(model)
        scalar, ball = [], []
        for j in range(model.njnt):
            if model.jnt_bodyid[j] == 1:
                continue
            kind, a = int(model.jnt_type[j]), int(model.jnt_dofadr[j])
            name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_JOINT, j) or f"joint {j}"
            if kind == mujoco.mjtJoint.mjJNT_BALL:
                ball.append((a, name))
            elif kind in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
                scalar.append((a, name, kind == mujoco.mjtJoint.mjJNT_SLIDE))
        self._sdof = np.array([a for a, _, _ in scalar], np.int64)
        self._sbound = np.array([force if slide else torque for _, _, slide in scalar], float)
        self._srot = np.array([not slide for _, _, slide in scalar], np.bool_)  # speeds of hinges only
        self._bdof = np.array([a for a, _ in ball], np.int64)
        self._ball_bound = float(torque)
        self._names = [n for _, n, _ in scalar] + [n for _, n in ball]
        self._drive = np.zeros(len(self._names))  # per joint: peak drive / bound
        self._speed = np.zeros(len(self._names))  # per joint: peak speed / speed bound
        self.clipped = self.ticks = 0
        self._kernel = _clip_kernel()

    def step(self, model: mujoco.MjModel, data: mujoco.MjData, nstep: int) -> None:
        """``nstep`` physics steps with the drives clipped; the controller's
        ``qfrc_applied`` is restored afterwards (it may read it back)."""
        applied = data.qfrc_applied.copy()
        clipped = False
        args = (self._sdof, self._sbound, self._srot, self._bdof, self._ball_bound, float(self.limits.speed),
                data.qfrc_applied, self._drive, self._speed)
        for _ in range(nstep):
            mujoco.mj_step1(model, data)
            clipped |= self._kernel(data.qfrc_passive, applied, data.qvel, *args)
            mujoco.mj_step2(model, data)
        data.qfrc_applied[:] = applied
        self.ticks += 1
        self.clipped += clipped

    def report(self) -> LimitReport:
        """The peaks and clip count so far."""
        if not self._names:
            return LimitReport(self.limits, 0.0, "-", 0.0, "-", self.clipped, self.ticks)
        i, k = int(np.argmax(self._drive)), int(np.argmax(self._speed))
        ns = len(self._sdof)
        joints = {n: (float(self._drive[j]), float(self._speed[j]) if j >= ns or self._srot[j] else math.nan)
                  for j, n in enumerate(self._names)}
        return LimitReport(self.limits, float(self._drive[i]), self._names[i], float(self._speed[k]),
                           self._names[k], self.clipped, self.ticks, joints)


def limits_of(controller: object) -> JointLimits | None:
    """The controller's declared ``joint_limits`` (None: it declares none)."""
    limits = getattr(controller, "joint_limits", None)
    if limits is not None and not isinstance(limits, JointLimits):
        raise GaitforgeError(f"joint_limits must be a JointLimits, got {type(limits).__name__}")
    return limits

"""Measures of a modal-control rollout: travel, speed, cost of transport and
how cyclic the motion became (the constraint of Nunes et al. 2012, surveyed
in Kry 2012 §4.5, and the "non-cyclic" regions of the worm landscape,
Kry 2012 §4.3 Fig. 4)."""
from __future__ import annotations

import math
from typing import NamedTuple

import mujoco
import numpy as np

from gaitforge.control.modal.rollout import ModalRollout
from gaitforge.errors import GaitforgeError
from gaitforge.constants import GRAVITY as G

# Cycle residual above which a motion counts as non-cyclic. Unrelated states of
# the motion give √2 (see cycle_residual); 0.2 means consecutive cycles start
# within 0.2/√2 ≈ 14 % of that distance, i.e. 2 % of its square: the motion
# repeats, up to the small drift a chaotic contact sequence leaves.
CYCLIC_TOLERANCE = 0.2
CYCLES = 5  # cycle starts compared by default (the last 5 cycles: 6 starts)
# Per group of the state, a spread [group's units] below which it counts as not
# moving (so that a creature at rest is cyclic, not 0/0).
_FLOORS = {"joint angles": 1e-3, "joint speeds": 1e-2, "height": 1e-4, "orientation": 1e-3, "root velocity": 1e-3}


def state_features(model: mujoco.MjModel, rest_qpos: np.ndarray, qpos: np.ndarray,
                   qvel: np.ndarray) -> dict[str, np.ndarray]:
    """The state (K rows of qpos (K, nq) and qvel (K, nv)) as the groups the
    cycle residual compares, each (K, n): joint angles (every non-free
    joint's coordinates relative to the rest pose, ball joints as rotation
    vectors [rad]), joint speeds [rad/s], the root's height [m], its
    orientation as the up direction seen from the root (3; yaw does not
    count, so a gait that turns can still repeat) and the root's velocity in
    its own frame (linear [m/s], angular [rad/s])."""
    qpos, qvel = np.atleast_2d(qpos), np.atleast_2d(qvel)
    free = [j for j in range(model.njnt) if int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_FREE)]
    free_dofs = np.concatenate([np.arange(model.jnt_dofadr[j], model.jnt_dofadr[j] + 6) for j in free]) \
        if free else np.zeros(0, int)
    joint_dofs = np.setdiff1d(np.arange(model.nv), free_dofs)
    diff = np.empty((len(qpos), model.nv))
    for k in range(len(qpos)):
        mujoco.mj_differentiatePos(model, diff[k], 1.0, rest_qpos, qpos[k])
    out = {"joint angles": diff[:, joint_dofs], "joint speeds": qvel[:, joint_dofs]}
    if free:
        a, v = int(model.jnt_qposadr[free[0]]), int(model.jnt_dofadr[free[0]])
        w, x, y, z = (qpos[:, a + 3 + i] for i in range(4))
        # rows of the root's rotation matrix R (world from body); R^T e_z is the third row
        up = np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1)
        r0 = np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], axis=1)
        r1 = np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], axis=1)
        lin = qvel[:, v:v + 3]
        local = np.stack([np.sum(r0 * lin, 1), np.sum(r1 * lin, 1), np.sum(up * lin, 1)], axis=1)  # R^T v
        out["height"] = qpos[:, a + 2:a + 3]
        out["orientation"] = up
        out["root velocity"] = np.column_stack([local, qvel[:, v + 3:v + 6]])
    return out


def cycle_residual(r: ModalRollout, period: float | None = None, *, cycles: int = CYCLES) -> float:
    """How far the motion is from repeating, cycle after cycle: 0 when the
    state at the start of each of the last ``cycles`` gait cycles equals the
    state one ``period`` [s] before (default: the controller's cycle; a
    multiple of it compares every k-th start), √2 on average when
    consecutive starts are unrelated states of the motion.

    The state (:func:`state_features`): joint angles and speeds, the root's
    height, orientation and body-frame velocity, taken at the first physics
    step of each cycle (``ModalRollout.cycle_qpos``/``cycle_qvel``). Per
    group g, the mean squared change between consecutive starts is divided
    by the group's variance over every recorded frame of those cycles (plus
    a floor), so that two independent draws give 2; the residual is the
    square root of the mean over the groups. Returns inf when the rollout
    diverged, kept no cycle states, or is shorter than ``cycles`` + 1 cycle
    starts.
    """
    times, cq, cv, qvel, rest = r.cycle_times, r.cycle_qpos, r.cycle_qvel, r.qvel, r.rest_qpos
    if (not r.ok or times is None or cq is None or cv is None or qvel is None or rest is None or r.model is None
            or len(times) < 2 or not math.isfinite(r.period)):
        return math.inf
    lag = 1
    if period is not None:
        if not (math.isfinite(period) and period > 0):
            return math.inf
        lag = int(round(period / r.period))
        if lag < 1 or abs(lag * r.period - period) > 1e-6 * period:
            raise GaitforgeError(f"the rollout kept its state every {r.period:.6g} s; a period of {period:.6g} s "
                                 "is not a multiple of that")
    need = cycles * lag + 1
    if len(times) < need:
        return math.inf
    model = r.model
    starts = slice(len(times) - need, None, lag)
    boundary = state_features(model, rest, cq[starts], cv[starts])
    t = r.clip.times
    window = t >= times[-need] - 1e-9
    frames = state_features(model, rest, r.clip.qpos[window], qvel[window])
    total = 0.0
    for name, x in boundary.items():
        change = float(np.mean(np.sum(np.diff(x, axis=0) ** 2, axis=1)))
        spread = float(np.sum(np.var(frames[name], axis=0))) + x.shape[1] * _FLOORS[name] ** 2
        total += change / spread
    return float(math.sqrt(total / len(boundary)))


class Summary(NamedTuple):
    """distance [m] horizontal CoM travel; dx [m] signed travel along x;
    speed [m/s] distance over the run's duration; work [J] absolute work of
    the joint drive; cost_of_transport work / (m g distance)
    (dimensionless; inf with no travel); cyclic residual (see
    :func:`cycle_residual`); body_lengths distance / body length;
    diverged: the divergence report or None; penetration [m] the deepest
    ground contact; contact_radius [m] the thinnest geom that touched;
    peak_torque the largest joint drive torque / (m g L); peak_joint_speed
    [rad/s]; limited and over_speed: fractions of the steps in which a
    joint's drive was limited and in which a joint ran over its speed limit
    (nan where the controller reports no drive)."""

    distance: float
    dx: float
    speed: float
    work: float
    cost_of_transport: float
    cycle_residual: float
    body_lengths: float
    diverged: str | None
    penetration: float = 0.0
    contact_radius: float = math.inf
    peak_torque: float = math.nan
    peak_joint_speed: float = math.nan
    limited: float = math.nan
    over_speed: float = math.nan


def summarize(r: ModalRollout, mass: float, period: float | None = None) -> Summary:
    """The :class:`Summary` of rollout ``r`` of a creature of ``mass`` [kg];
    ``period`` [s] the cycle the residual compares (default the
    controller's)."""
    dist = r.distance if r.ok else 0.0
    dur = max(r.clip.duration, 1e-9)
    work = float(r.work[-1])
    cot = work / (mass * G * dist) if dist > 1e-9 else math.inf
    peaks, lim = r.peaks or {}, r.limits
    steps = dur / r.rollout.physics.timestep if r.rollout.physics is not None else math.nan
    torque = peaks["torque"] / lim.mgl if peaks and lim is not None else math.nan
    return Summary(dist, float(r.displacement[0]) if r.ok else 0.0, dist / dur, work, cot,
                   cycle_residual(r, period), dist / r.body_length, None if r.ok else str(r.divergence),
                   r.penetration, r.contact_radius, torque, peaks.get("speed", math.nan),
                   peaks.get("clipped_steps", math.nan) / steps, peaks.get("over_speed_steps", math.nan) / steps)


def limits_report(s: Summary, limits) -> str:
    """One line: the run's peak joint torque and speed against ``limits``
    (``physics.JointLimits``) and its deepest ground contact."""
    sink = (f"deepest contact {1000 * s.penetration:.1f} mm (thinnest geom touching: radius "
            f"{1000 * s.contact_radius:.1f} mm)" if math.isfinite(s.contact_radius) else "no ground contact")
    if limits is None or math.isnan(s.peak_torque):
        return sink
    return (f"peak joint torque {s.peak_torque:.3g} m g L (limit {limits.torque / limits.mgl:g}; limited in "
            f"{100 * s.limited:.1f} % of steps), peak joint speed {s.peak_joint_speed:.3g} rad/s (limit "
            f"{limits.speed:g}; over it in {100 * s.over_speed:.1f} % of steps), {sink}")


def scalar_qpos(model: mujoco.MjModel) -> np.ndarray:
    """qpos addresses (h,) of the hinge and slide joints of ``model``."""
    kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    return np.array([model.jnt_qposadr[j] for j in range(model.njnt) if int(model.jnt_type[j]) in kinds], int)

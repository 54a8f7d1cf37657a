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

G = 9.81  # m/s²
# Cycle residual above which a motion counts as non-cyclic: consecutive cycles
# differ by as much as the motion's own spread (uncorrelated cycles give √2).
CYCLIC_TOLERANCE = 1.0


def cycle_residual(r: ModalRollout, period: float, *, cycles: int = 2) -> float:
    """How far the last ``cycles`` periods are from repeating (0: exactly).

    Features per frame: every scalar joint angle (hinge, slide) and the
    centre-of-mass height. The residual is the RMS of x(t) − x(t − P) over
    the last ``cycles`` periods P [s], divided by the RMS spread of x about
    its mean in that window (plus a small floor, 1e-3, so that a creature at
    rest is cyclic): dimensionless. Returns inf when the rollout diverged or
    is shorter than ``cycles + 1`` periods.
    """
    clip = r.clip
    if not r.ok or not (math.isfinite(period) and period > 0):
        return math.inf
    span = (cycles + 1) * period
    if clip.duration < span:
        return math.inf
    t = clip.times
    x = _features(r)
    window = t >= t[-1] - cycles * period
    lagged = np.stack([np.interp(t[window] - period, t, x[:, j]) for j in range(x.shape[1])], axis=1)
    diff = x[window] - lagged
    spread = x[window] - x[window].mean(axis=0)
    return float(np.sqrt(np.mean(diff ** 2)) / (np.sqrt(np.mean(spread ** 2)) + 1e-3))


def _features(r: ModalRollout) -> np.ndarray:
    """(T, h + 1): scalar joint coordinates and the centre-of-mass height."""
    q = r.clip.qpos
    cols = r.scalar_qpos if r.scalar_qpos is not None else np.arange(7, q.shape[1])
    return np.column_stack([q[:, cols], r.com[:, 2]])


class Summary(NamedTuple):
    """distance [m] horizontal CoM travel; dx [m] signed travel along x;
    speed [m/s] distance over the run's duration; work [J] absolute work of
    the moving spring reference; cost_of_transport work / (m g distance)
    (dimensionless; inf with no travel); cyclic residual (see
    :func:`cycle_residual`); body_lengths distance / body length;
    diverged: the divergence report or None."""

    distance: float
    dx: float
    speed: float
    work: float
    cost_of_transport: float
    cycle_residual: float
    body_lengths: float
    diverged: str | None


def summarize(r: ModalRollout, mass: float, period: float) -> Summary:
    """The :class:`Summary` of rollout ``r`` of a creature of ``mass`` [kg]
    driven with period ``period`` [s]."""
    dist = r.distance if r.ok else 0.0
    dur = max(r.clip.duration, 1e-9)
    work = float(r.work[-1])
    cot = work / (mass * G * dist) if dist > 1e-9 else math.inf
    return Summary(dist, float(r.displacement[0]) if r.ok else 0.0, dist / dur, work, cot,
                   cycle_residual(r, period), dist / r.body_length, None if r.ok else str(r.divergence))


def scalar_qpos(model: mujoco.MjModel) -> np.ndarray:
    """qpos addresses (h,) of the hinge and slide joints of ``model``."""
    kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
    return np.array([model.jnt_qposadr[j] for j in range(model.njnt) if int(model.jnt_type[j]) in kinds], int)

"""The compiled loops of the grounding (:mod:`gaitforge.motion.grounding`):
flight runs, flight parabolas, the stance rule's steps and the flights'
horizontal steps. Each runs over a clip's frames with a branch per frame;
as array code each took several numpy calls per flight, and a speed
suggestion grounds a few hundred clips. Plain arrays in and out
(:mod:`gaitforge.jit`); the checks of their inputs stay with the
public functions in :mod:`gaitforge.motion.grounding`.
"""
from __future__ import annotations

import numpy as np

from gaitforge.jit import kernel


@kernel
def stance_steps(P: np.ndarray, down: np.ndarray, out: np.ndarray) -> None:
    """:func:`~gaitforge.motion.grounding.stance_velocity_offsets`, compiled: out (T, 2), row 0 left as given."""
    T, F = down.shape
    w = np.empty(F)
    acc0, acc1 = out[0, 0], out[0, 1]
    for t in range(T - 1):
        total = 0.0
        for f in range(F):
            w[f] = 1.0 if (down[t + 1, f] and down[t, f]) else 0.0
            total += w[f]
        if total == 0.0:  # nobody down in both frames: the feet carrying the weight next
            for f in range(F):
                w[f] = 1.0 if down[t + 1, f] else 0.0
                total += w[f]
        s0, s1 = 0.0, 0.0
        if total > 0.0:
            for f in range(F):
                wf = w[f] / total
                s0 += wf * (P[t + 1, f, 0] - P[t, f, 0])
                s1 += wf * (P[t + 1, f, 1] - P[t, f, 1])
        acc0 -= s0
        acc1 -= s1
        out[t + 1, 0], out[t + 1, 1] = acc0, acc1


@kernel
def run_bounds(air: np.ndarray) -> np.ndarray:
    """(n, 2) int64: first and last frame of each flight :func:`~gaitforge.motion.grounding.flight_runs` keeps."""
    T = air.shape[0]
    out = np.empty((T // 2 + 1, 2), np.int64)
    n, t = 0, 0
    while t < T:
        if not air[t]:
            t += 1
            continue
        start = t
        while t < T and air[t]:
            t += 1
        if start >= 2 and t <= T - 1:  # a frame before take-off and a touchdown frame in the clip
            out[n, 0], out[n, 1] = start, t - 1
            n += 1
    return out[:n]


@kernel
def parabolas(lowest: np.ndarray, root_z: np.ndarray, air: np.ndarray, dt: float, g: float,
              off: np.ndarray, flying: np.ndarray) -> None:
    """:func:`~gaitforge.motion.grounding.ballistic_heights`, compiled, into
    ``off`` and ``flying`` (``air`` is consumed)."""
    T = lowest.shape[0]
    while True:
        for i in range(T):
            off[i], flying[i] = -lowest[i], False
        runs = run_bounds(air)
        for r in range(runs.shape[0]):
            a, b = runs[r, 0], runs[r, 1]
            t0, t1 = a - 1, b + 1
            tau = (t1 - t0) * dt
            z0, z1 = root_z[t0] - lowest[t0], root_z[t1] - lowest[t1]
            v0 = (z1 - z0) / tau + 0.5 * g * tau
            for i in range(a, b + 1):
                s = (i - a + 1) * dt
                off[i] = z0 + v0 * s - 0.5 * g * s * s - root_z[i]
                flying[i] = True
        clash = False
        for i in range(T):
            if flying[i] and lowest[i] + off[i] <= 0.0:
                clash = True
        if not clash:
            return
        for i in range(T):  # frames that would sink a contact point are stance after all
            air[i] = flying[i] and not lowest[i] + off[i] <= 0.0


@kernel
def flight_steps(offset: np.ndarray, root_xy: np.ndarray, runs: np.ndarray, windows: np.ndarray, windowed: bool,
                 out: np.ndarray) -> None:
    """:func:`~gaitforge.motion.grounding.flight_offsets`, compiled, into ``out`` (T, 2)."""
    T = offset.shape[0]
    move = np.empty((max(T - 1, 0), 2))
    raw = np.empty((max(T - 1, 0), 2))
    for t in range(T - 1):
        for j in range(2):
            move[t, j] = offset[t + 1, j] - offset[t, j]
            raw[t, j] = root_xy[t + 1, j] - root_xy[t, j]
    flying = np.zeros(T, np.bool_)
    for r in range(runs.shape[0]):
        for t in range(runs[r, 0], runs[r, 1] + 1):
            flying[t] = True
    for r in range(runs.shape[0]):
        a, b = runs[r, 0], runs[r, 1]
        s0, s1 = raw[a - 2, 0] + move[a - 2, 0], raw[a - 2, 1] + move[a - 2, 1]
        if windowed:  # the mean of the steps taken wholly in stance in the run's stride (never rewritten here)
            lo, hi = max(windows[r, 0], 0), min(windows[r, 1], T - 1)
            n, m0, m1 = 0, 0.0, 0.0
            for t in range(lo, hi):
                if not flying[t] and not flying[t + 1]:
                    m0 += raw[t, 0] + move[t, 0]
                    m1 += raw[t, 1] + move[t, 1]
                    n += 1
            if n:
                s0, s1 = m0 / n, m1 / n
        for t in range(a - 1, b + 1):
            move[t, 0], move[t, 1] = s0 - raw[t, 0], s1 - raw[t, 1]
    if T:
        out[0, 0], out[0, 1] = offset[0, 0], offset[0, 1]
    acc0, acc1 = 0.0, 0.0
    for t in range(T - 1):
        acc0 += move[t, 0]
        acc1 += move[t, 1]
        out[t + 1, 0], out[t + 1, 1] = offset[0, 0] + acc0, offset[0, 1] + acc1

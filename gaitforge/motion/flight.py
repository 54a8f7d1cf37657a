"""Flights and smoothing of the grounding step (:mod:`gaitforge.motion.grounding`):
the runs of flight frames, the ballistic parabolas a body point follows
between take-off and touchdown, the horizontal velocity it keeps across a
flight, and the smoothers that join the stance to the arcs so that the
velocity runs on into and out of them (:func:`smooth_stance` with the arcs
fixed, :func:`smooth_ballistic` with them free). Pure array maths on paths
(T, 3) [m]; nothing here knows a creature."""
from __future__ import annotations

import math

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.grounding_kernels import flight_steps, parabolas, run_bounds
from gaitforge.constants import GRAVITY

__all__ = ["GRAVITY", "SMOOTH_HZ", "ballistic_heights", "flight_offsets", "flight_runs", "smooth_ballistic",
           "smooth_stance", "smoothstep", "stride_window"]

SMOOTH_HZ = 3.0           # [Hz] half-power cutoff of the stance smoothing in a clip that flies


def flight_runs(airborne: np.ndarray) -> list[tuple[int, int]]:
    """Flights (first, last frame, inclusive) of an (T,) bool mask that have
    a take-off frame with a frame before it and a touchdown frame in the
    clip: runs touching either end of the clip, or starting at frame 1, are
    left out."""
    return [(int(a), int(b)) for a, b in run_bounds(np.asarray(airborne, np.bool_).reshape(-1))]


def ballistic_heights(lowest: np.ndarray, root_z: np.ndarray, airborne: np.ndarray, dt: float,
                      g: float = GRAVITY) -> tuple[np.ndarray, np.ndarray]:
    """Vertical root offsets (T,) [m] and the flight frames (T,) bool kept.

    lowest (T,) [m]: each frame's lowest contact point before the offset;
    root_z (T,) [m]: the root body's height before it; airborne (T,) bool:
    frames that may fly; dt [s] between frames. Stance frames get −lowest
    (the lowest point on the ground); each flight run (:func:`flight_runs`)
    puts the root on the parabola of gravity g [m/s²] from its take-off
    height to its touchdown height. Frames where that sinks a contact point
    to z ≤ 0 become stance, and the parabolas are drawn again.
    """
    lowest, root_z = np.asarray(lowest, float), np.asarray(root_z, float)
    air = np.asarray(airborne, np.bool_)
    if not lowest.shape == root_z.shape == air.shape or lowest.ndim != 1:
        raise GaitforgeError(f"ballistic_heights: lowest, root_z and airborne must be (T,) alike, "
                             f"got {lowest.shape}, {root_z.shape}, {air.shape}")
    off, flying = np.empty(len(lowest)), np.zeros(len(lowest), np.bool_)
    parabolas(lowest, root_z, air.copy(), float(dt), float(g), off, flying)
    return off, flying


def flight_offsets(offset: np.ndarray, root_xy: np.ndarray, runs, windows=None) -> np.ndarray:
    """Horizontal root offsets (T, 2) [m] redone so that the root (root_xy
    (T, 2) before the offset, plus the offset) crosses each flight run, into
    its touchdown frame, at a constant horizontal velocity.

    runs: (first, last) flight frames, as :func:`flight_runs` gives them;
    windows: for each run, the frames [lo, hi) of the stride around it;
    the flight then keeps the mean velocity of the stance steps in that
    stride (a stance rule's velocity swings through the stance as the legs
    sweep, so the step into the take-off frame can be far off the mean: a
    flight that kept it left the stance smoothing to make up the difference
    in a few frames, up to 25 g horizontally in a fast gallop). None: the
    step into the take-off frame (a run without stance steps in its window
    keeps that too)."""
    offset, root_xy = np.asarray(offset, float), np.asarray(root_xy, float)
    bounds = np.array(list(runs), np.int64).reshape(-1, 2)
    wins = np.zeros((len(bounds), 2), np.int64) if windows is None else np.array(windows, np.int64).reshape(-1, 2)
    if offset.shape != root_xy.shape or offset.ndim != 2 or offset.shape[1] != 2 or len(wins) != len(bounds):
        raise GaitforgeError(f"flight_offsets: offset and root_xy must be (T, 2) alike and windows one per run, "
                             f"got {offset.shape}, {root_xy.shape}, {len(wins)} windows for {len(bounds)} runs")
    out = np.empty_like(offset)
    flight_steps(offset, root_xy, bounds, wins, windows is not None, out)
    return out


def smoothstep(s):
    """3s² − 2s³ of s clipped to [0, 1] (scalar or array): an ease from 0 to
    1 with zero slope at both ends."""
    s = np.clip(s, 0.0, 1.0)
    return s * s * (3.0 - 2.0 * s)


def stride_window(middle: float, frames: float) -> tuple[int, int]:
    """Frames [lo, hi) of the stride of ``frames`` frames centred on frame ``middle``."""
    return int(round(middle - 0.5 * frames)), int(round(middle + 0.5 * frames)) + 1


def _second_difference_normal(x: np.ndarray, lam: float) -> np.ndarray:
    """(I + λ D2ᵀD2) x for x (T, k): D2 (T−2, T) takes second differences."""
    y = np.diff(x, 2, axis=0)
    out = x.copy()
    out[:-2] += lam * y
    out[1:-1] -= 2 * lam * y
    out[2:] += lam * y
    return out


def smooth_stance(p: np.ndarray, airborne: np.ndarray, dt: float, cutoff: float = SMOOTH_HZ, *,
                  whole: bool = False) -> np.ndarray:
    """The path (T, 3) [m] nearest to p in stance whose accelerations are smooth.

    p (T, 3) [m]: the centre of mass on its flight arcs (airborne (T,) bool:
    whole flights, as :func:`flight_runs` gives them) and on the stance rule
    elsewhere; dt [s] between frames. Flight frames keep their arcs and
    take-off and touchdown frames their place (the arcs' ends); the other
    stance frames x minimize

        Σ_stance |x_t − p_t|² + λ Σ_t |x_{t+1} − 2 x_t + x_{t−1}|²

    over all frames (a Whittaker–Henderson / Hodrick–Prescott smoother with
    the flights as fixed values). The second-difference sum runs across
    take-off and touchdown, so the stance velocity meets the flight's
    instead of jumping, and a kink where the lowest foot changes is rounded
    off too. λ = 1 / (2 − 2 cos 2π f_c dt)² puts the smoother's half-power
    point at ``cutoff`` f_c [Hz]: slower motion of the stance rule passes,
    faster is what the ground reaction would have to supply in an instant.
    A banded linear solve: x is a linear, continuous function of p.
    Without flights p is returned as it is, unless ``whole``: then all of
    it is smoothed (a speed ramp's walk and flightless gallop, whose stance
    rule jerks where the feet down change, :mod:`gaitforge.motion.ramp`).
    """
    from scipy.linalg import solveh_banded

    p = np.asarray(p, float)
    T = len(p)
    fixed = np.zeros(T, bool)
    for a, b in flight_runs(airborne):
        fixed[a - 1:b + 2] = True  # with the take-off and touchdown frames, which the arcs start and end at
    if not (fixed.any() or whole) or T < 3:
        return p.copy()
    lam = 1.0 / (2.0 - 2.0 * math.cos(2.0 * math.pi * cutoff * dt)) ** 2
    # I + λ D2ᵀD2 in upper banded storage: ab[2 − d, j] = A[j − d, j]
    ab = np.zeros((3, T))
    ab[2] = 1.0
    c = (1.0, -2.0, 1.0)
    rows = np.arange(T - 2)
    for i in range(3):
        for k in range(i, 3):
            np.add.at(ab[2 - (k - i)], rows + k, lam * c[i] * c[k])
    # the flights are known: move their columns to the right-hand side
    known = np.where(fixed[:, None], p, 0.0)
    rhs = np.where(fixed[:, None], p, p - _second_difference_normal(known, lam))
    for d in (1, 2):
        ab[2 - d, d:][fixed[d:] | fixed[:-d]] = 0.0
    ab[2, fixed] = 1.0
    out = solveh_banded(ab, rhs)
    out[fixed] = p[fixed]  # (exactly: their equations are x = p)
    return out


def smooth_ballistic(p: np.ndarray, airborne: np.ndarray, dt: float, cutoff: float = SMOOTH_HZ,
                     g: float = GRAVITY) -> np.ndarray:
    """The path (T, 3) [m] nearest to p in stance whose accelerations are
    smooth, and ballistic in flight: like :func:`smooth_stance` with
    ``whole``, but the flights (airborne (T,) bool, whole flights as
    :func:`flight_runs` gives them) are not held on p's arcs: in each the
    second differences centred on its frames are −g dt² ẑ (a parabola of
    gravity g [m/s²] from the take-off frame to the touchdown frame) and
    its height and reach are free, so the velocity runs on into and out of
    each arc without the corner that fixed arcs leave at take-off and
    touchdown. p's flight frames are not used. The parabolas are exact
    (each flight is redrawn through its take-off and touchdown frames after
    the solve, which moves it by rounding only)."""
    from scipy.linalg import solveh_banded

    p = np.asarray(p, float)
    T = len(p)
    if T < 3:
        return p.copy()
    lam = 1.0 / (2.0 - 2.0 * math.cos(2.0 * math.pi * cutoff * dt)) ** 2
    runs = flight_runs(airborne)
    data = np.ones(T)
    rows = np.full(T - 2, lam)            # row r: the second difference centred on frame r + 1
    b = np.zeros((T - 2, 3))
    for a, e in runs:
        data[a:e + 1] = 0.0
        rows[a - 1:e] = 1e6 * lam
        b[a - 1:e, 2] = -g * dt * dt
    ab = np.zeros((3, T))
    ab[2] = data
    rhs = data[:, None] * p
    c = (1.0, -2.0, 1.0)
    r = np.arange(T - 2)
    for i in range(3):
        np.add.at(rhs, r + i, (rows * c[i])[:, None] * b)
        for k in range(i, 3):
            np.add.at(ab[2 - (k - i)], r + k, rows * c[i] * c[k])
    out = solveh_banded(ab, rhs)
    for a, e in runs:   # exact parabolas through the take-off and touchdown frames
        t0, t1 = a - 1, e + 1
        s = (np.arange(a, e + 1) - t0) * dt
        tau = (t1 - t0) * dt
        v0 = (out[t1] - out[t0]) / tau + np.array([0.0, 0.0, 0.5 * g * tau])
        out[a:e + 1] = out[t0] + s[:, None] * v0 - np.outer(0.5 * g * s * s, [0.0, 0.0, 1.0])
    return out

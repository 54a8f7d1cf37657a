"""Gait metrics of a footfall pattern, and a rule-based gait classifier.

Terms after Alexander 1984 as summarised by Wang 2011 ch. 2.1: a stride is
one full cycle of leg movement, of duration T [s] (frequency f = 1/T) and
length λ [m] (body travel per stride, so the mean speed is v = λ f); the
duty factor β of a foot is the fraction of a stride it spends on the ground;
its relative phase is when in the stride it lands, a fraction in [0, 1) of a
cycle after a reference foot (by default the left hind foot, the usual choice);
the Froude number v² / (g h) with h the hip height makes speeds of animals
of different sizes comparable, as does the relative stride length λ / h.
"""
from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.footfall import Footfalls, feet_named, feet_of, foot_positions

PHASE_TOL = 0.1  # cycles: how far from "together" or "half a cycle apart" still counts


@dataclass(frozen=True)
class GaitMetrics:
    """Measured gait. Per-foot values are read-only mappings keyed by foot name.

    stride_duration T [s], stride_frequency f [Hz], stride_length λ [m],
    speed v [m/s] (net horizontal travel of the root over whole strides
    divided by their time: sway cancels, turning shortens it), duty_factor β per foot,
    phase per foot (touchdown after the ``reference`` foot's, cycle fraction
    in [0, 1)), flight_fraction (fraction of time no foot touches), hip_height
    h [m], froude v²/(g h), relative_stride_length λ/h, skate_speed [m/s]
    (mean horizontal speed of feet in contact), foot_skate (skate_speed / v,
    NaN when the body does not move), limbs / sides per foot (labels),
    n_strides (strides of the reference foot measured).
    """

    feet: tuple[str, ...]
    reference: str
    stride_duration: float
    stride_frequency: float
    stride_length: float
    speed: float
    duty_factor: Mapping[str, float]
    phase: Mapping[str, float]
    flight_fraction: float
    hip_height: float
    froude: float
    relative_stride_length: float
    skate_speed: float
    foot_skate: float
    limbs: Mapping[str, str | None]
    sides: Mapping[str, str]
    n_strides: int

    def to_dict(self) -> dict:
        """Plain values (floats, strings, dicts) for JSON or YAML reports."""
        return {k: dict(v) if isinstance(v, MappingProxyType) else (list(v) if isinstance(v, tuple) else v)
                for k, v in self.__dict__.items()}


def hip_height(character) -> float:
    """h [m]: mean rest height of the hip and shoulder bodies' origins above the
    rest pose's lowest point, counting only limbs that carry a foot (a
    biped's arms are no legs: their shoulders would make h the height of the
    chest); the root body's height if none is labelled. The same h as the
    stride plans of :mod:`gaitforge.motion.speed` (``gait_features.hip_height``)."""
    try:
        limbs = {(f.limb, f.side) for f in feet_of(character)}
    except GaitforgeError:  # no feet: every hip and shoulder counts
        limbs = None
    hips = [b for b, lab in character.labels.items() if lab.role in ("hip", "shoulder")
            and (limbs is None or (lab.limb, lab.side) in limbs)]
    bodies = hips or [character.bodies[0]]
    d = character.make_data()
    z = np.mean([d.xpos[character.body_id(b), 2] for b in bodies])
    return float(z - character.extent()[0])


def root_positions(character, qpos: np.ndarray) -> np.ndarray:
    """World position (T, 3) [m] of the root body's origin over frames (T, nq)."""
    return character.world_points(np.atleast_2d(qpos), [character.bodies[0]], np.zeros((1, 3)))[:, 0]


def _touchdown_times(ff: Footfalls, i: int) -> np.ndarray:
    # A landing happened between the last airborne frame and the first contact
    # frame: the midpoint is unbiased (error at most half a frame).
    k = ff.touchdowns(i)
    return 0.5 * (ff.times[k] + ff.times[k - 1])


def _stride_duration(td: list[np.ndarray], T0: float) -> float:
    """Refine the median landing interval ``T0`` [s] below frame resolution.

    Landings are numbered by cycle (rounding their offset from the foot's
    first landing by ``T0``, so a missed landing just skips a number) and one
    common slope of time against cycle number is fitted, each foot with its
    own intercept. Intervals alone are whole frames: the median of 31- and
    32-frame intervals is off by up to half a frame.
    """
    num = den = 0.0
    for t in td:
        if len(t) < 2:
            continue
        n = np.round((t - t[0]) / T0)
        n, tc = n - n.mean(), t - t.mean()
        num += float(n @ tc)
        den += float(n @ n)
    return num / den if den > 0 else T0


def _duty(col: np.ndarray, k: np.ndarray) -> float:
    """Contact fraction over the foot's whole strides (first to last landing);
    over the whole clip when it lands fewer than twice."""
    return float(col[k[0]:k[-1]].mean()) if len(k) >= 2 else float(col.mean())


def _phase(t: np.ndarray, t_ref: np.ndarray, T: float) -> float:
    """Circular mean of the landings ``t`` measured from the last reference
    landing before each (cycle fraction in [0, 1)); NaN if none."""
    j = np.searchsorted(t_ref, t, side="right") - 1
    ok = j >= 0
    if not ok.any():
        return float("nan")
    angle = 2.0 * np.pi * (t[ok] - t_ref[j[ok]]) / T
    mean = np.angle(np.mean(np.exp(1j * angle))) / (2.0 * np.pi) % 1.0
    return 0.0 if mean > 1.0 - 1e-9 else float(mean)


def _speeds(P: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Horizontal speed (T-1, F) [m/s] of points P (T, F, 3) between consecutive frames."""
    return np.linalg.norm(np.diff(P[..., :2], axis=0), axis=-1) / np.diff(times)[:, None]


def gait_metrics(character, clip, footfalls: Footfalls, *, reference: str | None = None) -> GaitMetrics:
    """Measure a gait: ``clip`` (the motion) and ``footfalls`` (its contacts,
    one row per clip frame) of ``character``.

    The stride duration comes from the landings of every foot: the median
    interval between a foot's successive landings (robust to a missed or
    doubled landing), refined by a fit over all landings (see
    ``_stride_duration``).
    Speed, duty factors and flight are measured over whole strides (between
    the first and last landing) so that partial cycles at the ends do not
    bias them. reference: the foot phases are measured from (default the
    left hind foot, else the first foot). Raises if no foot lands twice.
    """
    clip.check_character(character)
    ff = footfalls
    if ff.n_frames != clip.n_frames:
        raise GaitforgeError(f"gait metrics: footfalls have {ff.n_frames} frames but the clip has {clip.n_frames}")
    feet = feet_named(character, ff.names)
    names = ff.names
    td = [_touchdown_times(ff, i) for i in range(len(names))]
    intervals = np.concatenate([np.diff(t) for t in td])
    if len(intervals) == 0:
        raise GaitforgeError("gait metrics: no foot lands twice in this clip, so there is no stride to measure")
    T = _stride_duration(td, float(np.median(intervals)))
    if reference is None:
        hind_left = [f.name for f in feet if f.limb == "rear" and f.side == "left"]
        left = [f.name for f in feet if f.side == "left"]
        reference = (hind_left or left or [names[0]])[0]
    if reference not in names:
        raise GaitforgeError(f"gait metrics: reference foot {reference!r} is not among the feet ({', '.join(names)})")
    r = names.index(reference)
    k_ref = ff.touchdowns(r)
    # The analysis window: whole strides of the reference foot if it has any,
    # else of the foot with the most landings (some foot lands twice).
    k_win = k_ref if len(k_ref) >= 2 else max((ff.touchdowns(i) for i in range(len(names))), key=len)
    a, b = int(k_win[0]), int(k_win[-1])

    root = root_positions(character, clip.qpos)
    times = ff.times
    speed = float(np.linalg.norm(root[b, :2] - root[a, :2]) / (times[b] - times[a]))
    duty = {n: _duty(ff.contact[:, i], ff.touchdowns(i)) for i, n in enumerate(names)}
    phase = {n: _phase(td[i], td[r], T) for i, n in enumerate(names)}
    flight = float((~ff.contact[a:b].any(axis=1)).mean())

    # Foot skate: speed between consecutive frames that are both in contact
    # (a central difference would mix in the swing at landing and lift-off).
    P = foot_positions(character, clip.qpos, feet)
    v_feet = _speeds(P, times)  # (T-1, F)
    still = ff.contact[1:] & ff.contact[:-1]
    skate = float(v_feet[still].mean()) if still.any() else 0.0

    h = hip_height(character)
    g = float(np.linalg.norm(character.model.opt.gravity))
    stride_length = speed * T
    return GaitMetrics(
        feet=names, reference=reference, stride_duration=T, stride_frequency=1.0 / T,
        stride_length=stride_length, speed=speed,
        duty_factor=MappingProxyType(duty), phase=MappingProxyType(phase), flight_fraction=flight,
        hip_height=h, froude=speed ** 2 / (g * h) if g > 0 else float("nan"),
        relative_stride_length=stride_length / h, skate_speed=skate,
        foot_skate=skate / speed if speed > 1e-9 else float("nan"),
        limbs=MappingProxyType({f.name: f.limb for f in feet}),
        sides=MappingProxyType({f.name: f.side for f in feet}),
        n_strides=max(len(k_win) - 1, 0))


def _gap(a: float, b: float) -> float:
    """Circular distance between two phases [cycles], in [0, 0.5]."""
    d = abs(a - b) % 1.0
    return min(d, 1.0 - d)


def _mid(a: float, b: float) -> float:
    """Circular mean of two phases [cycles]."""
    return float(np.angle(np.exp(2j * np.pi * a) + np.exp(2j * np.pi * b)) / (2.0 * np.pi) % 1.0)


def _quadruped(m: GaitMetrics, tol: float) -> str:
    by = {(m.limbs[n], m.sides[n]): n for n in m.feet}
    try:
        fl, fr, rl, rr = (m.phase[by[k]] for k in (("front", "left"), ("front", "right"),
                                                     ("rear", "left"), ("rear", "right")))
    except KeyError:
        return "unknown"
    together = lambda a, b: _gap(a, b) <= tol  # noqa: E731
    opposite = lambda a, b: _gap(a, b) >= 0.5 - tol  # noqa: E731
    if all(together(fl, x) for x in (fr, rl, rr)):
        return "pronk"
    if together(fl, rr) and together(fr, rl) and opposite(fl, fr):
        return "trot"
    if together(fl, rl) and together(fr, rr) and opposite(fl, fr):
        return "pace"
    if together(fl, fr) and together(rl, rr):
        return "bound"  # pairs together but not all four: pronk was ruled out
    if all(d > 0.5 for d in m.duty_factor.values()):
        return "walk"
    # Gallop: each pair's feet land in quick succession, and the fore pair
    # lands as a group apart from the hind pair (not diagonal couples).
    split = tol < _gap(fl, fr) <= 0.3 and tol < _gap(rl, rr) <= 0.3
    if split and _gap(_mid(fl, fr), _mid(rl, rr)) > tol and m.flight_fraction > 0:
        return "gallop"
    # Canter: three beats. One diagonal pair lands together; the other
    # diagonal pair's feet land singly, each more than tol from the pair and
    # more than 2 tol apart (so that a trot with one pair a little split is
    # no canter). Flight or not. Checked after the walk (a foot's duty factor
    # is 0.5 or less) and the gallop (a flying canter whose fore and hind
    # pairs are each split by at most 0.3 cycle reads as a gallop).
    for (a, b), (c, d) in (((fl, rr), (fr, rl)), ((fr, rl), (fl, rr))):
        mid = _mid(a, b)
        if together(a, b) and _gap(c, d) > 2 * tol and min(_gap(c, mid), _gap(d, mid)) > tol:
            return "canter"
    return "unknown"


def _biped(m: GaitMetrics, tol: float) -> str:
    by = {m.sides[n]: n for n in m.feet}
    if set(by) != {"left", "right"}:
        return "unknown"
    gap = _gap(m.phase[by["left"]], m.phase[by["right"]])
    if gap <= tol:
        return "hop"
    if gap < 0.5 - tol:
        return "unknown"
    if all(d > 0.5 for d in m.duty_factor.values()):
        return "walk"
    if m.flight_fraction > 0:
        return "run"
    return "unknown"


def classify_gait(m: GaitMetrics, tol: float = PHASE_TOL) -> str:
    """Name the gait from relative phases and duty factors (tol [cycles]).

    Four feet (one per front/rear × left/right): pronk (all land together),
    trot (diagonal pairs together, the pairs half a cycle apart), pace (same
    for lateral pairs), bound (front pair together, rear pair together, the
    pairs apart), walk (every duty factor above 0.5), gallop (front and rear
    pairs each split by more than tol and at most 0.3 cycle, the fore pair's
    mean landing more than tol from the hind pair's, with flight), canter
    (not any of these: three beats, one diagonal pair together, the other
    diagonal pair's feet more than tol from it and more than 2 tol apart).
    Two feet (left/right): hop (together), walk (half a cycle apart, double
    support: duty factors above 0.5), run (half a cycle apart with flight).
    Anything else, or missing phases: ``unknown``.
    """
    if not all(np.isfinite(list(m.phase.values()))):
        return "unknown"
    if len(m.feet) == 4:
        return _quadruped(m, tol)
    if len(m.feet) == 2:
        return _biped(m, tol)
    return "unknown"

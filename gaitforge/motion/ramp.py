"""Speed ramps with gait transitions (beyond Kry09).

A speed profile V(t) [m/s] is turned into one clip whose gait changes where
animals change it: at Froude numbers (:func:`gaitforge.motion.gaits.transitions`)
near 0.5 (walk → trot, or a human's walk → run) and 2.5 (trot → gallop),
with :data:`HYSTERESIS` so that a speed hovering at a threshold does not
flicker between gaits.

- Frequency: the stride frequency f(t) of dynamic similarity
  (:func:`~gaitforge.motion.speed.stride_plan`, f = V/λ with λ/h = 2.3·Fr^0.3)
  is continuous in V across gaits, and every term is driven on one stride
  phase ψ(t) = ∫ f dt [cycles] (a term of recipe frequency k·f̃ as
  α sin(2πkψ + γ)), so changing frequency never pops.
- Amplitude: each gait gets one recipe (:func:`~gaitforge.motion.speed.suggest_at_speed`)
  at the geometric mean of the lowest and highest Froude number it spans in
  the profile, and its modal coordinates are scaled by λ(t)/λ_key: a
  recipe's stride length grows in proportion to its amplitude (mixing two
  recipes of one gait, made of different modes, can make neither gait).
  That is only first order (the dog's trot went 5–10 % too fast at the top,
  the human's walk 18 %), so the amplitude is then corrected
  :data:`SPEED_PASSES` times by the asked speed over the speed the grounded
  clip reaches, both averaged over the stride around each frame (each pass
  grounds the clip again; now within ~5 %).
- Transitions: the outgoing and incoming gaits' coordinates are cross-faded
  over :data:`BLEND_STRIDES` stride centred on the switch (smoothstep). All
  recipes share the footfall convention of the heuristics (the left hind
  foot, or left foot, lands at the same phase), so the reference foot keeps
  its rhythm through the change.
- Ground and feet: :mod:`gaitforge.motion.holding` puts the frames on the
  ground with the centre of mass's path smoothed along the whole ramp
  (flights as free ballistic arcs, walks on their planned stance) and
  holds the feet, the centre of mass and the root by modal IK in one pass,
  so that nothing pops where the gait changes. Bipeds are held the same
  way (they were planted by :func:`~gaitforge.motion.plant.plant_feet`
  before; with 40 modes in the holding the human's walk windows skate
  ≤ 0.002 of a stride, against 0.000–0.024, its centre of mass takes
  2.5 g at most, against 29 g, and the walk → run window is no longer
  "unknown").
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.arms import swing_free_limbs
from gaitforge.motion.steady import HEAD_CHAIN, steady
from gaitforge.motion import gait_features as gfe
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.gait_patterns import creature_kind
from gaitforge.motion.gaits import GAITS, transitions
from gaitforge.motion.grounding import translate_root
from gaitforge.motion.holding import ground_smoothly, hold, start_at_origin
from gaitforge.motion.poses import layout
from gaitforge.motion.speed import suggest_at_speed
from gaitforge.motion.stride import GRAVITY, STRIDE_A, STRIDE_B, check_froude, stride_plan
from gaitforge.constants import MODE_POOL

__all__ = ["BLEND_STRIDES", "HYSTERESIS", "RAMP_STEADY", "Ramp", "gait_schedule", "ramp", "speed_profile"]

HYSTERESIS = 0.1      # switch up at threshold·(1 + this), down at threshold·(1 − this)
BLEND_STRIDES = 1.0   # cross-fade length [strides]
SPEED_PASSES = 2      # the amplitude corrected this many times by the speed the grounded clip reaches
MAX_GAIN = 1.5        # by at most this factor either way
# What the ramp steadies before the grounding and its holding keeps (motion.steady): the head. The
# trunk steadied as well took the human ramp's run to 3.7 g of centre-of-mass reaction (its bound is
# 3 g); the root's heading kept by the holding (it goes with the trunk) to 5.1 g at the root and 4.2 g
# at the centre of mass (bounds 4.5 and 3).
RAMP_STEADY = (HEAD_CHAIN,)


class Ramp(NamedTuple):
    """Result of :func:`ramp`: the clip, per frame (T,) the asked speed [m/s],
    Froude number, stride phase ψ [cycles] and gait, and the switches as
    (time [s], from gait, to gait)."""

    clip: MotionClip
    speed: np.ndarray
    froude: np.ndarray
    phase: np.ndarray
    gait: tuple[str, ...]
    switches: tuple[tuple[float, str, str], ...]


def speed_profile(profile, seconds: float) -> Callable[[np.ndarray], np.ndarray]:
    """V(t) [m/s] from ``profile``: a number (constant), a pair (from, to)
    (linear over ``seconds``), a sequence of (time [s], speed) points
    (piecewise linear, held beyond the ends) or a callable of times (T,)."""
    if callable(profile):
        return lambda t: np.asarray(profile(np.asarray(t, float)), float) * np.ones_like(t, dtype=float)
    if isinstance(profile, (int, float)):
        return lambda t: np.full(np.shape(t), float(profile))
    pts = np.asarray(profile, float)
    if pts.shape == (2,):
        pts = np.array([[0.0, pts[0]], [seconds, pts[1]]])
    if pts.ndim != 2 or pts.shape[1] != 2 or len(pts) < 2 or np.any(np.diff(pts[:, 0]) <= 0):
        raise GaitforgeError("a speed profile is a number, a pair (from, to) or (time, speed) points with "
                             "increasing times")
    return lambda t: np.interp(t, pts[:, 0], pts[:, 1])


def gait_schedule(kind: str, froude: np.ndarray, hysteresis: float = HYSTERESIS) -> list[str]:
    """The gait per sample of ``froude`` (T,) for a creature ``kind``: the
    :func:`~gaitforge.motion.gaits.transitions` band it is in, changing only once Fr is past a
    threshold by the share ``hysteresis``."""
    bands = transitions(kind)
    tops = [b[0] for b in bands]

    def band(fr: float) -> int:
        return next(i for i, top in enumerate(tops) if fr < top)

    cur = band(float(froude[0]))
    out = []
    for fr in froude:
        while cur + 1 < len(bands) and fr >= tops[cur] * (1 + hysteresis):
            cur += 1
        while cur > 0 and fr < tops[cur - 1] * (1 - hysteresis):
            cur -= 1
        out.append(bands[cur][1])
    return out


def _coords(recipe, basis, psi: np.ndarray) -> np.ndarray:
    """Joint displacements (T, nv) of ``recipe`` driven on stride phase psi (T,) [cycles]."""
    f0 = recipe.base_frequency
    k = np.array([t.frequency / f0 for t in recipe.terms])
    a = np.array([t.amplitude for t in recipe.terms])
    g = np.array([t.phase for t in recipe.terms])
    b = np.array([t.offset for t in recipe.terms])
    c = a * np.sin(2 * np.pi * k * psi[:, None] + g) + b
    return c @ basis.shapes[:, [t.mode for t in recipe.terms]].T


def ramp(character, profile, seconds: float, fps: float = 60.0, basis=None, *,
         plant: bool = True) -> Ramp:
    """A clip of ``character`` following speed ``profile`` (see
    :func:`speed_profile`) for ``seconds``, changing gait on the way (module
    docstring). basis: the :class:`ModalBasis` (default the lowest 20
    elastic modes); plant: hold the feet down by modal IK. Recipes that miss
    their speed checks warn once each (as ``suggest_at_speed``)."""
    from gaitforge.modal import compute_modes

    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise GaitforgeError(f"seconds must be a positive finite number, got {seconds!r}")
    if not (isinstance(fps, (int, float)) and math.isfinite(fps) and 0 < fps <= 240):
        raise GaitforgeError(f"fps must be a number above 0 up to 240, got {fps!r}")
    v_of = speed_profile(profile, seconds)
    kind = creature_kind(character)
    h = gfe.hip_height(character)
    n = max(2, int(round(seconds * fps)))
    v_probe = np.asarray(v_of(np.arange(n) / fps), dtype=float)
    if v_probe.shape != (n,) or not np.all(np.isfinite(v_probe)) or np.any(v_probe <= 0):
        raise GaitforgeError("a speed profile must stay positive and finite")
    for end in (float(v_probe.min()), float(v_probe.max())):
        check_froude(end * end / (GRAVITY * h), h, end)
    basis = compute_modes(character, count=MODE_POOL) if basis is None else basis
    f_start = stride_plan(h, "walk", speed=float(v_probe[0])).frequency
    f_end = stride_plan(h, "walk", speed=float(v_probe[-1])).frequency
    pad = int(math.ceil(fps / min(f_start, f_end)))
    t = np.arange(-pad, n + pad) / fps
    v = v_of(np.clip(t, 0.0, (n - 1) / fps))
    fr = v * v / (GRAVITY * h)
    f = v / (STRIDE_A * fr ** STRIDE_B * h)
    psi = np.concatenate([[0.0], np.cumsum(0.5 * (f[1:] + f[:-1]) / fps)])
    psi -= psi[pad]
    gaits = gait_schedule(kind, fr)
    lay = layout(character)
    # one recipe per gait, at the geometric mean of the Froude numbers it spans, its amplitude scaled
    # with the stride length: λ(t)/λ_key (a recipe's stride grows in proportion to its amplitude)
    lam = STRIDE_A * fr ** STRIDE_B * h
    parts = []
    for g in dict.fromkeys(gaits):
        inside = np.array([x == g for x in gaits], float)
        key = float(np.exp(np.mean(np.log(fr[inside > 0][[0, -1]]))))
        key = round(key, 4)
        # scaled and checked under the gait's ramp_holding: the stance holding (the ramp grounds and
        # holds its clip its own way, below, and its blends and speed passes were measured with those
        # recipes), but the gallop's own loose one (under the stance holding its recipes stopped galloping
        # once its pairs split by 0.1 cycle, a canter; held loose the ramp's gallop stays within 1.6 g)
        recipe = suggest_at_speed(character, g, basis, froude=key, pinned=plant,
                                  holding=GAITS[g].ramp_holding)[0]
        scale = lam / (STRIDE_A * key ** STRIDE_B * h)
        parts.append((_fade(inside, psi) * scale, _coords(recipe, basis, psi)))
    walking = _fade(np.array([GAITS[x].grounded for x in gaits], float), psi) >= 0.5   # never flies
    first = GAITS[gaits[pad]]   # free limbs hang and swing as in the gait the ramp starts in (motion.arms)
    gain = np.ones(len(t))
    for rnd in range(SPEED_PASSES + 1):
        dq = sum((w * gain)[:, None] * c for w, c in parts)
        q = lay.integrate(basis.rest_qpos, dq)
        lay.soft_limits(q, math.radians(10), 0.01)
        # the head held before the grounding (RAMP_STEADY)
        q = steady(character, swing_free_limbs(character, q, first.arm_swing, first.posture), RAMP_STEADY)
        ground = ground_smoothly(character, q, psi, fps, walking)
        if rnd < SPEED_PASSES:   # the amplitude scaled by the asked speed over the achieved one, stride by stride
            asked, got = _stride_means(v, psi, fps), _stride_speeds(character, ground.qpos, psi, fps)
            gain *= np.clip(asked / np.maximum(got, 1e-6), 1.0 / MAX_GAIN, MAX_GAIN)
    keep = slice(pad, pad + n)
    ground = start_at_origin(character, ground.frames(keep))
    if plant:
        clip = hold(character, basis, ground, fps, walking[keep], RAMP_STEADY)
    else:  # nothing holds the feet: the stance rule, unsmoothed
        clip = MotionClip(fps, translate_root(character, ground.qpos, -ground.blend), character.name)
    g_kept = tuple(gaits[pad:pad + n])
    switches = tuple((float(i / fps), g_kept[i - 1], g_kept[i]) for i in range(1, n) if g_kept[i] != g_kept[i - 1])
    return Ramp(clip, v[keep], fr[keep], psi[keep], g_kept, switches)


def _windows(psi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First and last frame (T,) of the stride (ψ ± 0.5) around each frame."""
    lo = np.searchsorted(psi, psi - 0.5, side="left")
    hi = np.searchsorted(psi, psi + 0.5, side="right") - 1
    return lo, hi


def _stride_means(v: np.ndarray, psi: np.ndarray, fps: float) -> np.ndarray:
    """The asked speed v (T,) [m/s] averaged over the stride around each frame."""
    lo, hi = _windows(psi)
    c = np.r_[0.0, np.cumsum(v)]
    return (c[hi + 1] - c[lo]) / (hi + 1 - lo)


def _stride_speeds(character, q: np.ndarray, psi: np.ndarray, fps: float) -> np.ndarray:
    """The forward speed (T,) [m/s] of the root over the stride around each frame of grounded frames q."""
    from gaitforge.motion.metrics import root_positions

    x = root_positions(character, q)[:, 0]
    lo, hi = _windows(psi)
    return (x[hi] - x[lo]) * fps / np.maximum(hi - lo, 1)


def _fade(inside: np.ndarray, psi: np.ndarray) -> np.ndarray:
    """Smooth version (T,) of a 0/1 indicator: each step from 0 to 1 or back
    spread over BLEND_STRIDES of stride phase psi, centred on the step."""
    w = inside.copy()
    for i in np.flatnonzero(np.diff(inside)):
        centre = 0.5 * (psi[i] + psi[i + 1])
        s = np.clip((psi - centre) / BLEND_STRIDES + 0.5, 0.0, 1.0)
        s = s * s * (3 - 2 * s)
        up = inside[i + 1] > inside[i]
        near = np.abs(psi - centre) <= 0.5 * BLEND_STRIDES
        w[near] = s[near] if up else 1 - s[near]
    return w



"""Speed ramps with gait transitions (beyond Kry09).

A speed profile V(t) [m/s] is turned into one clip whose gait changes where
animals change it: at Froude numbers (:data:`gaitforge.motion.speed.TRANSITIONS`)
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
- Ground: like :func:`~gaitforge.motion.grounding.ground` with ``smooth``,
  but a foot is a stance candidate in the lower half of its excursion over
  the stride around each frame (a gallop's lift would otherwise make a
  walk's feet look high); frames with no candidate fly: the centre of mass
  on a ballistic arc; walks stand on their planned stance and never fly.
  The path of the centre of mass is then smoothed along the whole ramp
  (:func:`~gaitforge.motion.grounding.smooth_ballistic`: nearest to the
  stance rule in stance, a parabola of gravity in each flight whose height
  and reach are free), so its velocity runs on into and out of each arc
  and does not jerk where the feet down change (the ramp's walk and
  gallop, which do not fly, jerked by up to 6.5 m/s between frames before;
  arcs held fixed at the stance rule's take-off and touchdown left the
  trot's centre of mass 6.3 g at touchdown, free ones 2.4 g, at 3 Hz).
  The cutoff :data:`RAMP_SMOOTH_HZ` is 2 Hz, below the stride frequencies:
  with the centre of mass held by the IK (below) the legs can make up the
  larger offsets from the stance rule, and the centre of mass then stays
  within 2.8 g (dog) and 4.4 g (human) against 2.7 and 6.0 g at 3 Hz.
- Feet: held by modal IK as a steady gait's smooth clip holds them
  (:func:`gaitforge.motion.synthesis.hold_targets`: contact points at the
  stance rule's heights, each foot down held where it landed, the root
  held), and the centre of mass held on the smoothed path too, with
  :data:`HOLD_MODES` elastic modes (more than the recipes use), in one
  pass over the whole ramp. With the recipes' 20 modes and the root alone
  held, the IK met its targets only by compromise in the gallop (a third
  of its frames missed by up to 5 cm) and its legs moved the centre of
  mass by up to 18 g between frames; with 40 modes the targets are met to
  2 mm but in a few gallop frames (9 by ≤ 14 mm at 3 Hz) and the centre of
  mass stays on the smoothed path. The root's held path is its own path
  smoothed (:data:`ROOT_SMOOTH_HZ`, its flights fixed): the root moves
  against the swinging limbs about the centre of mass, and held where the
  centre of mass's smoothing put it, it took up to 4 g (dog) and 9.4 g
  (human) between frames; smoothed, 2.4 and 5.4 g. The walk's feet down
  are its planned stance, lowered onto the ground over :data:`RELEASE`; a
  foot's hold starts where the smoothed clip has it and lets go over
  :data:`RELEASE`, so nothing jumps. Then the frames go back on the ground
  and the centre of mass on its arcs. Bipeds are held the same way (they
  were planted by :func:`~gaitforge.motion.plant.plant_feet` before, since
  with 20 modes this holding made the human's walk skate more; with 40
  modes its windows skate ≤ 0.002 of a stride, against 0.000–0.024, its
  centre of mass takes 2.5 g at most, against 29 g, and the walk → run
  window is no longer "unknown").
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion import gait_features as gfe
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.grounding import smoothstep
from gaitforge.motion.speed import suggest_at_speed
from gaitforge.motion.stride import GRAVITY, STRIDE_A, STRIDE_B, TRANSITIONS, stride_plan

__all__ = ["BLEND_STRIDES", "HYSTERESIS", "Ramp", "gait_schedule", "ramp", "speed_profile"]

HYSTERESIS = 0.1      # switch up at threshold·(1 + this), down at threshold·(1 − this)
BLEND_STRIDES = 1.0   # cross-fade length [strides]
RELEASE = 0.08        # [s] a foot let go by the IK moves from where it was held to its own path over this
SPEED_PASSES = 2      # the amplitude corrected this many times by the speed the grounded clip reaches
MAX_GAIN = 1.5        # by at most this factor either way
ROOT_SMOOTH_HZ = 4.0  # [Hz] cutoff of the smoothing of the root's held path
HOLD_MODES = 40       # the feet's holding moves this many elastic modes (the gait recipes use fewer)
RAMP_SMOOTH_HZ = 2.0  # [Hz] cutoff of the stance smoothing (grounding.smooth_ballistic) along the whole ramp


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
    :data:`TRANSITIONS` band it is in, changing only once Fr is past a
    threshold by the share ``hysteresis``."""
    bands = TRANSITIONS[kind]
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


def _stance(heights: np.ndarray, psi: np.ndarray, floor: float) -> np.ndarray:
    """(T, F) bool: each foot in the lower half of its excursion over the
    stride (ψ ± 0.5) around each frame."""
    T = len(psi)
    lo = np.searchsorted(psi, psi - 0.5, side="left")
    hi = np.searchsorted(psi, psi + 0.5, side="right")
    out = np.zeros(heights.shape, bool)
    for n in range(T):
        w = heights[lo[n]:hi[n]]
        low, top = w.min(axis=0), w.max(axis=0)
        out[n] = heights[n] <= low + np.maximum(0.5 * (top - low), floor) + 1e-9
    return out


def _ground(character, q: np.ndarray, psi: np.ndarray, fps: float, walking: np.ndarray):
    """Grounded frames, the feet down (T, F), the flight frames (T,) and the
    smoothing's share of the root offset (T, 3) [m] (module docstring); in
    ``walking`` frames (T,) bool the feet down are those moving backwards
    relative to the root (a walk's planned stance,
    :func:`gaitforge.motion.speed.stance_schedule`) and nothing flies."""
    from gaitforge.motion.footfall import feet_of, foot_positions
    from gaitforge.motion.grounding import (MIN_CONTACT_TOL, ballistic_heights, centres_of_mass,
                                            default_contact_tol, flight_offsets, flight_runs, lowest_heights,
                                            smooth_ballistic, stance_velocity_offsets, translate_root)
    from gaitforge.motion.metrics import root_positions

    feet = feet_of(character)
    P = foot_positions(character, q, feet)
    root = root_positions(character, q)
    com = centres_of_mass(character, q)   # the point that flies on the arcs
    lowest = lowest_heights(character, q)
    stance = _stance(P[..., 2], psi, MIN_CONTACT_TOL)
    offset = np.zeros((len(q), 3))
    offset[:, 2], airborne = ballistic_heights(lowest, com[:, 2], np.asarray(~stance.any(axis=1) & ~walking),
                                               1.0 / fps)
    rise = P[..., 2] - P[..., 2].min(axis=1, keepdims=True)
    down = (rise <= default_contact_tol(character)) & (stance | (rise == 0)) & ~airborne[:, None]
    back = np.gradient(P[..., 0] - root[:, :1], axis=0) < 0
    down[walking] = back[walking]
    offset[:, :2] = flight_offsets(stance_velocity_offsets(P, down), com[:, :2], flight_runs(airborne))
    # the stance path smoothed all along (a ramp's walk and flightless gallop jerk where the feet down change)
    blend = smooth_ballistic(com + offset, airborne, 1.0 / fps, RAMP_SMOOTH_HZ) - (com + offset)
    return translate_root(character, q, offset + blend), down, airborne, blend


def ramp(character, profile, seconds: float, fps: float = 60.0, basis=None, *,
         plant: bool = True) -> Ramp:
    """A clip of ``character`` following speed ``profile`` (see
    :func:`speed_profile`) for ``seconds``, changing gait on the way (module
    docstring). basis: the :class:`ModalBasis` (default the lowest 20
    elastic modes); plant: hold the feet down by modal IK. Recipes that miss
    their speed checks warn once each (as ``suggest_at_speed``)."""
    from gaitforge.modal import compute_modes
    from gaitforge.motion.gait_patterns import creature_kind
    from gaitforge.motion.synthesis import layout

    if not (isinstance(seconds, (int, float)) and math.isfinite(seconds) and seconds > 0):
        raise GaitforgeError(f"seconds must be a positive finite number, got {seconds!r}")
    v_of = speed_profile(profile, seconds)
    kind = creature_kind(character)
    basis = compute_modes(character, count=20) if basis is None else basis
    h = gfe.hip_height(character)
    n = max(2, int(round(seconds * fps)))
    v_probe = v_of(np.arange(n) / fps)
    if not np.all(np.isfinite(v_probe)) or np.any(v_probe <= 0):
        raise GaitforgeError("a speed profile must stay positive and finite")
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
    # one recipe per gait, at the geometric mean of the Froude numbers it spans, its amplitude scaled
    # with the stride length: λ(t)/λ_key (a recipe's stride grows in proportion to its amplitude)
    lam = STRIDE_A * fr ** STRIDE_B * h
    parts = []
    for g in dict.fromkeys(gaits):
        inside = np.array([x == g for x in gaits], float)
        key = float(np.exp(np.mean(np.log(fr[inside > 0][[0, -1]]))))
        key = round(key, 4)
        # scaled and checked under the plain holding: the ramp grounds and holds its clip its own way
        # (below), and its blends and speed passes were measured with those recipes
        recipe = suggest_at_speed(character, g, basis, froude=key, pinned=plant, paired=False)[0]
        scale = lam / (STRIDE_A * key ** STRIDE_B * h)
        parts.append((_fade(inside, psi) * scale, _coords(recipe, basis, psi)))
    lay = layout(character)
    walking = _fade(np.array([x == "walk" for x in gaits], float), psi) >= 0.5
    gain = np.ones(len(t))
    for rnd in range(SPEED_PASSES + 1):
        dq = sum((w * gain)[:, None] * c for w, c in parts)
        q = lay.integrate(basis.rest_qpos, dq)
        lay.soft_limits(q, math.radians(10), 0.01)
        q, down, airborne, blend = _ground(character, q, psi, fps, walking)
        if rnd < SPEED_PASSES:   # the amplitude scaled by the asked speed over the achieved one, stride by stride
            asked, got = _stride_means(v, psi, fps), _stride_speeds(character, q, psi, fps)
            gain *= np.clip(asked / np.maximum(got, 1e-6), 1.0 / MAX_GAIN, MAX_GAIN)
    keep = slice(pad, pad + n)
    q, down, airborne, blend, walking = q[keep], down[keep], airborne[keep], blend[keep], walking[keep]
    from gaitforge.motion.grounding import translate_root
    from gaitforge.motion.metrics import root_positions

    start = root_positions(character, q[:1])[0] * [1.0, 1.0, 0.0]
    q = translate_root(character, q, -np.broadcast_to(start, (n, 3)))
    clip = MotionClip(fps, q, character.name)
    if plant:
        held = basis if basis.count >= HOLD_MODES else compute_modes(character, count=HOLD_MODES)
        clip = _hold(character, held, clip, down, airborne, blend, walking)
    else:  # nothing holds the feet: the stance rule, unsmoothed
        clip = MotionClip(fps, translate_root(character, clip.qpos, -blend), character.name)
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


def _hold(character, basis, clip: MotionClip, down: np.ndarray, airborne: np.ndarray, blend: np.ndarray,
          walking: np.ndarray) -> MotionClip:
    """Feet held by modal IK as in a steady gait's smooth clip
    (:func:`gaitforge.motion.synthesis.hold_targets`: the contact points at
    the stance rule's heights and where they landed), the centre of mass on
    the smoothed path and the root on its own path smoothed again, by the
    modes of ``basis`` (module docstring: :data:`HOLD_MODES`), one pass
    over the whole ramp so that nothing pops
    where the gait changes; in the walk (``walking`` (T,) bool) the feet
    down are the planned stance ``down`` (T, F) and each is planted: its
    lowest contact point held on the ground (a walk's mm ripple would lift
    it and break double support, :mod:`gaitforge.motion.plant`). Then the
    lowest contact point is put back on the ground in stance and the centre
    of mass on its arcs (``airborne`` (T,) bool) in flight."""
    from gaitforge.motion.footfall import detect_footfalls, feet_of
    from gaitforge.motion.grounding import (centres_of_mass, foot_contacts, smooth_stance, touch_ground,
                                            translate_root)
    from gaitforge.motion.modal_ik import CENTRE_OF_MASS, pin_stance_feet
    from gaitforge.motion.synthesis import _true_runs as _runs
    from gaitforge.motion.synthesis import hold_targets

    feet = feet_of(character)
    k = max(1, int(round(RELEASE * clip.fps)))
    plain = MotionClip(clip.fps, translate_root(character, clip.qpos, -blend), character.name)
    found = np.array(detect_footfalls(character, plain, feet).contact)
    found[walking] = down[walking]
    ff, hold = hold_targets(character, clip, airborne, blend, found)
    for f in feet:
        names = foot_contacts(character, [f])
        z = np.stack([hold[n][:, 2] for n in names], axis=1)               # (T, points of this foot)
        planted = walking & found[:, feet.index(f)]
        for a, b in _runs(planted):   # lowered onto the ground over the first RELEASE s of its stance
            s = smoothstep((np.arange(a, b) - a + 1) / (k + 1))
            z[a:b] -= (s * np.nanmin(z[a:b], axis=1))[:, None]
        for i, n in enumerate(names):
            hold[n][:, 2] = z[:, i]
    _anchor_on_smoothed(character, clip, hold, airborne, k)
    com = centres_of_mass(character, clip.qpos)   # and the centre of mass where the smoothing put it
    com[airborne] = np.nan
    hold[CENTRE_OF_MASS] = com
    # the root on its own path smoothed (its flights fixed): it moves against the swinging limbs
    root = character.world_points(clip.qpos, [character.bodies[0]], np.zeros((1, 3)))[:, 0]
    root = smooth_stance(root, airborne, 1.0 / clip.fps, ROOT_SMOOTH_HZ, whole=True)
    root[airborne] = np.nan
    hold[character.bodies[0]] = root
    pinned = pin_stance_feet(character, basis, clip, footfalls=ff, hold=hold).qpos
    out = touch_ground(character, pinned, fps=clip.fps, airborne=airborne, com=True)
    return MotionClip(clip.fps, out, character.name)


def _anchor_on_smoothed(character, clip: MotionClip, hold: dict, airborne: np.ndarray, k: int) -> None:
    """In place: each contact point's horizontal hold (finite x, y in
    ``hold``, from :func:`~gaitforge.motion.synthesis.hold_targets`) is
    anchored where the point is in the smoothed clip ``clip`` at the hold's
    first frame (not where the stance rule has it: the swinging foot is
    there when it lands, so it lands without a jump), and where the hold
    ends on the ground the goal moves over ``k`` frames from the anchor to
    the point's own path (smoothstep, as
    :func:`~gaitforge.motion.plant.plant_feet` does after lift-off) instead
    of letting go at once."""
    from gaitforge.motion.synthesis import _true_runs

    m = character.model
    for name, x in hold.items():
        if name not in character.contacts:
            continue
        sid = character.contacts[name]
        own = character.world_points(clip.qpos, [m.body(int(m.site_bodyid[sid])).name], m.site_pos[[sid]])[:, 0]
        held = np.isfinite(x[:, 0])
        for a, b in _true_runs(held):
            x[a:b, :2] = own[a, :2]
        for e in np.flatnonzero(held[:-1] & ~held[1:]) + 1:
            last = x[e - 1, :2].copy()
            for j in range(k):
                t = e + j
                if t >= len(x) or held[t] or airborne[t]:
                    break
                s = smoothstep((j + 1) / (k + 1))
                x[t, :2] = last + s * (own[t, :2] - last)

"""What the holding strategies (:mod:`gaitforge.motion.holds`) hold in a
grounded clip: the stance rule's targets for modal IK.

In a clip that flies smoothly (:func:`~gaitforge.motion.grounding.ground`
with ``smooth``), ``blend`` (T, 3) [m] is what the grounding's smoothing
added to the stance (``Grounded.blend``); the targets are read from the clip
without it (the stance rule, "plain"): each contact point of each foot
(sole, heel, toe) keeps its height in stance, a foot detected down keeps the
place where it landed (or stood in frame 0), a foot landing or lifting
(within :data:`LANDING_BAND` of its lowest height) keeps its place too.
:func:`hold_targets` gives those targets with the root where the smoothing
put it; :func:`fading_targets` the paired and loose variants, whose feet ease
onto and off their anchors over :data:`FADE`.
"""
from __future__ import annotations

import numpy as np

from gaitforge.motion.clip import MotionClip
from gaitforge.motion.footfall import detect_footfalls, feet_of
from gaitforge.motion.flight import smooth_ballistic, smoothstep
from gaitforge.motion.grounding import centres_of_mass, foot_contacts, translate_root
from gaitforge.motion.modal_ik import CENTRE_OF_MASS

__all__ = ["FADE", "HOLD_SMOOTH_HZ", "LANDING_BAND", "fading_targets", "hold_targets", "stance_targets", "true_runs"]

LANDING_BAND = 0.01  # [m] a foot within this of its lowest height and not down is landing or lifting
FADE = 0.08  # [s] a paired gait's foot eases between its own path and its anchor over this (landing, lift-off)
HOLD_SMOOTH_HZ = 2.0  # [Hz] cutoff of the stance smoothing (grounding.smooth_ballistic) along the whole clip


def hold_targets(character, clip: MotionClip, airborne: np.ndarray, blend: np.ndarray,
                 down: np.ndarray | None = None):
    """What the stance holding holds in a smoothly grounded clip (module
    docstring):
    footfalls with no foot down (T, F) (the anchors are in the targets) and
    target name → world position (T, 3) [m], NaN where free, for
    :func:`gaitforge.motion.modal_ik.pin_stance_feet`. clip: grounded with
    ``blend`` (T, 3) [m] added to the stance; airborne (T,) bool; down
    (T, F) bool, feet in ``feet_of`` order: the feet down (default: those
    :func:`~gaitforge.motion.footfall.detect_footfalls` finds in the clip
    without the blend)."""
    ff, names, X, keep, xy, _ = stance_targets(character, clip, airborne, blend, down)
    X[..., :2] = np.where(keep[..., None], xy, np.nan)
    X[airborne] = np.nan
    hold = dict(zip(names, X.transpose(1, 0, 2)))
    root = character.world_points(clip.qpos, [character.bodies[0]], np.zeros((1, 3)))[:, 0]
    root[airborne] = np.nan
    hold[character.bodies[0]] = root
    return ff, hold


def fading_targets(character, clip: MotionClip, airborne: np.ndarray, blend: np.ndarray, *, loose: bool = False):
    """What the paired and loose holdings hold: (footfalls, hold, soft) —
    footfalls and hard targets as :func:`hold_targets`, with the root and
    the centre of mass (:data:`~gaitforge.motion.modal_ik.CENTRE_OF_MASS`)
    held in every frame, flight included, where the smoothed clip has them;
    soft: contact name → (T, 3) [m] horizontal goals, NaN where none, of
    the feet easing onto their anchors over the :data:`FADE` before they
    land (from their own path, smoothstep) and off them over the one after
    they lift (never past the middle of the swing); those frames have no
    hard goal for that foot.

    loose (the loose holding): the root is not held; the centre of mass is
    held on its path in the clip smoothed again, the flights free
    (:func:`~gaitforge.motion.grounding.smooth_ballistic` at
    :data:`HOLD_SMOOTH_HZ`, as the ramps and held
    walks: the fixed arcs of a gallop's short flights leave 9 g corners at
    touchdown); a lifting foot keeps its anchor as a hard goal while it is
    still within :data:`LANDING_BAND` of its lowest height (its soft goal
    alone let it slip 1.2 m/s on the ground) and eases off it after; a foot
    with no other horizontal goal has a soft one on its own path in the clip
    (left free, the IK swung a gallop's hind paw 0.5 m in one frame)."""
    ff, names, X, keep, xy, down = stance_targets(character, clip, airborne, blend, None)
    own = X[..., :2].copy()
    fading = np.zeros(X.shape[:2], bool)
    K, T = max(1, int(round(FADE * clip.fps))), len(X)
    w = np.zeros(T)
    for k, runs in down.items():
        for r, (start, stop) in enumerate(runs):
            before = runs[r - 1][1] if r > 0 else 0
            after = runs[r + 1][0] if r + 1 < len(runs) else T
            a = max(start - K, (before + start) // 2)                  # landing: towards the anchor
            w[a:start] = smoothstep((np.arange(a, start) - a + 1) / (start - a + 1))
            xy[a:start, k] = own[a:start, k] + w[a:start, None] * (xy[start, k] - own[a:start, k])
            b = min(stop + K, (stop + after + 1) // 2)                 # lift-off: away from it
            w[stop:b] = smoothstep((np.arange(stop, b) - stop + 1) / (b - stop + 1))
            xy[stop:b, k] = xy[stop - 1, k] + w[stop:b, None] * (own[stop:b, k] - xy[stop - 1, k])
            fading[a:start, k] = fading[stop:b, k] = True
            if loose:  # still on the ground: held where it stood
                on = stop
                while on < b and keep[on, k] and not airborne[on]:
                    xy[on, k], fading[on, k] = xy[stop - 1, k], False
                    on += 1
    soft = np.full_like(X, np.nan)
    soft[..., :2] = np.where(fading[..., None], xy, np.nan)
    X[..., :2] = np.where((keep & ~fading)[..., None], xy, np.nan)
    X[airborne] = np.nan
    if loose:  # a swinging foot's own path in the clip (with the blend), where it has no other goal
        m = character.model
        sites = [character.contacts[n] for n in names]
        path = character.world_points(clip.qpos, [m.body(int(m.site_bodyid[i])).name for i in sites],
                                      m.site_pos[sites])
        free = ~np.isfinite(X[..., 0]) & ~fading
        soft[..., :2] = np.where(free[..., None], path[..., :2], soft[..., :2])
    hold = dict(zip(names, X.transpose(1, 0, 2)))
    com = centres_of_mass(character, clip.qpos)
    if loose:
        com = smooth_ballistic(com, airborne, 1.0 / clip.fps, HOLD_SMOOTH_HZ)
    else:
        hold[character.bodies[0]] = character.world_points(clip.qpos, [character.bodies[0]], np.zeros((1, 3)))[:, 0]
    hold[CENTRE_OF_MASS] = com
    return ff, hold, dict(zip(names, soft.transpose(1, 0, 2)))



def stance_targets(character, clip: MotionClip, airborne: np.ndarray, blend: np.ndarray, down):
    """The stance rule's targets shared by :func:`hold_targets` and
    :func:`fading_targets`: (footfalls with no foot down, contact names,
    X (T, n, 3) [m] the contact points in the clip without the blend, keep
    (T, n) where their x, y are held, xy (T, n, 2) [m] with each foot down
    held where it landed, contact index → [start, stop) runs down)."""
    plain = MotionClip(clip.fps, translate_root(character, clip.qpos, -blend), character.name)
    feet = feet_of(character)
    ff = detect_footfalls(character, plain, feet)
    down = (ff.contact if down is None else np.asarray(down, bool)) & ~airborne[:, None]  # (T, F)
    names = foot_contacts(character, feet)
    m = character.model
    sites = [character.contacts[n] for n in names]
    X = character.world_points(plain.qpos, [m.body(int(m.site_bodyid[i])).name for i in sites],
                               m.site_pos[sites])                          # (T, n, 3) stance rule
    keep = np.zeros(X.shape[:2], bool)                                     # where x, y are held too
    xy = X[..., :2].copy()
    runs = {}
    for i, f in enumerate(feet):
        k = names.index(f.name)
        keep[:, k] = down[:, i] | (X[:, k, 2] <= X[:, k, 2].min() + LANDING_BAND)
        runs[k] = true_runs(down[:, i])
        for start, stop in runs[k]:                                       # down: where it landed
            xy[start:stop, k] = xy[start, k]
    return type(ff)(ff.times, np.zeros_like(ff.contact), ff.names), names, X, keep, xy, runs



def true_runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, stop) of each run of True in a (T,) bool mask."""
    edges = np.flatnonzero(np.diff(np.r_[0, np.asarray(mask, bool).astype(np.int8), 0]))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))

"""The smoothed holding: a clip's feet held under a body smoothed along the
whole clip, for speed ramps and steady walks at a speed.

Frames (T, nq) of a gait driven on a stride phase ψ(t) [cycles] are put on
the ground and held by modal IK so that the body moves without jerks and
the feet down do not slide (:func:`ground_smoothly`, then :func:`hold`):

- Ground: like :func:`~gaitforge.motion.grounding.ground` with ``smooth``,
  but a foot is a stance candidate in the lower half of its excursion over
  the stride around each frame (:func:`stance_feet`: in a ramp a gallop's
  lift would otherwise make a walk's feet look high); frames with no
  candidate fly: the centre of mass on a ballistic arc; walks stand on
  their planned stance (the feet moving backwards relative to the root,
  Kry09's stance sweep) and never fly. The path of the centre of mass is
  then smoothed all along
  (:func:`~gaitforge.motion.grounding.smooth_ballistic`: nearest to the
  stance rule in stance, a parabola of gravity in each flight whose height
  and reach are free), so its velocity runs on into and out of each arc
  and does not jerk where the feet down change (a ramp's walk and gallop,
  which do not fly, jerked by up to 6.5 m/s between frames before; arcs
  held fixed at the stance rule's take-off and touchdown left a trot's
  centre of mass 6.3 g at touchdown, free ones 2.4 g, at 3 Hz). The
  cutoff :data:`HOLD_SMOOTH_HZ` is 2 Hz, below the stride frequencies: with the
  centre of mass held by the IK (below) the legs make up the larger offsets
  from the stance rule, and in the dog's and human's ramps the centre of
  mass then stays within 2.8 g and 4.4 g, against 2.7 and 6.0 g at 3 Hz.
- Feet: held as a steady gait's smooth clip holds them
  (:func:`gaitforge.motion.stance_targets.hold_targets`: contact points at the
  stance rule's heights, each foot down held where it landed), the centre
  of mass held on the smoothed path and the root on its own path smoothed
  at :data:`ROOT_SMOOTH_HZ`, with :data:`HOLD_MODES` elastic modes (more
  than the recipes use), in one pass over the whole clip. With 20 modes and
  the root alone held the IK met its targets in a ramp's gallop only by
  compromise (a third of the frames missed by up to 5 cm) and the legs
  moved the centre of mass by up to 18 g between frames; with 40 modes the
  targets are met to 2 mm but in a few gallop frames. The root moves against
  the swinging limbs about the centre of mass: held where the centre of
  mass's smoothing put it, it took up to 4 g (dog) and 9.4 g (human)
  between frames; on its own path smoothed, 2.4 and 5.4 g. A walk's feet
  down are its planned stance, lowered onto the ground over
  :data:`RELEASE`; a foot's hold starts where the smoothed clip has it and
  lets go over :data:`RELEASE`, so nothing jumps. Then the frames go back
  on the ground and the centre of mass on its arcs.

:func:`held_walk` is a steady walk made this way: the clip ``animate
--speed`` shows for a walk (:func:`~gaitforge.motion.synthesis.synthesize_at_speed`). Planted frame by
frame instead (:func:`~gaitforge.motion.plant.plant_feet`, as before), the
table's walks took 2.8–9.0 g (dog) and 10.7–21.4 g (human) between frames;
held, 1.0–1.1 g and 2.0–2.1 g.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gaitforge.motion.arms import arms_of
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.frames import check_drive, margin_frames, positive
from gaitforge.motion.footfall import detect_footfalls, feet_of, foot_positions
from gaitforge.motion.flight import (ballistic_heights, flight_offsets, flight_runs, smooth_ballistic, smooth_stance,
                                     smoothstep)
from gaitforge.motion.grounding import (MIN_CONTACT_TOL, centres_of_mass, default_contact_tol, foot_contacts,
                                        lowest_heights, stance_velocity_offsets, touch_ground, translate_root)
from gaitforge.motion.holds import HOLD_MODES, holding_basis
from gaitforge.motion.metrics import root_positions
from gaitforge.motion.modal_ik import CENTRE_OF_MASS, pin_stance_feet
from gaitforge.motion.poses import poses
from gaitforge.motion.recipe import check_basis
from gaitforge.motion.steady import STEADY_CHAINS, SteadyChain, kept_chains, steady
from gaitforge.motion.stance_targets import HOLD_SMOOTH_HZ, hold_targets, true_runs

__all__ = ["HOLD_MODES", "HOLD_SMOOTH_HZ", "RELEASE", "ROOT_SMOOTH_HZ", "SmoothGround", "ground_smoothly",
           "held_walk", "hold", "stance_feet"]

RELEASE = 0.08        # [s] a foot let go by the IK moves from where it was held to its own path over this
ROOT_SMOOTH_HZ = 4.0  # [Hz] cutoff of the smoothing of the root's held path


class SmoothGround(NamedTuple):
    """Result of :func:`ground_smoothly`, per frame: qpos (T, nq) grounded
    and smoothed, down (T, F) bool the feet down (``feet_of`` order),
    airborne (T,) bool and blend (T, 3) [m] the smoothing's share of the
    root offset."""

    qpos: np.ndarray
    down: np.ndarray
    airborne: np.ndarray
    blend: np.ndarray

    def frames(self, keep: slice) -> "SmoothGround":
        """The same, of the frames ``keep`` only."""
        return SmoothGround(*(x[keep] for x in self))


def stance_feet(heights: np.ndarray, psi: np.ndarray, floor: float) -> np.ndarray:
    """(T, F) bool: each foot (heights (T, F) [m]) in the lower half of its
    excursion (at least ``floor`` [m]) over the stride (ψ ± 0.5) around each
    frame of stride phase psi (T,) [cycles]."""
    T = len(psi)
    lo = np.searchsorted(psi, psi - 0.5, side="left")
    hi = np.searchsorted(psi, psi + 0.5, side="right")
    out = np.zeros(heights.shape, bool)
    for n in range(T):
        w = heights[lo[n]:hi[n]]
        low, top = w.min(axis=0), w.max(axis=0)
        out[n] = heights[n] <= low + np.maximum(0.5 * (top - low), floor) + 1e-9
    return out


def ground_smoothly(character, q: np.ndarray, psi: np.ndarray, fps: float, walking: np.ndarray) -> SmoothGround:
    """Body-relative frames q (T, nq) on stride phase psi (T,) [cycles] at
    ``fps`` put on the ground with the centre of mass's path smoothed
    (module docstring); in ``walking`` frames (T,) bool the feet down are
    those moving backwards relative to the root (a walk's planned stance)
    and nothing flies."""
    feet = feet_of(character)
    P = foot_positions(character, q, feet)
    root = root_positions(character, q)
    com = centres_of_mass(character, q)   # the point that flies on the arcs
    lowest = lowest_heights(character, q)
    stance = stance_feet(P[..., 2], psi, MIN_CONTACT_TOL)
    offset = np.zeros((len(q), 3))
    offset[:, 2], airborne = ballistic_heights(lowest, com[:, 2], np.asarray(~stance.any(axis=1) & ~walking),
                                               1.0 / fps)
    rise = P[..., 2] - P[..., 2].min(axis=1, keepdims=True)
    down = (rise <= default_contact_tol(character)) & (stance | (rise == 0)) & ~airborne[:, None]
    back = np.gradient(P[..., 0] - root[:, :1], axis=0) < 0
    down[walking] = back[walking]
    offset[:, :2] = flight_offsets(stance_velocity_offsets(P, down), com[:, :2], flight_runs(airborne))
    # the stance path smoothed all along (a walk and a flightless gallop jerk where the feet down change)
    blend = smooth_ballistic(com + offset, airborne, 1.0 / fps, HOLD_SMOOTH_HZ) - (com + offset)
    return SmoothGround(translate_root(character, q, offset + blend), down, airborne, blend)


def hold(character, basis, g: SmoothGround, fps: float, walking: np.ndarray,
         steadied: tuple[SteadyChain, ...] = STEADY_CHAINS) -> MotionClip:
    """The frames of ``g`` (:func:`ground_smoothly`) with their feet held by
    modal IK (module docstring), the centre of mass on the smoothed path and
    the root on its own path smoothed again, by the modes of ``basis`` (the
    leading :data:`HOLD_MODES` are computed where it has fewer), one pass
    over the whole clip so that nothing pops where a ramp's gait changes;
    in the walk (``walking`` (T,) bool) the feet down are the planned stance
    and each is planted: its lowest contact point held on the ground (a
    walk's mm ripple would lift it and break double support). Then the
    lowest contact point is put back on the ground in stance and the centre
    of mass on its arcs in flight. ``steadied``: the chains the frames were
    steadied by (:func:`~gaitforge.motion.steady.steady`), which the modal
    IK keeps (:func:`~gaitforge.motion.steady.kept_chains`)."""
    basis = holding_basis(character, basis)   # the same analysis, HOLD_MODES modes
    clip = MotionClip(fps, g.qpos, character.name)
    feet = feet_of(character)
    k = max(1, int(round(RELEASE * fps)))
    plain = MotionClip(fps, translate_root(character, g.qpos, -g.blend), character.name)
    found = np.array(detect_footfalls(character, plain, feet).contact)
    found[walking] = g.down[walking]
    ff, targets = hold_targets(character, clip, g.airborne, g.blend, found)
    for f in feet:
        names = foot_contacts(character, [f])
        z = np.stack([targets[n][:, 2] for n in names], axis=1)            # (T, points of this foot)
        planted = walking & found[:, feet.index(f)]
        for a, b in true_runs(planted):   # lowered onto the ground over the first RELEASE s of its stance
            s = smoothstep((np.arange(a, b) - a + 1) / (k + 1))
            z[a:b] -= (s * np.nanmin(z[a:b], axis=1))[:, None]
        for i, n in enumerate(names):
            targets[n][:, 2] = z[:, i]
    _anchor_on_smoothed(character, clip, targets, g.airborne, k)
    com = centres_of_mass(character, clip.qpos)   # and the centre of mass where the smoothing put it
    com[g.airborne] = np.nan
    targets[CENTRE_OF_MASS] = com
    # the root on its own path smoothed (its flights fixed): it moves against the swinging limbs
    root = character.world_points(clip.qpos, [character.bodies[0]], np.zeros((1, 3)))[:, 0]
    root = smooth_stance(root, g.airborne, 1.0 / fps, ROOT_SMOOTH_HZ, whole=True)
    root[g.airborne] = np.nan
    targets[character.bodies[0]] = root
    pinned = pin_stance_feet(character, basis, clip, footfalls=ff, hold=targets,
                             keep=kept_chains(character, steadied)).qpos
    out = touch_ground(character, pinned, fps=fps, airborne=g.airborne, com=True)
    return MotionClip(fps, out, character.name)


def _anchor_on_smoothed(character, clip: MotionClip, hold: dict, airborne: np.ndarray, k: int) -> None:
    """In place: each contact point's horizontal hold (finite x, y in
    ``hold``, from :func:`~gaitforge.motion.stance_targets.hold_targets`) is
    anchored where the point is in the smoothed clip ``clip`` at the hold's
    first frame (not where the stance rule has it: the swinging foot is
    there when it lands, so it lands without a jump), and where the hold
    ends on the ground the goal moves over ``k`` frames from the anchor to
    the point's own path (smoothstep, as
    :func:`~gaitforge.motion.plant.plant_feet` does after lift-off) instead
    of letting go at once."""
    m = character.model
    for name, x in hold.items():
        if name not in character.contacts:
            continue
        sid = character.contacts[name]
        own = character.world_points(clip.qpos, [m.body(int(m.site_bodyid[sid])).name], m.site_pos[[sid]])[:, 0]
        held = np.isfinite(x[:, 0])
        for a, b in true_runs(held):
            x[a:b, :2] = own[a, :2]
        for e in np.flatnonzero(held[:-1] & ~held[1:]) + 1:
            last = x[e - 1, :2].copy()
            for j in range(k):
                t = e + j
                if t >= len(x) or held[t] or airborne[t]:
                    break
                s = smoothstep((j + 1) / (k + 1))
                x[t, :2] = last + s * (own[t, :2] - last)


def start_at_origin(character, g: SmoothGround) -> SmoothGround:
    """``g`` moved so that the root starts above the origin (height kept)."""
    start = root_positions(character, g.qpos[:1])[0] * [1.0, 1.0, 0.0]
    return g._replace(qpos=translate_root(character, g.qpos, -np.broadcast_to(start, (len(g.qpos), 3))))


def held_walk(character, basis, recipe, seconds: float, fps: float = 60.0) -> MotionClip:
    """A steady walk of ``recipe`` (a :class:`~gaitforge.motion.recipe.GaitRecipe`
    on ``basis``) for ``seconds`` at ``fps``, grounded and held as a ramp's
    walk is (module docstring): its stride phase is the recipe's base
    frequency times time; :func:`~gaitforge.motion.synthesis.margin_frames`
    extra frames on both sides are grounded with it, so that the smoothing
    sees whole strides at the clip's ends, and dropped before the holding.
    Returns a :class:`MotionClip` (round(seconds·fps), nq). The recipe, basis,
    seconds and fps are checked as :func:`~gaitforge.motion.synthesis.synthesize`
    checks them."""
    check_basis(recipe, basis, character)
    seconds, fps = positive("seconds", seconds), positive("fps", fps)
    check_drive(character, basis, recipe, fps)
    n = max(1, int(round(seconds * fps)))
    pad = margin_frames(recipe, fps)
    t = np.arange(-pad, n + pad) / fps
    q, held = arms_of(character, holding_basis(character, basis), recipe, poses(character, basis, recipe, t))
    q = steady(character, q)
    walking = np.ones(len(t), bool)
    g = ground_smoothly(character, q, recipe.base_frequency * t, fps, walking)
    g = start_at_origin(character, g.frames(slice(pad, pad + n)))
    return hold(character, held, g, fps, walking[pad:pad + n])

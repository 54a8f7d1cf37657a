"""Kinematic gait synthesis from vibration modes (Kry09 §4.2, Eq. 4): the
motion pipeline, in its three steps.

1. Poses (:mod:`gaitforge.motion.poses`): Eq. 4 with soft joint limits,
   body-relative, for every frame at once.
2. Ground (:func:`~gaitforge.motion.grounding.ground`, which the paper
   leaves out): the creature put on the ground, stance feet not sliding,
   frames with no foot low flying on ballistic arcs.
3. Hold (:mod:`gaitforge.motion.holds`): the stance feet held by modal IK,
   by the recipe's :class:`~gaitforge.motion.gaits.HoldingStrategy`.

:func:`synthesize` runs them; :func:`ground_step` is the second alone.
"""
from __future__ import annotations


import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.arms import arms_of
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.gaits import HoldingStrategy, holding_strategy
from gaitforge.motion.frames import MAX_ROTATION, check_drive, margin_frames, positive
from gaitforge.motion.grounding import ground, translate_root
from gaitforge.motion.holding import held_walk
from gaitforge.motion.holds import GroundedClip, Holding, feet_have_contacts, holding_of
from gaitforge.motion.poses import JointLayout, layout, modal_coordinates, poses, soft_limit_excess
from gaitforge.motion.recipe import GaitRecipe, check_basis
from gaitforge.motion.steady import steady as steady_poses

__all__ = ["JointLayout", "MAX_ROTATION", "check_drive", "ground_step", "layout", "margin_frames",
           "modal_coordinates", "positive", "poses", "soft_limit_excess", "synthesize", "synthesize_at_speed"]

def ground_step(character, recipe: GaitRecipe, qpos: np.ndarray, fps: float, pad: int, *, holding: Holding,
                smooth: bool, speed: float | None = None, contact_tol: float | None = None,
                flight: bool | None = None) -> GroundedClip:
    """Step 2: body-relative poses ``qpos`` (pad + n + pad, nq) of ``recipe``
    at ``fps`` put on the ground (:func:`~gaitforge.motion.grounding.ground`:
    speed [m/s] overrides ``recipe.speed``, flight ``recipe.flight``;
    smooth: smooth flight; flights keep the stride's mean stance velocity
    where ``holding`` asks for it); the ``pad`` margin frames at each end
    are dropped and the first kept frame starts where it stands (no
    horizontal offset)."""
    n = len(qpos) - 2 * pad
    g = ground(character, qpos, fps, speed=recipe.speed if speed is None else speed,
               contact_tol=contact_tol, flight=recipe.flight if flight is None else bool(flight),
               smooth=smooth, stride=1.0 / recipe.base_frequency if holding.stride_flights else None)
    start = g.root_offset[pad] * [1.0, 1.0, 0.0]
    kept = translate_root(character, g.qpos[pad:pad + n], -np.broadcast_to(start, (n, 3)))
    blend = np.zeros((n, 3)) if g.blend is None else g.blend[pad:pad + n]
    return GroundedClip(MotionClip(fps, kept, character.name), g.airborne[pad:pad + n], blend, smooth)



def synthesize(character, basis, recipe: GaitRecipe, seconds: float, fps: float = 60.0, *,
               soft_limit: float = np.radians(10), grounded: bool = True, soft_limit_slide: float = 0.01,
               speed: float | None = None, contact_tol: float | None = None,
               pin_feet: bool = False, flight: bool | None = None,
               holding: HoldingStrategy | str | None = None, steady: bool = True) -> MotionClip:
    """A kinematic gait clip of ``recipe`` (Kry09 Eq. 4 with soft limits).

    basis: the :class:`ModalBasis` the recipe's mode indices refer to (checked
    by :func:`~gaitforge.motion.recipe.check_basis`); seconds [s] and fps
    [frames/s]: the clip holds round(seconds·fps) frames at t = n / fps, so a
    whole number of cycles loops seamlessly; soft_limit: Δθ_soft [rad] of
    hinge and ball-cone limits (0: hard clamp); soft_limit_slide [m]: the same
    for slide joints. grounded: place the creature on the ground with stance
    feet that do not slide (:func:`gaitforge.motion.grounding.ground`; speed
    [m/s] overrides ``recipe.speed``; contact_tol [m]: how far above the
    lowest foot a foot still counts as down). flight (None: the recipe's
    ``flight``, True unless it is a walk): frames
    where no foot is in the lower half of its excursion
    (:func:`~gaitforge.motion.grounding.stance_candidates`) fly on a
    ballistic arc. Walks, and gaits whose feet alternate at one frequency
    (Kry09's), always have a foot that low, so only gaits shaped to fly do
    (the runs, trots, bounds and gallops of
    :func:`~gaitforge.motion.heuristics.suggest`, a hop); False keeps the
    lowest point on the ground in every frame. The grounding sees
    :func:`margin_frames` extra frames on both sides (dropped after), so
    flights at the clip's ends are whole and a clip of whole cycles loops.
    pin_feet: then pin stance feet exactly with modal IK
    (:func:`gaitforge.motion.modal_ik.pin_stance_feet`) and put the frames
    back on the ground and on their flight arcs. In a clip that flies this
    is smooth flight (:mod:`gaitforge.motion.grounding`): the centre of
    mass flies on ballistic arcs, the stance between them is smoothed so
    that its velocity runs on into and out of them, and the IK holds the
    feet on the ground under the smoothed body. How the feet are held is
    the recipe's ``holding`` (:class:`~gaitforge.motion.gaits.HoldingStrategy`;
    ``holding`` here overrides it): the paired and loose holdings also
    let flights keep the stride's mean stance velocity, even unpinned
    (:data:`~gaitforge.motion.holds.HOLDINGS`). The recipe's name plays no part.
    steady: in a grounded clip the trunk and head are held at their rest
    orientation by the spine's and neck's joints in the poses before the
    grounding (:mod:`gaitforge.motion.steady`; False: as the modes move
    them). The recipe's ``arm_swing`` and ``still_arms`` hang the free
    limbs (a human's arms) in the creature's posture, swing them with the
    other side's hip and, with ``still_arms``, keep the holding's IK off
    them (:func:`gaitforge.motion.arms.arms_of`).
    Returns a :class:`MotionClip` (T, nq).
    """
    check_basis(recipe, basis, character)
    check_drive(character, basis, recipe, fps)
    if pin_feet and not grounded:
        raise GaitforgeError("pin_feet needs grounded=True: feet are pinned where they touch the ground")
    seconds = positive("seconds", seconds)
    fps = positive("fps", fps)
    soft_limit = positive("soft_limit", soft_limit, allow_zero=True)
    soft_limit_slide = positive("soft_limit_slide", soft_limit_slide, allow_zero=True)
    chosen = holding_strategy(holding if holding is not None else recipe.holding or HoldingStrategy.STANCE)
    if chosen is HoldingStrategy.SMOOTHED and pin_feet:
        return held_walk(character, basis, recipe, seconds, fps)
    strategy = holding_of(recipe, holding)
    n = max(1, int(round(seconds * fps)))
    pad = margin_frames(recipe, fps) if grounded else 0
    qpos = poses(character, basis, recipe, np.arange(-pad, n + pad) / fps, soft_limit, soft_limit_slide)
    qpos, held_basis = arms_of(character, basis, recipe, qpos)
    if not grounded:
        return MotionClip(fps, qpos, character.name)
    if steady:
        qpos = steady_poses(character, qpos)
    smooth = pin_feet and feet_have_contacts(character)
    g = ground_step(character, recipe, qpos, fps, pad, holding=strategy, smooth=smooth, speed=speed,
                    contact_tol=contact_tol, flight=flight)
    return strategy.hold(character, held_basis, g) if pin_feet else g.clip


def synthesize_at_speed(character, basis, recipe, seconds: float, fps: float = 60.0, *,
                        pinned: bool = True, holding: HoldingStrategy | str | None = None) -> MotionClip:
    """The clip ``animate`` shows for a recipe of
    :func:`~gaitforge.motion.speed.suggest_at_speed`: a recipe that never
    flies (``flight`` False: walks, ambles) held smoothed
    (:func:`held_walk`), the others grounded with their stance feet held by
    their holding strategy (``pinned``; ``holding``: as
    :func:`~gaitforge.motion.synthesis.synthesize`); with ``pinned`` False
    every recipe is grounded only."""
    if not recipe.flight and pinned:
        return held_walk(character, basis, recipe, seconds, fps)
    return synthesize(character, basis, recipe, seconds, fps, pin_feet=pinned, holding=holding)

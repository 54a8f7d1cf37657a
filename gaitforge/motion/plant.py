"""Planting a walk's feet on a planned stance schedule.

A walk asked to go fast has long strides, and the harmonic fit of its foot
profile (:mod:`gaitforge.motion.mode_selection`) leaves millimetres of ripple
in the stance, enough to lift a foot in mid-stance and break the walk's
double support. :func:`plant_feet` holds each foot through its *planned*
stance with modal IK (Kry 2012 §4.2, :mod:`gaitforge.motion.modal_ik`):
horizontally where it landed, vertically at its standing height. So that
nothing pops, the hold fades in and out over :data:`BLEND` seconds: at
touchdown the height goal moves from where the foot is to its standing
height, and after lift-off the foot rises as unplanted while its
horizontal goal moves from the anchor to where the unplanted motion has it
(smoothstep weights): the catch-up happens in the air, not on the ground.
With ``on_ground`` that holds where the planned
stance and the ground disagree too: the hold starts when the landing foot
is down, a few frames before its planned stance, and a paw stays where it
stood after its planned stance until it has risen clear (before, a paw
swept forward on the ground there, 0.05 of skate per metre in the dog's
walk at Froude 0.45; a landing human foot crept forward before its stance).

The speed ramps and :func:`~gaitforge.motion.holding.held_walk` hold a
walk's feet their own way now (with the centre of mass and the root on
smoothed paths, :mod:`gaitforge.motion.holding`): planting frame by frame
left the body's path as the feet made it, 3–9 g (dog) and 11–21 g (human)
between frames at the table's walking speeds.
"""
from __future__ import annotations

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.footfall import _parts, feet_of, foot_positions
from gaitforge.motion.grounding import smoothstep
from gaitforge.motion.modal_ik import PIN_STEP_TOL, _Problem, _solve, modal_columns

BLEND = 0.08   # [s] the hold fades in (height) and out (all axes) over this time



def _on_the_ground(stance: np.ndarray, low: np.ndarray, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A foot on the ground does not slide: the planned ``stance`` (T, F)
    extended back over the frames just before each touchdown in which the
    foot is already ``low`` (T, F: within the grounding's contact tolerance
    of its standing height in the unplanted clip), and ``held`` (T, F): for
    ``point`` feet (F,) bool, paws with a single contact point, the frames
    just after each lift-off in which the foot is still low, held where it
    stood while it rises (a foot with a sole rolls off its toe instead: its
    tracked point moves forward while the toe stays, which holding the
    tracked point cannot express, so it is released when its planned stance
    ends). Each extension takes at most half of the swing it is in (the
    frames between two planned stances; at the clip's ends, the frames to
    the end)."""
    C = np.array(stance, bool)
    held = np.zeros_like(C)
    T = C.shape[0]
    for j in range(C.shape[1]):
        c = stance[:, j]
        starts = np.flatnonzero(c[1:] & ~c[:-1]) + 1        # first frame of each stance
        ends = np.flatnonzero(~c[1:] & c[:-1]) + 1          # first frame of each swing
        for s in starts:
            before = ends[ends < s]
            top = int(before.max()) if len(before) else 0
            u = s - 1
            while u >= s - (s - top) // 2 and low[u, j]:
                C[u, j] = True
                u -= 1
        for e in ends:
            after = starts[starts > e]
            bottom = int(after.min()) if len(after) else T
            u = e
            while point[j] and u < e + (bottom - e) // 2 and low[u, j]:
                held[u, j] = True
                u += 1
    return C, held


def plant_feet(character, basis, clip: MotionClip, stance: np.ndarray, heights: np.ndarray, *,
               modes: int | None = None, tol: float = 1e-6, blend: float = BLEND, on_ground: bool = False,
               settle: bool = False) -> MotionClip:
    """``clip`` with every foot held through its planned stance.

    stance (T, F) bool: the schedule, feet in :func:`feet_of` order;
    heights (F,) [m]: each foot's tracked point's height when standing.
    Frame by frame, modal IK with the ``modes`` leading elastic modes moves
    the pose so that each foot meets its goal (module docstring); frames
    with no goal are unchanged. on_ground: a foot on the ground does not
    slide (:func:`_on_the_ground`: the hold starts when the landing foot is
    down, and a paw is held after its planned stance until it has risen);
    settle: each frame's IK stops where it gains nothing more, with
    Levenberg–Marquardt steps where a full step fails
    (:func:`~gaitforge.motion.modal_ik._solve`). Without them (the
    defaults) the hold is the planned stance and every frame runs
    Gauss–Newton with backtracking.
    Returns a new clip (heights are not put back on the ground:
    :func:`~gaitforge.motion.grounding.touch_ground`).
    """
    from gaitforge.motion.grounding import default_contact_tol

    clip.check_character(character)
    feet = feet_of(character)
    C = np.asarray(stance, bool)
    if C.shape != (clip.n_frames, len(feet)):
        raise GaitforgeError(f"plant_feet: stance must have shape ({clip.n_frames}, {len(feet)}), got {C.shape}")
    phi, w = modal_columns(basis, modes)
    prob = _Problem(character, phi, [(character.body_id(f.body), np.array(f.point)) for f in feet])
    free = foot_positions(character, clip.qpos, feet)            # (T, F, 3) the unplanted feet
    k = max(1, int(round(blend * clip.fps)))
    held = np.zeros_like(C)
    if on_ground:
        point = np.array([not [p for p in _parts(character, f) if p != f.name] for f in feet])
        low = free[..., 2] - np.asarray(heights, float) <= default_contact_tol(character)
        C, held = _on_the_ground(C, low, point)
    out = np.array(clip.qpos)
    anchor = np.full((len(feet), 3), np.nan)
    since = np.full(len(feet), -1)        # frames since touchdown (stance) or release (swing); -1: none yet
    coords = np.zeros(phi.shape[1])
    for t in range(clip.n_frames):
        new = C[t] & (since < 0) if t == 0 else C[t] & ~C[t - 1]
        if new.any():  # touchdown: anchor where the planted motion has the foot now
            x = prob.evaluate(clip.qpos[t], coords)[1]
            anchor[new] = x[new]
            since[new] = 0
        release = ~C[t] & ~held[t] & ((C[t - 1] | held[t - 1]) if t > 0 else False)
        since[release] = 0
        goal = np.full((len(feet), 3), np.nan)
        for j in range(len(feet)):
            if C[t, j] and since[j] >= 0:
                s = smoothstep((since[j] + 1) / k)
                goal[j] = [anchor[j, 0], anchor[j, 1], anchor[j, 2] + s * (heights[j] - anchor[j, 2])]
            elif held[t, j] and np.isfinite(anchor[j]).all():   # lifting, still on the ground: it rises first
                goal[j] = [anchor[j, 0], anchor[j, 1], free[t, j, 2]]
            elif not C[t, j] and since[j] >= 0 and since[j] < k and np.isfinite(anchor[j]).all():
                s = smoothstep((since[j] + 1) / (k + 1))
                goal[j] = [anchor[j, 0] + s * (free[t, j, 0] - anchor[j, 0]),
                           anchor[j, 1] + s * (free[t, j, 1] - anchor[j, 1]), free[t, j, 2]]
        if np.isfinite(goal).any():
            res = _solve(prob, goal.reshape(-1), clip.qpos[t], w, coords, tol=tol, max_iter=50, damping=0.0,
                         step_tol=PIN_STEP_TOL, settle=settle)
            out[t], coords = res.qpos, res.coords
        else:
            coords = np.zeros(phi.shape[1])
        since[since >= 0] += 1
    return MotionClip(clip.fps, out, clip.character_name)

"""Ground contact for kinematic gaits (beyond Kry09, which leaves contact out).

Eq. 4 moves a creature about its rest pose in place: its feet swing, but
nothing holds it on the ground or carries it forward. :func:`ground`
derives the root's translation from the body-relative motion:

- height: every frame is lifted or lowered so its lowest contact point
  (sole, heel, toe, knuckle; the lowest point of the creature for one
  without contact points) is at z = 0;
- progression: feet that are down should not slide, so between frames the
  root moves by minus the mean horizontal displacement of the feet that are
  down in both frames. Feet moving backwards under the body thus push it
  forwards, and the speed follows from the gait itself. A foot is down when
  it is within ``contact_tol`` of the lowest foot (so one always is).

With a prescribed speed the root instead advances at that speed along +x.
Where two stance feet move differently relative to the body no translation
can hold both; the mean leaves each half the difference, which
``gaitforge.motion.modal_ik.pin_stance_feet`` then removes.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import mujoco
import numpy as np

from gaitforge.creatures.compile import vertical_extent
from gaitforge.errors import GaitforgeError
from gaitforge.motion.footfall import Foot, feet_of, foot_positions

CONTACT_TOL_SHARE = 0.01  # default contact_tol: this share of the standing height
MIN_CONTACT_TOL = 0.002   # [m] but never less


class Grounded(NamedTuple):
    """Result of :func:`ground`: qpos (T, nq) grounded frames; feet (F,) the
    feet used (empty for a creature without feet); positions (T, F, 3) [m]
    their world positions after grounding; down (T, F) bool: which were down;
    root_offset (T, 3) [m] the translation added to the root each frame."""

    qpos: np.ndarray
    feet: tuple[Foot, ...]
    positions: np.ndarray
    down: np.ndarray
    root_offset: np.ndarray


def default_contact_tol(character) -> float:
    """The default contact tolerance [m]: 1 % of the standing height, ≥ 2 mm."""
    return max(MIN_CONTACT_TOL, CONTACT_TOL_SHARE * character.height)


def root_translation(character) -> tuple[np.ndarray, np.ndarray]:
    """The coordinates that translate the whole creature: qpos indices (n,)
    and the world axis (n, 3) each moves along. A free root gives its three
    position coordinates; otherwise the slide joints of the root body (a
    planar root: x and z), read at the rest pose. Raises if there are none."""
    m = character.model
    root = character.body_id(character.bodies[0])
    joints = np.flatnonzero(m.jnt_bodyid == root)
    free = [j for j in joints if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE]
    if free:
        a = int(m.jnt_qposadr[free[0]])
        return np.arange(a, a + 3), np.eye(3)
    slides = [j for j in joints if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_SLIDE]
    if not slides:
        raise GaitforgeError(f"{character.name} cannot be grounded: its root body {character.bodies[0]!r} "
                             "has no free or slide joint to translate it; use grounded=False")
    if any(m.jnt_type[j] != mujoco.mjtJoint.mjJNT_SLIDE for j in joints if j < max(slides)):
        raise GaitforgeError(f"{character.name} cannot be grounded: its root body rotates before it "
                             "translates (put its slide joints first); use grounded=False")
    d = character.make_data()  # slides first: their world axes do not change with the pose
    return np.array([m.jnt_qposadr[j] for j in slides], int), np.array([d.xaxis[j] for j in slides])


def _contact_points(character) -> tuple[list[str], np.ndarray]:
    """Bodies and local positions (n, 3) [m] of all contact points (sites)."""
    m = character.model
    sid = np.array(list(character.contacts.values()), int)
    return [m.body(int(b)).name for b in m.site_bodyid[sid]], m.site_pos[sid].reshape(-1, 3)


def lowest_heights(character, qpos: np.ndarray) -> np.ndarray:
    """The height (T,) [m] that must touch the ground in each frame (T, nq):
    the lowest contact point (soles, heels, toes, knuckles) if the creature
    has any, else the lowest point of its geoms."""
    m = character.model
    if character.contacts:
        bodies, local = _contact_points(character)
        return character.world_points(np.atleast_2d(qpos), bodies, local)[..., 2].min(axis=1)
    d = mujoco.MjData(m)
    out = np.empty(len(qpos))
    for t, q in enumerate(qpos):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        out[t] = vertical_extent(m, d)[0]
    return out


def _apply(character, q: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Add world translations offset (T, 3) to the root of frames q (T, nq) in
    place (least squares in the root's translation coordinates: exact for a
    free root; a planar root drops the lateral part it cannot make); return
    the translations applied (T, 3)."""
    idx, axes = root_translation(character)
    coef, *_ = np.linalg.lstsq(axes.T, offset.T, rcond=None)
    q[:, idx] += coef.T
    return coef.T @ axes


def touch_ground(character, qpos: np.ndarray) -> np.ndarray:
    """Frames (T, nq) moved vertically so that each one's
    :func:`lowest_heights` is at z = 0 (nothing else changes)."""
    q = np.array(qpos, dtype=float)
    offset = np.zeros((len(q), 3))
    offset[:, 2] = -lowest_heights(character, q)
    _apply(character, q, offset)
    return q


def stance_velocity_offsets(P: np.ndarray, down: np.ndarray) -> np.ndarray:
    """Root translation (T, 2) [m] that keeps down feet still on average.

    P: foot positions (T, F, 3); down: (T, F) bool. Between frames t and t+1
    the root moves by minus the mean horizontal step of the feet down in both
    frames (if none is, of those down in frame t+1, the ones carrying the
    weight next). The first frame's offset is 0.
    """
    step = np.diff(P[..., :2], axis=0)                     # (T-1, F, 2)
    w = (down[1:] & down[:-1]).astype(float)
    lonely = w.sum(axis=1) == 0
    w[lonely] = down[1:][lonely]
    w /= w.sum(axis=1, keepdims=True)
    move = -np.einsum("tf,tfk->tk", w, step)
    return np.vstack([np.zeros((1, 2)), np.cumsum(move, axis=0)])


def ground(character, qpos: np.ndarray, fps: float, *, speed: float | None = None,
           contact_tol: float | None = None, feet: list[Foot] | None = None) -> Grounded:
    """Put body-relative frames (T, nq) on the ground (module docstring).

    fps [frames/s] sets time for a prescribed ``speed`` [m/s] (None: derive
    progression from the stance feet); contact_tol [m] (default
    :func:`default_contact_tol`); feet: default
    :func:`~gaitforge.motion.footfall.feet_of` (a creature without feet is
    grounded by its lowest point and moves only at the prescribed speed).
    """
    q = np.array(qpos, dtype=float)
    if q.ndim != 2 or q.shape[1] != character.nq:
        raise GaitforgeError(f"ground: qpos must have shape (frames, {character.nq}), got {q.shape}")
    tol = default_contact_tol(character) if contact_tol is None else float(contact_tol)
    if not (math.isfinite(tol) and tol > 0):
        raise GaitforgeError(f"contact_tol must be a positive number of metres, got {contact_tol!r}")
    root_translation(character)  # fail early if the root cannot move
    if feet is None:
        try:
            feet = feet_of(character)
        except GaitforgeError:
            feet = []  # no feet: grounded by the lowest point, no progression of its own
    T = len(q)
    offset = np.zeros((T, 3))
    if feet and character.contacts:  # one forward-kinematics pass for feet and contact points
        bodies, local = _contact_points(character)
        X = character.world_points(q, [f.body for f in feet] + bodies,
                                   np.vstack([np.array([f.point for f in feet]), local]))
        P, offset[:, 2] = X[:, :len(feet)], -X[:, len(feet):, 2].min(axis=1)
    else:
        offset[:, 2] = -lowest_heights(character, q)
    if feet:
        if not character.contacts:
            P = foot_positions(character, q, feet)          # (T, F, 3) before grounding
        down = P[..., 2] - P[..., 2].min(axis=1, keepdims=True) <= tol
        if speed is None:
            offset[:, :2] = stance_velocity_offsets(P, down)
    else:
        P, down = np.zeros((T, 0, 3)), np.zeros((T, 0), bool)
    if speed is not None:
        offset[:, 0] = float(speed) * np.arange(T) / fps
    applied = _apply(character, q, offset)
    return Grounded(q, tuple(feet), P + applied[:, None, :], down, applied)

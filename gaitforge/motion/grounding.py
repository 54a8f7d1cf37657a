"""Ground contact for kinematic gaits (beyond Kry09, which leaves contact out).

Eq. 4 moves a creature about its rest pose in place: its feet swing, but
nothing holds it on the ground or carries it forward. :func:`ground`
derives the root's translation from the body-relative motion (the frames as
synthesized, in which the elastic modes hold the centre of mass nearly still):

- stance or flight: a foot is a *stance candidate* while its lowest contact
  point (sole, heel, toe) is in the lower half of its vertical excursion
  (:func:`stance_candidates`). Frames with no candidate are *flight*. A
  foot moving sinusoidally is low half the time, so gaits whose feet
  alternate at one frequency (Kry09's) and walks always have a foot down;
  feet that dip for less than half the cycle (a run's bounce) leave gaps;
- height in stance (the *stance rule*): the lowest contact point (the
  lowest point of the creature for one without contact points) is put at
  z = 0;
- height in flight: from the last stance frame (take-off) to the next
  (touchdown) a point of the body follows the parabola z0 + v0 s − g s²/2
  that leaves from its take-off height and lands at its touchdown height
  after the flight time the clip gives. That point is the root body, or
  with ``smooth`` the centre of mass (:func:`centres_of_mass`), whose path
  in flight gravity alone decides. A frame where the parabola would sink a
  contact point to z ≤ 0 is stance after all;
- progression in stance: feet that are down should not slide, so between
  frames the root moves by minus the mean horizontal step of the feet down
  in both frames (down: within ``contact_tol`` of the lowest foot; in a
  clip that flies, also a stance candidate or the lowest itself). Feet
  moving backwards under the body push it forwards;
- progression in flight: the same point (root or centre of mass) keeps the
  horizontal velocity of its step into the take-off frame until touchdown.

With a prescribed speed the root instead advances at that speed along +x.
Flights cut by the clip's ends (or taking off from its first frame) stay on
the ground: their take-off or touchdown is missing; ``synthesize`` grounds
a period of margin frames on both sides so that none is. Where two stance
feet move differently relative to the body no translation can hold both;
``gaitforge.motion.modal_ik.pin_stance_feet`` removes the slip left.

Smooth flight (``smooth``, what ``synthesize(pin_feet=True)`` uses). The
rules above keep the root continuous but not its velocity: the stance rule
makes the body sink towards take-off and rise after touchdown (the feet
lift and land relative to it) while the arc leaves upwards and lands
downwards, so the velocity jumped by up to ~1 m/s between two frames, and
the lowest foot changing (a gallop's lead) kinks the stance path too. So
in a clip that flies the stance part of the centre of mass's path is
smoothed (:func:`smooth_stance`): the path nearest to the stance rule whose
second differences are small, with the flights and their take-off and
touchdown frames held fixed, so that the velocity runs on into and out of
each arc. The body then sits up to a few centimetres off the stance rule
(``Grounded.blend``, typically lower in mid-stance: the crouch of a
running stance) and the feet would float or sink by as much; the modal IK
pinning that follows holds every foot's contact points at the stance
rule's heights, the feet that are down or landing where the stance rule
has them, and the root where the smoothing put it, so the legs bend to
make up for it, the feet stay on the ground and the footfalls stay those
of the stance rule.

The bound this aims at: a ground reaction of at most :data:`STANCE_FORCE`
body weights, i.e. a centre-of-mass acceleration with |a + g ẑ| ≤ 4 g in
stance (peak vertical ground reactions are ~2.5–3 body weights in human
running and below that in trotting and galloping quadrupeds; the margin is
for a kinematic gait that was not planned with forces), and a = −g ẑ in
flight. The smoother's cutoff :data:`SMOOTH_HZ` is its knob: a lower one
gives smaller accelerations but a larger crouch for the legs to make.
``benchmarks/flight_smoothness.py`` prints the figures for the suggested
flying gaits; ``tests/test_flight.py`` holds them to the bound. The flight
arcs and the smoothers are :mod:`gaitforge.motion.flight` (re-exported here).
"""
from __future__ import annotations

import math
import weakref
from typing import NamedTuple

import mujoco
import numpy as np

from gaitforge.creatures.character import kinematics_data
from gaitforge.creatures.compile import vertical_extent
from gaitforge.errors import GaitforgeError
from gaitforge.motion.footfall import Foot, feet_of, foot_positions
from gaitforge.motion.flight import (GRAVITY, SMOOTH_HZ, ballistic_heights, flight_offsets, flight_runs,
                                     smooth_ballistic, smooth_stance, smoothstep, stride_window)
from gaitforge.motion.grounding_kernels import stance_steps

__all__ = ["CONTACT_TOL_SHARE", "GRAVITY", "MIN_CONTACT_TOL", "SMOOTH_HZ", "STANCE_FORCE", "STANCE_SHARE", "Grounded",
           "ballistic_heights", "centres_of_mass", "default_contact_tol", "flight_offsets", "flight_runs",
           "foot_contacts", "ground", "lowest_heights", "root_translation", "smooth_ballistic", "smooth_stance",
           "smoothstep", "stance_candidates", "stance_velocity_offsets", "stride_window", "touch_ground",
           "translate_root"]

CONTACT_TOL_SHARE = 0.01  # default contact_tol: this share of the standing height
MIN_CONTACT_TOL = 0.002   # [m] but never less (also the least stance-candidate tolerance)
STANCE_SHARE = 0.5        # a foot is a stance candidate in the lower half of its vertical excursion
STANCE_FORCE = 4.0        # [body weights] ground reaction a smooth stance stays within: |a + g ẑ| ≤ 4 g


class Grounded(NamedTuple):
    """Result of :func:`ground`: qpos (T, nq) grounded frames; feet (F,) the
    feet used (empty for a creature without feet); positions (T, F, 3) [m]
    their world positions after grounding; down (T, F) bool: which were down
    (none in flight); root_offset (T, 3) [m] the translation added to the
    root each frame; airborne (T,) bool: the flight frames; blend (T, 3)
    [m]: the part of root_offset that :func:`smooth_stance` added to the
    stance rule (zero in flight, and everywhere unless ``smooth`` and the
    clip flies): the feet float or sink by its z until modal IK holds them
    on the ground."""

    qpos: np.ndarray
    feet: tuple[Foot, ...]
    positions: np.ndarray
    down: np.ndarray
    root_offset: np.ndarray
    airborne: np.ndarray
    blend: np.ndarray | None = None


def default_contact_tol(character) -> float:
    """The default contact tolerance [m]: 1 % of the standing height, ≥ 2 mm."""
    return max(MIN_CONTACT_TOL, CONTACT_TOL_SHARE * character.height)


_ROOT_TRANSLATIONS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def root_translation(character) -> tuple[np.ndarray, np.ndarray]:
    """The coordinates that translate the whole creature: qpos indices (n,)
    and the world axis (n, 3) each moves along (read-only arrays, found once
    per character). A free root gives its three position coordinates;
    otherwise the slide joints of the root body (a planar root: x and z),
    read at the rest pose. Raises if there are none."""
    found = _ROOT_TRANSLATIONS.get(character)
    if found is None:
        found = _ROOT_TRANSLATIONS[character] = _find_root_translation(character)
        for a in found:
            a.flags.writeable = False
    return found


def _find_root_translation(character) -> tuple[np.ndarray, np.ndarray]:
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
    d = kinematics_data(m)
    out = np.empty(len(qpos))
    for t, q in enumerate(qpos):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        out[t] = vertical_extent(m, d)[0]
    return out


def centres_of_mass(character, qpos: np.ndarray) -> np.ndarray:
    """Centre of mass (T, 3) [m] of each frame (T, nq): the body masses'
    weighted mean of their inertial frames' origins (MuJoCo ``xipos``).
    Translating the root by an offset moves it by the same offset."""
    m = character.model
    w = m.body_mass[1:] / m.body_mass[1:].sum()
    xpos, xmat = character.body_frames(np.atleast_2d(qpos))
    return np.einsum("b,tbi->ti", w, xpos[:, 1:] + np.einsum("tbij,bj->tbi", xmat[:, 1:], m.body_ipos[1:]))


def _apply(character, q: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Add world translations offset (T, 3) to the root of frames q (T, nq) in
    place (least squares in the root's translation coordinates: exact for a
    free root; a planar root drops the lateral part it cannot make); return
    the translations applied (T, 3)."""
    idx, axes = root_translation(character)
    if axes.shape == (3, 3) and np.array_equal(axes, np.eye(3)):  # a free root: x, y, z themselves
        q[:, idx] += offset
        return np.array(offset, float)
    coef, *_ = np.linalg.lstsq(axes.T, offset.T, rcond=None)
    q[:, idx] += coef.T
    return coef.T @ axes


def translate_root(character, qpos: np.ndarray, offset: np.ndarray) -> np.ndarray:
    """Frames (T, nq) with world translations offset (T, 3) [m] added to the
    root (the part a planar root can make); nothing else changes."""
    q = np.array(qpos, dtype=float)
    _apply(character, q, np.asarray(offset, float))
    return q


def touch_ground(character, qpos: np.ndarray, *, fps: float | None = None,
                 airborne: np.ndarray | None = None, com: bool = False) -> np.ndarray:
    """Frames (T, nq) moved vertically so that each one's
    :func:`lowest_heights` is at z = 0 (nothing else changes); with
    ``airborne`` (T,) bool and ``fps`` [frames/s], those frames fly on the
    parabolas of :func:`ballistic_heights` instead (of the root body, or
    with ``com`` of the centre of mass), except flights cut by the clip's
    ends, which keep their height (their arc needs frames beyond the
    clip)."""
    q = np.array(qpos, dtype=float)
    offset = np.zeros((len(q), 3))
    lowest = lowest_heights(character, q)
    offset[:, 2] = -lowest
    if airborne is not None and np.any(airborne):
        if fps is None:
            raise GaitforgeError("touch_ground: airborne frames need fps to time their flight")
        if com:
            root_z = centres_of_mass(character, q)[:, 2]
        else:
            root_z = character.world_points(q, [character.bodies[0]], np.zeros((1, 3)))[:, 0, 2]
        offset[:, 2] = ballistic_heights(lowest, root_z, airborne, 1.0 / fps)[0]
        cut = np.array(airborne, bool)
        for a, b in flight_runs(airborne):
            cut[a:b + 1] = False
        offset[cut, 2] = 0.0
    _apply(character, q, offset)
    return q


def stance_velocity_offsets(P: np.ndarray, down: np.ndarray) -> np.ndarray:
    """Root translation (T, 2) [m] that keeps down feet still on average.

    P: foot positions (T, F, 3); down: (T, F) bool. Between frames t and t+1
    the root moves by minus the mean horizontal step of the feet down in both
    frames (if none is, of those down in frame t+1, the ones carrying the
    weight next; if none is either, it stays). The first frame's offset is 0.
    """
    P, down = np.asarray(P, float), np.asarray(down, np.bool_)
    if P.ndim != 3 or P.shape[2] not in (2, 3) or down.shape != P.shape[:2]:
        raise GaitforgeError(f"stance_velocity_offsets: P must be (T, F, 2 or 3) and down (T, F), "
                             f"got {P.shape} and {down.shape}")
    out = np.zeros((len(P), 2))
    stance_steps(P, down, out)
    return out


def stance_candidates(heights: np.ndarray, share: float = STANCE_SHARE) -> np.ndarray:
    """(T, F) bool: whether each foot is low enough to stand on.

    heights (T, F) [m]: each foot's lowest contact point, body-relative (as
    synthesized, before grounding). A foot qualifies within
    max(share · its excursion over the frames, MIN_CONTACT_TOL) of its
    lowest height (plus 1 nm, so that rounding does not split a foot that
    is exactly at the threshold from its stance).
    """
    low = heights.min(axis=0)
    return heights <= low + np.maximum(share * np.ptp(heights, axis=0), MIN_CONTACT_TOL) + 1e-9


def _foot_columns(character, feet) -> list[list[int]]:
    """For each foot, the indices (into ``character.contacts``) of the
    contact points fixed in its body or a body below it (toes)."""
    m = character.model
    owner = m.site_bodyid[np.array(list(character.contacts.values()), int)] if character.contacts else []
    out = []
    for f in feet:
        root, cols = character.body_id(f.body), []
        for j, b in enumerate(owner):
            b = int(b)
            while b > root:  # parents have smaller ids than their children
                b = int(m.body_parentid[b])
            if b == root:
                cols.append(j)
        out.append(cols)
    return out


def foot_contacts(character, feet) -> list[str]:
    """Names of the contact points of the feet (soles, heels, toes), foot by foot."""
    names = list(character.contacts)
    return [names[j] for cols in _foot_columns(character, feet) for j in cols]


def _foot_heights(character, feet, X_feet: np.ndarray, X_points: np.ndarray) -> np.ndarray:
    """Height (T, F) [m] of each foot's lowest contact point: the contact
    points fixed in the foot's body or a body below it (toes), else the
    tracked foot point itself. X_feet (T, F, 3), X_points (T, n, 3) world
    positions of the feet and of all contact points."""
    out = X_feet[..., 2].copy()
    for i, cols in enumerate(_foot_columns(character, feet)):
        if cols:
            out[:, i] = X_points[:, cols, 2].min(axis=1)
    return out


def ground(character, qpos: np.ndarray, fps: float, *, speed: float | None = None,
           contact_tol: float | None = None, feet: list[Foot] | None = None, flight: bool = True,
           stance_share: float = STANCE_SHARE, smooth: bool = False, stride: float | None = None) -> Grounded:
    """Put body-relative frames (T, nq) on the ground (module docstring).

    fps [frames/s] sets time for the flight parabolas and a prescribed
    ``speed`` [m/s] (None: derive progression from the stance feet);
    contact_tol [m] (default :func:`default_contact_tol`); feet: default
    :func:`~gaitforge.motion.footfall.feet_of` (a creature without feet is
    grounded by its lowest point, never flies, and moves only at the
    prescribed speed); flight: let frames with no stance candidate fly
    (False: the lowest point is on the ground in every frame);
    stance_share: see :func:`stance_candidates`. smooth: the centre of mass,
    not the root body, flies on the arcs (ballistic: −g vertically, its
    take-off velocity horizontally), and :func:`smooth_stance` joins the
    stance to them with a continuous velocity (``Grounded.blend``); the
    feet then need modal IK to stay on the ground
    (``synthesize(pin_feet=True)`` does this). stride [s]: the stride
    period; given, a flight keeps the mean horizontal stance velocity of the
    stride around it, not its take-off velocity (:func:`flight_offsets`).
    """
    q = np.array(qpos, dtype=float)
    if q.ndim != 2 or q.shape[1] != character.nq:
        raise GaitforgeError(f"ground: qpos must have shape (frames, {character.nq}), got {q.shape}")
    tol = default_contact_tol(character) if contact_tol is None else float(contact_tol)
    if not (math.isfinite(tol) and tol > 0):
        raise GaitforgeError(f"contact_tol must be a positive number of metres, got {contact_tol!r}")
    if not (math.isfinite(stance_share) and 0 <= stance_share <= 1):
        raise GaitforgeError(f"stance_share must be a number from 0 to 1, got {stance_share!r}")
    root_translation(character)  # fail early if the root cannot move
    if feet is None:
        try:
            feet = feet_of(character)
        except GaitforgeError:
            feet = []  # no feet: grounded by the lowest point, no progression of its own
    T = len(q)
    offset = np.zeros((T, 3))
    airborne = np.zeros(T, bool)
    if feet and character.contacts:  # one forward-kinematics pass for feet and contact points
        bodies, local = _contact_points(character)
        X = character.world_points(q, [f.body for f in feet] + [character.bodies[0]] + bodies,
                                   np.vstack([np.array([f.point for f in feet]), np.zeros((1, 3)), local]))
        F = len(feet)
        P, root, lowest = X[:, :F], X[:, F], X[:, F + 1:, 2].min(axis=1)
        heights = _foot_heights(character, feet, P, X[:, F + 1:])
    else:
        lowest = lowest_heights(character, q)
        root = character.world_points(q, [character.bodies[0]], np.zeros((1, 3)))[:, 0]
        P = foot_positions(character, q, feet) if feet else np.zeros((T, 0, 3))
        heights = P[..., 2]
    offset[:, 2] = -lowest
    rise = P[..., 2] - P[..., 2].min(axis=1, keepdims=True) if feet else np.zeros((T, 0))  # above the lowest foot
    down = rise <= tol
    arc = centres_of_mass(character, q) if smooth else root  # the point that flies on the arcs (T, 3)
    if feet and flight and T > 3:
        stance = stance_candidates(heights, stance_share)
        offset[:, 2], airborne = ballistic_heights(lowest, arc[:, 2], np.asarray(~stance.any(axis=1)), 1.0 / fps)
        if airborne.any():  # in a gait that flies, a foot swinging through low does not hold the body back
            down &= (stance | (rise == 0)) & ~airborne[:, None]
    if feet and speed is None:
        runs = flight_runs(airborne)
        windows = None if stride is None else [stride_window(0.5 * (a + b), stride * fps) for a, b in runs]
        offset[:, :2] = flight_offsets(stance_velocity_offsets(P, down), arc[:, :2], runs, windows)
    if speed is not None:
        offset[:, 0] = float(speed) * np.arange(T) / fps
    blend = np.zeros((T, 3))
    if smooth and airborne.any():
        blend = smooth_stance(arc + offset, airborne, 1.0 / fps) - (arc + offset)
    applied = _apply(character, q, offset + blend)
    return Grounded(q, tuple(feet), P + applied[:, None, :], down, applied, airborne, blend)

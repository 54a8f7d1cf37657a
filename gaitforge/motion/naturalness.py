"""How natural a clip looks, in numbers (issue 28): how steady the head
and trunk are, how far the hands rise, and the sagittal ranges of the big
joints, all read from a clip's body frames and the creature's labels.

Every angle is a spread: the 5th to 95th percentile of its values over the
clip (so one stray frame does not count), in degrees. Orientations are
taken relative to the body's rest orientation and split into yaw (about
world z), pitch (about the heading's lateral axis) and roll (about the
heading's forward axis), z-y-x order; x forward, y left, z up.

- head pitch / yaw / roll (roll is "head sway") of the body labelled
  ``head``;
- trunk heading (yaw) and trunk sway (the larger of roll and pitch) of the
  body labelled ``trunk`` (the chest);
- pelvis rotation: yaw of the body labelled ``pelvis``;
- hands above shoulders [m]: the highest the hand of a limb with no foot
  rises above that limb's shoulder (the start of its chain), 95th
  percentile; NaN for creatures whose every limb is a leg;
- joint ranges: the sagittal flexion (rotation about the parent's lateral
  axis, from rest) of each labelled hip, knee, ankle (a foot's joint) and
  shoulder, the largest spread over the sides.

Pure functions on numpy arrays and the character's compiled model.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["JOINT_ROLES", "Naturalness", "SPREAD", "hand_heights", "naturalness", "spread", "yaw_pitch_roll"]

SPREAD = (5.0, 95.0)            # percentiles between which a spread is measured
JOINT_ROLES = {"hip": "hip", "knee": "knee", "ankle": "foot", "shoulder": "shoulder"}  # range name → body role


class Naturalness(NamedTuple):
    """Spreads [°] (5th–95th percentile) over a clip; NaN where the creature
    has no body of that role. hands_above [m]: highest hand minus its
    shoulder (NaN: no free arms); ranges: joint name → sagittal spread [°]."""

    head_pitch: float
    head_yaw: float
    head_sway: float
    trunk_heading: float
    trunk_sway: float
    pelvis_rotation: float
    hands_above: float
    ranges: dict

    def to_dict(self) -> dict:
        """Plain floats, joint ranges flattened as ``range_<name>``."""
        out = {k: float(v) for k, v in self._asdict().items() if k != "ranges"}
        out.update({f"range_{k}": float(v) for k, v in self.ranges.items()})
        return out


def spread(x: np.ndarray) -> float:
    """The 5th–95th percentile spread of x (T,) (NaN if empty)."""
    x = np.asarray(x, float)
    if x.size == 0:
        return float("nan")
    lo, hi = np.percentile(x, SPREAD)
    return float(hi - lo)


def yaw_pitch_roll(R: np.ndarray) -> np.ndarray:
    """Angles (T, 3) [rad] of rotations R (T, 3, 3), z-y-x order (R = Rz(yaw)
    Ry(pitch) Rx(roll)); yaw and roll unwrapped along T."""
    yaw = np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0]))
    pitch = -np.arcsin(np.clip(R[:, 2, 0], -1.0, 1.0))
    roll = np.unwrap(np.arctan2(R[:, 2, 1], R[:, 2, 2]))
    return np.stack([yaw, pitch, roll], axis=1)


def _first(character, role: str) -> int | None:
    names = character.bodies_labeled(role=role)
    return character.body_id(names[0]) if names else None


def _relative(xmat: np.ndarray, rest: np.ndarray, b: int) -> np.ndarray:
    """World rotations (T, 3, 3) of body b taken from its rest orientation."""
    return xmat[:, b] @ rest[b].T


def _sagittal(xmat: np.ndarray, rest: np.ndarray, child: int, parent: int) -> np.ndarray:
    """Flexion (T,) [rad] of ``child`` against ``parent``: the lateral (y)
    component, in the parent's rest-aligned frame, of the rotation vector of
    the joint's turn from rest."""
    M = np.einsum("tji,tjk->tik", xmat[:, parent], xmat[:, child])       # parent-relative
    M0 = rest[parent].T @ rest[child]
    D = rest[parent] @ M @ M0.T @ rest[parent].T                            # in world axes at rest
    angle = np.arccos(np.clip((np.trace(D, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0))
    axis_y = D[:, 0, 2] - D[:, 2, 0]
    s = np.sin(angle)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = np.where(s > 1e-9, angle * axis_y / (2.0 * s), 0.5 * axis_y)
    return y


def hand_heights(character, qpos: np.ndarray, xpos: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Hand body name → its height above its shoulder joint (T,) [m] in
    poses ``qpos`` (T, nq), for every body labelled ``hand`` (the shoulder:
    the body labelled ``shoulder`` nearest the hand on its side's chain);
    ``xpos``: the body positions (T, nbody, 3) if already computed."""
    m = character.model
    if xpos is None:
        xpos = character.body_frames(np.atleast_2d(np.asarray(qpos, float)))[0]
    out = {}
    for hand in character.bodies_labeled(role="hand"):
        b = character.body_id(hand)
        top, walk = b, b
        while int(m.body_parentid[walk]) > 0 and character.labels[m.body(walk).name].side \
                == character.labels[hand].side:
            if character.labels[m.body(walk).name].role == "shoulder" and top == b:
                top = walk  # the shoulder joint nearest the hand (the upper arm's)
            walk = int(m.body_parentid[walk])
        out[hand] = xpos[:, b, 2] - xpos[:, top, 2]
    return out


def naturalness(character, qpos: np.ndarray, rest_qpos: np.ndarray | None = None) -> Naturalness:
    """The measures of the module docstring for poses ``qpos`` (T, nq),
    angles taken from ``rest_qpos`` (nq,; default the rest pose; a clip
    whose arms hang in the creature's posture is measured from
    :func:`gaitforge.motion.arms.posture_qpos`)."""
    qpos = np.atleast_2d(np.asarray(qpos, float))
    xpos, xmat = character.body_frames(qpos)
    _, rest = character.body_frames((character.rest_qpos if rest_qpos is None else np.asarray(rest_qpos, float))[None])
    rest = rest[0]
    m = character.model

    def angles(role: str) -> np.ndarray | None:
        b = _first(character, role)
        return None if b is None else np.degrees(yaw_pitch_roll(_relative(xmat, rest, b)))

    nan = float("nan")
    head, trunk, pelvis = angles("head"), angles("trunk"), angles("pelvis")
    head_vals = (nan, nan, nan) if head is None else (spread(head[:, 1]), spread(head[:, 0]), spread(head[:, 2]))
    trunk_vals = (nan, nan) if trunk is None else (spread(trunk[:, 0]),
                                                   max(spread(trunk[:, 2]), spread(trunk[:, 1])))
    pelvis_rot = nan if pelvis is None else spread(pelvis[:, 0])

    above = [np.percentile(h, SPREAD[1]) for h in hand_heights(character, qpos, xpos).values()]
    hands_above = float(max(above)) if above else nan

    ranges = {}
    for name, role in JOINT_ROLES.items():
        best = nan
        for body in character.bodies_labeled(role=role):
            b = character.body_id(body)
            parent = int(m.body_parentid[b])
            if parent <= 0 or m.body_jntnum[b] == 0:
                continue
            if role == "shoulder" and character.labels[m.body(parent).name].role == "shoulder":
                pass
            elif role == "shoulder" and any(character.labels[m.body(int(c)).name].role == "shoulder"
                                            for c in np.flatnonzero(m.body_parentid == b)):
                continue  # a clavicle: the swing is the upper arm's
            r = spread(np.degrees(_sagittal(xmat, rest, b, parent)))
            best = r if not np.isfinite(best) else max(best, r)
        ranges[name] = best
    return Naturalness(*head_vals, *trunk_vals, pelvis_rot, hands_above, ranges)

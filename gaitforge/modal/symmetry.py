"""Left/right mirror symmetry of joint-space vectors.

Reflecting the rest pose through the creature's sagittal plane (x-z through
its centre of mass) swaps left and right bodies. A rotation is an axial
vector, so rotating by θ about axis a becomes rotating by θ about −S a
(S = diag(1, −1, 1)): a hinge about y keeps its sign, one about x or z flips.
A translation t becomes S t. For each joint of a body and the matching joint
of its mirror body the map is therefore ±1 (hinge: the sign of a'ᵀ(−S)a;
slide: of a'ᵀ S a), or the 3 × 3 block R'ᵀ(−S)R between their frames (ball,
free-root rotation).

Models written by people are mirror images only up to their authoring
precision: dm_control's dog has tail vertebrae 0.4 mm off the midline, the
CMU humanoid (from motion capture) has its legs and arms about 0.5 mm apart
in their midplanes. Matching therefore allows a tolerance, and the map is
built from the matched pairs so that it is an exact involution (P P = I)
that maps each hinge or slide DOF onto one partner: modes of such a model come out
symmetric or antisymmetric to within the size of the mismatch.
"""
from __future__ import annotations

import math
import threading
import weakref

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError

MIRROR_TOL = 2e-3  # positions: fraction of the creature's size; axes: radians
_S = np.diag([1.0, -1.0, 1.0])
_OPPOSITE = {"left": "right", "right": "left", "center": "center"}
# Plain ints: numpy integers never compare equal to MuJoCo's enum members inside `in`.
_BALL, _SLIDE, _HINGE = (int(mujoco.mjtJoint.mjJNT_BALL), int(mujoco.mjtJoint.mjJNT_SLIDE),
                         int(mujoco.mjtJoint.mjJNT_HINGE))


def _pairs(character, d, plane_y: float, atol: float, mass_rtol: float) -> dict[int, int]:
    """Body id → id of its mirror image: opposite side, same role and limb, a
    mass within ``mass_rtol`` and the nearest centre of mass to the reflected
    one, within ``atol`` [m]."""
    m = character.model
    ids = {name: m.body(name).id for name in character.labels}
    groups: dict[tuple, list[int]] = {}  # (side, role, limb) → body ids: one pass, not one per body
    for name, lab in character.labels.items():
        groups.setdefault((lab.side, lab.role, lab.limb), []).append(ids[name])
    out = {}
    for name, lab in character.labels.items():
        b = ids[name]
        target = d.xipos[b] * [1.0, -1.0, 1.0] + [0.0, 2.0 * plane_y, 0.0]
        cands = groups.get((_OPPOSITE[lab.side], lab.role, lab.limb), [])
        dist = np.linalg.norm(d.xipos[cands] - target, axis=1) if cands else np.zeros(0)
        if not cands or dist.min() > atol:
            what = (f" with role {lab.role}" if lab.role else "") + (f" on a {lab.limb} limb" if lab.limb else "")
            raise GaitforgeError(f"{character.name} is not mirror-symmetric at rest: body {name!r} has no mirror "
                                 f"image (no {_OPPOSITE[lab.side]} body{what} at its reflected position)")
        b2 = cands[int(np.argmin(dist))]
        if abs(m.body_mass[b] - m.body_mass[b2]) > mass_rtol * max(m.body_mass[b], m.body_mass[b2]):
            raise GaitforgeError(f"{character.name} is not mirror-symmetric: bodies {name!r} and "
                                 f"{m.body(b2).name!r} differ in mass ({m.body_mass[b]:.6g} kg and "
                                 f"{m.body_mass[b2]:.6g} kg)")
        out[b] = b2
    return out


def mirror_matrix(character, *, tol: float = MIRROR_TOL) -> np.ndarray:
    """P (nv, nv): the joint displacement P dq is the mirror image of dq.

    A mode φ is symmetric when Pφ = φ and antisymmetric when Pφ = −φ. Bodies are
    matched by their labels (opposite side, same role and limb), by the
    reflected position of their centres of mass (within ``tol`` times the
    creature's size: the largest distance of a body's centre of mass from the
    creature's) and by their masses (within the fraction ``tol``); joints must
    match in type, in reflected anchors (same distance) and in reflected axes
    (within ``tol`` radians). P is an exact involution with one partner per
    hinge or slide DOF (entries ±1). Raises :class:`GaitforgeError` naming the
    first body or joint that breaks the symmetry.
    """
    if not (math.isfinite(tol) and tol > 0):
        raise GaitforgeError(f"the mirror tolerance must be a positive number, got {tol!r}")
    m = character.model
    d = character.make_data()
    com = d.subtree_com[0]
    atol = tol * max(np.abs(d.xipos[1:] - com).max(initial=0.0), 1e-9)
    pairs = _pairs(character, d, com[1], atol, tol)
    min_cos = math.cos(tol)
    P = np.zeros((m.nv, m.nv))
    for b, b2 in pairs.items():
        name = m.body(b).name
        j1 = range(m.body_jntadr[b], m.body_jntadr[b] + m.body_jntnum[b])
        j2 = range(m.body_jntadr[b2], m.body_jntadr[b2] + m.body_jntnum[b2])
        if [m.jnt_type[j] for j in j1] != [m.jnt_type[j] for j in j2]:
            raise GaitforgeError(f"{character.name} is not mirror-symmetric: the joints of {name!r} and "
                                 f"{m.body(b2).name!r} differ")
        R, R2 = d.xmat[b].reshape(3, 3), d.xmat[b2].reshape(3, 3)
        for ja, jb in zip(j1, j2):
            a, a2 = m.jnt_dofadr[ja], m.jnt_dofadr[jb]
            kind = int(m.jnt_type[ja])
            if np.linalg.norm(_S @ (d.xanchor[ja] - com) + com - d.xanchor[jb]) > atol:
                raise GaitforgeError(f"{character.name} is not mirror-symmetric: joint {m.joint(ja).name!r} "
                                     f"and {m.joint(jb).name!r} are not at mirrored places")
            if kind in (_HINGE, _SLIDE):
                flip = -_S if kind == _HINGE else _S
                c = float(d.xaxis[jb] @ (flip @ d.xaxis[ja]))
                if abs(c) < min_cos:
                    raise GaitforgeError(f"{character.name} is not mirror-symmetric: the axis of joint "
                                         f"{m.joint(ja).name!r} has no mirrored counterpart (joint "
                                         f"{m.joint(jb).name!r} is {math.degrees(math.acos(min(abs(c), 1.0))):.3g}° "
                                         "off)")
                P[a2, a] = math.copysign(1.0, c)
            elif kind == _BALL:
                P[a2:a2 + 3, a:a + 3] = R2.T @ (-_S) @ R
            else:  # free root: world translation, then rotation in the body frame
                P[a2:a2 + 3, a:a + 3] = _S
                P[a2 + 3:a2 + 6, a + 3:a + 6] = R2.T @ (-_S) @ R
    off = np.abs(P @ P - np.eye(m.nv)).max(axis=0) if m.nv else np.zeros(0)
    if np.any(off > 1e-9):  # two bodies chose the same partner
        dof = int(np.argmax(off))
        raise GaitforgeError(f"{character.name} is not mirror-symmetric: the axis of joint "
                             f"{m.joint(m.dof_jntid[dof]).name!r} has no mirrored counterpart")
    return P


_MIRRORS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_MIRRORS_LOCK = threading.Lock()


def mirror_of(character) -> np.ndarray | None:
    """:func:`mirror_matrix` of ``character`` at the default tolerance, read-only
    and cached per character (it depends on the rest geometry only), or None
    when the character is not mirror-symmetric."""
    with _MIRRORS_LOCK:
        if character in _MIRRORS:
            return _MIRRORS[character]
    try:
        P = mirror_matrix(character)
        P.flags.writeable = False
    except GaitforgeError:
        P = None
    with _MIRRORS_LOCK:
        _MIRRORS[character] = P
    return P

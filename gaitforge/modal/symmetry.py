"""Left/right mirror symmetry of joint-space vectors.

Reflecting the rest pose through the creature's sagittal plane (x-z through
its centre of mass) swaps left and right bodies. A rotation is an axial
vector, so rotating by θ about axis a becomes rotating by θ about −S a
(S = diag(1, −1, 1)): a hinge about y keeps its sign, one about x or z flips.
A translation t becomes S t. For each joint of a body and the matching joint
of its mirror body the map is therefore a'ᵀ(−S)a (hinge), a'ᵀ S a (slide), or
the 3 × 3 block R'ᵀ(−S)R between their frames (ball, free-root rotation).
"""
from __future__ import annotations

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError

_S = np.diag([1.0, -1.0, 1.0])
_OPPOSITE = {"left": "right", "right": "left", "center": "center"}


def _pairs(character, d, plane_y: float, atol: float) -> dict[int, int]:
    m = character.model

    def mirrored(x):
        return np.array([x[0], 2.0 * plane_y - x[1], x[2]])

    out = {}
    for name, lab in character.labels.items():
        b = m.body(name).id
        target = mirrored(d.xipos[b])
        cands = [m.body(n).id for n, l2 in character.labels.items()
                 if l2.side == _OPPOSITE[lab.side] and l2.role == lab.role and l2.limb == lab.limb]
        dist = [np.linalg.norm(d.xipos[c] - target) for c in cands]
        if not cands or min(dist) > atol:
            what = (f" with role {lab.role}" if lab.role else "") + (f" on a {lab.limb} limb" if lab.limb else "")
            raise GaitforgeError(f"{character.name} is not mirror-symmetric at rest: body {name!r} has no mirror "
                                 f"image (no {_OPPOSITE[lab.side]} body{what} at its reflected position)")
        out[b] = cands[int(np.argmin(dist))]
    return out


def mirror_matrix(character, *, tol: float = 1e-6) -> np.ndarray:
    """P (nv, nv): the joint displacement P dq is the mirror image of dq.

    A mode φ is symmetric when Pφ = φ and antisymmetric when Pφ = −φ. Bodies are
    matched by their labels (opposite side, same role and limb) and by the
    reflected position of their centres of mass (tolerance ``tol`` times the
    creature's size); joints must match in type and in reflected anchors and
    axes. Raises :class:`GaitforgeError` naming the first body or joint that
    breaks the symmetry.
    """
    m = character.model
    d = character.make_data()
    com = d.subtree_com[0]
    atol = tol * max(np.abs(d.xipos[1:] - com).max(initial=0.0), 1e-9)
    pairs = _pairs(character, d, com[1], atol)
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
            kind = m.jnt_type[ja]
            if not np.allclose(_S @ (d.xanchor[ja] - com) + com, d.xanchor[jb], atol=atol):
                raise GaitforgeError(f"{character.name} is not mirror-symmetric: joint {m.joint(ja).name!r} "
                                     f"and {m.joint(jb).name!r} are not at mirrored places")
            if kind == mujoco.mjtJoint.mjJNT_HINGE:
                P[a2, a] = d.xaxis[jb] @ (-_S @ d.xaxis[ja])
            elif kind == mujoco.mjtJoint.mjJNT_SLIDE:
                P[a2, a] = d.xaxis[jb] @ (_S @ d.xaxis[ja])
            elif kind == mujoco.mjtJoint.mjJNT_BALL:
                P[a2:a2 + 3, a:a + 3] = R2.T @ (-_S) @ R
            else:  # free root: world translation, then rotation in the body frame
                P[a2:a2 + 3, a:a + 3] = _S
                P[a2 + 3:a2 + 6, a + 3:a + 6] = R2.T @ (-_S) @ R
    bad = np.flatnonzero(np.abs(np.abs(P).sum(axis=0) - 1.0) > 1e-6) if m.nv else []
    off = np.abs(P @ P - np.eye(m.nv)).max(initial=0.0)
    if len(bad) or off > 1e-6:
        dof = int(bad[0]) if len(bad) else int(np.argmax(np.abs(P @ P - np.eye(m.nv)).max(axis=0)))
        raise GaitforgeError(f"{character.name} is not mirror-symmetric: the axis of joint "
                             f"{m.joint(m.dof_jntid[dof]).name!r} has no mirrored counterpart")
    return P

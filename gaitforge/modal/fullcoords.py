"""Formulation (b): the full-coordinate analysis of Kry09 Appendix A (Eqs. 5–8)
and Kry12 §3.1–3.4, kept independent of MuJoCo's dynamics to validate (a).

Every body has its own 6-D twist φ_b = (ω, v) in a frame at its centre of mass
along its principal axes, where its spatial inertia is diag(I₁, I₂, I₃, m, m, m).
Each joint j gets a frame (at the anchor; a hinge's or slide's x axis along its
axis) in which the relative twist of child c and parent p is
ʲφ = Ad(j←c) φ_c − Ad(j←p) φ_p, with the adjoint Ad = [[Θ, 0], [[p]Θ, Θ]].
If the joint's free motions span S (6 × ndof) in that frame, G gets the rows
that annihilate S (hinge I₂:₆: 5 rows, ball I₄:₆: 3, slide: 5, weld: 6, free
root: none) and R the rows S⁺ that read the joint rates in MuJoCo's ``qvel``
convention. Extra constraints add rows the same way. N = null(G) by SVD,
M̄ = NᵀMN, K̄ = NᵀRᵀKRN, and R N maps modes back to joint space.

Only kinematic geometry comes from MuJoCo (body frames, joint anchors and
axes at rest); masses are the model's. Gravity, when asked for, is the
joint-space term of ``gravity.py`` mapped through R (it is not re-derived here).
"""
from __future__ import annotations

import mujoco
import numpy as np
import scipy.linalg

from gaitforge.modal.basis import Reduced, null_space
from gaitforge.modal.constraints import anchor_all, constraint_jacobian, perpendicular_pair, skew
from gaitforge.modal.generalized import joint_stiffness, rest_data
from gaitforge.modal.gravity import gravity_stiffness

_HINGE, _SLIDE, _BALL, _FREE = (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE,
                                mujoco.mjtJoint.mjJNT_BALL, mujoco.mjtJoint.mjJNT_FREE)
_I6 = np.eye(6)


def adjoint(R_to: np.ndarray, o_to: np.ndarray, R_from: np.ndarray, o_from: np.ndarray) -> np.ndarray:
    """Ad (6, 6) taking twists (ω, v) written in frame ``from`` to frame ``to``;
    frames given by world rotation (3, 3) and origin (3,)."""
    theta = R_to.T @ R_from
    p = R_to.T @ (o_from - o_to)
    out = np.zeros((6, 6))
    out[:3, :3] = out[3:, 3:] = theta
    out[3:, :3] = skew(p) @ theta
    return out


def axis_frame(axis: np.ndarray) -> np.ndarray:
    """A rotation (3, 3) whose x column is the unit vector ``axis``."""
    e1, e2 = perpendicular_pair(axis)
    return np.column_stack([axis, e1, e2])


def _motion_subspace(model, d, body: int, jnts, Theta: np.ndarray, o: np.ndarray) -> np.ndarray:
    """S (6, ndof): relative twist of ``body`` per unit joint rate, in the joint frame."""
    cols = []
    for j in jnts:
        kind, anchor = model.jnt_type[j], d.xanchor[j]
        if kind == _FREE:
            cols += [np.r_[np.zeros(3), Theta.T @ e] for e in np.eye(3)]
            axes = d.xmat[body].reshape(3, 3).T  # rows: the body's local axes in world
            cols += [np.r_[Theta.T @ a, Theta.T @ skew(a) @ (o - d.xpos[body])] for a in axes]
        elif kind == _BALL:
            axes = d.xmat[body].reshape(3, 3).T
            cols += [np.r_[Theta.T @ a, Theta.T @ skew(a) @ (o - anchor)] for a in axes]
        elif kind == _HINGE:
            a = d.xaxis[j]
            cols.append(np.r_[Theta.T @ a, Theta.T @ skew(a) @ (o - anchor)])
        else:
            cols.append(np.r_[np.zeros(3), Theta.T @ d.xaxis[j]])
    return np.array(cols).T.reshape(6, len(cols))


def _split(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Constraint rows C (6 − n, 6) with C S = 0 and rate rows S⁺ (n, 6).
    When S selects coordinates (hinge, slide, ball in their frames) C is the
    paper's selection of identity rows (e.g. I₂:₆ for a hinge)."""
    if S.shape[1] == 0:
        return _I6, np.zeros((0, 6))
    picked = np.argmax(np.abs(S), axis=0)
    if np.allclose(S, _I6[:, picked], atol=1e-12) and len(set(picked)) == S.shape[1]:
        return np.delete(_I6, picked, axis=0), _I6[picked]
    return scipy.linalg.null_space(S.T).T, np.linalg.pinv(S)


class _Rows:
    """Rows over the stacked body twists (6 per body, bodies 1..nbody−1)."""

    def __init__(self, nb: int):
        self.nb = nb
        self.blocks: list[np.ndarray] = []

    def add(self, rows: np.ndarray, parts: list[tuple[int, np.ndarray]]) -> None:
        out = np.zeros((rows.shape[0], 6 * self.nb))
        for body, T in parts:
            if body > 0:  # the world (body 0) does not move
                out[:, 6 * (body - 1):6 * body] += rows @ T
        self.blocks.append(out)

    def matrix(self) -> np.ndarray:
        return np.vstack(self.blocks) if self.blocks else np.zeros((0, 6 * self.nb))


def _com_frame(d, b: int) -> tuple[np.ndarray, np.ndarray]:
    return d.ximat[b].reshape(3, 3), d.xipos[b]


def _tree(model, d) -> tuple[np.ndarray, np.ndarray]:
    """G rows of the tree's joints (rows, 6 nb) and R (nv, 6 nb)."""
    nb = model.nbody - 1
    G, R = _Rows(nb), np.zeros((model.nv, 6 * nb))
    for b in range(1, model.nbody):
        jnts = range(model.body_jntadr[b], model.body_jntadr[b] + model.body_jntnum[b])
        kinds = [model.jnt_type[j] for j in jnts]
        if len(kinds) == 1 and kinds[0] in (_HINGE, _SLIDE):
            o, Theta = d.xanchor[jnts[0]], axis_frame(d.xaxis[jnts[0]])
        elif kinds == [_FREE]:
            o, Theta = d.xpos[b], d.xmat[b].reshape(3, 3)
        else:  # weld, ball, gimbal hinges, planar root
            o = d.xanchor[jnts[0]] if kinds else d.xipos[b]
            Theta = d.xmat[b].reshape(3, 3)
        S = _motion_subspace(model, d, b, jnts, Theta, o)
        C, Splus = _split(S)
        p = model.body_parentid[b]
        T_c = adjoint(Theta, o, *_com_frame(d, b))
        T_p = adjoint(Theta, o, *_com_frame(d, p)) if p > 0 else None
        parts = [(b, T_c)] + ([(p, -T_p)] if T_p is not None else [])  # T_p: p > 0
        if C.shape[0]:
            G.add(C, parts)
        if kinds:
            rates = _Rows(nb)
            rates.add(Splus, parts)
            dof0 = model.body_dofadr[b]
            R[dof0:dof0 + S.shape[1]] = rates.matrix()
    return G.matrix(), R


def _extra_rows(d, anchors, nb: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows of the extra constraints (rows, 6 nb), closure-spring rate rows
    (s, 6 nb) and their stiffness (s,)."""
    G, springs, k = _Rows(nb), _Rows(nb), []
    for a in anchors:
        R_b = d.xmat[a.body].reshape(3, 3)
        x = d.xpos[a.body] + R_b @ a.point
        Theta = axis_frame(R_b @ a.axis) if a.axis is not None else np.eye(3)
        parts = [(a.body, adjoint(Theta, x, *_com_frame(d, a.body)))]
        if a.other > 0:
            parts.append((a.other, -adjoint(Theta, x, *_com_frame(d, a.other))))
        kind = a.constraint.kind
        rows = _I6[:3] if kind == "lock" else _I6[1:] if a.axis is not None else _I6[3:]
        G.add(rows, parts)
        if a.sprung:
            springs.add(_I6[:1], parts)
            k.append(a.constraint.stiffness)
    return G.matrix(), springs.matrix(), np.array(k, float)


def spatial_inertia(model) -> np.ndarray:
    """M (6 nb, 6 nb): block-diagonal body inertias in principal com frames."""
    diag = np.column_stack([model.body_inertia[1:], np.repeat(model.body_mass[1:, None], 3, axis=1)])
    return np.diag(diag.ravel())


def assemble(character, extra: tuple, *, gravity: bool, stiffness_scale: float) -> Reduced:
    """The reduced problem of formulation (b) (see module docstring)."""
    m = character.model
    nb = m.nbody - 1
    d = rest_data(character)
    own = tuple(character.constraints)
    anchors_own, anchors_extra = anchor_all(character, d, own), anchor_all(character, d, extra)
    anchors = anchors_own + anchors_extra
    G_tree, R = _tree(m, d)
    G_own, springs_own, k_own = _extra_rows(d, anchors_own, nb)
    G_extra, springs_extra, k_extra = _extra_rows(d, anchors_extra, nb)
    N = null_space(np.vstack([G_tree, G_own]), G_extra, dofs=m.nv, name=character.name,
                   base_names=tuple(c.name for c in own), extra_names=tuple(c.name for c in extra))
    if N is None:
        N = np.eye(6 * nb)
    RN = R @ N
    K_joint = joint_stiffness(character, d, anchors, stiffness_scale)
    spring_rows = np.vstack([springs_own, springs_extra]) @ N
    k = stiffness_scale * np.concatenate([k_own, k_extra])
    Kbar = RN.T @ (stiffness_scale * np.array(character.stiffness_matrix)) @ RN + (spring_rows.T * k) @ spring_rows
    if gravity:
        G_joint = constraint_jacobian(m, d, anchors)
        H = gravity_stiffness(character, d, anchors, G_joint)
        Kbar += RN.T @ H @ RN
        K_joint = K_joint + H
    Mbar = N.T @ spatial_inertia(m) @ N + (RN.T * m.dof_armature) @ RN
    M_joint = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M_joint)
    return Reduced(0.5 * (Mbar + Mbar.T), 0.5 * (Kbar + Kbar.T), RN, M_joint, K_joint, RN, own + extra, d)

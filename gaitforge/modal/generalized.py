"""Formulation (a): modal analysis in MuJoCo's generalized (joint) coordinates.

M is MuJoCo's joint-space inertia at the rest pose (``mj_fullM``, armature
included), K the character's joint and coupling springs
(``Character.stiffness_matrix``, scaled) plus closure springs and, on request,
gravity; the constraint rows come from ``mj_jac``. With N = null(G), the
reduced problem is M̄ = NᵀMN, K̄ = NᵀKN (Kry09 Eq. 3 written in joint space,
which Kry09 §3.1 and Kry12 §3.5 note gives the same shapes).
"""
from __future__ import annotations

import mujoco
import numpy as np

from gaitforge.creatures.character import scratch_data
from gaitforge.modal.basis import Reduced, null_space
from gaitforge.modal.constraints import anchor_all, closure_springs, constraint_jacobian
from gaitforge.modal.gravity import gravity_stiffness


def _scratch(model: mujoco.MjModel) -> mujoco.MjData:
    """The modal analysis's own reusable MjData (see
    :func:`~gaitforge.creatures.character.scratch_data`): a fresh one
    allocates MuJoCo's whole arena (~14 MB by default, ~0.8 ms), more than
    the analysis itself."""
    return scratch_data(model, "modal analysis")


def rest_data(character) -> mujoco.MjData:
    """MjData at the rest pose with kinematics, com-based quantities and the
    inertia matrix computed (no collision detection). The object is reused
    between calls on the same thread: read it before the next analysis."""
    m = character.model
    d = _scratch(m)
    d.qpos[:] = character.rest_qpos
    mujoco.mj_kinematics(m, d)
    mujoco.mj_comPos(m, d)
    mujoco.mj_makeM(m, d)
    return d


def joint_stiffness(character, data: mujoco.MjData, anchors, stiffness_scale: float) -> np.ndarray:
    """K (nv, nv): scaled joint, coupling and closure springs."""
    K = stiffness_scale * np.array(character.stiffness_matrix)
    rows, k = closure_springs(character.model, data, anchors)
    if len(k):
        K += stiffness_scale * (rows.T * k) @ rows
    return K


def assemble(character, extra: tuple, *, gravity: bool, stiffness_scale: float) -> Reduced:
    """The reduced problem of formulation (a) for ``character`` with its own
    constraints plus ``extra`` (resolved :class:`Constraint` objects)."""
    m = character.model
    d = rest_data(character)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    own = tuple(character.constraints)
    anchors_own = anchor_all(character, d, own)
    anchors_extra = anchor_all(character, d, extra)
    anchors = anchors_own + anchors_extra
    G_own = constraint_jacobian(m, d, anchors_own)
    G_extra = constraint_jacobian(m, d, anchors_extra)
    K = joint_stiffness(character, d, anchors, stiffness_scale)
    if gravity:
        K += gravity_stiffness(character, d, anchors, np.vstack([G_own, G_extra]))
    N = null_space(G_own, G_extra, dofs=m.nv, name=character.name,
                   base_names=tuple(c.name for c in own), extra_names=tuple(c.name for c in extra))
    if N is None:
        Mbar, Kbar = M, K
    else:
        Mbar, Kbar = N.T @ M @ N, N.T @ K @ N
    return Reduced(0.5 * (Mbar + Mbar.T), 0.5 * (Kbar + Kbar.T), N, M, K, N, own + extra, d)

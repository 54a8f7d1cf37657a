"""Gravity in the modal analysis: the stiffness the gravitational potential
adds about the rest pose (beyond Kry09, whose analysis ignores gravity;
Kry12 §3.5 names this as a limitation).

V(q) = −Σ_b m_b gᵀ x_b(q) (x_b: centre of mass of body b, g: ``model.opt.gravity``).
Its Hessian in MuJoCo's tangent coordinates (each joint displaced by
``mj_integratePos``) has a closed form: if dof j is an ancestor of dof i,
∂²x/∂q_j∂q_i = ω_j × u_i(x) (ω_j: dof j's world rotation axis, u_i(x): the
velocity dof i gives point x); within one ball (or free-root rotation) the
exponential map makes it the symmetric ½(ω_i × u_j + ω_j × u_i). Summing over
bodies, Σ_b m_b u_i(x_b) = P_i is column i of the total-momentum Jacobian, so
H_ji = −ω_j · (P_i × g): a few (nv, nv) products, no loop over DOFs.

Supports: a creature that nothing holds up (no constraint ties it to the world)
falls freely, and in the falling frame gravity vanishes: its modes are exactly
those without gravity. A creature held by constraints carries the constraint
forces λ that balance gravity (Gᵀλ = ∇V, least squares); their curvature
−Σ λ_k ∇²g_k joins the Hessian (the stiffness of the Lagrangian V − λᵀg), computed
by central differences of G(q)ᵀλ and symmetrized. Gravity loads that neither
springs nor supports balance at rest (the pose would sag) are not modelled.
"""
from __future__ import annotations

import warnings

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeWarning
from gaitforge.modal.constraints import constraint_jacobian, skew

FD_STEP = 1e-5  # tangent-space step of the central differences [rad or m]


def _ancestors(model: mujoco.MjModel) -> np.ndarray:
    """anc (nv, nv) bool: anc[i, j] when dof j lies on dof i's path to the world."""
    parent = model.dof_parentid
    nv = model.nv
    anc = np.zeros((nv, nv), bool)
    rows = np.arange(nv)
    p = parent.copy()
    while np.any(p >= 0):
        ok = p >= 0
        anc[rows[ok], p[ok]] = True
        p = np.where(ok, parent[np.maximum(p, 0)], -1)
    return anc


def gravity_gradient_hessian(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[np.ndarray, np.ndarray]:
    """Gradient ∇V (nv,) [N m or N] and Hessian (nv, nv) of the gravitational
    potential at the pose in ``data`` (after ``mj_kinematics`` and
    ``mj_comPos``), in MuJoCo's tangent coordinates. ∇V equals ``qfrc_bias``
    at zero velocity."""
    nv = model.nv
    g = np.asarray(model.opt.gravity, float)
    jac = np.zeros((3, nv))
    mujoco.mj_jacSubtreeCom(model, data, jac, 0)
    P = model.body_subtreemass[0] * jac          # (3, nv) Σ_b m_b ∂x_b/∂q
    Omega = data.cdof[:, :3].T                    # (3, nv) world rotation axis of each dof
    A = Omega.T @ skew(g) @ P                     # A[j, i] = −ω_j · (P_i × g) = ω_jᵀ [g]× P_i
    anc = _ancestors(model)
    same = model.dof_jntid[:, None] == model.dof_jntid[None, :]
    rot = np.any(Omega != 0.0, axis=0)
    across = np.where(anc.T & ~same, A, 0.0)      # j an ancestor of i (other joint)
    within = np.where(same & rot[:, None] & rot[None, :], 0.5 * (A + A.T), 0.0)
    return -P.T @ g, across + across.T + within


def falls_freely(model: mujoco.MjModel, data: mujoco.MjData, G: np.ndarray) -> bool:
    """Whether the admissible motions include lifting the whole creature
    rigidly (every top-level body's joints can translate it vertically and
    the constraints G (rows, nv) allow it): then nothing holds it up."""
    t = np.zeros(model.nv)
    jp, jr = np.zeros((3, model.nv)), np.zeros((3, model.nv))
    target = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 0.0])
    for b in np.flatnonzero(model.body_parentid == 0)[1:] if model.nbody > 1 else ():
        dofs = np.arange(model.body_dofadr[b], model.body_dofadr[b] + model.body_dofnum[b])
        if model.body_dofnum[b] == 0:
            return False
        mujoco.mj_jacBody(model, data, jp, jr, b)
        sub = np.vstack([jp, jr])[:, dofs]
        x = np.linalg.lstsq(sub, target, rcond=None)[0]
        if np.linalg.norm(sub @ x - target) > 1e-9:
            return False
        t[dofs] = x
    scale = max(np.abs(G).max(initial=0.0), 1.0)
    return not np.any(np.abs(G @ t) > 1e-9 * scale)


def _constraint_force_curvature(character, qpos: np.ndarray, anchors, lam: np.ndarray) -> np.ndarray:
    """Symmetrized ∂(G(q)ᵀλ)/∂q (nv, nv) by central differences in the tangent space."""
    m = character.model
    nv = m.nv
    d = mujoco.MjData(m)
    D = np.empty((nv, nv))
    for k in range(nv):  # one pair of kinematic passes per DOF: the Jacobians change with the pose
        cols = []
        for sign in (1.0, -1.0):
            q = qpos.copy()
            v = np.zeros(nv)
            v[k] = sign * FD_STEP
            mujoco.mj_integratePos(m, q, v, 1.0)
            d.qpos[:] = q
            mujoco.mj_kinematics(m, d)
            mujoco.mj_comPos(m, d)
            cols.append(constraint_jacobian(m, d, anchors).T @ lam)
        D[:, k] = (cols[0] - cols[1]) / (2.0 * FD_STEP)
    return 0.5 * (D + D.T)


def gravity_stiffness(character, data: mujoco.MjData, anchors, G: np.ndarray) -> np.ndarray:
    """The stiffness (nv, nv) gravity adds about the pose in ``data`` (module
    docstring): zero for a freely falling creature (with a warning), else the
    Hessian of V minus the curvature of the supporting constraint forces.
    ``anchors`` / G: every applied constraint and its Jacobian at that pose."""
    m = character.model
    if falls_freely(m, data, G):
        warnings.warn(f"{character.name}: gravity does not change the modes: nothing holds the creature up, "
                      "so it falls freely and in the falling frame gravity vanishes; "
                      "pin a body to the world (e.g. 'pin:BODY') to support it", GaitforgeWarning, stacklevel=4)
        return np.zeros((m.nv, m.nv))
    grad, H = gravity_gradient_hessian(m, data)
    if G.shape[0] == 0:
        return H
    lam = np.linalg.lstsq(G.T, grad, rcond=None)[0]
    if not np.any(lam):
        return H
    return H - _constraint_force_curvature(character, data.qpos.copy(), anchors, lam)

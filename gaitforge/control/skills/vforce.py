"""Virtual forces through the Jacobian transpose (Wang 2011 §3.1.3).

A virtual force F [N] (world axes) on a point of a limb, with the limb's
chain of joints between a base and the point, becomes joint torques
τ = Jᵀ F over that chain's DOFs, where J (3, nv) is MuJoCo's world-frame
point Jacobian restricted to the chain. Two uses:

- the limb pushes on its leg frame from a planted foot (base: the foot):
  the frame feels +F when the joints apply τ = −J_footᵀ F;
- gravity compensation of a swinging limb (base: the leg frame): each link's
  weight is cancelled by τ = Σ J_comᵀ (m g ẑ).

``VirtualForces`` asks MuJoCo for each Jacobian (``mj_jacSite``,
``mj_jacBodyCom``): the readable reference. The compiled control tick uses
:func:`push_from_site` and :func:`hold_up`, which build the same columns
from MuJoCo's kinematics: for a point p moved by a hinge at ``xanchor``
about ``xaxis`` the column is axis × (p − anchor); a ball joint's three
columns are the same with its body's frame axes (the columns of ``xmat``).
They read a limb's links from ``LI`` (4, 4 + 4 n) int, one row per limb:
link count, contact site, the site's link, leg-frame body, then per link
its body, joint, 1 if a ball joint, first DOF; ``LW`` (4, n) each link's
weight [N]; ``anc`` (4, n, n) 1 where link k's joint moves link p.
"""
from __future__ import annotations

import mujoco
import numpy as np

from gaitforge.jit import kernel
from gaitforge.control.skills.limbs import Limb

L_N, L_SITE, L_SITE_K, L_FRAME, L_LINKS = 0, 1, 2, 3, 4  # LI columns; then body, joint, ball, dof per link


class VirtualForces:
    """Jacobian-transpose torques for the limbs of one model (scratch
    Jacobians allocated once)."""

    def __init__(self, model: mujoco.MjModel, limbs: dict[str, Limb]):
        self.model = model
        self.jacp = np.zeros((3, model.nv))
        self.cols = {n: _limb_dofs(model, limb) for n, limb in limbs.items()}
        self.weights = {n: [(b, float(model.body_mass[b]) * -float(model.opt.gravity[2])) for b in limb.bodies]
                        for n, limb in limbs.items()}

    def at_site(self, data: mujoco.MjData, limb: Limb, force: np.ndarray, out: np.ndarray) -> None:
        """Add to ``out`` (nv,) the torques with which the limb's joints push
        its leg frame with ``force`` (3,) [N, world] from the planted foot:
        −J_siteᵀ F over the limb's DOFs."""
        mujoco.mj_jacSite(self.model, data, self.jacp, None, limb.site)
        cols = self.cols[limb.name]
        out[cols] -= self.jacp[:, cols].T @ force

    def gravity(self, data: mujoco.MjData, limb: Limb, out: np.ndarray, scale: float = 1.0) -> None:
        """Add to ``out`` (nv,) the torques that hold the limb's links up
        against gravity (× ``scale``), over the limb's DOFs."""
        cols = self.cols[limb.name]
        for b, w in self.weights[limb.name]:
            mujoco.mj_jacBodyCom(self.model, data, self.jacp, None, b)
            out[cols] += (scale * w) * self.jacp[2, cols]


def pack_links(model: mujoco.MjModel, limbs: list[Limb]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(LI, LW, anc) of four limbs (module docstring), n their most links."""
    n = max(len(limb.bodies) for limb in limbs)
    LI = np.zeros((4, L_LINKS + 4 * n), np.int64)
    LW = np.zeros((4, n))
    anc = np.zeros((4, n, n), np.int64)
    ball = int(mujoco.mjtJoint.mjJNT_BALL)
    for i, limb in enumerate(limbs):
        site_link = limb.bodies.index(int(model.site_bodyid[limb.site]))
        LI[i, :L_LINKS] = len(limb.bodies), limb.site, site_link, limb.frame
        for k, b in enumerate(limb.bodies):
            j = int(model.body_jntadr[b])
            LI[i, L_LINKS + 4 * k:L_LINKS + 4 * k + 4] = b, j, int(model.jnt_type[j]) == ball, model.jnt_dofadr[j]
            LW[i, k] = float(model.body_mass[b]) * -float(model.opt.gravity[2])
            for p, below in enumerate(limb.bodies):  # link k's joint moves link p when k's body is p's or above
                anc[i, p, k] = _is_ancestor(model, b, below)
    return LI, LW, anc


def _is_ancestor(model: mujoco.MjModel, a: int, b: int) -> bool:
    """Body a is b or one of its ancestors."""
    while b > 0 and b != a:
        b = int(model.body_parentid[b])
    return b == a


def _limb_dofs(model: mujoco.MjModel, limb: Limb) -> np.ndarray:
    """The DOF indices of a limb's joints (ball: 3, hinge: 1), in order."""
    cols: list[int] = []
    for b in limb.bodies:
        j = int(model.body_jntadr[b])
        n = 3 if int(model.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_BALL) else 1
        cols.extend(range(int(model.jnt_dofadr[j]), int(model.jnt_dofadr[j]) + n))
    return np.array(cols)


@kernel
def dof_axes(LI, i, k, xaxis, xmat, u):
    """The world axes u (3, 3) (one row per DOF) of link k's joint in limb
    i: a hinge's axis (row 0), or a ball joint's body frame axes; returns
    the DOF count. Each DOF's point-Jacobian column at p is u × (p − anchor)."""
    if LI[i, L_LINKS + 4 * k + 2]:
        b = LI[i, L_LINKS + 4 * k]
        for c in range(3):
            u[c, 0], u[c, 1], u[c, 2] = xmat[b, c], xmat[b, 3 + c], xmat[b, 6 + c]
        return 3
    j = LI[i, L_LINKS + 4 * k + 1]
    u[0, 0], u[0, 1], u[0, 2] = xaxis[j, 0], xaxis[j, 1], xaxis[j, 2]
    return 1


@kernel
def push_from_site(LI, anc, i, p, force, xanchor, xaxis, xmat, u, out):
    """``vforce.VirtualForces.at_site``: out −= J_siteᵀ force over limb i's
    DOFs ((u × r)·F = u·(r × F), r = p − anchor)."""
    sk = LI[i, L_SITE_K]
    for k in range(LI[i, L_N]):
        if anc[i, sk, k]:
            j = LI[i, L_LINKS + 4 * k + 1]
            rx, ry, rz = p[0] - xanchor[j, 0], p[1] - xanchor[j, 1], p[2] - xanchor[j, 2]
            mx, my, mz = ry * force[2] - rz * force[1], rz * force[0] - rx * force[2], rx * force[1] - ry * force[0]
            n = dof_axes(LI, i, k, xaxis, xmat, u)
            dof = LI[i, L_LINKS + 4 * k + 3]
            for c in range(n):
                out[dof + c] -= u[c, 0] * mx + u[c, 1] * my + u[c, 2] * mz


@kernel
def hold_up(LI, LW, anc, i, scale, xipos, xanchor, xaxis, xmat, u, out):
    """``vforce.VirtualForces.gravity``: out += scale Σ_links w J_comᵀ ẑ over
    limb i's DOFs: for each joint, (u × Σ w (x − anchor))·ẑ over the links it moves."""
    n_links = LI[i, L_N]
    for k in range(n_links):
        j = LI[i, L_LINKS + 4 * k + 1]
        mx = my = 0.0
        for p in range(n_links):
            if anc[i, p, k]:
                b, w = LI[i, L_LINKS + 4 * p], LW[i, p]
                mx += w * (xipos[b, 0] - xanchor[j, 0])
                my += w * (xipos[b, 1] - xanchor[j, 1])
        n = dof_axes(LI, i, k, xaxis, xmat, u)
        dof = LI[i, L_LINKS + 4 * k + 3]
        for c in range(n):
            out[dof + c] += scale * (u[c, 0] * my - u[c, 1] * mx)

"""Modal inverse kinematics (Kry 2012 §4.2) and stance-foot pinning.

A pose is sought as a displacement of modal coordinates c (k,) from a start
pose q_s: q(c) = q_s ⊕ Φc (``mj_integratePos``: exponential map for ball
joints), Φ (nv, k) the leading elastic mode shapes of a :class:`ModalBasis`,
optionally with the rigid-body modes. Among the c that put the target
points x(c) at their goals x*, it picks the one with the least

    Σ_i w_i c_i²,  w_i = λ_i = (2π f_i)²  by default,

so stiff (high-frequency) modes are used only when soft ones cannot do the
job: the whole body joins in, coordinated the way it vibrates. The
constraint is nonlinear; each Gauss–Newton step solves the linearized
problem in closed form (weighted least-norm through a pseudo-inverse, which
also gives the least-squares compromise when the targets cannot all be met)
with a fresh Jacobian, until the targets are met and the norm is minimal.

The Jacobian ∂x/∂c = J(q) D(Φc) Φ: J from ``mj_jac`` (MuJoCo's velocity
convention), D the right Jacobian of the exponential map for each ball joint
(and the free root's rotation), since a modal coordinate moves the rotation
vector, not the angular velocity. The small arithmetic of each iteration
runs as numba kernels (:mod:`gaitforge.motion.ik_kernels`): the target points,
their Jacobians (MuJoCo's motion subspaces along each point's chain, as
``mj_jac`` forms them) times Φ, the right Jacobians applied to Φ's ball
rows, the least-norm step (Householder QR; numpy's SVD least squares where
the goal rows are dependent or outnumber the modes), the two-priority step
of soft goals (Gram–Schmidt on the held rows; an SVD where they are
dependent) and the stopping tests. Pinning a clip
takes thousands of iterations, and in numpy each of those steps cost more
than MuJoCo's kinematics and Jacobians. The first call in a process loads them
(numba's start-up, a fraction of a second; compiled once per machine).
"""
from __future__ import annotations

import math
from typing import Mapping, NamedTuple

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.footfall import Footfalls, detect_footfalls, feet_of
from gaitforge.motion.ik_kernels import (SMALL_ANGLE, ball_columns, body_points, largest_miss, min_norm_step,
                                         point_jacobians, settled, soft_step)
from gaitforge.motion.poses import layout

STEP_TOL = 1e-8      # relative size of a coordinate step that counts as settled
PIN_STEP_TOL = 1e-6  # looser when pinning frame by frame: saves an iteration, same poses to ~1e-9
HOLD_STEP_TOL = 1e-4  # with held targets (smooth flight): the least-norm refinement after they are met is slow
HOLD_MAX_ITER = 15    # and a frame whose targets conflict stops at its least-squares compromise sooner
NORM_GAIN = 1e-9     # settle: with the targets met, a step must lower Σ w c² by this share to be taken
MISS_GAIN = 1e-3     # settle: with the targets missed, a step must lower the largest miss by this share
LM_START = 1e-3      # settle: first Levenberg–Marquardt damping, as a share of the mean curvature tr(BᵀB)/k
SOFT_DAMPING = 1e-4  # damped least squares of the soft goals in the null space of the hard ones (coordinate units)
LM_TRIES = 6         # settle: damping raised tenfold at most this many times
RIGID_WEIGHT = 1e-6  # rigid modes cost this share of the smallest elastic weight: nearly free
CENTRE_OF_MASS = "centre of mass"   # target name of the whole creature's centre of mass
ORIENTATION = "orientation of "     # target name prefix of a body's orientation (:func:`orientation_target`)


def orientation_target(body: str) -> str:
    """The target name of ``body``'s orientation: its goal is the body
    frame's world rotation as a rotation vector (3,) [rad] (axis × angle,
    the short way round: angle ≤ π), held where finite like a point's
    position (a NaN component leaves that one free)."""
    return ORIENTATION + body


def rotation_vectors(quats: np.ndarray) -> np.ndarray:
    """Rotation vectors (..., 3) [rad] of unit quaternions (..., 4) (w, x, y,
    z; MuJoCo's order), the short way round (angle ≤ π)."""
    q = np.asarray(quats, float)
    q = np.where(q[..., :1] < 0, -q, q)
    s = np.linalg.norm(q[..., 1:], axis=-1)
    angle = 2.0 * np.arctan2(s, q[..., 0])
    with np.errstate(invalid="ignore", divide="ignore"):
        f = np.where(s > SMALL_ANGLE * 1e-4, angle / np.where(s > 0, s, 1.0), 2.0)  # angle/sin(angle/2) → 2
    return f[..., None] * q[..., 1:]


class ModalIK(NamedTuple):
    """Result of :func:`solve_modal_ik`: qpos (nq,) the pose; coords (k,) the
    modal displacement from the start pose; residual [m] the largest target
    error left; iterations used; converged: residual ≤ tol and steps settled."""

    qpos: np.ndarray
    coords: np.ndarray
    residual: float
    iterations: int
    converged: bool


def target_points(character, names) -> list[tuple[int, np.ndarray]]:
    """(body id, point (3,) in the body frame [m]) for each target name: a
    contact point (its site), a body (the mean of its contact points, else
    its origin: the convention of ``pin:BODY`` constraints), or
    :data:`CENTRE_OF_MASS` (body id −1: the whole creature's centre of mass).
    A body's orientation (:func:`orientation_target`) gives that body with
    the point 0 (:func:`_rotation_rows` tells which targets are
    orientations)."""
    m = character.model
    out = []
    for n in names:
        if n == CENTRE_OF_MASS:
            out.append((-1, np.zeros(3)))
        elif n.startswith(ORIENTATION) and n[len(ORIENTATION):] in character.labels:
            out.append((character.body_id(n[len(ORIENTATION):]), np.zeros(3)))
        elif n in character.contacts:
            sid = character.contacts[n]
            out.append((int(m.site_bodyid[sid]), m.site_pos[sid].copy()))
        elif n in character.labels:
            bid = character.body_id(n)
            sites = np.flatnonzero(m.site_bodyid == bid)
            out.append((bid, m.site_pos[sites].mean(axis=0) if len(sites) else np.zeros(3)))
        else:
            raise UnknownNameError(f"unknown IK target {n!r} in {character.name} (contact points: "
                                   f"{', '.join(character.contacts) or 'none'}; or any body name)")
    return out


def _rotation_rows(names) -> np.ndarray:
    """(F,) bool: which target names are orientations (:func:`orientation_target`)."""
    return np.array([n.startswith(ORIENTATION) for n in names], bool)


def modal_columns(basis, modes: int | None = None, rigid: bool = False,
                  weights="eigenvalues") -> tuple[np.ndarray, np.ndarray]:
    """The shapes Φ (nv, k) the IK moves and their weights w (k,): the
    ``modes`` leading elastic modes (None: all), then the rigid ones if
    ``rigid``. weights: "eigenvalues" (|λ_i|; rigid modes RIGID_WEIGHT × the
    smallest), "uniform" (all 1: plain least norm), or an array (k,) > 0."""
    k = basis.count if modes is None else int(modes)
    if not 1 <= k <= basis.count:
        raise GaitforgeError(f"modes must be between 1 and {basis.count} (the elastic modes computed), got {modes!r}")
    cols = [basis.shapes[:, :k]] + ([basis.rigid_shapes] if rigid else [])
    phi = np.hstack(cols)
    lam = np.abs(basis.eigenvalues[:k])
    if isinstance(weights, str) and weights == "eigenvalues":
        w = np.r_[lam, np.full(phi.shape[1] - k, RIGID_WEIGHT * lam.min())]
    elif isinstance(weights, str) and weights == "uniform":
        w = np.ones(phi.shape[1])
    elif isinstance(weights, str):
        raise GaitforgeError(f"unknown weights {weights!r} (choose eigenvalues, uniform, or give an array)")
    else:
        w = np.asarray(weights, float).reshape(-1)
        if w.shape != (phi.shape[1],):
            raise GaitforgeError(f"weights must be {phi.shape[1]} positive numbers (one per mode used), "
                                 f"got {w.shape[0]}")
        if not np.all(np.isfinite(w)) or np.any(w <= 0):
            raise GaitforgeError("weights must be positive finite numbers")
    return phi, w


def root_translation_columns(character) -> np.ndarray:
    """(nv, 3) unit translations of a free root along world x, y, z (MuJoCo's
    free-joint velocity starts with the world-frame linear velocity); (nv,
    0) for a creature whose root is not free."""
    m = character.model
    if m.njnt == 0 or m.jnt_type[0] != mujoco.mjtJoint.mjJNT_FREE:
        return np.zeros((m.nv, 0))
    out = np.zeros((m.nv, 3))
    out[int(m.jnt_dofadr[0]) + np.arange(3), np.arange(3)] = 1.0
    return out


def _right_jacobians(v: np.ndarray) -> np.ndarray:
    """Right Jacobians (n, 3, 3) of the rotation exponential at rotation
    vectors v (n, 3): d/dt Exp(v) = Exp(v) [J_r(v) v̇]×, i.e.
    J_r = I − (1 − cos θ)/θ² [v]× + (θ − sin θ)/θ³ [v]×², θ = |v|."""
    theta = np.sqrt(np.einsum("ni,ni->n", v, v))
    K = np.zeros((len(v), 3, 3))  # [v]×: K x = v × x
    K[:, 0, 1], K[:, 0, 2], K[:, 1, 2] = -v[:, 2], v[:, 1], -v[:, 0]
    K[:, 1, 0], K[:, 2, 0], K[:, 2, 1] = v[:, 2], -v[:, 1], v[:, 0]
    a, b = np.empty_like(theta), np.empty_like(theta)
    small = theta < SMALL_ANGLE
    t = theta[small]
    a[small], b[small] = 0.5 - t * t / 24.0, 1.0 / 6.0 - t * t / 120.0  # Taylor series
    t = theta[~small]
    a[~small], b[~small] = (1.0 - np.cos(t)) / t ** 2, (t - np.sin(t)) / t ** 3
    return np.eye(3) - a[:, None, None] * K + b[:, None, None] * (K @ K)


def _dof_chains(m, bodies: np.ndarray) -> np.ndarray:
    """(P, depth) int64: for each body of ``bodies`` (P,), the degrees of
    freedom that move it (its own and its ancestors', from the body
    outwards, as ``mj_jac`` walks them), padded with −1."""
    chains = []
    for b in bodies:
        b = int(b)
        while b and not m.body_dofnum[b]:  # a welded body moves with its parent
            b = int(m.body_parentid[b])
        dofs = []
        i = int(m.body_dofadr[b] + m.body_dofnum[b] - 1) if b else -1
        while i >= 0:
            dofs.append(i)
            i = int(m.dof_parentid[i])
        chains.append(dofs)
    out = np.full((len(chains), max((len(c) for c in chains), default=0)), -1, np.int64)
    for r, dofs in enumerate(chains):
        out[r, :len(dofs)] = dofs
    return out


class _Problem:
    """Target points and basis for one character; evaluates x(c) and ∂x/∂c.
    A point of body −1 is the centre of mass (:data:`CENTRE_OF_MASS`);
    targets flagged in ``rotations`` (F,) bool are their body's orientation
    instead: x its world rotation vector v (:func:`rotation_vectors`) and
    ∂v/∂c = J_l(v)⁻¹ J_ω ∂q/∂c (J_ω the body's world angular-velocity
    Jacobian, J_l the left Jacobian of the exponential map: Ṙ Rᵀ = [J_l(v) v̇]×)."""

    def __init__(self, character, phi: np.ndarray, points: list[tuple[int, np.ndarray]], rotations=None):
        self.m, self.d = character.model, mujoco.MjData(character.model)
        self.qv, self.phi, self.points = layout(character).quat_v, phi, points
        self.bodies = np.array([max(b, 0) for b, _ in points], np.int64)   # the kernel's rows; COM rows overwritten
        self.local = np.array([p for _, p in points], float).reshape(-1, 3)
        self.jac = np.zeros((len(self.bodies), 3, self.m.nv))   # rows of the centre of mass and orientations
        self.eff = np.array(phi, dtype=float, order="C")  # a copy: its ball rows are rewritten per evaluation
        self.ids = [int(b) for b, _ in points]
        self.rot = np.zeros(len(points), bool) if rotations is None else np.asarray(rotations, bool)
        self.phi_balls = np.ascontiguousarray(self.phi[self.qv])  # (balls, 3, k) rows of the balls' rotation vectors
        self.qv = np.ascontiguousarray(self.qv, dtype=np.int64)
        # plain points (not the centre of mass, not an orientation) get their Jacobians from one compiled pass
        plain = [i for i, b in enumerate(self.ids) if b >= 0 and not self.rot[i]]
        self.plain = np.array(plain, np.int64)
        self.special = sorted(set(range(len(self.ids))) - set(plain))
        self.chains = _dof_chains(self.m, self.bodies[self.plain])
        self.roots = np.ascontiguousarray(self.m.body_rootid[self.bodies[self.plain]], dtype=np.int64)

    def set_columns(self, phi: np.ndarray) -> None:
        """Move the modes ``phi`` (nv, k) from now on (the same count as before)."""
        self.phi = phi
        self.eff = np.array(phi, dtype=float, order="C")
        self.phi_balls = np.ascontiguousarray(phi[self.qv])

    def evaluate(self, q0: np.ndarray, c: np.ndarray):
        """Pose q (nq,), points x (F, 3) and Jacobian (3F, k) at coordinates c (k,)."""
        m, d = self.m, self.d
        dv = self.phi @ c
        q = d.qpos
        q[:] = q0
        mujoco.mj_integratePos(m, q, dv, 1.0)
        mujoco.mj_kinematics(m, d)
        mujoco.mj_comPos(m, d)  # mj_jac needs cdof and subtree_com
        x = np.empty((len(self.ids), 3))
        body_points(d.xpos, d.xmat, self.bodies, self.local, x)
        eff = self.eff  # Φ with its ball rows through the right Jacobians (the other rows never change)
        if len(self.qv):
            ball_columns(dv, self.qv, self.phi_balls, eff)
        out = np.empty((3 * len(self.ids), eff.shape[1]))
        point_jacobians(d.cdof, d.subtree_com, x, self.plain, self.chains, self.roots, eff, out)
        J = self.jac
        for i in self.special:
            b = self.ids[i]
            if self.rot[i]:  # the body's orientation: its rotation vector, v̇ = J_l(v)⁻¹ ω
                x[i] = rotation_vectors(d.xquat[b])
                mujoco.mj_jacBody(m, d, None, J[i], b)
                J[i] = np.linalg.solve(_right_jacobians(x[i][None])[0].T, J[i])  # J_l(v) = J_r(v)ᵀ
            else:  # the whole creature's centre of mass: the world body's subtree
                x[i] = d.subtree_com[0]
                mujoco.mj_jacSubtreeCom(m, d, J[i], 0)
            out[3 * i:3 * i + 3] = J[i] @ eff
        return q.copy(), x, out


KEEP_DAMPING = 1e-3  # [rad²] damped least squares of the joints that keep a body's orientation


def kept_columns(m, d, phi: np.ndarray, qpos: np.ndarray, keep) -> np.ndarray:
    """The shapes ``phi`` (nv, k) with, for each (body id, DOF indices) of
    ``keep`` in turn, those DOFs' rows changed so that no column turns the
    body at pose ``qpos`` (to first order: the body's angular Jacobian J
    (MuJoCo's ``mj_jacBody``) takes each column to 0, by damped least
    squares on the DOFs' own columns of J); a later entry sees the earlier
    ones' changes. ``d``: scratch MjData of model ``m``."""
    out = np.array(phi, float)
    if not keep:
        return out
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    mujoco.mj_comPos(m, d)
    jacr = np.zeros((3, m.nv))
    for body, dofs, axes in keep:
        mujoco.mj_jacBody(m, d, None, jacr, int(body))
        J = jacr[axes]
        Jc = J[:, dofs]
        out[dofs] -= Jc.T @ np.linalg.solve(Jc @ Jc.T + KEEP_DAMPING * np.eye(len(axes)), J @ out)
    return out


def modal_jacobian(character, basis, names, qpos_start=None, coords=None, *, modes=None, rigid=False):
    """Target positions x (F, 3) [m] and their Jacobian ∂x/∂c (3F, k) at
    modal displacement ``coords`` (k,) (default 0) from ``qpos_start``
    (default the basis' rest pose); columns as :func:`modal_columns`."""
    phi, _ = modal_columns(basis, modes, rigid)
    prob = _Problem(character, phi, target_points(character, names), _rotation_rows(names))
    q0 = basis.rest_qpos if qpos_start is None else np.asarray(qpos_start, float)
    c = np.zeros(phi.shape[1]) if coords is None else np.asarray(coords, float)
    _, x, A = prob.evaluate(q0, c)
    return x, A


def _solve(prob: _Problem, goal: np.ndarray, q0: np.ndarray, w: np.ndarray, c: np.ndarray, *,
           tol: float, max_iter: int, damping: float, step_tol: float = STEP_TOL, settle: bool = False) -> ModalIK:
    """Gauss–Newton on the weighted least-norm problem; goal (3F,) with NaN
    for free axes; c (k,) the starting coordinates.

    settle (frame-by-frame holding, :func:`~gaitforge.motion.plant.plant_feet`):
    a full step that would make the targets worse is replaced by
    Levenberg–Marquardt steps (damping raised tenfold until the largest miss
    falls) instead of halving it, and the iteration stops where it can gain
    nothing more: once the targets are met, at the first step that does not
    lower Σ w c² by a share :data:`NORM_GAIN` (the pose before it is kept: the
    linearized least-norm steps then cycle through the null space of the
    targets instead of settling, and a frame's pose would wander from its
    neighbours'); while they cannot be met, at the first step that does not
    lower the largest miss by a share :data:`MISS_GAIN` (their least-squares
    compromise, reached smoothly from the previous frame's pose)."""
    rows = np.isfinite(goal)
    scale = 1.0 / np.sqrt(w)  # c = scale * y turns Σ w c² into |y|²
    q, x, A = prob.evaluate(q0, c)
    where = np.flatnonzero(rows)
    err = largest_miss(goal, x.reshape(-1), where)
    step = np.empty_like(c)
    for it in range(1, max_iter + 1):
        if damping > 0 or not min_norm_step(A, where, goal, x.reshape(-1), c, scale, step):
            Ar = A[rows]
            B, rhs = Ar * scale, (goal - x.reshape(-1))[rows] + Ar @ c
            if damping > 0:
                B = np.vstack([B, np.sqrt(damping) * np.eye(B.shape[1])])
                rhs = np.r_[rhs, np.zeros(B.shape[1])]
            step = scale * np.linalg.lstsq(B, rhs, rcond=1e-10)[0] - c
        alpha = 1.0
        trial = prob.evaluate(q0, c + step)
        err_new = largest_miss(goal, trial[1].reshape(-1), where)
        if settle and not err_new <= max(err, tol):
            B = A[rows] * scale
            H, g = B.T @ B, B.T @ (goal - x.reshape(-1))[rows]
            mu = max(LM_START * float(np.trace(H)) / len(c), 1e-300)  # > 0: H + mu I is positive definite
            for _ in range(LM_TRIES):
                step = scale * np.linalg.solve(H + mu * np.eye(len(c)), g)
                trial = prob.evaluate(q0, c + step)
                err_new = largest_miss(goal, trial[1].reshape(-1), where)
                if err_new < err:
                    break
                mu *= 10.0
            if not err_new < err * (1.0 - MISS_GAIN):  # no better compromise within reach
                return ModalIK(q, c, float(err), it, bool(err <= tol))
        while not settle:  # backtrack only if the full step makes the targets worse
            if err_new <= max(err, tol) or alpha < 1e-3:
                break
            alpha *= 0.5
            trial = prob.evaluate(q0, c + alpha * step)
            err_new = largest_miss(goal, trial[1].reshape(-1), where)
        moved = alpha * step
        if settle and err <= tol and err_new <= tol \
                and not np.sum(w * (c + moved) ** 2) < np.sum(w * c * c) * (1.0 - NORM_GAIN):
            return ModalIK(q, c, float(err), it, bool(err <= tol))
        c = c + moved
        (q, x, A), err = trial, err_new
        if err <= tol and settled(moved, c, step_tol):
            return ModalIK(q, c, float(err), it, bool(err <= tol))
    return ModalIK(q, c, float(err), max_iter, bool(err <= tol))


def _solve_soft(prob: _Problem, goal: np.ndarray, soft: np.ndarray, q0: np.ndarray, w: np.ndarray, c: np.ndarray, *,
                tol: float, max_iter: int, step_tol: float, damping: float = SOFT_DAMPING) -> ModalIK:
    """Gauss–Newton with two priorities: the rows of ``goal`` as in :func:`_solve`
    (least weighted norm, least squares where they conflict), then the rows of
    ``soft`` (3F,) met as well as the null space of the first allows (damped
    least squares there): a soft goal never pulls a hard one off. Each step:
    :func:`soft_step`."""
    hard, want = np.flatnonzero(np.isfinite(goal)), np.flatnonzero(np.isfinite(soft))
    scale = 1.0 / np.sqrt(w)
    err = math.inf
    q, x, A = prob.evaluate(q0, c)
    moved = np.empty_like(c)
    for it in range(1, max_iter + 1):
        soft_step(A, x.reshape(-1), goal, soft, hard, want, c, scale, damping, moved)
        c = c + moved
        q, x, A = prob.evaluate(q0, c)
        err = largest_miss(goal, x.reshape(-1), hard)
        if settled(moved, c, step_tol):
            break
    return ModalIK(q, c, float(err), it, bool(err <= tol))


def solve_modal_ik(character, basis, targets: Mapping[str, np.ndarray], qpos_start=None,
                   modes: int | None = None, weights="eigenvalues", *, rigid: bool = False,
                   tol: float = 1e-9, max_iter: int = 50, damping: float = 0.0,
                   initial: np.ndarray | None = None) -> ModalIK:
    """Modal IK with diagnostics (module docstring). targets: name (contact
    point or body, see :func:`target_points`) → world position (3,) [m]; NaN
    entries leave that axis free. qpos_start (nq,): default the basis' rest
    pose. tol [m]: largest target error accepted; damping ≥ 0 adds
    damping·Σw c² to the least-squares objective of each step (for targets
    out of reach); initial: starting coordinates (warm start)."""
    phi, w = modal_columns(basis, modes, rigid, weights)
    names = list(targets)
    goal = np.array([np.asarray(targets[n], float).reshape(3) for n in names]).reshape(-1)
    q0 = basis.rest_qpos if qpos_start is None else np.asarray(qpos_start, float)
    if q0.shape != (character.nq,):
        raise GaitforgeError(f"qpos_start must have shape ({character.nq},), got {q0.shape}")
    if not (np.isfinite(damping) and damping >= 0):
        raise GaitforgeError(f"damping must be a non-negative number, got {damping!r}")
    prob = _Problem(character, phi, target_points(character, names), _rotation_rows(names))
    c = np.zeros(phi.shape[1]) if initial is None else np.array(initial, float)
    return _solve(prob, goal, q0, w, c, tol=tol, max_iter=max_iter, damping=damping)


def modal_ik(character, basis, targets: Mapping[str, np.ndarray], qpos_start=None, modes: int | None = None,
             weights="eigenvalues", **kwargs) -> np.ndarray:
    """The pose (nq,) reaching ``targets`` with the least eigenvalue-weighted
    modal displacement from ``qpos_start`` (Kry 2012 §4.2). See
    :func:`solve_modal_ik` for the arguments and diagnostics."""
    return solve_modal_ik(character, basis, targets, qpos_start, modes, weights, **kwargs).qpos


def pin_stance_feet(character, basis, clip: MotionClip, *, footfalls: Footfalls | None = None,
                    modes: int | None = None, tol: float = 1e-6,
                    hold: Mapping[str, np.ndarray] | None = None, translate: bool = False,
                    soft: Mapping[str, np.ndarray] | None = None, keep=()) -> MotionClip:
    """Remove foot skate: hold each foot still (horizontally) while it is down.

    Frame by frame, modal IK with the ``modes`` leading elastic modes moves
    the clip's pose so that every foot in contact keeps the horizontal
    position it had at touchdown. The anchor is read from the corrected
    motion at touchdown, so pinning starts without a jump. Heights stay
    free: contact detection calls a foot down until it is clearly lifting,
    and holding it on the ground that long would drag the body down.
    footfalls: default ``detect_footfalls`` on the clip. hold: target name
    (a contact point or body, :func:`target_points`) → its world position
    (T, 3) [m] in each frame, held where finite (NaN: that axis is free),
    whether the foot is down or not (``synthesize`` holds the feet's
    heights and the root where the grounding's smoothing moved the body:
    the legs make up for it). translate: the IK may also translate the
    whole body (:func:`root_translation_columns`, weighted as nearly free):
    the cheap way to move :data:`CENTRE_OF_MASS`, which the elastic modes,
    momentum-free, leave in place to first order. soft: name (of ``hold``)
    → (T, 3) [m] goals of lower priority, NaN where none: met as well as
    the null space of the held targets and feet down allows (damped least
    squares there), so a soft goal never pulls a held one off. Returns a
    new clip; frames with nothing to hold are unchanged.
    """
    clip.check_character(character)
    feet = feet_of(character)
    ff = detect_footfalls(character, clip, feet) if footfalls is None else footfalls
    if ff.n_frames != clip.n_frames or ff.names != tuple(f.name for f in feet):
        raise GaitforgeError("pin_stance_feet: footfalls must cover the clip's frames and the character's feet")
    held = dict(hold or {})
    X = np.zeros((clip.n_frames, 0))
    if held:
        X = np.concatenate([np.asarray(x, float) for x in held.values()], axis=1)  # (T, 3n)
        if X.shape != (clip.n_frames, 3 * len(held)):
            raise GaitforgeError(f"pin_stance_feet: each held target needs a ({clip.n_frames}, 3) array of positions")
    phi, w = modal_columns(basis, modes)
    if translate:
        move = root_translation_columns(character)
        phi, w = np.hstack([phi, move]), np.r_[w, np.full(move.shape[1], RIGID_WEIGHT * w.min())]
    # the feet's own tracked points (the metrics' convention), not target_points'
    prob = _Problem(character, phi, [(character.body_id(f.body), np.array(f.point)) for f in feet]
                    + target_points(character, list(held)),
                    np.r_[np.zeros(len(feet), bool), _rotation_rows(list(held))])
    S = None
    if soft:
        if set(soft) - set(held):
            raise GaitforgeError(f"pin_stance_feet: soft goals need a held target of the same name, "
                                 f"not {sorted(set(soft) - set(held))}")
        S = np.full((clip.n_frames, 3 * (len(feet) + len(held))), np.nan)
        for j, n in enumerate(held):
            if n in soft:
                if np.shape(soft[n]) != (clip.n_frames, 3):
                    raise GaitforgeError(f"pin_stance_feet: soft goal {n!r} needs a ({clip.n_frames}, 3) array")
                S[:, 3 * (len(feet) + j):3 * (len(feet) + j + 1)] = soft[n]
    F, C = len(feet), ff.contact
    out = np.array(clip.qpos)
    anchor = np.full((F, 3), np.nan)    # z stays NaN: heights are free
    coords = np.zeros(phi.shape[1])
    keep = [(int(k[0]), np.asarray(k[1], int), np.asarray(k[2] if len(k) > 2 else (0, 1, 2), int)) for k in keep]
    for t in range(clip.n_frames):
        if keep:
            prob.set_columns(kept_columns(prob.m, prob.d, phi, clip.qpos[t], keep))
        goal = np.where(C[t][:, None], anchor, np.nan).reshape(-1)
        goal = np.r_[goal, X[t]]
        if S is not None and np.isfinite(S[t]).any() and np.isfinite(goal).any():
            res = _solve_soft(prob, goal, S[t], clip.qpos[t], w, coords, tol=tol, max_iter=HOLD_MAX_ITER,
                              step_tol=HOLD_STEP_TOL)
            out[t], coords = res.qpos, res.coords
        elif np.isfinite(goal).any():
            res = _solve(prob, goal, clip.qpos[t], w, coords, tol=tol, max_iter=HOLD_MAX_ITER if held else 50,
                         damping=0.0, step_tol=HOLD_STEP_TOL if held else PIN_STEP_TOL)
            out[t], coords = res.qpos, res.coords
        else:
            coords = np.zeros(phi.shape[1])
        new = C[t] if t == 0 else C[t] & ~C[t - 1]
        if new.any():  # touchdown: anchor where the corrected foot is now
            x = prob.evaluate(clip.qpos[t], coords)[1][:F]
            anchor[new, :2] = x[new, :2]
        anchor[~C[t]] = np.nan
    return MotionClip(clip.fps, out, clip.character_name)

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
runs as numba kernels (:mod:`gaitforge.control.jit`): the target points,
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

from gaitforge.control.jit import kernel
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.footfall import Footfalls, detect_footfalls, feet_of
from gaitforge.motion.synthesis import layout

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
_SMALL = 1e-4        # rotation angle [rad] below which the right Jacobian uses its series
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
        f = np.where(s > _SMALL * 1e-4, angle / np.where(s > 0, s, 1.0), 2.0)  # angle/sin(angle/2) → 2
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
    small = theta < _SMALL
    t = theta[small]
    a[small], b[small] = 0.5 - t * t / 24.0, 1.0 / 6.0 - t * t / 120.0  # Taylor series
    t = theta[~small]
    a[~small], b[~small] = (1.0 - np.cos(t)) / t ** 2, (t - np.sin(t)) / t ** 3
    return np.eye(3) - a[:, None, None] * K + b[:, None, None] * (K @ K)


@kernel
def _ball_columns(dv: np.ndarray, balls: np.ndarray, phi_balls: np.ndarray, eff: np.ndarray) -> None:
    """Write J_r(v) Φ_b into the ball rows of ``eff`` (nv, k) in place: for
    each ball joint n, v = dv[balls[n]] its rotation vector (3,), Φ_b =
    phi_balls[n] (3, k) and J_r the right Jacobian of :func:`_right_jacobians`
    (with [v]×² = v vᵀ − θ² I)."""
    for n in range(balls.shape[0]):
        i0, i1, i2 = balls[n, 0], balls[n, 1], balls[n, 2]
        x, y, z = dv[i0], dv[i1], dv[i2]
        t2 = x * x + y * y + z * z
        theta = math.sqrt(t2)
        if theta < _SMALL:
            a, b = 0.5 - t2 / 24.0, 1.0 / 6.0 - t2 / 120.0
        else:
            a, b = (1.0 - math.cos(theta)) / t2, (theta - math.sin(theta)) / (t2 * theta)
        d = 1.0 - b * t2
        j00, j01, j02 = d + b * x * x, a * z + b * x * y, -a * y + b * x * z
        j10, j11, j12 = -a * z + b * y * x, d + b * y * y, a * x + b * y * z
        j20, j21, j22 = a * y + b * z * x, -a * x + b * z * y, d + b * z * z
        for col in range(phi_balls.shape[2]):
            p0, p1, p2 = phi_balls[n, 0, col], phi_balls[n, 1, col], phi_balls[n, 2, col]
            eff[i0, col] = j00 * p0 + j01 * p1 + j02 * p2
            eff[i1, col] = j10 * p0 + j11 * p1 + j12 * p2
            eff[i2, col] = j20 * p0 + j21 * p1 + j22 * p2


@kernel
def _body_points(xpos: np.ndarray, xmat: np.ndarray, bodies: np.ndarray, local: np.ndarray, out: np.ndarray) -> None:
    """World positions out (F, 3) of points ``local`` (F, 3) fixed in
    ``bodies`` (F,): xpos + R local, from MuJoCo's xpos (nbody, 3) and xmat
    (nbody, 9)."""
    for i in range(bodies.shape[0]):
        b = bodies[i]
        for r in range(3):
            s = 0.0
            for j in range(3):
                s += xmat[b, 3 * r + j] * local[i, j]
            out[i, r] = xpos[b, r] + s


@kernel
def _largest_miss(goal: np.ndarray, x: np.ndarray, rows: np.ndarray) -> float:
    """max |goal − x| over the goal rows ``rows`` (0 for none; NaN if any is NaN)."""
    worst = 0.0
    for r in range(rows.shape[0]):
        e = abs(goal[rows[r]] - x[rows[r]])
        if e != e:
            return e
        worst = max(worst, e)
    return worst


@kernel
def _settled(moved: np.ndarray, c: np.ndarray, step_tol: float) -> bool:
    """Whether the step ``moved`` is small: max |moved| ≤ step_tol · (1 + max |c|)."""
    big_step, big_c = 0.0, 0.0
    for j in range(c.shape[0]):
        if moved[j] != moved[j] or c[j] != c[j]:
            return False
        big_step, big_c = max(big_step, abs(moved[j])), max(big_c, abs(c[j]))
    return big_step <= step_tol * (1.0 + big_c)


FULL_RANK = 1e-7   # the compiled IK step needs every |R_ii| above this share of the largest


@kernel
def _min_norm_step(A: np.ndarray, rows: np.ndarray, goal: np.ndarray, x: np.ndarray, c: np.ndarray,
                   scale: np.ndarray, step: np.ndarray) -> bool:
    """The undamped Gauss–Newton step of :func:`_solve`, compiled, when the
    goal rows ``rows`` (m indices into A's 3F rows, m ≤ k) are independent:
    the c' of least weighted norm with A_r c' = goal_r − x_r + A_r c, written
    into ``step`` (k,) as c' − c. With B = A_r diag(scale), y = c' / scale
    and a Householder QR Bᵀ = Q R, the least-norm y of B y = rhs is
    Q [R₁⁻ᵀ rhs; 0]. Returns False (step not written) when m > k, m = 0 or
    some |R_ii| is at most :data:`FULL_RANK` of the largest: the caller then
    takes least squares with a singular-value cutoff instead."""
    m, k = rows.shape[0], c.shape[0]
    if m > k or m == 0:
        return False
    M = np.empty((k, m))            # Bᵀ; becomes R above the diagonal and the reflectors' tails below
    rhs = np.empty(m)
    for r in range(m):
        i = rows[r]
        s = 0.0
        for j in range(k):
            M[j, r] = A[i, j] * scale[j]
            s += A[i, j] * c[j]
        rhs[r] = (goal[i] - x[i]) + s
    rdiag, v0, vv = np.empty(m), np.empty(m), np.empty(m)
    for r in range(m):              # reflector r: v = [v0[r], M[r+1:, r]], H = I − 2 v vᵀ / vᵀv
        norm = 0.0
        for j in range(r, k):
            norm += M[j, r] * M[j, r]
        norm = math.sqrt(norm)
        if norm == 0.0:
            return False
        alpha = -norm if M[r, r] >= 0.0 else norm
        rdiag[r] = alpha
        v0[r] = M[r, r] - alpha
        vv[r] = v0[r] * v0[r]
        for j in range(r + 1, k):
            vv[r] += M[j, r] * M[j, r]
        for col in range(r + 1, m):
            dot = v0[r] * M[r, col]
            for j in range(r + 1, k):
                dot += M[j, r] * M[j, col]
            f = 2.0 * dot / vv[r]
            M[r, col] -= f * v0[r]
            for j in range(r + 1, k):
                M[j, col] -= f * M[j, r]
    big = 0.0
    for r in range(m):
        big = max(big, abs(rdiag[r]))
    for r in range(m):
        if not abs(rdiag[r]) > FULL_RANK * big:
            return False
    z = np.zeros(k)
    for r in range(m):              # R₁ᵀ z = rhs, forward
        s = rhs[r]
        for j in range(r):
            s -= M[j, r] * z[j]
        z[r] = s / rdiag[r]
    for r in range(m - 1, -1, -1):  # y = H_0 H_1 … H_{m−1} [z; 0]
        dot = v0[r] * z[r]
        for j in range(r + 1, k):
            dot += M[j, r] * z[j]
        f = 2.0 * dot / vv[r]
        z[r] -= f * v0[r]
        for j in range(r + 1, k):
            z[j] -= f * M[j, r]
    for j in range(k):
        step[j] = scale[j] * z[j] - c[j]
    return True


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


@kernel
def _point_jacobians(cdof: np.ndarray, subtree_com: np.ndarray, x: np.ndarray, rows: np.ndarray,
                     chains: np.ndarray, roots: np.ndarray, eff: np.ndarray, out: np.ndarray) -> None:
    """Rows 3·rows[p] … 3·rows[p] + 2 of ``out`` (3F, k): ∂x/∂c of the world
    points x[rows[p]] (3,) [m], i.e. J eff with J the positional Jacobian
    (3, nv) ``mj_jac`` computes from MuJoCo's motion subspaces ``cdof`` (nv,
    6: rotation, then translation, about the root subtree's centre of mass
    ``subtree_com[roots[p]]``) and ``eff`` (nv, k) the coordinates' effect on
    the velocities. Column j of J, for a degree of freedom in the point's
    chain (``chains[p]``, −1 padded), is cdof_lin + cdof_rot × (x − com); the
    others are 0, so only the chain's rows of ``eff`` are summed."""
    k = eff.shape[1]
    for p in range(rows.shape[0]):
        i = rows[p]
        for r in range(3):
            for col in range(k):
                out[3 * i + r, col] = 0.0
        o0 = x[i, 0] - subtree_com[roots[p], 0]
        o1 = x[i, 1] - subtree_com[roots[p], 1]
        o2 = x[i, 2] - subtree_com[roots[p], 2]
        for n in range(chains.shape[1]):
            j = chains[p, n]
            if j < 0:
                break
            j0 = cdof[j, 3] + (cdof[j, 1] * o2 - cdof[j, 2] * o1)
            j1 = cdof[j, 4] + (cdof[j, 2] * o0 - cdof[j, 0] * o2)
            j2 = cdof[j, 5] + (cdof[j, 0] * o1 - cdof[j, 1] * o0)
            for col in range(k):
                e = eff[j, col]
                out[3 * i, col] += j0 * e
                out[3 * i + 1, col] += j1 * e
                out[3 * i + 2, col] += j2 * e


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
        _body_points(d.xpos, d.xmat, self.bodies, self.local, x)
        eff = self.eff  # Φ with its ball rows through the right Jacobians (the other rows never change)
        if len(self.qv):
            _ball_columns(dv, self.qv, self.phi_balls, eff)
        out = np.empty((3 * len(self.ids), eff.shape[1]))
        _point_jacobians(d.cdof, d.subtree_com, x, self.plain, self.chains, self.roots, eff, out)
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
    err = _largest_miss(goal, x.reshape(-1), where)
    step = np.empty_like(c)
    for it in range(1, max_iter + 1):
        if damping > 0 or not _min_norm_step(A, where, goal, x.reshape(-1), c, scale, step):
            Ar = A[rows]
            B, rhs = Ar * scale, (goal - x.reshape(-1))[rows] + Ar @ c
            if damping > 0:
                B = np.vstack([B, np.sqrt(damping) * np.eye(B.shape[1])])
                rhs = np.r_[rhs, np.zeros(B.shape[1])]
            step = scale * np.linalg.lstsq(B, rhs, rcond=1e-10)[0] - c
        alpha = 1.0
        trial = prob.evaluate(q0, c + step)
        err_new = _largest_miss(goal, trial[1].reshape(-1), where)
        if settle and not err_new <= max(err, tol):
            B = A[rows] * scale
            H, g = B.T @ B, B.T @ (goal - x.reshape(-1))[rows]
            mu = max(LM_START * float(np.trace(H)) / len(c), 1e-300)  # > 0: H + mu I is positive definite
            for _ in range(LM_TRIES):
                step = scale * np.linalg.solve(H + mu * np.eye(len(c)), g)
                trial = prob.evaluate(q0, c + step)
                err_new = _largest_miss(goal, trial[1].reshape(-1), where)
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
            err_new = _largest_miss(goal, trial[1].reshape(-1), where)
        moved = alpha * step
        if settle and err <= tol and err_new <= tol \
                and not np.sum(w * (c + moved) ** 2) < np.sum(w * c * c) * (1.0 - NORM_GAIN):
            return ModalIK(q, c, float(err), it, bool(err <= tol))
        c = c + moved
        (q, x, A), err = trial, err_new
        settled = _settled(moved, c, step_tol)
        if err <= tol and settled:
            return ModalIK(q, c, float(err), it, bool(err <= tol))
    return ModalIK(q, c, float(err), max_iter, bool(err <= tol))


def _solve_soft(prob: _Problem, goal: np.ndarray, soft: np.ndarray, q0: np.ndarray, w: np.ndarray, c: np.ndarray, *,
                tol: float, max_iter: int, step_tol: float, damping: float = SOFT_DAMPING) -> ModalIK:
    """Gauss–Newton with two priorities: the rows of ``goal`` as in :func:`_solve`
    (least weighted norm, least squares where they conflict), then the rows of
    ``soft`` (3F,) met as well as the null space of the first allows (damped
    least squares there): a soft goal never pulls a hard one off. Each step:
    :func:`_soft_step`."""
    hard, want = np.flatnonzero(np.isfinite(goal)), np.flatnonzero(np.isfinite(soft))
    scale = 1.0 / np.sqrt(w)
    err = math.inf
    q, x, A = prob.evaluate(q0, c)
    moved = np.empty_like(c)
    for it in range(1, max_iter + 1):
        _soft_step(A, x.reshape(-1), goal, soft, hard, want, c, scale, damping, moved)
        c = c + moved
        q, x, A = prob.evaluate(q0, c)
        err = _largest_miss(goal, x.reshape(-1), hard)
        if _settled(moved, c, step_tol):
            break
    return ModalIK(q, c, float(err), it, bool(err <= tol))


SOFT_RCOND = 1e-10   # singular values of the held rows below this share of the largest count as zero


@kernel
def _row_space(B: np.ndarray, r: np.ndarray, V: np.ndarray, y: np.ndarray) -> bool:
    """For independent rows of B (m, k), m ≤ k: an orthonormal basis V (m, k)
    of their span (Gram–Schmidt, each row orthogonalized twice, so B = L V
    with L lower triangular) and the least-norm y (k,) of B y = r (L u = r,
    y = Vᵀ u). Returns False, V and y unfinished, when some |L_ii| is at most
    :data:`FULL_RANK` of the largest (dependent rows): the caller then
    takes the singular value decomposition instead."""
    m, k = B.shape
    if m > k:
        return False
    L = np.zeros((m, m))
    for i in range(m):
        for j in range(k):
            V[i, j] = B[i, j]
        for _ in range(2):
            for p in range(i):
                d = 0.0
                for j in range(k):
                    d += V[p, j] * V[i, j]
                L[i, p] += d
                for j in range(k):
                    V[i, j] -= d * V[p, j]
        norm = 0.0
        for j in range(k):
            norm += V[i, j] * V[i, j]
        norm = math.sqrt(norm)
        if norm == 0.0:
            return False
        L[i, i] = norm
        for j in range(k):
            V[i, j] /= norm
    big = 0.0
    for i in range(m):
        big = max(big, L[i, i])
    for i in range(m):
        if not L[i, i] > FULL_RANK * big:
            return False
    u = np.empty(m)
    for i in range(m):              # L u = r, forward
        s = r[i]
        for p in range(i):
            s -= L[i, p] * u[p]
        u[i] = s / L[i, i]
    for j in range(k):
        s = 0.0
        for i in range(m):
            s += V[i, j] * u[i]
        y[j] = s
    return True


@kernel
def _soft_step(A: np.ndarray, x: np.ndarray, goal: np.ndarray, soft: np.ndarray, hard: np.ndarray,
               want: np.ndarray, c: np.ndarray, scale: np.ndarray, damping: float, moved: np.ndarray) -> None:
    """One linearized step of :func:`_solve_soft`, compiled, written into
    ``moved`` (k,) as c' − c. In y = c' / scale (so Σ w c'² = |y|²), with
    B₁ = A_h diag(scale) (the held rows ``hard``) and r₁ their linearized
    goal: y₁ the least-norm solution of B₁ y = r₁ and V an orthonormal basis
    of B₁'s row space (:func:`_row_space`; where the rows are dependent,
    B₁ = U S Vᵀ, y₁ = V S⁺ Uᵀ r₁ with singular values under
    :data:`SOFT_RCOND` of the largest dropped: least squares where the rows
    conflict); N = I − VᵀV projects onto their null space; the soft rows
    ``want`` (B₂ = A_s diag(scale), goal r₂ less B₂ y₁) then add N z with
    z = (NᵀB₂ᵀB₂N + damping I)⁻¹ NᵀB₂ᵀ r₂ (damped least squares in N's range)."""
    k = c.shape[0]
    m1, m2 = hard.shape[0], want.shape[0]
    B1, r1 = np.empty((m1, k)), np.empty(m1)
    for r in range(m1):
        i, s = hard[r], 0.0
        for j in range(k):
            B1[r, j] = A[i, j] * scale[j]
            s += A[i, j] * c[j]
        r1[r] = goal[i] - x[i] + s
    V, y = np.empty((m1, k)), np.zeros(k)
    if m1 and not _row_space(B1, r1, V, y):
        U, sv, Vt = np.linalg.svd(B1, full_matrices=False)
        cut = SOFT_RCOND * sv.max()
        keep = 0
        y[:] = 0.0
        for n in range(sv.shape[0]):
            if sv[n] > cut:
                u = 0.0
                for r in range(m1):
                    u += U[r, n] * r1[r]
                u /= sv[n]
                for j in range(k):
                    y[j] += Vt[n, j] * u
                    V[keep, j] = Vt[n, j]
                keep += 1
        V = V[:keep]
    if m2:
        B2, r2 = np.empty((m2, k)), np.empty(m2)
        for r in range(m2):
            i, s, t = want[r], 0.0, 0.0
            for j in range(k):
                B2[r, j] = A[i, j] * scale[j]
                s += A[i, j] * c[j]
                t += B2[r, j] * y[j]
            r2[r] = soft[i] - x[i] + s - t
        B2 = B2 - (B2 @ V.T) @ V    # B₂ N
        # (NᵀB₂ᵀB₂N + d I)⁻¹ NᵀB₂ᵀ = NᵀB₂ᵀ (B₂N NᵀB₂ᵀ + d I)⁻¹: an m₂ × m₂ system instead of k × k
        z = B2.T @ np.linalg.solve(B2 @ B2.T + damping * np.eye(m2), r2)
        y += z - V.T @ (V @ z)      # + N z (z is in N's range already, up to rounding)
    for j in range(k):
        moved[j] = scale[j] * y[j] - c[j]


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
                    soft: Mapping[str, np.ndarray] | None = None) -> MotionClip:
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
    for t in range(clip.n_frames):
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

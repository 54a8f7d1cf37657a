"""The compiled arithmetic of modal IK (:mod:`gaitforge.motion.modal_ik`).

Pinning or holding a clip takes thousands of Gauss–Newton iterations, and in
numpy each iteration's small array operations cost more than MuJoCo's
kinematics and Jacobians. These kernels (:mod:`gaitforge.jit`) do
that arithmetic on plain arrays: the target points and their Jacobians from
MuJoCo's frames and motion subspaces, the right Jacobians of the ball
joints, the least-norm step, the two-priority step of soft goals and the
stopping tests. Nothing here calls MuJoCo; :mod:`gaitforge.motion.modal_ik`
owns the problem and the iteration.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.jit import kernel

SMALL_ANGLE = 1e-4   # rotation angle [rad] below which the right Jacobian uses its series
FULL_RANK = 1e-7     # the compiled least-norm steps need every |R_ii| above this share of the largest
SOFT_RCOND = 1e-10   # singular values of the held rows below this share of the largest count as zero


@kernel
def ball_columns(dv: np.ndarray, balls: np.ndarray, phi_balls: np.ndarray, eff: np.ndarray) -> None:
    """Write J_r(v) Φ_b into the ball rows of ``eff`` (nv, k) in place: for
    each ball joint n, v = dv[balls[n]] its rotation vector (3,), Φ_b =
    phi_balls[n] (3, k) and J_r the right Jacobian of :func:`~gaitforge.motion.modal_ik._right_jacobians`
    (with [v]×² = v vᵀ − θ² I)."""
    for n in range(balls.shape[0]):
        i0, i1, i2 = balls[n, 0], balls[n, 1], balls[n, 2]
        x, y, z = dv[i0], dv[i1], dv[i2]
        t2 = x * x + y * y + z * z
        theta = math.sqrt(t2)
        if theta < SMALL_ANGLE:
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
def body_points(xpos: np.ndarray, xmat: np.ndarray, bodies: np.ndarray, local: np.ndarray, out: np.ndarray) -> None:
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
def largest_miss(goal: np.ndarray, x: np.ndarray, rows: np.ndarray) -> float:
    """max |goal − x| over the goal rows ``rows`` (0 for none; NaN if any is NaN)."""
    worst = 0.0
    for r in range(rows.shape[0]):
        e = abs(goal[rows[r]] - x[rows[r]])
        if e != e:
            return e
        worst = max(worst, e)
    return worst


@kernel
def settled(moved: np.ndarray, c: np.ndarray, step_tol: float) -> bool:
    """Whether the step ``moved`` is small: max |moved| ≤ step_tol · (1 + max |c|)."""
    big_step, big_c = 0.0, 0.0
    for j in range(c.shape[0]):
        if moved[j] != moved[j] or c[j] != c[j]:
            return False
        big_step, big_c = max(big_step, abs(moved[j])), max(big_c, abs(c[j]))
    return big_step <= step_tol * (1.0 + big_c)


@kernel
def min_norm_step(A: np.ndarray, rows: np.ndarray, goal: np.ndarray, x: np.ndarray, c: np.ndarray,
                   scale: np.ndarray, step: np.ndarray) -> bool:
    """The undamped Gauss–Newton step of :func:`~gaitforge.motion.modal_ik._solve`, compiled, when the
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


@kernel
def point_jacobians(cdof: np.ndarray, subtree_com: np.ndarray, x: np.ndarray, rows: np.ndarray,
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


@kernel
def row_space(B: np.ndarray, r: np.ndarray, V: np.ndarray, y: np.ndarray) -> bool:
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
def soft_step(A: np.ndarray, x: np.ndarray, goal: np.ndarray, soft: np.ndarray, hard: np.ndarray,
               want: np.ndarray, c: np.ndarray, scale: np.ndarray, damping: float, moved: np.ndarray) -> None:
    """One linearized step of :func:`~gaitforge.motion.modal_ik._solve_soft`, compiled, written into
    ``moved`` (k,) as c' − c. In y = c' / scale (so Σ w c'² = |y|²), with
    B₁ = A_h diag(scale) (the held rows ``hard``) and r₁ their linearized
    goal: y₁ the least-norm solution of B₁ y = r₁ and V an orthonormal basis
    of B₁'s row space (:func:`row_space`; where the rows are dependent,
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
    if m1 and not row_space(B1, r1, V, y):
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

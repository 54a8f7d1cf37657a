"""The stance limbs' share of the body wrench (virtual forces on the leg
frames, realised through the stance limbs' Jacobian transpose).

The body needs a net force F [N] and torque T [N m] about its mass centre:
its weight carried, the speed force kv (v_d − v) of Wang 2011 §3.3.2, a
soft spring toward where the mass centre should be, and a PD on the trunk's
orientation. The stance feet share it: forces f_i (3,) at the feet r_i
(relative to the mass centre) with Σ f_i = F and Σ r_i × f_i = T, solved in
least squares with a small penalty on ‖f‖ so that no foot is asked for much
more than its share; the feet can only push, and not beyond friction, so
each f_i is then clipped into its friction pyramid.

Two formulations of that solve: :func:`_distribute` the normal equations
(3n unknowns, LAPACK), the readable reference; :func:`distribute_into`
their dual, f = Aᵀ (A Aᵀ + λI)⁻¹ w (the same minimiser, a 6 × 6 system
whatever the number of feet, solved by hand by Cholesky), which the
compiled control tick calls.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.jit import kernel


def distribute(feet: np.ndarray, force: np.ndarray, torque: np.ndarray, *, friction: float = 0.7,
               min_push: float = 0.0, max_push: float = np.inf, regularize: float = 1e-3) -> np.ndarray:
    """See :func:`_distribute` (this wrapper names the options)."""
    return _distribute(np.ascontiguousarray(feet, dtype=np.float64), np.asarray(force, np.float64),
                       np.asarray(torque, np.float64), float(friction), float(min_push), float(max_push),
                       float(regularize))


@kernel
def _clip(f, i, friction, min_push, max_push):
    """Row i of the forces f (n, 3) [N] into min_push ≤ f_z ≤ max_push and
    its friction pyramid |f_xy| ≤ friction f_z, in place."""
    f[i, 2] = min(max(f[i, 2], min_push), max_push)
    tangential = math.hypot(f[i, 0], f[i, 1])
    cap = friction * f[i, 2]
    if tangential > cap:
        f[i, 0] *= cap / tangential
        f[i, 1] *= cap / tangential


@kernel
def _distribute(feet, force, torque, friction, min_push, max_push, regularize):
    """Ground forces (n, 3) [N, world] at ``feet`` (n, 3) [m, relative to
    the mass centre] that best give the net ``force`` (3,) and ``torque``
    (3,); ``regularize`` weighs ‖f‖² against the wrench error (in units of
    the squared lever, m²); each force keeps ``min_push`` ≤ f_z ≤
    ``max_push`` and |f_xy| ≤ ``friction`` f_z."""
    n = feet.shape[0]
    if n == 0:
        return np.zeros((0, 3))
    A = np.zeros((6, 3 * n))
    for i in range(n):
        x, y, z = feet[i, 0], feet[i, 1], feet[i, 2]
        j = 3 * i
        A[0, j] = A[1, j + 1] = A[2, j + 2] = 1.0
        # rows 3..5: the cross-product matrix [r]× (torque r × f)
        A[3, j + 1], A[3, j + 2] = -z, y
        A[4, j], A[4, j + 2] = z, -x
        A[5, j], A[5, j + 1] = -y, x
    w = np.concatenate((force, torque))
    f = np.linalg.solve(A.T @ A + regularize * np.eye(3 * n), A.T @ w).reshape(n, 3)
    for i in range(n):
        _clip(f, i, friction, min_push, max_push)
    return f


@kernel
def distribute_into(feet, n, force, torque, friction, min_push, max_push, regularize, f):
    """:func:`_distribute` for the first ``n`` rows of ``feet``, written into
    the first n rows of ``f``, through the dual system: with A = [I …; [r_i]× …]
    (6, 3n), f = Aᵀ y where (A Aᵀ + λI) y = w, and
    A Aᵀ = [[n I, −[R]×], [[R]×, Σ (|r_i|² I − r_i r_iᵀ)]], R = Σ r_i."""
    if n == 0:
        return
    K = np.zeros((6, 6))
    R0 = R1 = R2 = 0.0
    for i in range(n):
        x, y, z = feet[i, 0], feet[i, 1], feet[i, 2]
        R0 += x
        R1 += y
        R2 += z
        rr = x * x + y * y + z * z
        K[3, 3] += rr - x * x
        K[4, 4] += rr - y * y
        K[5, 5] += rr - z * z
        K[3, 4] -= x * y
        K[3, 5] -= x * z
        K[4, 5] -= y * z
    K[4, 3], K[5, 3], K[5, 4] = K[3, 4], K[3, 5], K[4, 5]
    for c in range(3):
        K[c, c] = n
    # lower-left block [R]×, upper-right −[R]× = its transpose
    K[3, 1], K[3, 2] = -R2, R1
    K[4, 0], K[4, 2] = R2, -R0
    K[5, 0], K[5, 1] = -R1, R0
    for a in range(3, 6):
        for b in range(3):
            K[b, a] = K[a, b]
    for c in range(6):
        K[c, c] += regularize
    # Cholesky K = L Lᵀ in place (lower triangle), then L Lᵀ y = w.
    for j in range(6):
        s = K[j, j]
        for k in range(j):
            s -= K[j, k] * K[j, k]
        K[j, j] = math.sqrt(s)
        for i in range(j + 1, 6):
            s = K[i, j]
            for k in range(j):
                s -= K[i, k] * K[j, k]
            K[i, j] = s / K[j, j]
    w = (force[0], force[1], force[2], torque[0], torque[1], torque[2])
    yv = np.empty(6)
    for i in range(6):
        s = w[i]
        for k in range(i):
            s -= K[i, k] * yv[k]
        yv[i] = s / K[i, i]
    for i in range(5, -1, -1):
        s = yv[i]
        for k in range(i + 1, 6):
            s -= K[k, i] * yv[k]
        yv[i] = s / K[i, i]
    for i in range(n):  # f_i = y_f − r_i × y_t, then clipped
        x, y, z = feet[i, 0], feet[i, 1], feet[i, 2]
        f[i, 0] = yv[0] - (y * yv[5] - z * yv[4])
        f[i, 1] = yv[1] - (z * yv[3] - x * yv[5])
        f[i, 2] = yv[2] - (x * yv[4] - y * yv[3])
        _clip(f, i, friction, min_push, max_push)

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
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.control.jit import kernel


def distribute(feet: np.ndarray, force: np.ndarray, torque: np.ndarray, *, friction: float = 0.7,
               min_push: float = 0.0, max_push: float = np.inf, regularize: float = 1e-3) -> np.ndarray:
    """See :func:`_distribute` (this wrapper names the options)."""
    return _distribute(np.ascontiguousarray(feet, dtype=np.float64), np.asarray(force, np.float64),
                       np.asarray(torque, np.float64), float(friction), float(min_push), float(max_push),
                       float(regularize))


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
        f[i, 2] = min(max(f[i, 2], min_push), max_push)
        tangential = math.hypot(f[i, 0], f[i, 1])
        cap = friction * f[i, 2]
        if tangential > cap:
            f[i, 0] *= cap / tangential
            f[i, 1] *= cap / tangential
    return f

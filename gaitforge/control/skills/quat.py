"""Small quaternion helpers (w, x, y, z) over MuJoCo's C routines: each is
one C call, cheaper than numpy on 4-vectors."""
from __future__ import annotations

import math

import mujoco
import numpy as np

IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])


def mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a ⊗ b."""
    out = np.empty(4)
    mujoco.mju_mulQuat(out, a, b)
    return out


def conj(a: np.ndarray) -> np.ndarray:
    return np.array([a[0], -a[1], -a[2], -a[3]])


def rotate(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """v (3,) rotated by q."""
    out = np.empty(3)
    mujoco.mju_rotVecQuat(out, v, q)
    return out


def from_axis_angle(axis, angle: float) -> np.ndarray:
    out = np.empty(4)
    mujoco.mju_axisAngle2Quat(out, np.asarray(axis, float), float(angle))
    return out


def from_rotvec(r: np.ndarray) -> np.ndarray:
    """The rotation by |r| [rad] about r/|r|."""
    out = IDENTITY.copy()
    mujoco.mju_quatIntegrate(out, np.asarray(r, float), 1.0)
    return out


def to_rotvec(q: np.ndarray) -> np.ndarray:
    """Rotation vector [rad] (3,) of q, angle in [0, π]."""
    out = np.empty(3)
    mujoco.mju_quat2Vel(out, q if q[0] >= 0 else -q, 1.0)
    return out


def between(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """The smallest rotation taking direction u onto direction v."""
    u = u / mujoco.mju_norm3(u)
    v = v / mujoco.mju_norm3(v)
    axis = np.empty(3)
    mujoco.mju_cross(axis, u, v)
    s = mujoco.mju_norm3(axis)
    c = float(u @ v)
    if s < 1e-12:
        if c > 0:
            return IDENTITY.copy()
        perp = np.cross(u, (1.0, 0.0, 0.0) if abs(u[0]) < 0.9 else (0.0, 1.0, 0.0))
        return from_axis_angle(perp / mujoco.mju_norm3(perp), math.pi)
    return from_axis_angle(axis / s, math.atan2(s, c))


def euler_zyx(yaw: float, pitch: float, roll: float) -> np.ndarray:
    """Rz(yaw) Ry(pitch) Rx(roll) as a quaternion [rad]."""
    return mul(mul(from_axis_angle((0, 0, 1), yaw), from_axis_angle((0, 1, 0), pitch)),
               from_axis_angle((1, 0, 0), roll))


def yaw_of(q: np.ndarray) -> float:
    """Heading [rad] of the body x axis of q projected on the ground."""
    x = rotate(q, np.array([1.0, 0.0, 0.0]))
    return math.atan2(x[1], x[0])

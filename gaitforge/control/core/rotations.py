"""Rotations, once, compiled.

Quaternions are (w, x, y, z); matrices row-major (9 floats); world z up.
"""
from __future__ import annotations

import math

from gaitforge.jit import kernel


@kernel
def quat_to_mat(w, x, y, z):
    """Row-major rotation matrix (9 floats) of the unit quaternion (w, x, y, z)."""
    return (1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))


@kernel
def trunk_matrix(qpos):
    """Row-major rotation matrix (9 floats) of a free joint's quaternion qpos[3:7]."""
    return quat_to_mat(qpos[3], qpos[4], qpos[5], qpos[6])


@kernel
def roll_pitch_yaw(R):
    """Z-Y-X Euler angles (roll, pitch, yaw) [rad] of the row-major matrix R
    (R = Rz(yaw) Ry(pitch) Rx(roll))."""
    s = -R[6]
    pitch = math.asin(s if -1.0 < s < 1.0 else math.copysign(1.0, s))
    return math.atan2(R[7], R[8]), pitch, math.atan2(R[3], R[0])

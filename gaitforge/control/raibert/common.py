"""Pieces shared by the RH91 creature controllers: trunk attitude, leg
kinematics of telescoping legs, and fall detection."""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import mujoco
import numpy as np


class Attitude(NamedTuple):
    """Trunk orientation as roll (about x), pitch (about y), yaw (about z) [rad]
    (Z-Y-X Euler angles: R = Rz(yaw) Ry(pitch) Rx(roll)), and the body-frame
    angular velocity (3,) [rad/s]."""

    roll: float
    pitch: float
    yaw: float
    omega: np.ndarray


def attitude(quat_wxyz: np.ndarray, omega_body: np.ndarray) -> Attitude:
    """Attitude of a free body from its quaternion (w, x, y, z) and its
    angular velocity in body axes (MuJoCo's free-joint ``qvel[3:6]``)."""
    R = np.zeros(9)
    mujoco.mju_quat2Mat(R, np.asarray(quat_wxyz, float))
    R = R.reshape(3, 3)
    pitch = math.asin(max(-1.0, min(1.0, -R[2, 0])))
    roll = math.atan2(R[2, 1], R[2, 2])
    yaw = math.atan2(R[1, 0], R[0, 0])
    return Attitude(roll, pitch, yaw, np.asarray(omega_body, float).copy())


def hip_angles_for_foot(foot: np.ndarray, length: float) -> tuple[float, float]:
    """Hip roll a and pitch b [rad] that put the foot of a straight leg of
    ``length`` [m] (hanging along −z at zero angles) at ``foot`` = (x, y, z)
    in the hip frame, with the rotation R = Rx(a) Ry(b):
    foot = (−ℓ sin b, ℓ cos b sin a, −ℓ cos b cos a). Only the direction of
    ``foot`` matters; x and y are clipped to reachable values."""
    x, y, z = (float(v) for v in foot)
    s = max(-0.95, min(0.95, x / length))
    b = -math.asin(s)
    a = math.atan2(y, -z) if z < 0 else 0.0
    return a, b


def quat_roll_pitch(a: float, b: float) -> np.ndarray:
    """Quaternion (w, x, y, z) of Rx(a) Ry(b) (for ball-joint hip set points)."""
    qa = np.array([math.cos(a / 2), math.sin(a / 2), 0.0, 0.0])
    qb = np.array([math.cos(b / 2), 0.0, math.sin(b / 2), 0.0])
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, qa, qb)
    return out


def trunk_fall_check(min_height: float, max_tilt: float, body: int = 1) -> Callable[[mujoco.MjData], str | None]:
    """A fall detector: the body's height below ``min_height`` [m] or its
    roll/pitch beyond ``max_tilt`` [rad]."""
    def check(d: mujoco.MjData) -> str | None:
        z = float(d.xpos[body][2])
        if z < min_height:
            return f"trunk height {z:.3f} m below {min_height:.3f} m"
        R = d.xmat[body].reshape(3, 3)
        tilt = math.acos(max(-1.0, min(1.0, R[2, 2])))
        if tilt > max_tilt:
            return f"trunk tilt {math.degrees(tilt):.1f} deg beyond {math.degrees(max_tilt):.1f} deg"
        return None
    return check

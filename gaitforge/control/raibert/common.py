"""Pieces shared by the RH91 creature controllers: trunk attitude, leg
kinematics of telescoping legs, and fall detection."""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import mujoco
import numpy as np

from gaitforge.control.core.rotations import quat_to_mat
from gaitforge.creatures.spec import vec3
from gaitforge.errors import GaitforgeError
from gaitforge.sim.limits import JointLimits


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
    w, x, y, z = (float(c) for c in quat_wxyz)
    R = np.array(quat_to_mat(w, x, y, z)).reshape(3, 3)
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


class LegGeometry(NamedTuple):
    """Where a telescoping leg hangs: ``hip`` (3,) [m] the hip joint's place
    in its parent (trunk) body; ``length`` [m] hip to foot tip with the
    slide at 0 (the leg spring relaxed)."""

    hip: tuple[float, float, float]
    length: float


def leg_geometry(character, upper: str, lower: str, foot: str) -> LegGeometry:
    """The geometry of one telescoping leg read from the character's model:
    ``upper``/``lower`` the bones of the hip and the slide, ``foot`` the
    contact point at the foot tip. Lengths are rounded to 1e-12 m (summing
    the link lengths leaves last-bit noise: 0.20 + 0.63 ≠ 0.83)."""
    m = character.model
    up, low = m.body(character.joints[upper].body).id, m.body(character.joints[lower].body).id
    site = character.contacts[foot]
    if m.site_bodyid[site] != low or m.body_parentid[low] != up:
        raise GaitforgeError(f"{character.name!r}: {foot!r} is not on {lower!r} under {upper!r}")
    tip = m.body_pos[low] + m.site_pos[site]
    return LegGeometry(vec3(m.body_pos[up]), round(float(np.linalg.norm(tip)), 12))


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


# The RH91 creatures' joint limits (``sim.limits``), as multiples of their
# own m g L with L the leg's full length (hip to foot, spring relaxed; the
# kangaroo's thigh + shin + ankle-to-toe): hip, knee and ankle torques at most
# 3 m g L, joint speeds at most 40 rad/s. Their telescoping legs' slide force
# (the leg spring, whose rest length the controller moves for thrust) at most
# 6 m g: a leg that carries the weight for a share β of the stride pushes a
# peak of about (π/2)/β m g (a half-sine of mean m g/β), so 3 m g would forbid
# any stance shorter than half the stride, i.e. running; 6 m g allows β ≥ 0.26.
RH91_LIMITS = {"torque": 3.0, "force": 6.0, "speed": 40.0}


def rh91_limits(length: float) -> JointLimits:
    """The RH91 joint limits (``RH91_LIMITS``) of a creature with legs
    ``length`` [m] long."""
    return JointLimits(length, **RH91_LIMITS)

"""Compiled servo kernels of the RH91 biped: the posture servo through the
stance hips (Eq. 4), foot aiming for the swing legs (Eq. 3 and the kinematic
transformation), the ballistic mass-centre estimate in flight and the slew
of the legs' rest lengths. Arguments and the kernel state ``s`` are those of
:mod:`biped.kernel`, which also holds the phase and leg-event kernels;
:mod:`biped.tick` puts them together into the gaits' ticks.
"""
from __future__ import annotations

import math

from gaitforge.jit import kernel
from gaitforge.control.raibert.biped.kernel import (
    APEX_Z,
    B_LEG,
    DT,
    GOAL,
    HIP_D,
    HIP_JNT,
    HIP_Q,
    HIP_Y,
    K_LEG,
    K_X,
    KP,
    KP_YAW,
    KV,
    KV_YAW,
    LEG,
    LEG_STRIDE,
    MASS,
    REST,
    ROLL_D,
    SLEW,
    SLIDE_D,
    SLIDE_Q,
    TRIM,
    VD,
    VEL,
    VEL_OK,
    VEL_T,
    YAW_D,
    trunk_matrix,
)
from gaitforge.control.core.laws import foot_point, spring_force
from gaitforge.constants import GRAVITY as G
from gaitforge.control.core.rotations import quat_to_mat


@kernel
def posture(qpos, qvel, com, spring, stiff, damp, qfrc, s, use0, use1):
    """Eq. 4 (roll, pitch, yaw) through the stance hips ``use0``/``use1``
    (bools): each hip spring's set point, stiffness and damping, and the
    feedforward generalized forces (see ``Support.posture``)."""
    R0, R1, R2, R3, R4, R5, R6, R7, R8 = trunk_matrix(qpos)
    yaw = math.atan2(R3, R0)
    err = (s[YAW_D] - yaw + math.pi) % (2 * math.pi) - math.pi
    half = 0.5 * (yaw + max(-0.5, min(0.5, err)) * s[KP_YAW] / s[KP])
    ch, sh = math.cos(half), math.sin(half)
    tw, tx, ty, tz = qpos[3], qpos[4], qpos[5], qpos[6]
    ew, ex, ey, ez = ch * tw + sh * tz, ch * tx + sh * ty, ch * ty - sh * tx, ch * tz - sh * tw  # Rz⁻¹ ⊗ q_trunk
    roll_d = s[ROLL_D]
    if roll_d != 0.0:  # Rx(roll_d)⁻¹ ⊗ e, written as the full product (the rounding of a quaternion product)
        aw, ax, ay, az = math.cos(roll_d / 2), -math.sin(roll_d / 2), 0.0, 0.0
        ew, ex, ey, ez = (aw * ew - ax * ex - ay * ey - az * ez, aw * ex + ax * ew + ay * ez - az * ey,
                          aw * ey - ax * ez + ay * ew + az * ex, aw * ez + ax * ey - ay * ex + az * ew)
    cx, cy, cz = com[0, 0] - qpos[0], com[0, 1] - qpos[1], com[0, 2] - qpos[2]
    mx, my, mz = (R0 * cx + R3 * cy + R6 * cz, R1 * cx + R4 * cy + R7 * cz,
                  R2 * cx + R5 * cy + R8 * cz)  # mass centre in the trunk frame
    wx, wy, wz = qvel[3], qvel[4], qvel[5]  # trunk angular velocity, trunk frame
    n, f_ref, half_dt = int(use0) + int(use1), 0.5 * s[MASS] * G, 0.5 * s[DT]
    for i in range(2):
        if not (use0 if i == 0 else use1):
            continue
        b = LEG + LEG_STRIDE * i
        d, j, sq = int(s[b + HIP_D]), int(s[b + HIP_Q]), int(s[b + SLIDE_Q])
        f = spring_force(qpos[sq], qvel[int(s[b + SLIDE_D])], s[REST + i], s[K_LEG], s[B_LEG])  # Eq. 1 [N]
        w = max(0.0, min(1.0, f / f_ref)) / n
        kp, kv, kt = s[KP] * w, s[KV] * w, s[KV_YAW] * w
        stiff[int(s[b + HIP_JNT])] = kp
        damp[d], damp[d + 1], damp[d + 2] = kv, kv, kt
        hw, hx, hy, hz = qpos[j], qpos[j + 1], qpos[j + 2], qpos[j + 3]
        spring[j] = ew * hw - ex * hx - ey * hy - ez * hz
        spring[j + 1] = ew * hx + ex * hw + ey * hz - ez * hy
        spring[j + 2] = ew * hy - ex * hz + ey * hw + ez * hx
        spring[j + 3] = ew * hz + ex * hy - ey * hx + ez * hw
        H0, H1, H2, H3, H4, H5, H6, H7, H8 = quat_to_mat(hw, hx, hy, hz)  # the hip's rotation
        ux, uy, uz = -H2 * f, -H5 * f, -H8 * f  # along the leg to the foot, times the force
        rx, ry, rz = -mx, s[b + HIP_Y] - my, -mz  # hip relative to the mass centre
        fx, fy, fz = ry * uz - rz * uy, rz * ux - rx * uz, rx * uy - ry * ux
        lag, lag_t = kv + kp * half_dt, kt + kp * half_dt
        qfrc[d] = lag * (qvel[d] + H0 * wx + H3 * wy + H6 * wz) - (H0 * fx + H3 * fy + H6 * fz)
        qfrc[d + 1] = lag * (qvel[d + 1] + H1 * wx + H4 * wy + H7 * wz) - (H1 * fx + H4 * fy + H7 * fz)
        qfrc[d + 2] = lag_t * (qvel[d + 2] + H2 * wx + H5 * wy + H8 * wz) - (H2 * fx + H5 * fy + H8 * fz)


@kernel
def neutral_point(s, cx, cy, v0, v1, stance):
    """Eq. 3 in x and y: the world foot point (fx, fy) [m] for a stance of
    ``stance`` [s] from the mass centre (cx, cy) [m] moving at (v0, v1)
    [m/s], with the learned speed trim (forward, lateral of the heading)
    added to the desired velocity."""
    c, sn = math.cos(s[YAW_D]), math.sin(s[YAW_D])
    vx = s[VD] + c * s[TRIM] - sn * s[TRIM + 1]
    vy = s[VD + 1] + sn * s[TRIM] + c * s[TRIM + 1]
    k_x = s[K_X]
    return foot_point(cx, v0, vx, stance, k_x), foot_point(cy, v1, vy, stance, k_x)


@kernel
def aim_foot(i, qpos, spring, s, R, cx, cy, v0, v1, stance, length):
    """Eq. 3 and the kinematic transformation: set leg ``i``'s hip set point
    so its foot lands at the neutral point of a stance ``stance`` [s] plus
    the speed correction (desired velocity with the learned trim), with the
    leg ``length`` [m] long. R: trunk matrix (9,); (cx, cy) [m] and
    (v0, v1) [m/s]: mass centre position and velocity, world x and y.
    Returns how far [rad] the leg's fore-aft angle still is from there."""
    fx, fy = neutral_point(s, cx, cy, v0, v1, stance)
    R0, R1, R2, R3, R4, R5, R6, R7, R8 = R
    b = LEG + LEG_STRIDE * i
    hip_y = s[b + HIP_Y]
    dx, dy = fx - qpos[0] - hip_y * R1, fy - qpos[1] - hip_y * R4
    reach = math.hypot(dx, dy)
    if reach > 0.9 * length:  # out of reach: aim as far as the leg goes
        dx, dy, reach = dx * 0.9 * length / reach, dy * 0.9 * length / reach, 0.9 * length
    dz = -math.sqrt(length * length - reach * reach)
    tx = R0 * dx + R3 * dy + R6 * dz  # R^T (dx, dy, dz): into the trunk frame
    ty = R1 * dx + R4 * dy + R7 * dz
    tz = R2 * dx + R5 * dy + R8 * dz
    pitch = -math.asin(max(-0.95, min(0.95, tx / length)))  # as common.hip_angles_for_foot
    roll = math.atan2(ty, -tz) if tz < 0 else 0.0
    ca, sa, cb, sb = math.cos(roll / 2), math.sin(roll / 2), math.cos(pitch / 2), math.sin(pitch / 2)
    j = int(s[b + HIP_Q])
    spring[j], spring[j + 1], spring[j + 2], spring[j + 3] = ca * cb, sa * cb, ca * sb, sa * sb  # Rx Ry
    w, x, y, z = qpos[j], qpos[j + 1], qpos[j + 2], qpos[j + 3]
    return abs(pitch - math.asin(max(-1.0, min(1.0, 2 * (x * z + w * y)))))


@kernel
def flight_com(t, com, comvel, s):
    """Mass centre position and velocity (6 floats) [m, m/s] in flight: the
    velocity measured on the first flight tick (``comvel`` must be fresh
    then) and extrapolated ballistically; notes the flight's highest point."""
    if s[VEL_OK] == 0.0:
        s[VEL], s[VEL + 1], s[VEL + 2], s[VEL_T], s[VEL_OK] = comvel[0, 0], comvel[0, 1], comvel[0, 2], t, 1.0
    cz = com[0, 2]
    s[APEX_Z] = max(s[APEX_Z], cz)  # for the hop loss
    return com[0, 0], com[0, 1], cz, s[VEL], s[VEL + 1], s[VEL + 2] - G * (t - s[VEL_T])


@kernel
def slew(spring, s):
    """Move each rest length toward its goal by at most ``s[SLEW]``: a step
    would snap the lower leg and jerk the trunk."""
    for i in range(2):
        cur, goal = s[REST + i], s[GOAL + i]
        if cur != goal:
            step = s[SLEW]
            slide = goal if abs(goal - cur) <= step else cur + math.copysign(step, goal - cur)
            s[REST + i] = slide
            spring[int(s[LEG + LEG_STRIDE * i + SLIDE_Q])] = slide

"""Compiled leg actions of the RH91 quadruped's control tick (see
:mod:`gaitforge.control.raibert.quadruped`): the landing legs' placement
(RH91 Eq. 3), the stance posture servo (Eq. 4), the idle pair, the per-leg
cycle of a staggered pair and the hip servo modes. The tick that calls them
is :mod:`gaitforge.control.raibert.quadruped.tick`.

All controller state the tick touches lives in two arrays owned by the
runner: ``F`` (float64, layout ``F_*`` below: gains of the current gait, hip
geometry, leg rest lengths, allocation rows, commands) and ``I`` (int64,
``I_*``: joint and site indices, the pairs, phases and flags). Python writes
the same slots only at a reset and when commands change (gait switches, path
steering at a liftoff). MuJoCo arrays are passed as the model's and data's own views:
``q``/``v`` (qpos (nq,), qvel (nv,)), ``spring`` (model.qpos_spring (nq,):
hip angle set points [rad] and leg rest lengths [m]), ``frc``
(data.qfrc_applied (nv,): stance hip torques [N m]), ``stiff``
(model.jnt_stiffness flat) and ``damp`` (model.dof_damping (nv,)).

Leg indices: 0 front-left, 1 front-right, 2 rear-left, 3 rear-right. Leg
rest lengths are metres from the full length ``F[F_LEG]`` (the creature's own). Phase codes are
the order of :class:`~gaitforge.control.raibert.fsm.Phase`: 0 flight,
1 loading, 2 compression, 3 thrust, 4 unloading.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.control.core.layout import Field, Layout
from gaitforge.control.core.laws import foot_placement, posture_torque
# (phase codes and the phase rule are the core's; the quadruped modules take them from here)
from gaitforge.control.core.phase import (  # noqa: F401
    COMPRESSION,
    FLIGHT,
    LOADING,
    THRUST,
    UNLOADING,
    log_fields,
    log_phase,
    next_phase,
)
from gaitforge.constants import GRAVITY as G
from gaitforge.control.core.rotations import trunk_matrix
from gaitforge.jit import kernel
from gaitforge.control.raibert.quadruped.gains import LEG_LENGTH  # noqa: F401 (the unscaled robot's, re-exported)
from gaitforge.control.raibert.quadruped.virtual_legs import torque_allocation_into

# The state: two arrays laid out by core.layout (named fields, offsets in order,
# no overlaps): F (float64) and I (int64). The F_* and I_* names are the
# offsets (literals to the compiled code).
LOG_SIZE = 64  # a liftoff goes to Python (to copy the phase log) before a cycle's 5 changes could overflow it
GAIN_FIELDS = ("touch_height", "min_stance", "retract", "landing", "k_x", "k_y", "clearance", "stagger",
               "swing_kp", "swing_kv", "stance_kv", "roll_kp", "roll_kv", "pitch_kp", "pitch_kv", "yaw_kp",
               "yaw_kv", "max_torque", "pitch_desired", "ground_match", "match_time", "max_swing", "apex",
               "apex_gain", "trim_limit", "speed_trim_gain", "stance_guess", "unison_time")  # QuadrupedGains
MORE_FIELDS = ("trim_floor", "settle_time", "thrust_min", "thrust_max", "touch_slack", "stagger_eps",
               "full_margin", "stance_stiffness")  # QuadrupedGains, at F_TRIM_FLOOR
F_LAYOUT = Layout("quadruped F", [
    # gains of the current gait: GAIN_FIELDS, in order (F[:len(GAIN_FIELDS)] is written at once)
    Field("touch", unit="m"), Field("min_stance", unit="s"), Field("retract", unit="m"),
    Field("landing", unit="m"), Field("kx", unit="s"), Field("ky", unit="s"), Field("clearance", unit="m"),
    Field("stagger", unit="m"), Field("swing_kp", unit="N m/rad"), Field("swing_kv", unit="N m s/rad"),
    Field("stance_kv", unit="N m s/rad"), Field("roll_kp", unit="N m/rad"), Field("roll_kv", unit="N m s/rad"),
    Field("pitch_kp", unit="N m/rad"), Field("pitch_kv", unit="N m s/rad"), Field("yaw_kp", unit="N m/rad"),
    Field("yaw_kv", unit="N m s/rad"), Field("max_torque", unit="N m"), Field("pitch_d", unit="rad"),
    Field("match"), Field("match_time", unit="s"), Field("max_swing", unit="rad"), Field("apex", unit="m"),
    Field("apex_gain"), Field("trim_limit"), Field("speed_trim_gain"), Field("stance_guess", unit="s"),
    Field("unison", unit="s"),
    # leg_rate × control_dt; hip positions (4, 3) from the trunk's mass centre, trunk axes; mean hip x, y of
    # each pair (2, 2); PhaseMachine compress_eps and full_fraction
    Field("leg_step", unit="m"), Field("hip", 12, unit="m"), Field("pair_hip", 4, unit="m"),
    Field("eps", unit="m"), Field("full"),
    # leg rest-length targets and the rate-limited ones written; highest mean hip height of each pair since
    # its liftoff; thrust per virtual leg; allocation rows W (4, 3) of up to two legs [N m per N m]
    Field("rest", 4, unit="m"), Field("rest_out", 4, unit="m"), Field("hip_top", 2, unit="m"),
    Field("thrust", 2, unit="m"), Field("w", 12),
    # commands (speed trim, speed, heading and its cos, sin); the trunk's time and place at the last
    # touchdown; T_s of Eq. 3 for the active pair; when the gait began and the next schedule entry is due
    Field("trim", unit="m/s"), Field("want", unit="m/s"), Field("heading", unit="rad"), Field("hc"), Field("hs"),
    Field("td_time", unit="s"), Field("td_t", unit="s"), Field("td_x", unit="m"), Field("td_y", unit="m"),
    Field("ts", unit="s"), Field("gait_start", unit="s"), Field("next_cmd", unit="s"),
    # each pair's StanceTimer (2, 4): touchdown, liftoff time, last stance, flight (nan: None); a liftoff
    # tick's attitude, kept for its second half; the phase log (core.phase)
    Field("timer", 8, unit="s"), Field("roll"), Field("pitch"), Field("r6"), Field("r7"),
    *log_fields(LOG_SIZE),
    # the creature's leg length (hip to foot, spring relaxed); more gains: MORE_FIELDS, in order
    Field("leg", unit="m"), Field("trim_floor", unit="m/s"), Field("settle", unit="s"),
    Field("thrust_min", unit="m"), Field("thrust_max", unit="m"), Field("touch_slack", unit="m"),
    Field("stagger_eps", unit="m"), Field("full_margin", unit="m"), Field("stance_k"),
    Field("leg_k", 4, unit="N/m"),  # each leg spring's stiffness in the creature's model
])
(F_TOUCH, F_MIN_STANCE, F_RETRACT, F_LANDING, F_KX, F_KY, F_CLEARANCE, F_STAGGER, F_SWING_KP, F_SWING_KV,
 F_STANCE_KV, F_ROLL_KP, F_ROLL_KV, F_PITCH_KP, F_PITCH_KV, F_YAW_KP, F_YAW_KV, F_MAX_TORQUE, F_PITCH_D,
 F_MATCH, F_MATCH_TIME, F_MAX_SWING, F_APEX, F_APEX_GAIN, F_TRIM_LIMIT, F_SPEED_TRIM_GAIN, F_STANCE_GUESS,
 F_UNISON, F_LEG_STEP, F_HIP, F_PAIR_HIP, F_EPS, F_FULL, F_REST, F_REST_OUT, F_HIP_TOP, F_THRUST, F_W, F_TRIM,
 F_WANT, F_HEADING, F_HC, F_HS, F_TD_TIME, F_TD_T, F_TD_X, F_TD_Y, F_TS, F_GAIT_START, F_NEXT_CMD, F_TIMER,
 F_ROLL, F_PITCH, F_R6, F_R7, F_LOG_N, F_LOG_T, F_LOG_CODE, F_LEG, F_TRIM_FLOOR, F_SETTLE, F_THRUST_MIN,
 F_THRUST_MAX, F_TOUCH_SLACK, F_STAGGER_EPS, F_FULL_MARGIN, F_STANCE_K, F_LEG_K) = (
    F_LAYOUT[n] for n in F_LAYOUT.fields)
F_SIZE = F_LAYOUT.size
I_LAYOUT = Layout("quadruped I", [
    # model indices per leg (hip_j: the two hinge joints' flat stiffness index per leg); the legs of
    # virtual leg 0 and 1, leader first
    Field("hip_q", 4, kind=int), Field("hip_d", 4, kind=int), Field("hip_j", 8, kind=int),
    Field("slide_q", 4, kind=int), Field("slide_d", 4, kind=int), Field("site", 4, kind=int),
    Field("pairs", 4, kind=int),
    # the active virtual leg, staggered now, its phase code; gait flags; a touchdown is recorded
    Field("active", kind=int), Field("staggered", kind=int), Field("phase", kind=int),
    Field("idle_clear", kind=int), Field("pair_alloc", kind=int), Field("td_valid", kind=int),
    # per leg 1: hip limp (stance), 0: position servo; per-leg phase of a staggered pair; W valid, legs in W
    # (-1: reallocate) and which; legs the servo last acted through (-1: none yet); flags
    Field("stance", 4, kind=int), Field("leg_phase", 4, kind=int), Field("alloc_on", kind=int),
    Field("alloc_n", kind=int), Field("alloc_legs", 2, kind=int), Field("servo_n", kind=int),
    Field("servo_legs", 2, kind=int), Field("pattern_staggered", kind=int), Field("follow", kind=int),
    Field("slide_j", 4, kind=int),  # the leg springs' (slide joints') flat stiffness index per leg
], dtype=np.int64)
(I_HIP_Q, I_HIP_D, I_HIP_J, I_SLIDE_Q, I_SLIDE_D, I_SITE, I_PAIRS, I_ACTIVE, I_STAGGERED, I_PHASE, I_IDLE_CLEAR,
 I_PAIR_ALLOC, I_TD_VALID, I_STANCE, I_LEG_PHASE, I_ALLOC_ON, I_ALLOC_N, I_ALLOC_LEGS, I_SERVO_N, I_SERVO_LEGS,
 I_PATTERN_STAGGERED, I_FOLLOW, I_SLIDE_J) = (
    I_LAYOUT[n] for n in I_LAYOUT.fields)
I_SIZE = I_LAYOUT.size


@kernel
def set_mode(F, ints, stiff, damp, frc, leg, stance):
    """Hip servo gains of one leg, swing (position servo) or stance (limp, Eq. 4
    torque only), and its leg spring's stiffness (× ``stance_stiffness`` in stance). A
    landed leg keeps its rest length: lengthening it on the ground would pump the hop."""
    ints[I_STANCE + leg] = stance
    if stance:
        F[F_REST + leg] = F[F_REST_OUT + leg]
        kp, kv = 0.0, F[F_STANCE_KV]
    else:
        kp, kv = F[F_SWING_KP], F[F_SWING_KV]
    stiff[ints[I_SLIDE_J + leg]] = F[F_LEG_K + leg] * (F[F_STANCE_K] if stance else 1.0)
    stiff[ints[I_HIP_J + 2 * leg]] = kp
    stiff[ints[I_HIP_J + 2 * leg + 1]] = kp
    d = ints[I_HIP_D + leg]
    damp[d] = damp[d + 1] = kv
    frc[d] = frc[d + 1] = 0.0


@kernel
def leg_cycle(F, ints, q, spring, frc, stiff, damp, i, xdot, touching):
    """Thrust and unloading of leg i of a staggered pair on its own spring
    (xdot [m/s]: its length rate); once up, the leg holds its angles (a limp
    hip would let it flail while its partner still carries the trunk)."""
    p = ints[I_LEG_PHASE + i]
    x = q[ints[I_SLIDE_Q + i]]
    if p == FLIGHT and touching:
        ints[I_LEG_PHASE + i] = COMPRESSION
    elif p == COMPRESSION and x < F[F_REST + i] - F[F_STAGGER_EPS] and xdot > 0.0:
        ints[I_LEG_PHASE + i] = THRUST
        F[F_REST + i] += F[F_THRUST + ints[I_ACTIVE]]
    elif p == THRUST and x > F[F_REST + i] - F[F_FULL_MARGIN]:
        ints[I_LEG_PHASE + i] = UNLOADING
        F[F_REST + i] = -F[F_RETRACT]
    elif p == UNLOADING and not touching:
        set_mode(F, ints, stiff, damp, frc, i, 0)
        h = ints[I_HIP_Q + i]
        spring[h] = q[h]
        spring[h + 1] = q[h + 1]


@kernel
def place(F, ints, q, v, spring, t, r6, r7, a0, a1, trail_short):
    """RH91 Eq. 3 for the landing legs a0, a1, each foot relative to its own
    hip, and their lengths: equal foot heights, short while the hip rises,
    the trailing leg of a staggered pair ``stagger`` shorter if
    ``trail_short``. t [s]; r6, r7: the trunk's rotation matrix entries
    R[2,0], R[2,1]."""
    ts = F[F_TS]
    if ints[I_TD_VALID] == 0 or t - F[F_TD_T] < F[F_SETTLE]:
        vx, vy = v[0], v[1]
    else:  # mean velocity since the last touchdown: the trunk's own swings average out
        dt = t - F[F_TD_T]
        vx, vy = (q[0] - F[F_TD_X]) / dt, (q[1] - F[F_TD_Y]) / dt
    c, s = F[F_HC], F[F_HS]
    vxh, vyh = c * vx + s * vy, c * vy - s * vx
    xf = foot_placement(vxh, F[F_WANT], ts, F[F_KX], F[F_TRIM])  # Eq. 3 (with the learned speed trim)
    yf = foot_placement(vyh, 0.0, ts, F[F_KY])
    ell = F[F_LEG] + F[F_LANDING]
    wz = -math.sqrt(max(ell * ell - xf * xf - yf * yf, 0.25 * ell * ell))
    wx, wy = c * xf - s * yf, s * xf + c * yf
    # Into trunk axes (Rᵀ from the quaternion): the foot lands where Eq. 3
    # wants it in the world whatever the trunk's attitude.
    R0, R1, R2, R3, R4, R5, _, _, R8 = trunk_matrix(q)
    fx = R0 * wx + R3 * wy + r6 * wz
    fy = R1 * wx + R4 * wy + r7 * wz
    fz = R2 * wx + R5 * wy + R8 * wz
    sb = fx / math.sqrt(fx * fx + fy * fy + fz * fz)
    b = -math.asin(sb if -1.0 < sb < 1.0 else math.copysign(1.0, sb))
    a = math.atan2(fy, -fz) if fz < 0.0 else 0.0
    px0, py0 = F[F_HIP + 3 * a0], F[F_HIP + 3 * a0 + 1]
    px1, py1 = F[F_HIP + 3 * a1], F[F_HIP + 3 * a1 + 1]
    hz0, hz1 = q[2] + r6 * px0 + r7 * py0, q[2] + r6 * px1 + r7 * py1
    if F[F_MATCH] > 0.0:
        # Ground speed matching: over the last ``match_time`` before the
        # predicted touchdown the leg sweeps back at a share of ẋ/ℓ, so the
        # foot strikes slower (a 1 kg foot striking at body speed costs
        # speed and pitches the trunk nose down). The set point leads the
        # leg by the servo's lag kv ω / kp.
        vz = v[2] - 0.5 * (px0 + px1) * v[4]
        h = 0.5 * (hz0 + hz1) - ell * math.cos(b)
        t_td = (vz + math.sqrt(vz * vz + 2.0 * G * h)) / G if h > 0.0 else 0.0
        omega = F[F_MATCH] * vxh / ell
        b += omega * (F[F_SWING_KV] / F[F_SWING_KP] - t_td) if t_td < F[F_MATCH_TIME] else -omega * F[F_MATCH_TIME]
    lim = F[F_MAX_SWING]
    b = lim if b > lim else (-lim if b < -lim else b)
    # Both legs point the same way; their lengths make up the difference in
    # hip height. While a hip still rises, its leg lengthens only as far as
    # the hip's height allows: a leg swung forward at full length would
    # scuff the ground.
    half = 0.5 * (hz0 - hz1)
    top = -F[F_CLEARANCE] - F[F_LEG]
    if ints[I_STANCE + a0] == 0:
        h = ints[I_HIP_Q + a0]
        spring[h], spring[h + 1] = a, b
        target = F[F_LANDING] + half
        if v[2] - px0 * v[4] > 0.0 and hz0 + top < target:
            target = hz0 + top
        F[F_REST + a0] = target
    if ints[I_STANCE + a1] == 0:
        h = ints[I_HIP_Q + a1]
        spring[h], spring[h + 1] = a, b
        target = F[F_LANDING] - half - (F[F_STAGGER] if trail_short else 0.0)
        if v[2] - px1 * v[4] > 0.0 and hz1 + top < target:
            target = hz1 + top
        F[F_REST + a1] = target


@kernel
def allocate(F, ints, q, n, l0, l1):
    """Fresh least-effort allocation rows (``quadruped.virtual_legs``) over the first
    n of legs (l0, l1), at their present hip angles and leg lengths."""
    ints[I_ALLOC_N], ints[I_ALLOC_LEGS], ints[I_ALLOC_LEGS + 1] = n, l0, l1
    ints[I_ALLOC_ON] = 0
    if n == 0:
        return
    P, ang, ell, W = np.empty((n, 3)), np.empty((n, 2)), np.empty(n), np.empty((2 * n, 3))
    for k in range(n):
        i = l0 if k == 0 else l1
        for c in range(3):
            P[k, c] = F[F_HIP + 3 * i + c]
        h = ints[I_HIP_Q + i]
        ang[k, 0], ang[k, 1] = q[h], q[h + 1]
        ell[k] = F[F_LEG] + q[ints[I_SLIDE_Q + i]]
    torque_allocation_into(P, ang, ell, 1e-3, W)
    for r in range(2 * n):
        for c in range(3):
            F[F_W + 3 * r + c] = W[r, c]
    ints[I_ALLOC_ON] = 1


@kernel
def posture(F, ints, q, v, frc, roll, pitch, a0, a1, t0, t1):
    """RH91 Eq. 4 on roll, pitch and heading, τ = −k_p (φ − φ_d) − k_v φ̇ per
    axis, through the hips of the touching legs of the active pair (t0, t1:
    whether a0, a1 touch), spread by least effort over the touching legs or,
    with ``pair_alloc``, over the whole pair (a touching leg takes its share
    only), and limited to ``max_torque`` per hinge. roll, pitch [rad]."""
    n, l0, l1 = (2, a0, a1) if t0 and t1 else ((1, a0, -1) if t0 else ((1, a1, -1) if t1 else (0, -1, -1)))
    sn = ints[I_SERVO_N]
    if not (sn == n and (n < 1 or ints[I_SERVO_LEGS] == l0) and (n < 2 or ints[I_SERVO_LEGS + 1] == l1)):
        # a leg landed or left: clear, reallocate
        ints[I_SERVO_N], ints[I_SERVO_LEGS], ints[I_SERVO_LEGS + 1] = n, l0, l1
        for i in (a0, a1):
            d = ints[I_HIP_D + i]
            frc[d] = frc[d + 1] = 0.0
        sn, s0, s1 = (2, a0, a1) if n > 0 and ints[I_PAIR_ALLOC] != 0 else (n, l0, l1)
        an = ints[I_ALLOC_N]
        if not (an == sn and (sn < 1 or ints[I_ALLOC_LEGS] == s0) and (sn < 2 or ints[I_ALLOC_LEGS + 1] == s1)):
            allocate(F, ints, q, sn, s0, s1)
    if ints[I_ALLOC_ON] == 0:
        return
    R0, _, _, R3, _, _, _, _, _ = trunk_matrix(q)
    e_yaw = math.atan2(R3, R0) - F[F_HEADING]
    e_yaw = (e_yaw + math.pi) % (2.0 * math.pi) - math.pi
    tx = posture_torque(roll, v[3], 0.0, F[F_ROLL_KP], F[F_ROLL_KV])  # Eq. 4 per axis
    ty = posture_torque(pitch, v[4], F[F_PITCH_D], F[F_PITCH_KP], F[F_PITCH_KV])
    tz = posture_torque(e_yaw, v[5], 0.0, F[F_YAW_KP], F[F_YAW_KV])
    lim = F[F_MAX_TORQUE]
    for k in range(ints[I_ALLOC_N]):
        i = ints[I_ALLOC_LEGS + k]
        if (n >= 1 and i == l0) or (n == 2 and i == l1):
            r = F_W + 6 * k
            u0 = F[r] * tx + F[r + 1] * ty + F[r + 2] * tz
            u1 = F[r + 3] * tx + F[r + 4] * ty + F[r + 5] * tz
            d = ints[I_HIP_D + i]
            frc[d] = lim if u0 > lim else (-lim if u0 < -lim else u0)
            frc[d + 1] = lim if u1 > lim else (-lim if u1 < -lim else u1)


@kernel
def idle_legs(F, ints, q, spring, roll, pitch, r6, r7, a0, a1, shorten):
    """The idle pair mirrors the active pair's world pitch angle (their swing
    moments on the trunk cancel), feet below the hips in roll; with
    ``idle_clearance`` (and ``shorten``) its legs are only as short as
    their feet need to clear the ground, at most ``retract``: a short
    flight leaves no time to lengthen a fully shortened leg."""
    idle = 1 - ints[I_ACTIVE]
    b = -0.5 * (q[ints[I_HIP_Q + a0] + 1] + q[ints[I_HIP_Q + a1] + 1]) - 2.0 * pitch
    for k in range(2):
        h = ints[I_HIP_Q + ints[I_PAIRS + 2 * idle + k]]
        spring[h], spring[h + 1] = -roll, b
    if ints[I_IDLE_CLEAR] != 0 and shorten:
        lo, hi, top = -F[F_RETRACT], F[F_LANDING], q[2] - F[F_CLEARANCE] - F[F_LEG]
        for k in range(2):
            i = ints[I_PAIRS + 2 * idle + k]
            if ints[I_STANCE + i] == 0:
                room = top + r6 * F[F_HIP + 3 * i] + r7 * F[F_HIP + 3 * i + 1]
                F[F_REST + i] = lo if room < lo else (hi if room > hi else room)

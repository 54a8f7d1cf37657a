"""Compiled control tick of the RH91 kangaroo (:mod:`kangaroo`): the state
layout, the leg geometry, the tick and the touchdown / liftoff bookkeeping.

State: one float64 array ``st`` (one array, as each array argument adds to
a call's cost); ``s = st[:NF]`` holds gains, geometry and the quantities the
tick updates (NaN: "not known yet"), ``ix = st[NF:]`` viewed as int64 holds
phase and stage codes, offsets, and after ``NI`` the foot's geom ids.
``MjData`` and ``MjModel`` are reached through one float64 window over each
one's buffer (``kangaroo.state``): ``d`` (trunk subtree COM, velocity and
angular momentum, hip, knee, ankle, trunk orientation, toe site, ankle
angle, knee applied torque) and ``mw`` (spring set points, stiffness and
damping of the servoed joints), at the offsets in ``ix`` (C_*: first element
of a row of ``d``; Q_*, M_*: elements of ``mw``). Slot names are module
constants, so compiled code reads them as literals.

All compiled code is in this one file, so that a kernel's calls resolve in
one module namespace: the tests swap every kernel for its interpreted
original there. (The disk cache is safe across files: ``jit.cache_dir``.)

Angles are world pitches about +y [rad] (positive turns a link's +x axis
down); points are (x, z) [m].
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.control.core.layout import Layout
from gaitforge.control.core.laws import foot_placement, posture_torque
# Phase codes, in ``fsm.Phase`` order, and the Fig. 4 rule: the core's (named here for the kernels).
from gaitforge.control.core.phase import COMPRESSION, FLIGHT, LOADING, THRUST, UNLOADING, next_phase  # noqa: F401
from gaitforge.control.jit import kernel

# The state's float part s: named fields (core.layout, offsets in order, no
# overlaps); each name in capitals is its offset (a literal to compiled code).
S_LAYOUT = Layout("kangaroo s", [
    "speed", "v_cmd", "dv", "control_dt", "compress_eps", "full_fraction", "prev_len", "leg", "rate",
    "rest_len", "tail_stance", "tail_flight", "head_rest", "pitch_desired", "k_x", "k_xi", "x_offset",
    "stance_avg", "stance_smoothing", "leg_length_td", "swing_clearance", "l1", "l2", "r_toe", "toe_angle",
    "off_thigh", "off_shin", "off_foot", "apex", "ankle_rest", "td_rest", "ankle_thrust_max", "i_pitch",
    "posture_kp", "posture_kv", "mass", "gravity", "flight_time", "apex_gain", "td_com_z", "apex_bias",
    "apex_target", "t_approach", "takeoff_placement", "near_x", "depth", "height", "energy_factor", "hip_kp",
    "hip_kv", "hip_kp_stance", "hip_kv_stance", "knee_kp", "knee_kv", "head_kp", "head_kv", "ankle_k0",
    "ankle_b0", "stiffness_factor", "landing_damping_factor", "td_time", "last_stance", "stance_guess",
    "stance_pred", "liftoff_extension"
])
(SPEED, V_CMD, DV, CONTROL_DT, COMPRESS_EPS, FULL_FRACTION, PREV_LEN, LEG, RATE, REST_LEN, TAIL_STANCE,
 TAIL_FLIGHT, HEAD_REST, PITCH_DESIRED, K_X, K_XI, X_OFFSET, STANCE_AVG, STANCE_SMOOTHING, LEG_LENGTH_TD,
 SWING_CLEARANCE, L1, L2, R_TOE, TOE_ANGLE, OFF_THIGH, OFF_SHIN, OFF_FOOT, APEX, ANKLE_REST, TD_REST,
 ANKLE_THRUST_MAX, I_PITCH, POSTURE_KP, POSTURE_KV, MASS, GRAVITY, FLIGHT_TIME, APEX_GAIN, TD_COM_Z, APEX_BIAS,
 APEX_TARGET, T_APPROACH, TAKEOFF_PLACEMENT, NEAR_X, DEPTH, HEIGHT, ENERGY_FACTOR, HIP_KP, HIP_KV,
 HIP_KP_STANCE, HIP_KV_STANCE, KNEE_KP, KNEE_KV, HEAD_KP, HEAD_KV, ANKLE_K0, ANKLE_B0, STIFFNESS_FACTOR,
 LANDING_DAMPING_FACTOR, TD_TIME, LAST_STANCE, STANCE_GUESS, STANCE_PRED, LIFTOFF_EXTENSION) = (
    S_LAYOUT[n] for n in S_LAYOUT.fields)
NF = S_LAYOUT.size
# The int64 part ix (after NF): phase and stage codes, flags, window offsets
# (C_*: data rows, Q_*/M_*: model elements), the foot geom count; the foot
# geom ids follow at NI.
IX_LAYOUT = Layout("kangaroo ix", [
    "phase", "stage", "prev_stage", "has_jump", "last_approach", "touch", "c_com", "c_linvel", "c_angmom",
    "c_hip", "c_knee", "c_ankle", "c_xmat", "c_toe", "c_qfoot", "c_frc_knee", "q_thigh", "q_shin", "q_foot",
    "q_tail", "q_head", "m_k_thigh", "m_k_shin", "m_k_foot", "m_k_head", "m_c_thigh", "m_c_shin", "m_c_foot",
    "m_c_head", "n_foot"
], dtype=np.int64)
(PHASE, STAGE, PREV_STAGE, HAS_JUMP, LAST_APPROACH, TOUCH, C_COM, C_LINVEL, C_ANGMOM, C_HIP, C_KNEE, C_ANKLE,
 C_XMAT, C_TOE, C_QFOOT, C_FRC_KNEE, Q_THIGH, Q_SHIN, Q_FOOT, Q_TAIL, Q_HEAD, M_K_THIGH, M_K_SHIN, M_K_FOOT,
 M_K_HEAD, M_C_THIGH, M_C_SHIN, M_C_FOOT, M_C_HEAD, N_FOOT) = (
    IX_LAYOUT[n] for n in IX_LAYOUT.fields)
NI = IX_LAYOUT.size
#: Jump-stage codes (``kangaroo.state.STAGES`` names them).
ST_NONE, ST_APPROACH, ST_TAKEOFF, ST_FLIGHT, ST_LANDING, ST_DONE = range(6)
#: ``touch`` codes of ``tick`` besides 0 / 1: as the phase (stance phases touch); the foot let go
#: inside the debounce time (a liftoff only if the leg is back to ``liftoff_extension`` × its touchdown length).
HOLD, EARLY_OFF = -2, -3
#: Added to a touchdown's code when the jump must be planned before acting.
PLAN = 8


# ------------------------------------------------------------------- geometry
@kernel
def landing_pose_xz(px, pz, cx, cz, l1, l2, r_toe):
    """World pitches (thigh, shin, toe direction from the ankle) [rad] putting
    the toe at (px, pz) [m] from the hip with the knee on the line from the toe
    toward (cx, cz) (also from the hip); thigh ``l1``, shin ``l2``, toe
    ``r_toe`` from the ankle [m]; ankle behind the knee-toe line (heel up).
    Unreachable targets are clamped."""
    wx, wz = cx - px, cz - pz
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    pw = px * wx + pz * wz
    # Knee: the point of the toe-COM line at l1 from the hip, on the far side of the toe.
    s = -pw - math.sqrt(max(0.0, pw * pw - (px * px + pz * pz) + l1 * l1))
    kx, kz = px + s * wx, pz + s * wz
    ex, ez = px - kx, pz - kz
    e = math.hypot(ex, ez)
    ux, uz = ex / e, ez / e
    # Ankle: the two-link (shin, toe lever) solution over the knee-toe chord.
    d = max(abs(l2 - r_toe) + 1e-9, min(l2 + r_toe - 1e-9, e))
    along = (l2 * l2 - r_toe * r_toe + d * d) / (2.0 * d)
    h = math.sqrt(max(0.0, l2 * l2 - along * along))
    ax, az = kx + along * ux + h * uz, kz + along * uz - h * ux
    return math.atan2(-kz, kx), math.atan2(-(az - kz), ax - kx), math.atan2(-(pz - az), px - ax)


@kernel
def thrust_line_thigh_xz(hx, hz, tx, tz, cx, cz, l1):
    """World pitch [rad] of a thigh ``l1`` long from the hip (hx, hz) whose
    knee lies on the line from the toe (tx, tz) through the COM (cx, cz),
    on the toe side of the hip (points [m])."""
    wx, wz = cx - tx, cz - tz
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    hx, hz = hx - tx, hz - tz
    s = wx * hz - wz * hx  # distance of the hip from the line
    t = hx * wx + hz * wz - math.sqrt(max(0.0, l1 * l1 - s * s))
    return math.atan2(-(t * wz - hz), t * wx - hx)


# ------------------------------------------------------------------- control
@kernel
def foot_contact(pairs, ix):
    """1 if a contact (row of ``pairs`` = data.contact.geom, (ncon, 2) int32)
    involves one of the foot's geoms (ids in ``ix`` after NI), else 0."""
    for r in range(pairs.shape[0]):
        for c in range(2):
            for k in range(NI, NI + ix[N_FOOT]):
                if pairs[r, c] == ix[k]:
                    return 1
    return 0


@kernel
def stance_gains(s, ix, mw, stance):
    """Servo gains of hip, knee, head and ankle (stiffness and damping in
    the model window ``mw``) for stance (``stance`` true) or flight; the
    jump's take-off stiffens the ankle, its landing damps it more."""
    mw[ix[M_K_THIGH]] = s[HIP_KP_STANCE] if stance else s[HIP_KP]
    mw[ix[M_C_THIGH]] = s[HIP_KV_STANCE] if stance else s[HIP_KV]
    mw[ix[M_K_SHIN]] = 0.0 if stance else s[KNEE_KP]  # stance: the knee is torque-driven
    mw[ix[M_C_SHIN]] = 0.0 if stance else s[KNEE_KV]
    mw[ix[M_K_HEAD]], mw[ix[M_C_HEAD]] = s[HEAD_KP], s[HEAD_KV]
    jump = ix[HAS_JUMP] != 0 and stance
    mw[ix[M_K_FOOT]] = s[ANKLE_K0] * (s[STIFFNESS_FACTOR] if jump and ix[STAGE] == ST_TAKEOFF else 1.0)
    mw[ix[M_C_FOOT]] = s[ANKLE_B0] * (s[LANDING_DAMPING_FACTOR] if jump and ix[STAGE] == ST_LANDING else 1.0)


@kernel
def flight_targets(s, ix, mw, vx, vz, cx, cz, hx, hz, trunk):
    """Eq. 3 in flight: hip, knee and ankle rest angles [rad] putting the toe
    at x_fh,d ahead of the COM (cx, cz) [m] with the knee on the toe-COM line,
    the leg tucked while rising (vz [m/s] > 0) or over the box. Written to
    the set points in ``mw`` and ``s[ANKLE_REST]``, and returned.
    vx [m/s]: forward COM speed; (hx, hz): hip [m]; trunk: its pitch [rad]."""
    xf = foot_placement(vx, s[V_CMD], s[STANCE_AVG], s[K_X]) + s[X_OFFSET]  # Eq. 3 + its integral term
    stage = ix[STAGE]
    if stage == ST_APPROACH and ix[LAST_APPROACH] != 0:  # a take-off foot nearer the COM brakes less
        xf *= s[TAKEOFF_PLACEMENT]
    L = s[LEG_LENGTH_TD]
    floor = 0.0
    if stage == ST_FLIGHT and cx < s[NEAR_X] + s[DEPTH] + s[R_TOE]:
        floor = s[HEIGHT]
    if vz > 0.0 or floor > 0.0:
        L = max(0.6 * L, min(L, hz - floor - s[SWING_CLEARANCE]))
    px = max(-0.8 * L, min(0.8 * L, cx + xf - hx))
    th1, th2, th3 = landing_pose_xz(px, -math.sqrt(L * L - px * px), cx - hx, cz - hz, s[L1], s[L2], s[R_TOE])
    q0 = th1 - trunk - s[OFF_THIGH]
    q1 = th2 - th1 - s[OFF_SHIN]
    q2 = th3 - s[TOE_ANGLE] - th2 - s[OFF_FOOT]
    mw[ix[Q_THIGH]], mw[ix[Q_SHIN]], mw[ix[Q_FOOT]] = q0, q1, q2
    s[ANKLE_REST] = q2
    return q0, q1, q2


@kernel
def knee_line_torque(s, ix, d, mw, cx, cz, tx, tz):
    """Knee torque [N m] turning the ground force onto the toe-COM line:
    shin and foot massless, the force's size from the ankle spring torque
    over its lever about the ankle. COM (cx, cz), toe (tx, tz) [m]."""
    kn, an = ix[C_KNEE], ix[C_ANKLE]
    wx, wz = cx - tx, cz - tz
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    tau_a = mw[ix[M_K_FOOT]] * (mw[ix[Q_FOOT]] - d[ix[C_QFOOT]])
    lever = (tz - d[an + 2]) * wx - (tx - d[an]) * wz
    if abs(lever) < 0.01 * s[R_TOE]:  # the line passes (almost) through the ankle
        return 0.0
    f = min(max(-tau_a / lever, 0.0), 20.0 * s[MASS] * s[GRAVITY])
    return f * ((d[kn + 2] - tz) * wx - (d[kn] - tx) * wz)


@kernel
def apex_wanted(s, ix):
    """COM apex [m] wanted after this stance: the jump's take-off target, or
    touchdown height plus the rise of the wanted (or approach) flight plus
    the per-hop apex correction."""
    stage = ix[STAGE]
    if stage == ST_TAKEOFF:
        return s[APEX_TARGET]
    t_fly = s[T_APPROACH] if stage == ST_APPROACH else s[FLIGHT_TIME]
    return s[TD_COM_Z] + s[GRAVITY] * t_fly ** 2 / 8.0 + s[APEX_BIAS]


@kernel
def touchdown_liftoff(s, ix, mw, cz, vx, t):
    """Bookkeeping of a touchdown (``ix[PHASE]`` LOADING) or a liftoff
    (FLIGHT) at time t [s]; ``ix[PREV_STAGE]`` is the stage before any jump
    planning of this tick. COM height cz [m], forward speed vx [m/s]. The
    stance durations are timed as ``fsm.StanceTimer`` does (the controller
    checks that both agree)."""
    before = ix[PREV_STAGE]
    hopping = before == ST_NONE or before == ST_DONE
    if ix[PHASE] == LOADING:
        s[TD_TIME] = t
        s[REST_LEN], s[TD_REST] = s[LEG], s[ANKLE_REST]
        if math.isfinite(s[APEX]) and not math.isnan(s[TD_COM_Z]) and hopping:  # per-hop apex integral
            s[APEX_BIAS] += s[APEX_GAIN] * (s[TD_COM_Z] + s[GRAVITY] * s[FLIGHT_TIME] ** 2 / 8.0 - s[APEX])
        s[TD_COM_Z] = cz
        if before == ST_FLIGHT:
            ix[STAGE] = ST_LANDING
        stance_gains(s, ix, mw, True)
        return
    if not math.isnan(s[TD_TIME]):
        s[LAST_STANCE] = t - s[TD_TIME]
    s[TD_TIME] = math.nan
    stance = s[STANCE_GUESS] if math.isnan(s[LAST_STANCE]) else s[LAST_STANCE]
    s[STANCE_PRED] = stance
    s[STANCE_AVG] += s[STANCE_SMOOTHING] * (stance - s[STANCE_AVG])
    if hopping:  # per-hop integral of the speed error
        s[X_OFFSET] += s[K_XI] * (vx - s[V_CMD])
    if before == ST_TAKEOFF:
        ix[STAGE] = ST_FLIGHT
    elif before == ST_LANDING:
        ix[STAGE] = ST_DONE
    s[APEX] = -math.inf
    stance_gains(s, ix, mw, False)


@kernel
def act(s, ix, d, mw):
    """The actions of phase ``ix[PHASE]``: tail and head set points, then
    the flight leg targets (Eq. 3), or the stance thigh, knee torque (Eq. 4
    plus the thrust line) and ankle rest (Eq. 2)."""
    com, vel, hip, toe, xm = ix[C_COM], ix[C_LINVEL], ix[C_HIP], ix[C_TOE], ix[C_XMAT]
    cx, cz, vx, vz = d[com], d[com + 2], d[vel], d[vel + 2]
    hx, hz, tx, tz = d[hip], d[hip + 2], d[toe], d[toe + 2]
    phase = ix[PHASE]
    trunk = math.atan2(-d[xm + 6], d[xm])
    mw[ix[Q_TAIL]] = s[TAIL_FLIGHT] if phase == FLIGHT else s[TAIL_STANCE]
    mw[ix[Q_HEAD]] = s[HEAD_REST] - (trunk - s[PITCH_DESIRED])
    if phase == FLIGHT:
        s[APEX] = max(s[APEX], cz)
        flight_targets(s, ix, mw, vx, vz, cx, cz, hx, hz, trunk)
        d[ix[C_FRC_KNEE]] = 0.0
        return
    mw[ix[Q_THIGH]] = thrust_line_thigh_xz(hx, hz, tx, tz, cx, cz, s[L1]) - trunk - s[OFF_THIGH]
    # Eq. 4 with the whole-body pitch rate L / I, so leg and tail swings do not read as trunk rotation.
    rate_body = d[ix[C_ANGMOM] + 1] / s[I_PITCH]
    tau = posture_torque(trunk, rate_body, s[PITCH_DESIRED], s[POSTURE_KP], s[POSTURE_KV])  # Eq. 4
    d[ix[C_FRC_KNEE]] = -tau + knee_line_torque(s, ix, d, mw, cx, cz, tx, tz)
    if phase == UNLOADING:  # no more thrust: a foot that kept extending would never leave the ground
        return
    # Eq. 2 as a feedback law: the ankle rest angle whose strain energy gives the wanted apex.
    m = s[MASS]
    need = max(0.0, m * s[GRAVITY] * (apex_wanted(s, ix) - cz) - 0.5 * m * vz * vz)
    if ix[STAGE] == ST_TAKEOFF:
        need *= s[ENERGY_FACTOR]  # losses grow with the thrust
    rest = d[ix[C_QFOOT]] + math.sqrt(2.0 * need / mw[ix[M_K_FOOT]])
    # Energy is only added: lowering the rest early would unload the leg and cut the stance short.
    td = s[TD_REST]
    s[ANKLE_REST] = min(max(rest, td), td + s[ANKLE_THRUST_MAX])
    mw[ix[Q_FOOT]] = s[ANKLE_REST]


@kernel
def tick(st, d, mw, touch, t):
    """One control tick at time t [s] on the state ``st`` and the MjData
    and MjModel windows ``d``, ``mw``: ramp the commanded speed, measure the
    leg (hip to toe) and its rate, run the phase rule with ``touch`` (0 / 1,
    or HOLD), do a touchdown's or liftoff's bookkeeping, and act. Returns -1,
    or the new phase's code (the caller records it in the PhaseMachine), or
    LOADING + PLAN: a touchdown that must plan the jump, not acted on yet
    (the caller plans, then calls ``resume``)."""
    s, ix = st[:NF], st[NF:].view(np.int64)
    hip, toe, phase = ix[C_HIP], ix[C_TOE], ix[PHASE]
    s[V_CMD] = min(s[SPEED], s[V_CMD] + s[DV])
    leg = math.hypot(d[hip] - d[toe], d[hip + 2] - d[toe + 2])
    if touch == HOLD:
        touch = 0 if phase == FLIGHT else 1
    elif touch == EARLY_OFF:  # the foot let go inside the debounce time: a liftoff once the leg has extended
        touch = 0 if leg >= s[LIFTOFF_EXTENSION] * s[REST_LEN] else 1
    ix[TOUCH] = touch
    rate = 0.0 if math.isnan(s[PREV_LEN]) else (leg - s[PREV_LEN]) / s[CONTROL_DT]
    s[PREV_LEN], s[LEG], s[RATE] = leg, leg, rate
    new = next_phase(phase, touch, leg, rate, s[REST_LEN], s[COMPRESS_EPS], s[FULL_FRACTION])
    if new == phase:
        act(s, ix, d, mw)
        return -1
    stage = ix[STAGE]
    ix[PHASE], ix[PREV_STAGE] = new, stage
    if new == LOADING and ix[HAS_JUMP] != 0 and (stage == ST_NONE or stage == ST_APPROACH):
        return new + PLAN
    if new == LOADING or new == FLIGHT:
        touchdown_liftoff(s, ix, mw, d[ix[C_COM] + 2], d[ix[C_LINVEL]], t)
    act(s, ix, d, mw)
    return new


@kernel
def tick_contacts(st, d, mw, pairs, t):
    """``tick`` with the touch read from ``pairs`` = data.contact.geom
    (ncon, 2) int32: touching if a contact involves a foot geom."""
    return tick(st, d, mw, foot_contact(pairs, st[NF:].view(np.int64)), t)


@kernel
def tick_early(st, d, mw, pairs, t):
    """``tick_contacts`` inside the debounce time of a thrusting or unloading stance: a lost
    contact ends it only once the leg has extended (while still compressed, the gap is a whipping foot)."""
    touching = foot_contact(pairs, st[NF:].view(np.int64))
    return tick(st, d, mw, HOLD if touching else EARLY_OFF, t)


@kernel
def resume(st, d, mw, t):
    """The rest of a touchdown's tick after the jump planning: bookkeeping
    and acting at time t [s]."""
    s, ix = st[:NF], st[NF:].view(np.int64)
    touchdown_liftoff(s, ix, mw, d[ix[C_COM] + 2], d[ix[C_LINVEL]], t)
    act(s, ix, d, mw)

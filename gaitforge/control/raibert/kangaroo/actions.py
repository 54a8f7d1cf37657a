"""Compiled actions of the RH91 kangaroo's control tick (:mod:`kangaroo.kernel`):
the foot's contact, the servo gains of stance and flight, the flight leg
targets (Eq. 3), the stance knee torque (Eq. 4 plus the thrust line), the
ankle rest for the wanted apex (Eq. 2), and the touchdown / liftoff
bookkeeping. State slots are :mod:`kangaroo.slots`'s.

Angles are world pitches about +y [rad] (positive turns a link's +x axis
down); points are (x, z) [m].
"""
from __future__ import annotations

import math

from gaitforge.control.core.laws import foot_placement, posture_torque
from gaitforge.control.core.phase import FLIGHT, LOADING, UNLOADING
from gaitforge.jit import kernel
from gaitforge.control.raibert.kangaroo.pose_kernels import landing_pose_xz, thrust_line_thigh_xz
from gaitforge.control.raibert.kangaroo.slots import (
    ANKLE_B0, ANKLE_K0, ANKLE_REST, ANKLE_STEP, ANKLE_THRUST_MAX, ANKLE_THRUST_STEP, APEX, APEX_BIAS, APEX_GAIN,
    APEX_TARGET, C_ANGMOM, C_ANKLE, C_COM, C_FRC_KNEE, C_HIP, C_KNEE, C_LINVEL, C_QFOOT, C_TOE, C_XMAT, DEPTH,
    ENERGY_FACTOR, FLIGHT_TIME, GRAVITY, HAS_JUMP, HEAD_KP, HEAD_KV, HEAD_REST, HEIGHT, HIP_KP, HIP_KP_STANCE,
    HIP_KV, HIP_KV_STANCE, I_PITCH, KNEE_KP, KNEE_KV, K_X, K_XI, L1, L2, LANDING_DAMPING_FACTOR, LAST_APPROACH,
    LAST_STANCE, LEG, LEG_LENGTH_TD, MASS, M_C_FOOT, M_C_HEAD, M_C_SHIN, M_C_THIGH, M_K_FOOT, M_K_HEAD, M_K_SHIN,
    M_K_THIGH, NEAR_X, NI, N_FOOT, OFF_FOOT, OFF_SHIN, OFF_THIGH, PHASE, PITCH_DESIRED, POSTURE_KP, POSTURE_KV,
    PREV_STAGE, Q_FOOT, Q_HEAD, Q_SHIN, Q_TAIL, Q_THIGH, REST_LEN, R_TOE, STAGE, STANCE_AVG, STANCE_GUESS,
    STANCE_PRED, STANCE_SMOOTHING, STIFFNESS_FACTOR, ST_APPROACH, ST_DONE, ST_FLIGHT, ST_LANDING, ST_NONE,
    ST_TAKEOFF, SWING_CLEARANCE, TAIL_FLIGHT, TAIL_STANCE, TAKEOFF_PLACEMENT, TD_COM_Z, TD_REST, TD_TIME, TOE_ANGLE,
    T_APPROACH, V_CMD, X_OFFSET,
)


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
def ankle_toward(now, target, step):
    """The ankle rest angle [rad] one tick from ``now`` toward ``target``,
    moved at most ``step`` [rad] (the gains' ankle_rate or
    ankle_thrust_rate × control_dt), so the ankle spring is never yanked
    (a step of the rest is a step of its torque)."""
    return min(max(target, now - step), now + step)

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
    q2 = ankle_toward(mw[ix[Q_FOOT]], q2, s[ANKLE_STEP])
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
    s[ANKLE_REST] = ankle_toward(mw[ix[Q_FOOT]], min(max(rest, td), td + s[ANKLE_THRUST_MAX]), s[ANKLE_THRUST_STEP])
    mw[ix[Q_FOOT]] = s[ANKLE_REST]


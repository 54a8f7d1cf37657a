"""Layout of the kangaroo's compiled tick state (:mod:`kangaroo.kernel`):
the slot names of its one float64 state array and the codes the kernels use.

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
"""
from __future__ import annotations

import numpy as np

from gaitforge.control.core.layout import Layout

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
    "stance_pred", "liftoff_extension", "ankle_step", "ankle_thrust_step"
])
(SPEED, V_CMD, DV, CONTROL_DT, COMPRESS_EPS, FULL_FRACTION, PREV_LEN, LEG, RATE, REST_LEN, TAIL_STANCE,
 TAIL_FLIGHT, HEAD_REST, PITCH_DESIRED, K_X, K_XI, X_OFFSET, STANCE_AVG, STANCE_SMOOTHING, LEG_LENGTH_TD,
 SWING_CLEARANCE, L1, L2, R_TOE, TOE_ANGLE, OFF_THIGH, OFF_SHIN, OFF_FOOT, APEX, ANKLE_REST, TD_REST,
 ANKLE_THRUST_MAX, I_PITCH, POSTURE_KP, POSTURE_KV, MASS, GRAVITY, FLIGHT_TIME, APEX_GAIN, TD_COM_Z, APEX_BIAS,
 APEX_TARGET, T_APPROACH, TAKEOFF_PLACEMENT, NEAR_X, DEPTH, HEIGHT, ENERGY_FACTOR, HIP_KP, HIP_KV,
 HIP_KP_STANCE, HIP_KV_STANCE, KNEE_KP, KNEE_KV, HEAD_KP, HEAD_KV, ANKLE_K0, ANKLE_B0, STIFFNESS_FACTOR,
 LANDING_DAMPING_FACTOR, TD_TIME, LAST_STANCE, STANCE_GUESS, STANCE_PRED, LIFTOFF_EXTENSION, ANKLE_STEP,
 ANKLE_THRUST_STEP) = (
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

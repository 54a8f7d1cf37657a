"""Compiled control tick of the RH91 kangaroo (:mod:`kangaroo`): the entry
points the controller calls each tick (:func:`tick`, :func:`tick_contacts`,
:func:`tick_early`, :func:`resume`): ramp the speed, measure the leg, run the
Fig. 4 phase rule, then the bookkeeping and actions.

The compiled code is in four modules: the state layout (slot names and
codes) in :mod:`kangaroo.slots`, the leg geometry in
:mod:`kangaroo.pose_kernels`, the actions and touchdown / liftoff
bookkeeping in :mod:`kangaroo.actions`, and the tick here. Every kernel and
slot name is re-exported here (``kernel.tick``, ``kernel.NF``, ...). A
kernel calls the others through its own module's names, so a test that
swaps the kernels for their interpreted originals swaps them in each of
these modules. (The disk cache is safe across files: ``jit.cache_dir``.)
"""
from __future__ import annotations

import math

import numpy as np

# Laws and phase codes (and the Fig. 4 rule) are the core's; re-exported for the kernels' callers.
from gaitforge.control.core.laws import foot_placement, posture_torque  # noqa: F401
from gaitforge.control.core.phase import COMPRESSION, FLIGHT, LOADING, THRUST, UNLOADING, next_phase  # noqa: F401
from gaitforge.jit import kernel
from gaitforge.control.raibert.kangaroo.actions import (  # noqa: F401  (the actions, re-exported)
    act,
    apex_wanted,
    flight_targets,
    foot_contact,
    knee_line_torque,
    stance_gains,
    touchdown_liftoff,
)
from gaitforge.control.raibert.kangaroo.pose_kernels import landing_pose_xz, thrust_line_thigh_xz  # noqa: F401
from gaitforge.control.raibert.kangaroo.slots import (  # noqa: F401  (every slot name, re-exported)
    ANKLE_B0, ANKLE_K0, ANKLE_REST, ANKLE_STEP, ANKLE_THRUST_MAX, ANKLE_THRUST_STEP, APEX, APEX_BIAS, APEX_GAIN,
    APEX_TARGET,
    COMPRESS_EPS,
    CONTROL_DT, C_ANGMOM, C_ANKLE, C_COM, C_FRC_KNEE, C_HIP, C_KNEE, C_LINVEL, C_QFOOT, C_TOE, C_XMAT, DEPTH, DV,
    EARLY_OFF, ENERGY_FACTOR, FLIGHT_TIME, FULL_FRACTION, GRAVITY, HAS_JUMP, HEAD_KP, HEAD_KV, HEAD_REST, HEIGHT,
    HIP_KP, HIP_KP_STANCE, HIP_KV, HIP_KV_STANCE, HOLD, IX_LAYOUT, I_PITCH, KNEE_KP, KNEE_KV, K_X, K_XI, L1, L2,
    LANDING_DAMPING_FACTOR, LAST_APPROACH, LAST_STANCE, LEG, LEG_LENGTH_TD, LIFTOFF_EXTENSION, MASS, M_C_FOOT,
    M_C_HEAD, M_C_SHIN, M_C_THIGH, M_K_FOOT, M_K_HEAD, M_K_SHIN, M_K_THIGH, NEAR_X, NF, NI, N_FOOT, OFF_FOOT,
    OFF_SHIN, OFF_THIGH, PHASE, PITCH_DESIRED, PLAN, POSTURE_KP, POSTURE_KV, PREV_LEN, PREV_STAGE, Q_FOOT, Q_HEAD,
    Q_SHIN, Q_TAIL, Q_THIGH, RATE, REST_LEN, R_TOE, SPEED, STAGE, STANCE_AVG, STANCE_GUESS, STANCE_PRED,
    STANCE_SMOOTHING, STIFFNESS_FACTOR, ST_APPROACH, ST_DONE, ST_FLIGHT, ST_LANDING, ST_NONE, ST_TAKEOFF,
    SWING_CLEARANCE, S_LAYOUT, TAIL_FLIGHT, TAIL_STANCE, TAKEOFF_PLACEMENT, TD_COM_Z, TD_REST, TD_TIME, TOE_ANGLE,
    TOUCH, T_APPROACH, V_CMD, X_OFFSET,
)


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

"""The compiled control tick of the RH91 quadruped (see
:mod:`gaitforge.control.raibert.quadruped`; state layout and leg actions in
:mod:`gaitforge.control.raibert.quadruped.kernel`).

:func:`tick` reads the trunk attitude and the feet, tracks each pair's top
hip height, runs the active pair's Fig. 4 state machine (logging each phase
change for the Python ``PhaseMachine``), handles touchdown (thrust and speed
trims) and liftoff (the virtual legs swap) and acts. It goes back to Python
only at a liftoff that needs a new command (a schedule entry is due, or a
path is followed) or when the phase log must be copied out: Python then
refreshes the commands and calls it again to finish that tick. Either way a
tick ends with the spring set points and stance torques written into the
model and data arrays. (One entry point: each kernel another calls is
compiled into the caller again, so fewer layers compile faster.)
"""
from __future__ import annotations

import math

from gaitforge.control.core.rotations import trunk_matrix
from gaitforge.jit import kernel
from gaitforge.control.raibert.quadruped.kernel import (
    COMPRESSION,
    F_APEX,
    F_APEX_GAIN,
    F_EPS,
    F_FULL,
    F_GAIT_START,
    F_HC,
    F_HIP_TOP,
    F_HS,
    F_LEG,
    F_LEG_STEP,
    F_LOG_N,
    F_MIN_STANCE,
    F_NEXT_CMD,
    F_PAIR_HIP,
    F_PITCH,
    F_R6,
    F_R7,
    F_REST,
    F_REST_OUT,
    F_RETRACT,
    F_ROLL,
    F_SPEED_TRIM_GAIN,
    F_STANCE_GUESS,
    F_TD_T,
    F_TD_TIME,
    F_TD_X,
    F_SETTLE,
    F_TD_Y,
    F_THRUST,
    F_THRUST_MAX,
    F_THRUST_MIN,
    F_TIMER,
    F_TOUCH,
    F_TOUCH_SLACK,
    F_TRIM,
    F_TRIM_FLOOR,
    F_TRIM_LIMIT,
    F_TS,
    F_UNISON,
    F_WANT,
    FLIGHT,
    I_ACTIVE,
    I_ALLOC_N,
    I_ALLOC_ON,
    I_FOLLOW,
    I_HIP_D,
    I_LEG_PHASE,
    I_PAIRS,
    I_PATTERN_STAGGERED,
    I_PHASE,
    I_SERVO_N,
    I_SITE,
    I_SLIDE_D,
    I_SLIDE_Q,
    I_STAGGERED,
    I_STANCE,
    I_TD_VALID,
    LOADING,
    LOG_SIZE,
    THRUST,
    UNLOADING,
    idle_legs,
    leg_cycle,
    log_phase,
    next_phase,
    place,
    posture,
    set_mode,
)


@kernel
def touchdown(F, ints, q, t):
    """The active pair lands at t [s]: trim its thrust by the error of the
    top hip height since its liftoff (hopping height, Eqs. 1-2 closed by
    feedback), trim the speed command by the error of the step just ended,
    and note the trunk's time and place."""
    k = ints[I_ACTIVE]
    top = F[F_HIP_TOP + k]
    if top > 0.0:
        F[F_THRUST + k] = min(max(F[F_THRUST + k] + F[F_APEX_GAIN] * (F[F_APEX] - top), F[F_THRUST_MIN]),
                                F[F_THRUST_MAX])
    if ints[I_TD_VALID] != 0 and t - F[F_TD_T] > F[F_SETTLE]:
        t0, x0, y0 = F[F_TD_T], F[F_TD_X], F[F_TD_Y]
        c, s = F[F_HC], F[F_HS]
        got = (c * (q[0] - x0) + s * (q[1] - y0)) / (t - t0)
        want = F[F_WANT]
        bound = F[F_TRIM_LIMIT] * want + F[F_TRIM_FLOOR]
        F[F_TRIM] = min(max(F[F_TRIM] + F[F_SPEED_TRIM_GAIN] * (want - got), -bound), bound)
    F[F_TD_TIME] = F[F_TD_T] = t
    F[F_TD_X], F[F_TD_Y] = q[0], q[1]
    ints[I_TD_VALID] = 1
    timer = F_TIMER + 4 * k  # StanceTimer.touchdown
    if not math.isnan(F[timer + 1]):
        F[timer + 3] = t - F[timer + 1]
    F[timer] = t


@kernel
def liftoff(F, ints, t):
    """The active pair lifts off at t [s]: its stance ends (StanceTimer.liftoff)
    and the other virtual leg becomes the active one."""
    k = ints[I_ACTIVE]
    timer = F_TIMER + 4 * k
    if not math.isnan(F[timer]):
        F[timer + 2] = t - F[timer]
    F[timer + 1] = t
    F[timer] = math.nan
    F[F_HIP_TOP + k] = -math.inf
    ints[I_ACTIVE] = 1 - k


@kernel
def start_flight(F, ints, stiff, damp, frc, t):
    """After a liftoff (and any new commands): the gait's pairs stagger once
    its unison time is over, every leg's hip goes back to the position servo,
    the idle pair shortens, and T_s of Eq. 3 is the new active pair's last
    stance (RH91 §4)."""
    ints[I_STAGGERED] = 1 if ints[I_PATTERN_STAGGERED] != 0 and t - F[F_GAIT_START] >= F[F_UNISON] else 0
    for i in range(4):
        ints[I_LEG_PHASE + i] = FLIGHT
        if ints[I_STANCE + i] != 0:
            set_mode(F, ints, stiff, damp, frc, i, 0)
    active = ints[I_ACTIVE]
    for k in range(2):
        F[F_REST + ints[I_PAIRS + 2 * (1 - active) + k]] = -F[F_RETRACT]
    ints[I_ALLOC_ON] = ints[I_ALLOC_N] = 0  # no allocation, none to redo
    ints[I_SERVO_N] = -1
    last = F[F_TIMER + 4 * active + 2]
    F[F_TS] = F[F_STANCE_GUESS] if math.isnan(last) else last


@kernel
def tick(F, ints, q, v, sites, spring, frc, stiff, damp, t, after_liftoff):
    """A control tick at time t [s]; sites: data.site_xpos (nsite, 3), other
    arrays as in ``quadruped.kernel``. Returns 0 when the tick is done, 1 at a
    liftoff that needs Python (new commands, or the phase log copied out);
    Python then calls it again with ``after_liftoff`` True to finish the tick
    (the attitude sensed is kept in F for that)."""
    if after_liftoff:  # the pair now active is in flight; its feet count as not touching
        roll, pitch, r6, r7 = F[F_ROLL], F[F_PITCH], F[F_R6], F[F_R7]
        start_flight(F, ints, stiff, damp, frc, t)
        phase = FLIGHT
        active = ints[I_ACTIVE]
        a0, a1 = ints[I_PAIRS + 2 * active], ints[I_PAIRS + 2 * active + 1]
        t0 = t1 = False
    else:
        _, _, _, _, _, _, r6, r7, r8 = trunk_matrix(q)
        roll = math.atan2(r7, r8)
        pitch = -math.asin(r6) if -1.0 < r6 < 1.0 else -math.copysign(0.5 * math.pi, r6)

        # Highest mean hip height of each pair since it lifted off.
        for k in range(2):
            h = q[2] + r6 * F[F_PAIR_HIP + 2 * k] + r7 * F[F_PAIR_HIP + 2 * k + 1]
            if h > F[F_HIP_TOP + k]:
                F[F_HIP_TOP + k] = h

        # State machine of the active virtual leg (fsm.PhaseMachine.update). A
        # foot touches when it is at the ground and its spring is loaded (a leg
        # overshooting as it lengthens can graze the ground unloaded).
        active = ints[I_ACTIVE]
        a0, a1 = ints[I_PAIRS + 2 * active], ints[I_PAIRS + 2 * active + 1]
        th = F[F_TOUCH]
        x0, x1 = q[ints[I_SLIDE_Q + a0]], q[ints[I_SLIDE_Q + a1]]
        t0 = sites[ints[I_SITE + a0], 2] < th and x0 < F[F_REST_OUT + a0] - F[F_TOUCH_SLACK]
        t1 = sites[ints[I_SITE + a1], 2] < th and x1 < F[F_REST_OUT + a1] - F[F_TOUCH_SLACK]
        before = ints[I_PHASE]
        touch = t0 or t1 or (before != FLIGHT and t - F[F_TD_TIME] < F[F_MIN_STANCE])
        if before == FLIGHT:
            phase = next_phase(before, touch, 0.0, 0.0, 0.0, F[F_EPS], F[F_FULL])
        else:  # the pair's mean leg length, its rate and rest length
            length = F[F_LEG] + 0.5 * (x0 + x1)
            rest_length = F[F_LEG] + 0.5 * (F[F_REST_OUT + a0] + F[F_REST_OUT + a1])
            rate = 0.5 * (v[ints[I_SLIDE_D + a0]] + v[ints[I_SLIDE_D + a1]])
            phase = next_phase(before, touch, length, rate, rest_length, F[F_EPS], F[F_FULL])
        if phase != before:
            room = log_phase(F, F_LOG_N, LOG_SIZE, t, 0, phase)
            ints[I_PHASE] = phase
            if phase == FLIGHT:
                liftoff(F, ints, t)
                if t >= F[F_NEXT_CMD] or ints[I_FOLLOW] != 0 or room < 5:
                    F[F_ROLL], F[F_PITCH], F[F_R6], F[F_R7] = roll, pitch, r6, r7
                    return 1
                start_flight(F, ints, stiff, damp, frc, t)
                active = ints[I_ACTIVE]
                a0, a1 = ints[I_PAIRS + 2 * active], ints[I_PAIRS + 2 * active + 1]
                t0 = t1 = False
            elif phase == LOADING:
                touchdown(F, ints, q, t)
            elif ints[I_STAGGERED] == 0:
                if phase == THRUST:  # each leg keeps its touchdown offset
                    F[F_REST + a0] += F[F_THRUST + active]
                    F[F_REST + a1] += F[F_THRUST + active]
                elif phase == UNLOADING:
                    F[F_REST + a0] = F[F_REST + a1] = -F[F_RETRACT]
            if phase == COMPRESSION or phase == THRUST:
                ints[I_ALLOC_N] = ints[I_SERVO_N] = -1  # fresh allocation below

    # The actions of the phase for the active pair a0, a1 (t0, t1: whether they touch).
    staggered = ints[I_STAGGERED] != 0
    if phase != FLIGHT:
        if t0 and ints[I_STANCE + a0] == 0:
            set_mode(F, ints, stiff, damp, frc, a0, 1)
        if t1 and ints[I_STANCE + a1] == 0:
            set_mode(F, ints, stiff, damp, frc, a1, 1)
        if staggered:
            if ints[I_STANCE + a0] != 0:
                leg_cycle(F, ints, q, spring, frc, stiff, damp, a0, v[ints[I_SLIDE_D + a0]], t0)
            if ints[I_STANCE + a1] != 0:
                leg_cycle(F, ints, q, spring, frc, stiff, damp, a1, v[ints[I_SLIDE_D + a1]], t1)

    if phase == COMPRESSION or phase == THRUST or (staggered and phase != FLIGHT):
        if staggered:
            t0 = t0 and ints[I_LEG_PHASE + a0] != UNLOADING
            t1 = t1 and ints[I_LEG_PHASE + a1] != UNLOADING
        posture(F, ints, q, v, frc, roll, pitch, a0, a1, t0, t1)
    elif ints[I_ALLOC_N] != 0:
        ints[I_ALLOC_ON] = ints[I_ALLOC_N] = 0
        ints[I_SERVO_N] = -1
        for i in (a0, a1):
            d = ints[I_HIP_D + i]
            frc[d] = frc[d + 1] = 0.0

    if phase == FLIGHT or (staggered and ints[I_STANCE + a1] == 0):
        # A staggered pair's trailing leg is held short until the leader lands.
        place(F, ints, q, v, spring, t, r6, r7, a0, a1, staggered and phase == FLIGHT)
    idle_legs(F, ints, q, spring, roll, pitch, r6, r7, a0, a1, phase != UNLOADING)

    # Leg rest lengths move toward their targets at a limited rate.
    step = F[F_LEG_STEP]
    for i in range(4):
        ro = F[F_REST_OUT + i]
        e = F[F_REST + i] - ro
        r = ro + (step if e > step else (-step if e < -step else e))
        F[F_REST_OUT + i] = r
        spring[ints[I_SLIDE_Q + i]] = r
    return 0

"""Compiled control of the RH91 biped (run and gallops): the kernel state's
layout, the return codes, and the phase and leg-event kernels. The servo
kernels are in :mod:`biped.servo`, the gaits' ticks in :mod:`biped.tick`.

Every control tick the biped controllers sense the feet, step each leg's
phase machine and act on its phase changes (touchdown, thrust, unloading,
liftoff, with what is learned at each), servo posture (Eq. 4), aim the swing
legs (Eq. 3 and the kinematic transformation) and slew the legs' rest
lengths. All of it runs as numba kernels (``gaitforge.jit``)
over MuJoCo's own arrays and one float64 array, the *kernel state* ``s``
(``SIZE``,), whose slots are named below. (Kernels call each other across
these modules; ``jit.cache_dir`` keeps the disk cache consistent.)

The gait's Python objects follow: each phase change is logged
(``core.phase.log_phase``), and Python feeds the log to the gait's
``fsm.PhaseMachine`` and ``StanceTimer`` objects before anyone looks at
them, or when it is full (the tick returns ``FLUSH`` first). When a path
follower must steer (after a touchdown that learns, or a liftoff into
flight) the tick stops and returns ``EVENT + leg``; MuJoCo cannot be called
from here, so when the tick needs the mass-centre velocity
(``mj_subtreeVel``) and Python has not measured it this tick, it returns
``NEED_VEL + stage`` before writing anything of that stage. Python then
resumes the tick at ``stage``.

Arguments (shapes: nq, nv, ngeom, nbody, njnt of the model): t [s] the
simulation time; fresh: 1 when ``data.subtree_linvel`` was updated this
tick; stage: ``SENSE``, ``LEG1`` (gallop: after leg 0) or ``ACT``; reset: 1
for the call from ``reset`` (no slew; the run only aims its flight leg);
qpos (nq,), qvel (nv,), gxpos = ``data.geom_xpos`` (ngeom, 3), com =
``data.subtree_com`` (nbody, 3), comvel = ``data.subtree_linvel`` (nbody,
3), spring = ``model.qpos_spring`` (nq,), stiff = ``model.jnt_stiffness``
(njnt,), damp = ``model.dof_damping`` (nv,), qfrc = ``data.qfrc_applied``
(nv,); s the kernel state. The expressions keep the evaluation order of the
interpreted controller they replaced, so the compiled tick reproduces it to
rounding (``hypot`` may differ from Python's in the last bit).
"""
from __future__ import annotations

import math

from gaitforge.control.core.layout import Field, Layout
from gaitforge.control.core.laws import hop_height
# (phase codes, the phase rule and trunk_matrix are the core's; the biped modules take them from here)
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
from gaitforge.control.raibert.biped.gains import CONTROL_DT, LEG_LENGTH  # noqa: F401 (the kernels' constants)

# A tick returns DONE, DONE_PRE (done; measure the velocity before the next
# tick, which needs it), NEED_VEL + stage, EVENT + leg or FLUSH.
DONE, DONE_PRE, NEED_VEL, EVENT, FLUSH = 0, 1, 2, 5, 7
SENSE, LEG1, ACT = 0, 1, 2  # stages
FRESH, RESET = 4, 8  # flags added to the stage in the ticks' flags argument

# The kernel state: one float64 array laid out by LAYOUT (core.layout: named
# fields, offsets in order, no overlaps); the slot names below are its offsets
# (literals to the compiled code). Integers and flags are stored as floats.
LEG_LAYOUT = Layout("biped leg", [  # one leg's block (model indices as floats)
    Field("hip_y", unit="m"), Field("hip_q", kind=int), Field("hip_d", kind=int), Field("hip_jnt", kind=int),
    Field("slide_q", kind=int), Field("slide_d", kind=int), Field("foot", kind=int), Field("spare")])
LEG_STRIDE = LEG_LAYOUT.size  # floats per leg block
HIP_Y, HIP_Q, HIP_D, HIP_JNT, SLIDE_Q, SLIDE_D, FOOT = (LEG_LAYOUT[n] for n in (
    "hip_y", "hip_q", "hip_d", "hip_jnt", "slide_q", "slide_d", "foot"))
QCAP = 16  # room in the phase log (a tick flushes it to Python when it has less than 2)
LAYOUT = Layout("biped", [
    # constants, set once: BipedGains fields (kp/kv: posture, hip_kp/kv: swing)
    Field("slew", unit="m per tick"), Field("k_x", unit="s"), Field("landing", unit="m"), Field("short", unit="m"),
    Field("kp", unit="N m/rad"), Field("kv", unit="N m s/rad"), Field("kp_yaw", unit="N m/rad"),
    Field("kv_yaw", unit="N m s/rad"), Field("lag", unit="s"), Field("apex", unit="m"),
    Field("thrust_max", unit="m"), Field("share"), Field("hip_kp", unit="N m/rad"),
    Field("hip_kv", unit="N m s/rad"), Field("loss_gain"), Field("trim_gain"), Field("trim_max", unit="m/s"),
    Field("roll_lead"), Field("speed", unit="m/s"), Field("mass", unit="kg"), Field("k_leg", unit="N/m"),
    Field("b_leg", unit="N s/m"), Field("foot_r", unit="m"),
    # the phase machines' compress_eps [m] and full_fraction; the gait (1: a gallop; 1: the alternate
    # gallop); 1: a path follower steers
    Field("eps", unit="m"), Field("full"), Field("gallop", kind=bool), Field("alternate", kind=bool),
    Field("steer", kind=bool),
    # per leg (LEG + LEG_STRIDE * leg): LEG_LAYOUT
    Field("leg", 2 * LEG_STRIDE),
    # state: rest lengths and their goals (slide coordinates); desired heading, velocity (world),
    # speed trim (forward, lateral) and roll; the flight's highest mass centre; the flight velocity
    # measured (vel_ok) at vel_t; the hop loss
    Field("rest", 2, unit="m"), Field("goal", 2, unit="m"), Field("yaw_d", unit="rad"), Field("vd", 2, unit="m/s"),
    Field("trim", 2, unit="m/s"), Field("roll_d", unit="rad"), Field("apex_z", unit="m"),
    Field("vel_ok", kind=bool), Field("vel", 3, unit="m/s"), Field("vel_t", unit="s"), Field("loss", unit="J"),
    # the phase code of each phase machine (the run has one); per leg the predicted stance and
    # (gallop) "had its stance"; the trailing foot's touchdown time (NaN: not down); "in support"
    # (gallop); the run's active leg; per leg its touchdown time (NaN: in the air)
    Field("phase", 2, kind=int), Field("stance", 2, unit="s"), Field("done_leg", 2, kind=bool),
    Field("trail_down", unit="s"), Field("in_support", kind=bool), Field("active", kind=int),
    Field("td_t", 2, unit="s"),
    # the last learning touchdown (time, NaN: none; mass centre x, y; desired velocity); the last
    # liftoff's support (lo_kind: leg, -1: none) and roll; per support kind the roll drift and
    # whether it is known
    Field("last_t", unit="s"), Field("last_x", unit="m"), Field("last_y", unit="m"),
    Field("last_vd", 2, unit="m/s"), Field("lo_kind", kind=int), Field("lo_roll", unit="rad"),
    Field("drift", 2, unit="rad"), Field("has_drift", 2, kind=bool),
    # where MuJoCo's arrays start in the spans a tick takes (float64 elements; data arrays in D,
    # model arrays in M, see jit.buffer_window), and the model's sizes
    Field("qpos", kind=int), Field("qvel", kind=int), Field("gxpos", kind=int), Field("com", kind=int),
    Field("comvel", kind=int), Field("qfrc", kind=int), Field("spring", kind=int), Field("stiff", kind=int),
    Field("damp", kind=int), Field("nq", kind=int), Field("nv", kind=int), Field("ngeom", kind=int),
    Field("nbody", kind=int), Field("njnt", kind=int),
    # the phase log (core.phase: count, times, slot × SLOT + phase codes), room for QCAP
    *log_fields(QCAP),
    # the creature's leg length (hip to foot tip at slide 0) and the control period; BipedGains
    # touch_slack, speed_floor, late_fall_speed, late_time
    Field("leg_len", unit="m"), Field("dt", unit="s"), Field("touch_slack", unit="m"),
    Field("speed_floor", unit="m/s"), Field("late_vz", unit="m/s"), Field("late_t", unit="s"),
])
(SLEW, K_X, LANDING, SHORT, KP, KV, KP_YAW, KV_YAW, LAG, APEX, THRUST_MAX, SHARE, HIP_KP, HIP_KV, LOSS_GAIN,
 TRIM_GAIN, TRIM_MAX, ROLL_LEAD, SPEED, MASS, K_LEG, B_LEG, FOOT_R, EPS, FULL, GALLOP, ALTERNATE, STEER, LEG,
 REST, GOAL, YAW_D, VD, TRIM, ROLL_D, APEX_Z, VEL_OK, VEL, VEL_T, LOSS, PHASE, STANCE, DONE_LEG, TRAIL_DOWN,
 IN_SUPPORT, ACTIVE, TD_T, LAST_T, LAST_X, LAST_Y, LAST_VD, LO_KIND, LO_ROLL, DRIFT, HAS_DRIFT, QPOS, QVEL,
 GXPOS, COM, COMVEL, QFRC, SPRING, STIFF, DAMP, NQ, NV, NGEOM, NBODY, NJNT, LOG_N, LOG_T, LOG_CODE, LEG_LEN, DT,
 TOUCH_SLACK, SPEED_FLOOR, LATE_VZ, LATE_T) = (
    LAYOUT[n] for n in LAYOUT.fields)
SIZE = LAYOUT.size


@kernel
def zero_hip(i, stiff, damp, qfrc, s):
    """No torque at leg ``i``'s hip (LOADING, UNLOADING)."""
    b = LEG + LEG_STRIDE * i
    d = int(s[b + HIP_D])
    stiff[int(s[b + HIP_JNT])] = 0.0
    damp[d], damp[d + 1], damp[d + 2] = 0.0, 0.0, 0.0
    qfrc[d], qfrc[d + 1], qfrc[d + 2] = 0.0, 0.0, 0.0


@kernel
def thrust(i, share, qpos, gxpos, com, comvel, spring, s):
    """Raise leg ``i``'s rest length by what makes up ``share`` of the
    energy the hop still needs (Eqs. 1-2, see ``Support.thrust``; ``comvel``
    must be fresh); returns the extension [m]."""
    M, k = s[MASS], s[K_LEG]
    omega, strain, c = math.sqrt(k / M), 0.0, 0.0
    for j in range(2):
        b = LEG + LEG_STRIDE * j
        if j == i or gxpos[int(s[b + FOOT]), 2] <= s[FOOT_R]:  # this leg, or a loaded other one
            co = max(s[REST + j] - qpos[int(s[b + SLIDE_Q])], 0.0)
            strain += 0.5 * k * co * co - s[B_LEG] * co * co * omega * math.pi / 4
            if j == i:
                c = co
    apex = hop_height(strain, com[0, 2], 0.5 * M * comvel[0, 2] ** 2, M)  # Eq. 2
    need = share * (M * G * (s[APEX] - apex) + s[LOSS])
    delta = min(math.sqrt(c * c + 2.0 * max(need, 0.0) / k) - c, s[THRUST_MAX])
    rest = s[REST + i] + delta
    s[REST + i], s[GOAL + i] = rest, rest
    spring[int(s[LEG + LEG_STRIDE * i + SLIDE_Q])] = rest
    return delta


@kernel
def learn(kind, t, qpos, com, s):
    """At the start of a support: learn the hop loss from the last apex, the
    speed trim from the last step and (``kind`` >= 0: the support of leg
    ``kind``) the roll drift of the last flight (``Support`` explains)."""
    M, apex_z = s[MASS], s[APEX_Z]
    if math.isfinite(apex_z):
        s[LOSS] = max(0.0, s[LOSS] + s[LOSS_GAIN] * M * G * (s[APEX] - apex_z))
    s[APEX_Z] = -math.inf
    cx, cy, vd0, vd1, last = com[0, 0], com[0, 1], s[VD], s[VD + 1], s[LAST_T]
    if not math.isnan(last) and t > last and \
            abs(s[LAST_VD] - vd0) + abs(s[LAST_VD + 1] - vd1) < 0.15 * max(s[SPEED], s[SPEED_FLOOR]):
        ex = vd0 - (cx - s[LAST_X]) / (t - last)
        ey = vd1 - (cy - s[LAST_Y]) / (t - last)
        c, sn, k, lim = math.cos(s[YAW_D]), math.sin(s[YAW_D]), s[TRIM_GAIN], s[TRIM_MAX]
        tf, tl = s[TRIM], s[TRIM + 1]
        s[TRIM] = max(-lim, min(lim, tf + k * (c * ex + sn * ey)))
        s[TRIM + 1] = max(-lim, min(lim, tl + k * (c * ey - sn * ex)))
    s[LAST_T], s[LAST_X], s[LAST_Y], s[LAST_VD], s[LAST_VD + 1] = t, cx, cy, vd0, vd1
    if kind >= 0:
        R = trunk_matrix(qpos)
        roll, lo = math.atan2(R[7], R[8]), int(s[LO_KIND])
        if lo >= 0:
            r0 = s[LO_ROLL]
            prev = s[DRIFT + lo] if s[HAS_DRIFT + lo] != 0.0 else roll - r0
            s[DRIFT + lo], s[HAS_DRIFT + lo] = 0.5 * (prev + roll - r0), 1.0
        drift = s[DRIFT + kind] if s[HAS_DRIFT + kind] != 0.0 else 0.0
        s[ROLL_D] = max(-0.2, min(0.2, -s[ROLL_LEAD] * drift))


@kernel
def touchdown(i, t, qpos, com, stiff, damp, qfrc, s):
    """Leg ``i`` touched down: no hip torque, its stance timer starts; the
    run learns at every touchdown (roll lead for this leg's support), the
    gallop when the foot opens the shared support (no roll lead). Returns
    whether it learned (a path then steers)."""
    zero_hip(i, stiff, damp, qfrc, s)
    s[TD_T + i], kind = t, i
    if s[GALLOP] != 0.0:
        if i == 0:
            s[TRAIL_DOWN] = t
        if s[IN_SUPPORT] != 0.0:
            return False
        s[IN_SUPPORT], kind = 1.0, -1
    learn(kind, t, qpos, com, s)
    return True


@kernel
def liftoff(i, t, qpos, spring, stiff, damp, qfrc, s):
    """Leg ``i`` lifted off: its stance duration is measured, its hip gets
    the swing gains; the run notes the roll and exchanges legs; the gallop
    shortens the leg and holds it where it left the ground, and ends the
    shared support when neither foot is down. Returns whether a flight
    starts (its velocity is measured on its first tick; a path steers)."""
    b, gallop = LEG + LEG_STRIDE * i, s[GALLOP] != 0.0
    d, j, td = int(s[b + HIP_D]), int(s[b + HIP_Q]), s[TD_T + i]
    if not math.isnan(td):  # StanceTimer.liftoff
        s[STANCE + i] = t - td
        if not gallop:  # (one timer serves both legs)
            s[STANCE + 1 - i] = t - td
    s[TD_T + i] = math.nan
    stiff[int(s[b + HIP_JNT])] = s[HIP_KP]
    damp[d], damp[d + 1], damp[d + 2] = s[HIP_KV], s[HIP_KV], s[HIP_KV]
    qfrc[d], qfrc[d + 1], qfrc[d + 2] = 0.0, 0.0, 0.0
    if not gallop:
        R = trunk_matrix(qpos)
        s[LO_KIND], s[LO_ROLL], s[ACTIVE], s[VEL_OK] = i, math.atan2(R[7], R[8]), 1 - i, 0.0
        return True
    s[DONE_LEG + i], s[GOAL + i] = 1.0, s[SHORT]
    spring[j], spring[j + 1], spring[j + 2], spring[j + 3] = qpos[j], qpos[j + 1], qpos[j + 2], qpos[j + 3]
    if s[PHASE + 1 - i] != FLIGHT:
        return False
    if s[DONE_LEG + 1 - i] != 0.0:  # both legs had their stance: the shared support is over
        s[DONE_LEG], s[DONE_LEG + 1], s[TRAIL_DOWN] = 0.0, 0.0, math.nan
    s[IN_SUPPORT], s[LO_KIND], s[VEL_OK] = 0.0, -1.0, 0.0
    return True


@kernel
def leg_step(i, t, fresh, qpos, qvel, gxpos, com, comvel, spring, stiff, damp, qfrc, s):
    """Step the phase machine following leg ``i`` (the gallop's machine
    ``i``, the run's only one) by one tick, as the controllers feed it (a
    foot counts as loaded while it touches or its spring is compressed by
    over ``touch_slack``, 5 mm), and act on a phase change: touchdown, thrust (the gallop:
    unless the leg is already short; its leading leg's thrust makes a
    trailing leg in stance unload), unloading, liftoff. Queues the change for
    the Python phase machine. Returns -1 (no change), ``NEED_VEL`` (the
    thrust needs the velocity; nothing written), 0 (changed) or ``EVENT +
    i`` (changed; a path must steer now)."""
    gallop = s[GALLOP] != 0.0
    b, slot = LEG + LEG_STRIDE * i, i if gallop else 0
    touch = gxpos[int(s[b + FOOT]), 2] <= s[FOOT_R]  # the contact starts exactly there (zero margin)
    ph = int(s[PHASE + slot])
    if ph == FLIGHT:
        if not touch:
            return -1
        new = LOADING
    else:
        x, rest = qpos[int(s[b + SLIDE_Q])], s[REST + i]
        touching = touch or rest - x > s[TOUCH_SLACK]
        length, rate, rest_length = s[LEG_LEN] + x, qvel[int(s[b + SLIDE_D])], s[LEG_LEN] + rest
        new = next_phase(ph, touching, length, rate, rest_length, s[EPS], s[FULL])
        if new == ph:
            return -1
    thrusting = new == THRUST and (not gallop or s[GOAL + i] != s[SHORT])
    if thrusting and not fresh:
        return NEED_VEL
    steer = False
    log_phase(s, LOG_N, QCAP, t, slot, new)
    s[PHASE + slot] = new
    if new == LOADING:
        steer = touchdown(i, t, qpos, com, stiff, damp, qfrc, s)
    elif new == FLIGHT:
        steer = liftoff(i, t, qpos, spring, stiff, damp, qfrc, s)
    elif thrusting:
        thrust(i, s[SHARE] if gallop and i == 0 and s[DONE_LEG + 1] == 0.0 else 1.0,
               qpos, gxpos, com, comvel, spring, s)
        if gallop and i == 1 and s[PHASE] != FLIGHT:  # hand over: the trailing leg unloads
            s[GOAL] = s[SHORT]
            zero_hip(i - 1, stiff, damp, qfrc, s)  # (a literal 0 would compile another copy)
    elif new == UNLOADING:
        s[GOAL + i] = s[SHORT]
        zero_hip(i, stiff, damp, qfrc, s)
    return EVENT + i if steer and s[STEER] != 0.0 else 0

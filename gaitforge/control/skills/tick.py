"""The skills controller's control tick as one compiled kernel
(``gaitforge.jit``); :mod:`gaitforge.control.skills.reference` is
the readable Python formulation it must agree with
(``tests/test_skills_tick.py`` runs both on the same states).

:func:`tick` does everything of a tick except the schedule entries and
the path follower (``commands.Commander``: Python tells it the gait and
the target speed, or, on a path, the speed and heading) and the servo
re-gains at liftoff and touchdown (it returns which limbs need them): the
commander's speed ramp and turn, the gait graph at the commanded speed,
the contact scan, each limb's stance/swing machine, the leg-frame targets
and spine references, the limb IK, the swing-foot trajectory, the swing
limbs' gravity compensation and the body wrench shared by the stance feet
(the Jacobian-transpose torques compiled in ``vforce``, the wrench shared
in ``support``).

Arrays (all flat, preallocated by the controller):

- ``S`` (NS,) float state: phase, filtered mass-centre velocity, last mass
  centre, reference position, and per limb (``LIMBS`` order) foothold,
  lift-off point, lift-off time, planned swing time, knee angle;
- ``ints`` (NI,) int state: mode (0 stance, 1 swing), the cycle each limb
  last lifted in, the mode its servo gains were last set for;
- ``C`` (NC,) constants: gains (``params.SkillParams``), masses, heights,
  each limb's rest foot offset;
- ``G`` (NG,) one gait (:func:`pack_gait`);
- ``D`` a window over the MjData arrays ``DATA``, ``off`` where each lies;
- ``LI``, ``LW``, ``anc``: the limbs' links (``vforce`` module docstring);
- the compiled IK's constants stacked per limb (``kernels.pack``).
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.control.core.layout import Field, Layout
from gaitforge.jit import kernel
from gaitforge.control.skills.kernels import axis_angle, qconj, qmul, qrot, rotvec, solve_limb
from gaitforge.control.skills.placement import HEIGHT_KNOTS
from gaitforge.control.skills.support import distribute_into
from gaitforge.control.skills.vforce import L_FRAME, L_LINKS, L_N, L_SITE, hold_up, push_from_site
from gaitforge.constants import GRAVITY

STANCE, SWING = 0, 1

# The flat arrays' fields (core.layout: offsets in order, no overlaps); each name in capitals is its
# offset, a literal to compiled code.
S_LAYOUT = Layout("skills S", [  # float state
    Field("phase"), Field("vel", 3, unit="m/s"), Field("com_prev", 3, unit="m"), Field("ref", 2, unit="m"),
    Field("plant", 12, unit="m"), Field("lift_at", 12, unit="m"), Field("lift_time", 4, unit="s"),
    Field("swing_time", 4, unit="s"), Field("knee", 4, unit="rad"),
    Field("opened", 4, unit="cycles"),  # the phase at which the swing window each limb last lifted in opened
    Field("speed", unit="m/s"), Field("heading", unit="rad"),  # the commander's (commands.Commander.state)
])
(S_PHASE, S_VEL, S_COM_PREV, S_REF, S_PLANT, S_LIFT_AT, S_LIFT_TIME, S_SWING_TIME, S_KNEE, S_OPENED,
 S_SPEED, S_HEADING) = (S_LAYOUT[n] for n in S_LAYOUT.fields)
NS = S_LAYOUT.size
I_LAYOUT = Layout("skills ints", [Field("mode", 4, int), Field("servo", 4, int)],
                  dtype=np.int64)  # int state
I_MODE, I_SERVO = (I_LAYOUT[n] for n in I_LAYOUT.fields)
NI = I_LAYOUT.size
C_LAYOUT = Layout("skills C", [  # constants
    Field("dt", unit="s"), Field("mass", unit="kg"), Field("limit"), Field("com_height", unit="m"),
    Field("hip_height", unit="m"), Field("span", unit="m"), Field("rest_h", 2, unit="m"), Field("anchor", kind=int),
    Field("front_first", kind=bool), Field("kp_position"), Field("kv"), Field("lead"), Field("kp_height"),
    Field("kd_height"), Field("orient_freq", unit="Hz"), Field("orient_damping"), Field("friction"),
    Field("regularize"), Field("max_push"), Field("swing_gravity"), Field("ipm_sagittal"), Field("ipm_coronal"),
    Field("foot", 12, unit="m"),  # (4, 3) rest offsets hip → contact site
    Field("accel", unit="m/s²"),  # the commander's
])
(C_DT, C_MASS, C_LIMIT, C_COM_HEIGHT, C_HIP_HEIGHT, C_SPAN, C_REST_H, C_ANCHOR, C_FRONT_FIRST, C_KP_POSITION,
 C_KV, C_LEAD, C_KP_HEIGHT, C_KD_HEIGHT, C_ORIENT_FREQ, C_ORIENT_DAMPING, C_FRICTION, C_REGULARIZE, C_MAX_PUSH,
 C_SWING_GRAVITY, C_IPM_SAGITTAL, C_IPM_CORONAL, C_FOOT, C_ACCEL) = (C_LAYOUT[n] for n in C_LAYOUT.fields)
NC = C_LAYOUT.size
MAX_STRIDE_KNOTS = 6
G_LAYOUT = Layout("skills G", [  # a gait (pack_gait)
    Field("lift_slow", 4), Field("swing_slow", 4), Field("lift_fast", 4), Field("swing_fast", 4),
    Field("period", 2, unit="s"), Field("speeds", 2, unit="m/s"), Field("heights", 2, unit="m"), Field("pitch"),
    Field("twist"), Field("lift_height", 2, unit="m"), Field("late", 2), Field("nstride", kind=int),
    Field("stride", 2 * MAX_STRIDE_KNOTS),  # stride-period knots: (speed, period) pairs
])
(G_LIFT_SLOW, G_SWING_SLOW, G_LIFT_FAST, G_SWING_FAST, G_PERIOD, G_SPEEDS, G_HEIGHTS, G_PITCH, G_TWIST,
 G_LIFT_HEIGHT, G_LATE, G_NSTRIDE, G_STRIDE) = (G_LAYOUT[n] for n in G_LAYOUT.fields)
NG = G_LAYOUT.size

# The MjData arrays the tick reads and writes, in one window (``jit.buffer_window``):
# ``off`` (ND, 2) holds each one's start in the window and its rows.
DATA = ("xpos", "xquat", "xmat", "xipos", "xanchor", "xaxis", "subtree_com", "cvel", "site_xpos", "qfrc_applied")
D_XPOS, D_XQUAT, D_XMAT, D_XIPOS, D_XANCHOR, D_XAXIS, D_COM, D_CVEL, D_SITE, D_QFRC = range(10)

# Swing-foot height knots (constants of the compiled code).
_KNOT_U = tuple(float(u) for u in HEIGHT_KNOTS[:, 0])
_KNOT_H = tuple(float(h) for h in HEIGHT_KNOTS[:, 1])
_G = float(GRAVITY)


def pack_gait(gait) -> np.ndarray:
    """A ``gaitgraph.Gait`` as the (NG,) array the tick reads."""
    g = np.zeros(NG)
    g[G_LIFT_SLOW:G_LIFT_SLOW + 4], g[G_SWING_SLOW:G_SWING_SLOW + 4] = gait.slow.lift, gait.slow.swing
    g[G_LIFT_FAST:G_LIFT_FAST + 4], g[G_SWING_FAST:G_SWING_FAST + 4] = gait.fast.lift, gait.fast.swing
    g[G_PERIOD:G_PERIOD + 2], g[G_SPEEDS:G_SPEEDS + 2] = gait.period, gait.speeds
    g[G_HEIGHTS:G_HEIGHTS + 2], g[G_PITCH], g[G_TWIST] = gait.heights, gait.pitch, gait.twist
    g[G_LIFT_HEIGHT:G_LIFT_HEIGHT + 2], g[G_LATE:G_LATE + 2] = gait.lift_height, gait.late_reach
    if len(gait.stride_knots) > MAX_STRIDE_KNOTS:
        raise ValueError(f"at most {MAX_STRIDE_KNOTS} stride knots, got {len(gait.stride_knots)}")
    g[G_NSTRIDE] = len(gait.stride_knots)
    for k, (v, p) in enumerate(gait.stride_knots):
        g[G_STRIDE + 2 * k], g[G_STRIDE + 2 * k + 1] = v, p
    return g


@kernel
def gait_graph(G, speed, lift, swing):
    """``Gait.graph(speed)`` into lift (4,), swing (4,); returns ``Gait.stride(speed)`` [s]."""
    lo, hi = G[G_SPEEDS], G[G_SPEEDS + 1]
    w = 0.0 if hi <= lo else min(1.0, max(0.0, (abs(speed) - lo) / (hi - lo)))
    for i in range(4):
        a, b = G[G_LIFT_SLOW + i], G[G_LIFT_FAST + i]
        lift[i] = (a + w * ((b - a + 0.5) % 1.0 - 0.5)) % 1.0
        swing[i] = (1 - w) * G[G_SWING_SLOW + i] + w * G[G_SWING_FAST + i]
    n = int(G[G_NSTRIDE])
    v = abs(speed)
    if n == 0 or v <= G[G_STRIDE]:
        return (1 - w) * G[G_PERIOD] + w * G[G_PERIOD + 1]
    # above the first knot: the knots, interpolated linearly (np.interp's arithmetic), held beyond the last
    for k in range(1, n):
        a, b = G[G_STRIDE + 2 * (k - 1)], G[G_STRIDE + 2 * k]
        if v < b:
            pa, pb = G[G_STRIDE + 2 * (k - 1) + 1], G[G_STRIDE + 2 * k + 1]
            if v == a:
                return pa
            return (pb - pa) / (b - a) * (v - a) + pa
    return G[G_STRIDE + 2 * (n - 1) + 1]


@kernel
def touching(pairs, geom_bodyid, body_limb, out):
    """out (4,) bool: a link of each limb touches the ground (body 0);
    pairs: ``data.contact.geom`` (ncon, 2)."""
    out[:] = False
    for c in range(pairs.shape[0]):
        b0, b1 = geom_bodyid[pairs[c, 0]], geom_bodyid[pairs[c, 1]]
        if b0 == 0 or b1 == 0:
            limb = body_limb[max(b0, b1)]
            if limb >= 0:
                out[limb] = True


@kernel
def swing_height(u, lift):
    """``placement.swing_height``: the knots evaluated linearly."""
    if u <= _KNOT_U[0]:
        return lift * _KNOT_H[0]
    for k in range(1, len(_KNOT_U)):
        if u <= _KNOT_U[k]:
            a = _KNOT_U[k - 1]
            return lift * (_KNOT_H[k - 1] + (u - a) * (_KNOT_H[k] - _KNOT_H[k - 1]) / (_KNOT_U[k] - a))
    return lift * _KNOT_H[-1]


@kernel
def ipm_offset(v, h):
    return v * math.sqrt(h / _G + v * v / (4.0 * _G * _G))


@kernel
def euler_zyx(yaw, pitch, roll):
    """Rz(yaw) Ry(pitch) Rx(roll) as a quaternion [rad]."""
    return qmul(qmul(axis_angle((0.0, 0.0, 1.0), yaw), axis_angle((0.0, 1.0, 0.0), pitch)),
                axis_angle((1.0, 0.0, 0.0), roll))


@kernel
def from_rotvec(r):
    """The rotation by |r| [rad] about r/|r|."""
    n = math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
    if n < 1e-15:
        return (1.0, 0.0, 0.0, 0.0)
    return axis_angle((r[0] / n, r[1] / n, r[2] / n), n)


@kernel
def frame_targets(C, G, twist, heading, anchor_xy, spine_q, spine_pos, spring, pos, quats):
    """``pose.PoseSolver.frame_targets``: pos (2, 3) and quats (2, 4) of the
    (front, rear) leg frames; writes the spine references into spring."""
    pitch = G[G_PITCH] + math.atan2(G[G_HEIGHTS] - G[G_HEIGHTS + 1], C[C_SPAN])
    front, rear = euler_zyx(heading, -pitch, twist), euler_zyx(heading, -pitch, 0.0)
    for c in range(4):
        quats[0, c], quats[1, c] = front[c], rear[c]
    a, b = (front, rear) if C[C_FRONT_FIRST] != 0.0 else (rear, front)
    ns = spine_q.shape[0]
    r = rotvec(qmul(qconj(a), b))
    share = max(1, ns)
    turn = from_rotvec((r[0] / share, r[1] / share, r[2] / share))
    for adr in spine_q:
        for c in range(4):
            spring[adr + c] = turn[c]
    anchor = int(C[C_ANCHOR])
    x, y, z = anchor_xy[0], anchor_xy[1], C[C_REST_H + anchor] + G[G_HEIGHTS + anchor]
    pos[anchor, 0], pos[anchor, 1], pos[anchor, 2] = x, y, z
    rot = front if anchor == 0 else rear
    for k in range(ns):
        step = qrot(rot, spine_pos[k])
        x, y, z = x + step[0], y + step[1], z + step[2]
        rot = qmul(rot, turn)
    pos[1 - anchor, 0], pos[1 - anchor, 1], pos[1 - anchor, 2] = x, y, z


@kernel
def swing_target(S, C, G, i, t, root_xpos, lift_at, swing_i, fwd, lat, speed, period):
    """``reference.swing_target``: limb i's swing foot [m, world] now."""
    lift_time, swing_time = S[S_LIFT_TIME + i], S[S_SWING_TIME + i]
    u = (t - lift_time) / swing_time
    left = max(0.0, swing_time - (t - lift_time))
    v = S[S_VEL:S_VEL + 3]
    h = C[C_HIP_HEIGHT]
    off = C[C_FOOT + 3 * i:C_FOOT + 3 * i + 3]
    v_f = v[0] * fwd[0] + v[1] * fwd[1] + v[2] * fwd[2]
    v_l = v[0] * lat[0] + v[1] * lat[1] + v[2] * lat[2]
    stance = (1.0 - swing_i) * period
    ahead = off[0] + speed * stance / 2 + C[C_IPM_SAGITTAL] * (ipm_offset(v_f, h) - ipm_offset(speed, h))
    side = off[1] + C[C_IPM_CORONAL] * ipm_offset(v_l, h)
    x = min(1.0, u / 0.85)
    blend = x * x * (3.0 - 2.0 * x)
    foot = np.empty(3)
    for c in range(3):
        target = (root_xpos[c] + v[c] * left) + ahead * fwd[c] + side * lat[c]
        foot[c] = (1 - blend) * lift_at[c] + blend * target
    lift = G[G_LIFT_HEIGHT + (0 if i < 2 else 1)]
    lo, hi = G[G_SPEEDS], G[G_SPEEDS + 1]
    w = 0.0 if hi <= lo else min(1.0, max(0.0, (abs(speed) - lo) / (hi - lo)))  # Gait.weight
    reach = (1 - w) * G[G_LATE] + w * G[G_LATE + 1]  # Gait.reach
    foot[2] = swing_height(min(u, 1.0), lift) - (reach * (u - 1.0) if u > 1.0 else 0.0)
    return foot


@kernel
def rows(D, off, k, cols):
    """The MjData array ``DATA[k]`` as (rows, cols), a view into the window D."""
    return D[off[k, 0]:off[k, 0] + off[k, 1] * cols].reshape((off[k, 1], cols))


@kernel
def tick(S, ints, C, G, LI, LW, anc, geom, axes, balls, qadr, spine_q, spine_pos, body_limb, geom_bodyid, D, off,
         pairs, spring, t, target, turn_rate):
    """One control tick at t [s] of gait G: first the commander's speed
    ramps toward ``target`` [m/s] and its heading turns at ``turn_rate``
    [rad/s] (``Commander.update``; a NaN target: Python updated them);
    writes the joint references into spring (``model.qpos_spring``) and
    the virtual-force torques into ``data.qfrc_applied``. Returns a bit
    mask of the limbs whose mode differs from the one their servo gains
    were set for (Python re-gains them)."""
    xpos, xquat, xmat = rows(D, off, D_XPOS, 3), rows(D, off, D_XQUAT, 4), rows(D, off, D_XMAT, 9)
    xipos, xanchor, xaxis = rows(D, off, D_XIPOS, 3), rows(D, off, D_XANCHOR, 3), rows(D, off, D_XAXIS, 3)
    com, cvel, site_xpos = rows(D, off, D_COM, 3)[1], rows(D, off, D_CVEL, 6), rows(D, off, D_SITE, 3)
    qfrc = rows(D, off, D_QFRC, 1)[:, 0]
    dt = C[C_DT]
    if not math.isnan(target):
        S[S_HEADING] += turn_rate * dt
        step = C[C_ACCEL] * dt
        S[S_SPEED] += max(-step, min(step, target - S[S_SPEED]))
    speed, heading = S[S_SPEED], S[S_HEADING]
    vel, com_prev, ref = S[S_VEL:S_VEL + 3], S[S_COM_PREV:S_COM_PREV + 3], S[S_REF:S_REF + 2]
    if t > 0.0:  # velocity of the mass centre, lightly filtered
        for c in range(3):
            vel[c] = 0.7 * vel[c] + 0.3 * (com[c] - com_prev[c]) / dt
    com_prev[:] = com
    lift, swing = np.empty(4), np.empty(4)
    period = gait_graph(G, speed, lift, swing)
    S[S_PHASE] += dt / period
    phase = S[S_PHASE]
    touch = np.empty(4, np.bool_)
    touching(pairs, geom_bodyid, body_limb, touch)
    cyc = phase % 1.0
    mode = ints[I_MODE:I_MODE + 4]
    lift_time, swing_time = S[S_LIFT_TIME:S_LIFT_TIME + 4], S[S_SWING_TIME:S_SWING_TIME + 4]
    for i in range(4):  # the stance/swing machine (reference.step_limb)
        site = LI[i, L_SITE]
        progress = -1.0
        if swing[i] > 0.0:
            u = (cyc - lift[i]) % 1.0
            if u < swing[i]:
                progress = u / swing[i]
        if mode[i] == STANCE:
            opened = phase - progress * swing[i]
            if 0.0 <= progress < 0.9 and opened - S[S_OPENED + i] > 0.5:
                j = i ^ 2
                if mode[j] == SWING and t - lift_time[j] >= swing_time[j]:
                    continue
                mode[i], S[S_OPENED + i] = SWING, opened
                S[S_LIFT_AT + 3 * i:S_LIFT_AT + 3 * i + 3] = site_xpos[site]
                lift_time[i] = t
                swing_time[i] = max(0.6, 1.0 - progress) * swing[i] * period
        elif touch[i] and (t - lift_time[i]) > 0.6 * swing_time[i]:
            mode[i] = STANCE
            S[S_PLANT + 3 * i:S_PLANT + 3 * i + 2] = site_xpos[site, :2]
            S[S_PLANT + 3 * i + 2] = 0.0
    fwd = np.array([math.cos(heading), math.sin(heading), 0.0])
    lat = np.array([-fwd[1], fwd[0], 0.0])
    ref[0] += speed * fwd[0] * dt
    ref[1] += speed * fwd[1] * dt
    err = np.array([ref[0] - com[0], ref[1] - com[1]])
    e = math.hypot(err[0], err[1])
    if e > C[C_LEAD]:
        err *= C[C_LEAD] / e
        ref[0], ref[1] = com[0] + err[0], com[1] + err[1]
    twist = 0.0  # roll the front frame to lift a swinging shoulder
    for i in range(2):
        if mode[i] == SWING:
            sign = 1.0 if i == 0 else -1.0
            twist += sign * G[G_TWIST] * math.sin(math.pi * min(1.0, (t - lift_time[i]) / swing_time[i]))
    anchor = int(C[C_ANCHOR])
    frame_pos, frame_q = np.empty((2, 3)), np.empty((2, 4))
    frame_targets(C, G, twist, heading, xpos[LI[2 * anchor, L_FRAME]], spine_q, spine_pos, spring, frame_pos,
                  frame_q)
    level = axis_angle((0.0, 0.0, 1.0), heading)
    qfrc[:] = 0.0
    col = np.empty((3, 3))
    for i in range(4):
        f = 0 if i < 2 else 1
        n = LI[i, L_N]
        k = S_KNEE + i
        if mode[i] == STANCE:
            S[k] = solve_limb(spring, geom[i], axes[i, :n - 1], balls[i, :n - 1], qadr[i, :n],
                              S[S_PLANT + 3 * i:S_PLANT + 3 * i + 3], frame_pos[f], frame_q[f], level, S[k])
        else:
            foot = swing_target(S, C, G, i, t, xpos[LI[i, L_LINKS]], S[S_LIFT_AT + 3 * i:S_LIFT_AT + 3 * i + 3],
                                swing[i], fwd, lat, speed, period)
            b = LI[2 * f, L_FRAME]
            S[k] = solve_limb(spring, geom[i], axes[i, :n - 1], balls[i, :n - 1], qadr[i, :n], foot, xpos[b],
                              xquat[b], level, S[k])
            hold_up(LI, LW, anc, i, C[C_SWING_GRAVITY], xipos, xanchor, xaxis, xmat, col, qfrc)
    # The body wrench shared by the stance feet (reference.support).
    mass = C[C_MASS]
    mg = mass * GRAVITY
    v_f = vel[0] * fwd[0] + vel[1] * fwd[1] + vel[2] * fwd[2]
    v_l = vel[0] * lat[0] + vel[1] * lat[1] + vel[2] * lat[2]
    kp = mass * C[C_KP_POSITION]
    force = np.empty(3)
    for c in range(2):
        force[c] = kp * err[c] + C[C_KV] * ((speed - v_f) * fwd[c] - v_l * lat[c])
    z_err = C[C_COM_HEIGHT] + (G[G_HEIGHTS] + G[G_HEIGHTS + 1]) / 2 - com[2]
    force[2] = mg + mass * (C[C_KP_HEIGHT] * z_err - C[C_KD_HEIGHT] * vel[2])
    inertia = mass * (C[C_SPAN] / 2) ** 2
    w0 = C[C_ORIENT_FREQ]
    torque = np.zeros(3)
    for k in range(2):
        b = LI[2 * k, L_FRAME]
        e3 = rotvec(qmul(frame_q[k], qconj(xquat[b])))
        for c in range(3):
            torque[c] += 0.5 * inertia * (w0 ** 2 * e3[c] - 2.0 * C[C_ORIENT_DAMPING] * w0 * cvel[b, c])
    feet, forces = np.empty((4, 3)), np.empty((4, 3))
    n_stance = 0
    for i in range(4):
        if mode[i] == STANCE:
            site = LI[i, L_SITE]
            for c in range(3):
                feet[n_stance, c] = site_xpos[site, c] - com[c]
            n_stance += 1
    distribute_into(feet, n_stance, force, torque, C[C_FRICTION], 0.02 * mg / max(1, n_stance), C[C_MAX_PUSH] * mg,
                    C[C_REGULARIZE], forces)
    s = 0
    for i in range(4):
        if mode[i] == STANCE:
            push_from_site(LI, anc, i, site_xpos[LI[i, L_SITE]], forces[s], xanchor, xaxis, xmat, col, qfrc)
            s += 1
    limit = C[C_LIMIT]
    changed = 0
    for c in range(qfrc.shape[0]):
        qfrc[c] = min(max(qfrc[c], -limit), limit)
    for i in range(4):
        if mode[i] != ints[I_SERVO + i]:
            changed |= 1 << i
    return changed

"""The skills controller's control tick in plain Python (MuJoCo's
Jacobian and quaternion routines, numpy): the readable formulation of
:mod:`gaitforge.control.skills.tick`, which compiles the same arithmetic.
``SkillController.compute_reference`` runs it; ``tests/test_skills_tick.py``
checks that the two write the same references, torques, modes and gains
from the same states.
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.control.skills import quat as Q
from gaitforge.control.skills.gaitgraph import Gait, GaitGraph
from gaitforge.control.skills.kernels import solve_limb
from gaitforge.control.skills.placement import ipm_offset, swing_blend, swing_height
from gaitforge.control.skills.support import distribute
from gaitforge.constants import GRAVITY

STANCE, SWING = 0, 1


def compute(c, m: mujoco.MjModel, d: mujoco.MjData) -> None:
    """One control tick of the ``SkillController`` c."""
    dt, t, p = c.control_dt, float(d.time), c.params
    com = d.subtree_com[1]
    if t > 0.0:  # velocity of the mass centre, lightly filtered
        c.vel = 0.7 * c.vel + 0.3 * (com - c.com_prev) / dt
    c.com_prev = com.copy()
    gait_name, speed, heading = c.commander.update(t, dt, com[:2])
    gait = c.gaits[gait_name]
    c.gait_name = gait_name
    c.gait_contacts(m, gait_name)
    period = gait.stride(speed)
    c.phase += dt / period
    graph = gait.graph(speed)
    touch = touching(c, m, d)
    progress = graph.swing_progress(c.phase % 1.0)
    for i in range(4):
        step_limb(c, i, d, t, graph, progress[i], touch[i], period)
    fwd = np.array([math.cos(heading), math.sin(heading), 0.0])
    lat = np.array([-fwd[1], fwd[0], 0.0])
    # The mass centre's reference moves at the commanded velocity and is
    # dragged along when the body lags or leads it by more than ``lead``.
    c.ref += speed * fwd[:2] * dt
    err = c.ref - com[:2]
    e = float(np.hypot(*err))
    if e > p.lead:
        err *= p.lead / e
        c.ref = com[:2] + err
    twist = 0.0  # roll the front frame to lift a swinging shoulder (Wang 2011 §3.3.5)
    for i, sign in ((0, 1.0), (1, -1.0)):
        if c.mode[i] == SWING:
            twist += sign * gait.twist * math.sin(math.pi * min(1.0, (t - c.lift_time[i]) / c.swing_time[i]))
    a = c.anchor
    frame_pos, frame_q = c.pose.frame_targets(heading, gait.pitch, twist, gait.heights, a,
                                              d.xpos[c.frames[a]][:2], c.rest_height[a])
    level = Q.from_axis_angle((0.0, 0.0, 1.0), heading)
    qfrc = np.zeros(m.nv)
    for i, limb in enumerate(c.order):
        f = 0 if i < 2 else 1
        if c.mode[i] == STANCE:
            c.knee[i] = solve_limb(m.qpos_spring, *c.packed[i], c.plant[i], frame_pos[f], frame_q[f], level,
                                   c.knee[i])
        else:
            foot = swing_target(c, i, d, t, gait, graph, fwd, lat, speed, period)
            b = c.frames[f]
            c.knee[i] = solve_limb(m.qpos_spring, *c.packed[i], foot, d.xpos[b], d.xquat[b], level, c.knee[i])
            c.vf.gravity(d, limb, qfrc, p.swing_gravity)
    support(c, d, com, err, speed, fwd, lat, gait, frame_q, qfrc)
    np.clip(qfrc, -c.limit, c.limit, out=qfrc)
    d.qfrc_applied[:] = qfrc
    for i in range(4):
        if c.mode[i] != c.servo_mode[i]:  # a limb landed or lifted: re-gain its servos
            c.regain(m, i)


def touching(c, m: mujoco.MjModel, d: mujoco.MjData) -> np.ndarray:
    """(4,) bool: a distal link of each limb touches the ground (for the
    gorilla's hands this counts the knuckles, Wang 2011 §3.3.3)."""
    out = np.zeros(4, bool)
    if d.ncon:
        bodies = m.geom_bodyid[d.contact.geom[:d.ncon]]
        ground = (bodies == 0).any(axis=1)
        limb = c.body_limb[bodies.max(axis=1)]
        out[limb[ground & (limb >= 0)]] = True
    return out


def step_limb(c, i: int, d, t: float, graph: GaitGraph, progress: float, touch: bool, period: float) -> None:
    """Limb i's stance/swing machine: it lifts off when its swing window
    opens (once per cycle) and lands on touchdown after 60 % of the swing.
    A limb waits while the other limb on its side is late to land, then lifts
    with the swing time its window has left (at least 60 % of the
    planned one)."""
    if c.mode[i] == STANCE:
        # Once per window: the phase its window opened at, more than half a
        # cycle after the one it last lifted in. (Counting whole cycles since
        # the lift phase, floor(phase - lift), skipped a stride when a speed
        # change moved a lift phase across 0: the dog's walk, lift 0.0 when
        # slow, 0.9 when fast, held its front left foot planted for a stride
        # as it sped up and nosed down.)
        opened = c.phase - progress * graph.swing[i]
        if 0.0 <= progress < 0.9 and opened - c.opened[i] > 0.5:
            j = i ^ 2  # the other limb on this side
            if c.mode[j] == SWING and t - c.lift_time[j] >= c.swing_time[j]:
                return  # it is late to land: do not leave this side without a foot
            c.mode[i], c.opened[i] = SWING, opened
            c.lift_at[i] = d.site_xpos[c.order[i].site]
            c.lift_time[i] = t
            c.swing_time[i] = max(0.6, 1.0 - progress) * graph.swing[i] * period
    elif touch and (t - c.lift_time[i]) > 0.6 * c.swing_time[i]:
        c.mode[i] = STANCE
        c.plant[i] = d.site_xpos[c.order[i].site]
        c.plant[i][2] = 0.0  # held on the floor (the plane z = 0)


def swing_target(c, i: int, d, t: float, gait: Gait, graph: GaitGraph, fwd, lat, speed: float,
                 period: float) -> np.ndarray:
    """The swing foot's desired position [m] now: from where it lifted
    toward the foothold, at the swing height. The foothold is the hip's
    predicted place at touchdown, plus the rest stance offset, plus half
    the stance stride at the commanded speed, plus the inverted-pendulum
    correction for the speed error (sagittal) and sideways drift."""
    p, limb = c.params, c.order[i]
    u = (t - c.lift_time[i]) / c.swing_time[i]
    left = max(0.0, c.swing_time[i] - (t - c.lift_time[i]))
    hip = d.xpos[limb.bodies[0]] + c.vel * left
    h, off = c.hip_height, c.foot_offset[i]
    v_f, v_l = float(c.vel @ fwd), float(c.vel @ lat)
    stance = (1.0 - graph.swing[i]) * period
    ahead = off[0] + speed * stance / 2 + p.ipm_sagittal * (ipm_offset(v_f, h) - ipm_offset(speed, h))
    target = hip + ahead * fwd + (off[1] + p.ipm_coronal * ipm_offset(v_l, h)) * lat
    b = swing_blend(u)
    foot = (1 - b) * c.lift_at[i] + b * target
    lift = gait.lift_height[0 if i < 2 else 1]
    # Late: keep reaching down until the foot finds the ground.
    foot[2] = swing_height(min(u, 1.0), lift) - (gait.reach(speed) * (u - 1.0) if u > 1.0 else 0.0)
    return foot


def support(c, d, com, err, speed: float, fwd, lat, gait: Gait, frame_q, qfrc) -> None:
    """The body wrench (weight, speed force, a soft pull toward the
    reference position, height and trunk-orientation PDs) shared among
    the stance feet and applied through their Jacobians."""
    p = c.params
    stance = [i for i in range(4) if c.mode[i] == STANCE]
    mg = c.mass * GRAVITY
    v = c.vel
    force = c.mass * p.kp_position * np.array([err[0], err[1], 0.0])
    force += p.kv * ((speed - float(v @ fwd)) * fwd - float(v @ lat) * lat)
    z_err = c.com_height + float(np.mean(gait.heights)) - float(com[2])
    force[2] = mg + c.mass * (p.kp_height * z_err - p.kd_height * float(v[2]))
    inertia = c.mass * (c.span / 2) ** 2  # kg m², the trunk turning about its middle
    torque = np.zeros(3)
    for k, b in enumerate(c.frames):
        e = Q.to_rotvec(Q.mul(frame_q[k], Q.conj(d.xquat[b])))
        torque += 0.5 * inertia * (p.orient_freq ** 2 * e - 2.0 * p.orient_damping * p.orient_freq * d.cvel[b][:3])
    feet = np.array([d.site_xpos[c.order[i].site] - com for i in stance]).reshape(-1, 3)
    forces = distribute(feet, force, torque, friction=p.friction, min_push=0.02 * mg / max(1, len(stance)),
                        max_push=p.max_push * mg, regularize=p.regularize)
    for i, f in zip(stance, forces):
        c.vf.at_site(d, c.order[i], f, qfrc)

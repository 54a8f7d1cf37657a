"""The quadruped skills controller (Wang 2011 ch. 3, after Coros et al. 2011)
on the shared runner protocol (``gaitforge.sim.controller``).

Each control tick: the gait generator advances the cycle phase and says
which limbs swing (``gaitgraph``); swinging limbs follow a foot trajectory
to an inverted-pendulum foothold (``placement``); the desired pose is solved
(``pose``: leg frames, spine; the limb IK compiled, ``kernels``) and tracked by PD servos, MuJoCo's
joint springs, whose references this controller moves, so the PD runs in C
at every physics step; virtual forces add Jacobian-transpose torques
(``vforce``): gravity compensation of the swing limbs and the body wrench
(weight, speed force, height and trunk orientation) shared by the stance
feet (``support``).
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.control.skills import limbs as L
from gaitforge.control.skills import quat as Q
from gaitforge.control.skills.commands import Commander
from gaitforge.control.skills.gaitgraph import LIMBS, Gait, GaitGraph
from gaitforge.control.skills.kernels import pack, solve_limb
from gaitforge.control.skills.params import SkillParams
from gaitforge.control.skills.placement import ipm_offset, swing_blend, swing_height
from gaitforge.control.skills.pose import PoseSolver, flexion
from gaitforge.control.skills.support import distribute
from gaitforge.control.skills.vforce import VirtualForces
from gaitforge.creatures.character import Character

STANCE, SWING = 0, 1


class SkillController:
    """Gait generator + leg frames + virtual forces + IK + PD for a quadruped.

    character: a quadruped ``limbs.find_limbs`` recognises; params: its gains
    and gaits (``params.SkillParams``); commander: gait, speed and heading
    over time (``commands.Commander``). ``state`` reads like
    ``trot:SWWS`` (gait, then each limb in ``LIMBS`` order: S stance, W swing)."""

    def __init__(self, character: Character, params: SkillParams, commander: Commander):
        self.character, self.params, self.commander = character, params, commander
        self.control_dt = params.control_dt
        self.gaits: dict[str, Gait] = dict(params.gaits)
        limbs = L.find_limbs(character)
        self.order = [limbs[n] for n in LIMBS]
        m = character.model
        self.frames = (self.order[0].frame, self.order[2].frame)  # front, rear bodies
        spine, front_first = L.spine_path(character, *self.frames)
        self.anchor = 0 if front_first else 1  # the frame the spine hangs from
        self.spine = spine
        self.mass = float(m.body_subtreemass[1])
        rest = mujoco.MjData(m)
        rest.qpos[:] = character.rest_qpos
        mujoco.mj_forward(m, rest)
        self.rest_height = np.array([rest.xpos[b][2] for b in self.frames])
        self.com_height = float(rest.subtree_com[1][2])
        # Hip (shoulder) joint to contact site at rest: (forward, left, up) in the heading frame.
        self.foot_offset = [rest.site_xpos[limb.site] - rest.xpos[limb.bodies[0]] for limb in self.order]
        self.hip_height = float(np.mean([rest.xpos[limb.bodies[0]][2] for limb in self.order]))
        self.span = float(rest.xpos[self.order[0].bodies[0]][0] - rest.xpos[self.order[2].bodies[0]][0])
        self.vf = VirtualForces(m, limbs)
        self.packed = [pack(limb) for limb in self.order]  # the compiled IK's constants
        self._state = "stand"

    # ------------------------------------------------------------ protocol
    @property
    def state(self) -> str:
        return self._state

    def prepare_model(self, m: mujoco.MjModel) -> None:
        """PD gains into the joint springs and dampers, the physics step."""
        p = self.params
        free = m.jnt_type == int(mujoco.mjtJoint.mjJNT_FREE)
        m.jnt_stiffness[:] = np.where(free, 0.0, m.jnt_stiffness * p.kp_scale)
        for b in self.spine:
            m.jnt_stiffness[m.body_jntadr[b]] *= p.spine_scale
        m.dof_damping[:] = m.jnt_stiffness[m.dof_jntid] * p.kd_time
        m.opt.timestep = p.timestep

    def fall_check(self, d: mujoco.MjData) -> str | None:
        """A leg frame below half its standing height, or tilted past 60°."""
        for name, b, h in zip(("front", "rear"), self.frames, self.rest_height):
            if d.xpos[b][2] < 0.5 * h:
                return f"{name} leg frame down to {d.xpos[b][2]:.2f} m"
            if d.xmat[b][8] < 0.5:
                return f"{name} leg frame tilted {math.degrees(math.acos(min(1.0, d.xmat[b][8]))):.0f}°"
        return None

    def reset(self, m: mujoco.MjModel, d: mujoco.MjData) -> None:
        mujoco.mj_forward(m, d)  # positions and mass centres of the start
        self.pose = PoseSolver(m, self.order, self.spine, self.anchor == 0, self.span)
        self.kp = m.jnt_stiffness.copy()
        self.kd = m.dof_damping.copy()
        self.limb_joints = [np.array([m.body_jntadr[b] for b in limb.bodies]) for limb in self.order]
        self.limit = self.params.torque_limit * self.mass * 9.81 * self.hip_height  # N m
        self.phase = 0.0
        self.cycles = np.full(4, -1)
        self.mode = np.full(4, STANCE)
        self.servo_mode = np.full(4, -1)  # the mode each limb's servo gains were last set for
        self.plant = np.array([d.site_xpos[limb.site].copy() for limb in self.order])
        self.plant[:, 2] = 0.0
        self.lift_at = np.zeros((4, 3))
        self.lift_time = np.zeros(4)
        self.swing_time = np.ones(4)
        self.knee = np.array([flexion(d.qpos, limb) for limb in self.order])
        self.commander.reset(Q.yaw_of(d.xquat[self.frames[self.anchor]]))
        self.body_limb = np.full(m.nbody, -1)
        for i, limb in enumerate(self.order):
            self.body_limb[list(limb.bodies[2:])] = i
        self.com_prev = d.subtree_com[1].copy()
        self.ref = d.subtree_com[1][:2].copy()
        self.vel = np.zeros(3)
        self.qfrc = np.zeros(m.nv)
        self.gait_name = ""

    # ------------------------------------------------------------ the tick
    def compute(self, m: mujoco.MjModel, d: mujoco.MjData) -> None:
        dt, t, p = self.control_dt, float(d.time), self.params
        com = d.subtree_com[1]
        if t > 0.0:  # velocity of the mass centre, lightly filtered
            self.vel = 0.7 * self.vel + 0.3 * (com - self.com_prev) / dt
        self.com_prev = com.copy()
        gait_name, speed, heading = self.commander.update(t, dt, com[:2])
        gait = self.gaits[gait_name]
        self.gait_name = gait_name
        period = gait.stride(speed)
        self.phase += dt / period
        graph = gait.graph(speed)
        touching = self._touching(m, d)
        progress = graph.swing_progress(self.phase % 1.0)
        for i in range(4):
            self._step_limb(i, d, t, gait, graph, progress[i], touching[i], period)
        fwd = np.array([math.cos(heading), math.sin(heading), 0.0])
        lat = np.array([-fwd[1], fwd[0], 0.0])
        # The mass centre's reference moves at the commanded velocity and is
        # dragged along when the body lags or leads it by more than ``lead``.
        self.ref += speed * fwd[:2] * dt
        err = self.ref - com[:2]
        e = float(np.hypot(*err))
        if e > p.lead:
            err *= p.lead / e
            self.ref = com[:2] + err
        twist = 0.0  # roll the front frame to lift a swinging shoulder (Wang 2011 §3.3.5)
        for i, sign in ((0, 1.0), (1, -1.0)):
            if self.mode[i] == SWING:
                twist += sign * gait.twist * math.sin(math.pi * min(1.0, (t - self.lift_time[i]) / self.swing_time[i]))
        a = self.anchor
        frame_pos, frame_q = self.pose.frame_targets(heading, gait.pitch, twist, gait.heights, a,
                                                     d.xpos[self.frames[a]][:2], self.rest_height[a])
        level = Q.from_axis_angle((0.0, 0.0, 1.0), heading)
        qfrc = self.qfrc
        qfrc[:] = 0.0
        for i, limb in enumerate(self.order):
            f = 0 if i < 2 else 1
            if self.mode[i] == STANCE:
                self.knee[i] = solve_limb(m.qpos_spring, *self.packed[i], self.plant[i], frame_pos[f], frame_q[f],
                                          level, self.knee[i])
            else:
                foot = self._swing_target(i, d, t, gait, graph, fwd, lat, speed, period)
                b = self.frames[f]
                self.knee[i] = solve_limb(m.qpos_spring, *self.packed[i], foot, d.xpos[b], d.xquat[b], level,
                                          self.knee[i])
                self.vf.gravity(d, limb, qfrc, p.swing_gravity)
        self._support(m, d, com, err, speed, fwd, lat, gait, frame_q, qfrc)
        np.clip(qfrc, -self.limit, self.limit, out=qfrc)
        d.qfrc_applied[:] = qfrc
        self._state = gait_name + ":" + "".join("W" if s == SWING else "S" for s in self.mode)

    # ------------------------------------------------------------ pieces
    def _touching(self, m: mujoco.MjModel, d: mujoco.MjData) -> np.ndarray:
        """(4,) bool: a distal link of each limb touches the ground (for the
        gorilla's hands this counts the knuckles, Wang 2011 §3.3.3)."""
        out = np.zeros(4, bool)
        if d.ncon:
            bodies = m.geom_bodyid[d.contact.geom[:d.ncon]]
            ground = (bodies == 0).any(axis=1)
            limb = self.body_limb[bodies.max(axis=1)]
            out[limb[ground & (limb >= 0)]] = True
        return out

    def _step_limb(self, i: int, d, t: float, gait: Gait, graph: GaitGraph, progress: float, touching: bool,
                   period: float) -> None:
        """Limb i's stance/swing machine: it lifts off when its swing window
        opens (once per cycle) and lands on touchdown after 60 % of the swing.
        A limb waits while the other limb on its side is late to land, then lifts
        with the swing time its window has left (at least 60 % of the
        planned one)."""
        if self.mode[i] == STANCE:
            cycle = math.floor(self.phase - graph.lift[i])
            if 0.0 <= progress < 0.9 and cycle != self.cycles[i]:
                j = i ^ 2  # the other limb on this side
                if self.mode[j] == SWING and t - self.lift_time[j] >= self.swing_time[j]:
                    return  # it is late to land: do not leave this side without a foot
                self.mode[i], self.cycles[i] = SWING, cycle
                self.lift_at[i] = d.site_xpos[self.order[i].site]
                self.lift_time[i] = t
                self.swing_time[i] = max(0.6, 1.0 - progress) * graph.swing[i] * period
        elif touching and (t - self.lift_time[i]) > 0.6 * self.swing_time[i]:
            self.mode[i] = STANCE
            self.plant[i] = d.site_xpos[self.order[i].site]
            self.plant[i][2] = 0.0  # held on the floor (the plane z = 0)

    def _swing_target(self, i: int, d, t: float, gait: Gait, graph: GaitGraph, fwd, lat, speed: float,
                      period: float) -> np.ndarray:
        """The swing foot's desired position [m] now: from where it lifted
        toward the foothold, at the swing height. The foothold is the hip's
        predicted place at touchdown, plus the rest stance offset, plus half
        the stance stride at the commanded speed, plus the inverted-pendulum
        correction for the speed error (sagittal) and sideways drift."""
        p, limb = self.params, self.order[i]
        u = (t - self.lift_time[i]) / self.swing_time[i]
        left = max(0.0, self.swing_time[i] - (t - self.lift_time[i]))
        hip = d.xpos[limb.bodies[0]] + self.vel * left
        h, off = self.hip_height, self.foot_offset[i]
        v_f, v_l = float(self.vel @ fwd), float(self.vel @ lat)
        stance = (1.0 - graph.swing[i]) * period
        ahead = off[0] + speed * stance / 2 + p.ipm_sagittal * (ipm_offset(v_f, h) - ipm_offset(speed, h))
        target = hip + ahead * fwd + (off[1] + p.ipm_coronal * ipm_offset(v_l, h)) * lat
        b = swing_blend(u)
        foot = (1 - b) * self.lift_at[i] + b * target
        lift = gait.lift_height[0 if i < 2 else 1]
        # Late: keep reaching down until the foot finds the ground.
        foot[2] = swing_height(min(u, 1.0), lift) - (gait.reach(speed) * (u - 1.0) if u > 1.0 else 0.0)
        return foot

    def _support(self, m, d, com, err, speed: float, fwd, lat, gait: Gait, frame_q, qfrc) -> None:
        """The body wrench (weight, speed force, a soft pull toward the
        reference position, height and trunk-orientation PDs) shared among
        the stance feet and applied through their Jacobians; the stance
        limbs' servos are softened to ``stance_kp`` so they do not fight it."""
        p = self.params
        stance = [i for i in range(4) if self.mode[i] == STANCE]
        mg = self.mass * 9.81
        v = self.vel
        force = self.mass * p.kp_position * np.array([err[0], err[1], 0.0])
        force += p.kv * ((speed - float(v @ fwd)) * fwd - float(v @ lat) * lat)
        z_err = self.com_height + float(np.mean(gait.heights)) - float(com[2])
        force[2] = mg + self.mass * (p.kp_height * z_err - p.kd_height * float(v[2]))
        inertia = self.mass * (self.span / 2) ** 2  # kg m², the trunk turning about its middle
        torque = np.zeros(3)
        for k, b in enumerate(self.frames):
            e = Q.to_rotvec(Q.mul(frame_q[k], Q.conj(d.xquat[b])))
            torque += 0.5 * inertia * (p.orient_freq ** 2 * e
                                       - 2.0 * p.orient_damping * p.orient_freq * d.cvel[b][:3])
        feet = np.array([d.site_xpos[self.order[i].site] - com for i in stance])
        forces = distribute(feet, force, torque, friction=p.friction, min_push=0.02 * mg / max(1, len(stance)),
                            max_push=p.max_push * mg, regularize=p.regularize)
        for i, f in zip(stance, forces):
            self.vf.at_site(d, self.order[i], f, qfrc)
        for i in range(4):
            if self.mode[i] != self.servo_mode[i]:  # a limb landed or lifted: re-gain its servos
                joints, dofs = self.limb_joints[i], self.vf.cols[LIMBS[i]]
                scale = p.stance_kp if self.mode[i] == STANCE else 1.0
                m.jnt_stiffness[joints] = self.kp[joints] * scale
                m.dof_damping[dofs] = self.kd[dofs] * scale
                self.servo_mode[i] = self.mode[i]

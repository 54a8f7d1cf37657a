"""Hopping and jumping of the planar kangaroo (Raibert & Hodgins 1991, §4
"Kangaroo control"), on the ``kangaroo`` creature.

Joints: hip = ``thigh``, knee = ``shin``, ankle = ``foot`` (the energy store),
tail base ``tail1`` (+ passive ``tail2``, ``tail3``), ``head``. Angles below are
world pitches about +y (positive turns a link's +x axis down). The state
machine is RH91 Fig. 4 (``fsm.PhaseMachine``) on the virtual leg hip-to-toe.

- Hopping (Eqs. 1-2): the ankle spring's rest angle is the programmable rest
  length. From touchdown to UNLOADING it is set each tick so that strain +
  elevation + vertical kinetic energy equal M g h for the apex h wanted (Eq. 2
  used as a feedback law; energy is only ever added, and a per-hop integral on
  the measured apex absorbs the losses); in UNLOADING the rest is held.
- Thrust line: in stance the hip servo keeps the knee on the line from the
  toe through the centre of mass; the knee adds the torque that turns the
  ground force onto that line when the knee is off it (shin and foot taken as
  massless; the force comes from the ankle spring's torque and lever).
- Posture (Eq. 4): knee torque in stance; the rate is the whole-body rate
  L / I (angular momentum about the COM over the pitch inertia), so that leg
  and tail swings do not read as trunk rotation.
- Speed (Eq. 3): in flight hip, knee and ankle servo the toe to x_fh,d ahead
  of the COM with the knee already on the toe-to-COM line, the leg shortened
  while rising; T_s is a running mean of measured stances; a per-hop integral
  of the speed error removes the bias of the neutral-point estimate.
- Tail: the base joint's rest angle steps down in stance and up in flight;
  the three tail springs are scaled together so that the tail's first mode
  (trunk held) has the hop period; the head is servoed level.
- Jump (``JumpPlan``): extra states: approach hops adjust their flights to
  reach a take-off spot, the take-off stance has a stiffer ankle and a higher
  apex, the leg stays tucked over the box, the landing stance has extra ankle
  damping, then hopping resumes. ``state`` reads e.g. ``jump_takeoff:thrust``.

Timing: physics 1 ms, control every 6 ms. A 2 ms (or 1.5 ms) step falls at 3.5-4.5 m/s;
``armature`` 0.02 kg m² lets 2 ms hop 60 s at 0.5-4.5 m/s but fails the jump.
The runs start in flight at ``start_speed`` and ramp the desired speed.

Modules: this one holds the hop controller and its factory; the gains are in
:mod:`kangaroo_gains`, the leg geometry in :mod:`kangaroo_geometry`, the jump
in :mod:`kangaroo_jump` and the Fig. 6 helpers in :mod:`kangaroo_fig6` (all
re-exported here). Per-tick code reads preallocated row views of ``MjData``
and plain floats: the physics between ticks costs only about 60 µs.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import fields, replace

import mujoco
import numpy as np

from gaitforge.control.raibert.common import trunk_fall_check
from gaitforge.control.raibert.fsm import Phase, PhaseMachine, StanceTimer
from gaitforge.control.raibert.kangaroo_fig6 import fig6_data, leg_angles
from gaitforge.control.raibert.kangaroo_gains import SPEED_RANGES, KangarooGains
from gaitforge.control.raibert.kangaroo_geometry import PARENT, landing_pose, pitch, thrust_line_thigh
from gaitforge.control.raibert.kangaroo_setup import pitch_inertia, tune_tail
from gaitforge.control.raibert.kangaroo_jump import JumpPlan, JumpStages, with_obstacle
from gaitforge.control.raibert.toolbox import G
from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import set_time_constant
from gaitforge.errors import GaitforgeError

__all__ = ["SPEED_RANGES", "JumpPlan", "KangarooGains", "KangarooHop", "fall_check", "fig6_data", "landing_pose",
           "leg_angles", "make_controller", "thrust_line_thigh", "with_obstacle"]

_FLIGHT, _UNLOADING = Phase.FLIGHT, Phase.UNLOADING


class KangarooHop(JumpStages):
    """The kangaroo's hopping (and jumping) controller; see the module docstring.

    ``speed`` [m/s] is the desired forward speed; ``touch_sensor(data) -> bool``
    replaces MuJoCo's foot contacts (used with ``footmodel``)."""

    def __init__(self, character: Character, speed: float, gains: KangarooGains | None = None,
                 jump: JumpPlan | None = None, touch_sensor=None):
        self.character, self.speed, self.jump = character, float(speed), jump
        self.g = gains or KangarooGains()
        self.touch_sensor = touch_sensor
        m = character.model
        self.b = {n: m.body(n).id for n in ("trunk", "thigh", "shin", "foot", "tail1", "head")}
        self.j = {n: character.joints[n] for n in PARENT}
        self.qa = {n: jd.qpos.start for n, jd in self.j.items()}
        self.da = {n: jd.dof.start for n, jd in self.j.items()}
        self.mj = {n: jd.mj_joints[0] for n, jd in self.j.items()}
        self.toe = character.contacts["foot"]
        self.mass = character.mass
        self.l1 = float(np.linalg.norm(m.body_pos[self.b["shin"]]))
        self.l2 = float(np.linalg.norm(m.body_pos[self.b["foot"]]))
        tx, tz = float(m.site_pos[self.toe][0]), float(m.site_pos[self.toe][2])
        self.r_toe, self.toe_angle = math.hypot(tx, tz), math.atan2(-tz, tx)
        self.fsm = PhaseMachine(compress_eps=self.g.compress_eps)
        self.stage, self._for = None, None

    # ------------------------------------------------------------- protocol
    @property
    def state(self) -> str:
        return self.fsm.phase.value if self.stage in (None, "done") else f"jump_{self.stage}:{self.fsm.phase.value}"

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        g, qa = self.g, self.qa
        mujoco.mj_kinematics(model, data)
        xm = data.xmat
        self.off = {n: pitch(xm[self.b[n]]) - pitch(xm[self.b[p]]) - data.qpos[qa[n]] for n, p in PARENT.items()}
        self._off_thigh, self._off_shin, self._off_foot = (float(self.off[n]) for n in ("thigh", "shin", "foot"))
        self.rest = model.qpos_spring.copy()
        # Per-tick constants: set points that only depend on the phase, and indices.
        self._tail_set = (float(self.rest[qa["tail1"]] + g.tail_lift + -g.tail_amplitude),   # stance
                          float(self.rest[qa["tail1"]] + g.tail_lift + g.tail_amplitude))     # flight
        self._head_rest = float(self.rest[qa["head"]])
        self._dv = g.accel * g.control_dt
        self._i_thigh, self._i_shin, self._i_foot = qa["thigh"], qa["shin"], qa["foot"]
        self._i_tail, self._i_head, self._d_knee, self._k_foot = qa["tail1"], qa["head"], self.da["shin"], self.mj["foot"]
        self.ankle_k0 = float(model.jnt_stiffness[self.mj["foot"]])
        self.ankle_b0 = float(model.dof_damping[self.da["foot"]])
        self.foot_geoms = {i for i in range(model.ngeom) if model.geom_bodyid[i] == self.b["foot"]}
        if g.contact_timeconst > 0.0:
            set_time_constant(model, g.contact_timeconst)
        if g.armature > 0.0:
            model.dof_armature[3:] += g.armature
        self.tail_stiffness = tune_tail(model, data, self.character, g.tail_period,
                                        g.tail_damping_ratio)
        self.I_pitch = pitch_inertia(model, data, self.b["trunk"])
        self.fsm = PhaseMachine(compress_eps=g.compress_eps)
        self.timer = StanceTimer(default=g.stance_guess)
        self.stance_avg, self.x_offset, self.apex_bias = g.stance_guess, 0.0, 0.0
        self.v_cmd = min(self.speed, g.start_speed)
        self.apex, self.td_com_z, self.last_event = -math.inf, None, -math.inf
        self.rest_len, self.prev_len, self.apex_target = 0.0, None, None
        self.ankle_rest = self.td_rest = float(self.rest[qa["foot"]])
        self.stage = None
        self._bind(model, data)
        self._stance_gains(model, False)
        self._start(model, data)

    def _start(self, model, data) -> None:
        """Start in flight, toe a little above the ground, leg set for landing,
        moving forward at the starting speed (the animator's initial state)."""
        mujoco.mj_forward(model, data)
        bt = self.b["trunk"]
        for _ in range(3):
            q = self._flight_targets(self.v_cmd, -1.0, data.subtree_com[bt].tolist(),
                                     data.xpos[self.b["thigh"]].tolist(), pitch(data.xmat[bt]))
            data.qpos[self._i_thigh], data.qpos[self._i_shin], data.qpos[self._i_foot] = q
            mujoco.mj_forward(model, data)
        jx, jz = model.joint("trunk_x").id, model.joint("trunk_z").id
        A = np.array([[data.xaxis[jx][0], data.xaxis[jz][0]], [data.xaxis[jx][2], data.xaxis[jz][2]]])
        data.qpos[0:2] += np.linalg.solve(A, [0.0, 0.12 * self.g.leg_length_td - data.site_xpos[self.toe][2]])
        data.qvel[0:2] = np.linalg.solve(A, [self.v_cmd, 0.0])
        mujoco.mj_forward(model, data)

    def _bind(self, model, data) -> None:
        """Keep views of the rows read each tick: building a view from an
        MjData attribute costs more than the arithmetic done with it."""
        self._for, b = data, self.b
        self._r_com, self._r_lin = data.subtree_com[b["trunk"]], data.subtree_linvel[b["trunk"]]
        self._r_ang, self._r_xmat = data.subtree_angmom[b["trunk"]], data.xmat[b["trunk"]]
        self._r_hip, self._r_knee, self._r_ankle = data.xpos[b["thigh"]], data.xpos[b["shin"]], data.xpos[b["foot"]]
        self._r_toe = data.site_xpos[self.toe]
        self.v_qpos, self.v_frc, self.v_qs, self.v_k = data.qpos, data.qfrc_applied, model.qpos_spring, model.jnt_stiffness

    # --------------------------------------------------------------- pieces
    def _stance_gains(self, model, stance: bool) -> None:
        g, k, c = self.g, model.jnt_stiffness, model.dof_damping
        k[self.mj["thigh"]], c[self.da["thigh"]] = (g.hip_kp_stance, g.hip_kv_stance) if stance else (g.hip_kp, g.hip_kv)
        k[self.mj["shin"]], c[self.da["shin"]] = (0.0, 0.0) if stance else (g.knee_kp, g.knee_kv)
        k[self.mj["head"]], c[self.da["head"]] = g.head_kp, g.head_kv
        stiff = self.jump is not None and self.stage == "takeoff" and stance
        soft = self.jump is not None and self.stage == "landing" and stance
        k[self.mj["foot"]] = self.ankle_k0 * (self.jump.stiffness_factor if stiff else 1.0)
        c[self.da["foot"]] = self.ankle_b0 * (self.jump.landing_damping_factor if soft else 1.0)

    def _flight_targets(self, vx: float, vz: float, com, hip, trunk: float) -> tuple[float, float, float]:
        """Eq. 3: hip, knee and ankle rest angles [rad] for the landing toe
        spot, written to the spring set points and returned. com, hip: (3,)
        world [m] lists; trunk: its world pitch [rad]."""
        g, stage = self.g, self.stage
        # Eq. 3 (toolbox.foot_placement in scalar form: numpy costs more than the sum).
        xf = vx * self.stance_avg / 2.0 + g.k_x * (vx - self.v_cmd) + self.x_offset
        if stage == "approach" and self.last_approach:  # a take-off foot nearer the COM brakes less
            xf *= self.jump.takeoff_placement
        L = g.leg_length_td
        floor = 0.0
        if stage == "flight" and com[0] < self.jump.near_x + self.jump.depth + self.r_toe:
            floor = self.jump.height
        if vz > 0.0 or floor > 0.0:  # tucked while rising or over the box
            L = max(0.6 * L, min(L, hip[2] - floor - g.swing_clearance))
        px = max(-0.8 * L, min(0.8 * L, com[0] + xf - hip[0]))
        th1, th2, th3 = landing_pose((px, -math.sqrt(L * L - px * px)), (com[0] - hip[0], com[2] - hip[2]),
                                     self.l1, self.l2, self.r_toe)
        q0, q1 = th1 - trunk - self._off_thigh, th2 - th1 - self._off_shin
        q2 = th3 - self.toe_angle - th2 - self._off_foot
        qs = self.v_qs
        qs[self._i_thigh], qs[self._i_shin], qs[self._i_foot] = q0, q1, q2
        self.ankle_rest = q2
        return q0, q1, q2

    def _knee_line_torque(self, com, toe) -> float:
        """Knee torque [N m] that turns the ground force onto the toe-to-COM
        line (massless shin and foot; force from the ankle torque and lever)."""
        knee, ankle = self._r_knee.tolist(), self._r_ankle.tolist()
        wx, wz = com[0] - toe[0], com[2] - toe[2]
        n = math.hypot(wx, wz)
        wx, wz = wx / n, wz / n
        j = self._i_foot
        tau_a = float(self.v_k[self._k_foot] * (self.v_qs[j] - self.v_qpos[j]))
        lever = (toe[2] - ankle[2]) * wx - (toe[0] - ankle[0]) * wz
        if abs(lever) < 0.01 * self.r_toe:
            return 0.0
        f = min(max(-tau_a / lever, 0.0), 20.0 * self.mass * G)
        return f * ((knee[2] - toe[2]) * wx - (knee[0] - toe[0]) * wz)

    def _touching(self, data) -> bool:
        if self.touch_sensor is not None:
            return bool(self.touch_sensor(data))
        if data.ncon == 0:
            return False
        return not self.foot_geoms.isdisjoint(data.contact.geom.ravel().tolist())

    # ------------------------------------------------------------------ tick
    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        g = self.g
        t = data.time
        self.v_cmd = min(self.speed, self.v_cmd + self._dv)
        if self._for is not data:
            self._bind(model, data)
        mujoco.mj_subtreeVel(model, data)
        com = self._r_com.tolist()
        vx, _, vz = self._r_lin.tolist()
        toe = self._r_toe.tolist()
        hip = self._r_hip.tolist()
        fsm = self.fsm
        old = fsm.phase
        touching = self._touching(data) if t - self.last_event >= g.debounce else old is not _FLIGHT
        leg = math.hypot(hip[0] - toe[0], hip[2] - toe[2])
        rate = 0.0 if self.prev_len is None else (leg - self.prev_len) / g.control_dt
        self.prev_len = leg
        if touching or old is not _FLIGHT:  # (nothing can change in the air)
            phase = fsm.update(t, touching, leg, rate, self.rest_len)
            if phase is not old:
                self._transition(model, phase, t, leg, com, toe, vx)
        else:
            phase = old
        xm, qs = self._r_xmat, self.v_qs
        trunk = math.atan2(-xm[6], xm[0])
        qs[self._i_tail] = self._tail_set[phase is _FLIGHT]
        qs[self._i_head] = self._head_rest - (trunk - g.pitch_desired)
        if phase is _FLIGHT:
            if com[2] > self.apex:
                self.apex = com[2]
            self._flight_targets(vx, vz, com, hip, trunk)
            self.v_frc[self._d_knee] = 0.0
            return
        qs[self._i_thigh] = (thrust_line_thigh((hip[0], hip[2]), (toe[0], toe[2]), (com[0], com[2]), self.l1)
                             - trunk - self._off_thigh)
        rate_body = float(self._r_ang[1]) / self.I_pitch
        tau = -g.posture_kp * (trunk - g.pitch_desired) - g.posture_kv * rate_body  # Eq. 4, scalar form
        self.v_frc[self._d_knee] = -tau + self._knee_line_torque(com, toe)
        if phase is _UNLOADING:  # no more thrust: a foot that kept extending would never leave the ground
            return
        # Eq. 2 as a feedback law: rest angle giving the energy for the wanted apex.
        j = self._i_foot
        k = float(self.v_k[self._k_foot])
        need = max(0.0, self.mass * G * (self._apex_wanted(com[2]) - com[2]) - 0.5 * self.mass * vz * vz)
        if self.stage == "takeoff":
            need *= self.jump.energy_factor  # losses grow with the thrust
        rest = float(self.v_qpos[j]) + math.sqrt(2.0 * need / k)
        # Energy is only added: lowering the rest early would unload the leg and cut the stance short.
        self.ankle_rest = min(max(rest, self.td_rest), self.td_rest + g.ankle_thrust_max)
        qs[j] = self.ankle_rest

    def _transition(self, model, phase: Phase, t: float, leg: float, com, toe, vx: float) -> None:
        g = self.g
        if phase is Phase.LOADING:
            self.last_event = t
            self.timer.touchdown(t)
            self.rest_len, self.td_rest = leg, self.ankle_rest
            if math.isfinite(self.apex) and self.td_com_z is not None and self.stage in (None, "done"):
                self.apex_bias += g.apex_gain * (self.td_com_z + G * g.flight_time ** 2 / 8.0 - self.apex)
            self.td_com_z = com[2]
            if self.stage == "flight":
                self.stage = "landing"
            elif self.jump is not None and self.stage in (None, "approach"):
                self._plan_jump(toe[0], vx, com[2])
            self._stance_gains(model, True)
        elif phase is Phase.FLIGHT:
            self.last_event = t
            self.timer.liftoff(t)
            self.stance_avg += g.stance_smoothing * (self.timer.predicted_stance - self.stance_avg)
            if self.stage in (None, "done"):
                self.x_offset += g.k_xi * (vx - self.v_cmd)
            self.stage = {"takeoff": "flight", "landing": "done"}.get(self.stage, self.stage)
            self.apex = -math.inf
            self._stance_gains(model, False)


def make_controller(character: Character, gait: str, speed: float, **options) -> KangarooHop:
    """The kangaroo controller for ``gait`` (``hop``) at ``speed`` [m/s]
    (clamped to ``SPEED_RANGES`` with a warning). Options: ``gains``
    (KangarooGains), ``jump`` (JumpPlan), ``touch_sensor``, or any
    KangarooGains field name to override it."""
    if gait not in SPEED_RANGES:
        raise GaitforgeError(f"unknown kangaroo gait {gait!r} (valid gaits: {', '.join(SPEED_RANGES)})")
    lo, hi = SPEED_RANGES[gait]
    if not lo <= speed <= hi:
        warnings.warn(f"kangaroo {gait}: desired speed {speed} m/s is outside [{lo}, {hi}] m/s; "
                      f"clamped to {min(max(speed, lo), hi)} m/s", stacklevel=2)
        speed = min(max(speed, lo), hi)
    gains = options.pop("gains", None) or KangarooGains()
    jump, sensor = options.pop("jump", None), options.pop("touch_sensor", None)
    names = {f.name for f in fields(KangarooGains)}
    unknown = sorted(set(options) - names)
    if unknown:
        raise GaitforgeError(f"unknown kangaroo option(s) {', '.join(unknown)} "
                             f"(valid: gains, jump, touch_sensor, {', '.join(sorted(names))})")
    return KangarooHop(character, speed, replace(gains, **options), jump=jump, touch_sensor=sensor)


def fall_check(character: Character):
    """Fall detector: trunk below 40 % of its rest height or pitched more than
    60° from level."""
    trunk = character.model.body("trunk").id
    return trunk_fall_check(0.4 * float(character.make_data().xpos[trunk][2]), math.radians(60.0), trunk)

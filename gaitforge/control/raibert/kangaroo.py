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

Timing: physics 1 ms, control every 6 ms (2 ms physics loses the high speeds).
The runs start in flight at ``start_speed`` and ramp the desired speed.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, fields, replace

import mujoco
import numpy as np
import scipy.linalg

from gaitforge.control.raibert.common import trunk_fall_check
from gaitforge.control.raibert.fsm import Phase, PhaseMachine, StanceTimer
from gaitforge.control.raibert.toolbox import G
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError

SPEED_RANGES: dict[str, tuple[float, float]] = {"hop": (0.5, 4.5)}


def _q(quantity: str | None, default):
    """A gains field tagged with its Table 1 quantity (None: dimensionless)."""
    return field(default=default, metadata={"quantity": quantity})


@dataclass(frozen=True)
class KangarooGains:
    """Gains of the kangaroo controller; each field's metadata names its
    RH91 Table 1 quantity, so ``scaled.scale_gains`` can resize them."""

    timestep: float = _q("time", 0.001)          # physics step [s]
    control_dt: float = _q("time", 0.006)        # control interval [s]
    k_x: float = _q("time", 0.06)                # Eq. 3 gain [s]
    k_xi: float = _q("time", 0.015)              # per-hop integral of the speed error [s]
    start_speed: float = _q("velocity", 1.5)     # runs start at this speed (or the desired, if lower) [m/s]
    accel: float = _q("acceleration", 0.5)       # the desired speed then ramps at this rate [m/s²]
    stance_guess: float = _q("time", 0.11)       # T_s before the first stance [s]
    stance_smoothing: float = _q(None, 0.3)      # weight of the newest stance in T_s's running mean
    debounce: float = _q("time", 0.03)           # contact changes ignored this soon after the last [s]
    compress_eps: float = _q("length", 0.004)    # leg shortening that starts COMPRESSION [m]
    leg_length_td: float = _q("length", 0.42)    # hip-to-toe length at touchdown [m]
    swing_clearance: float = _q("length", 0.08)  # toe height kept while the leg swings up [m]
    flight_time: float = _q("time", 0.24)        # wanted flight duration [s]
    apex_gain: float = _q(None, 0.5)             # per-hop integral gain on the apex error
    ankle_thrust_max: float = _q("angle", 0.8)   # largest change of the ankle rest in stance [rad]
    hip_kp: float = _q("torsional_stiffness", 150.0)        # hip servo in flight (Eq. 5)
    hip_kv: float = _q("torsional_damping", 3.0)
    hip_kp_stance: float = _q("torsional_stiffness", 400.0)  # hip servo keeping the thrust line
    hip_kv_stance: float = _q("torsional_damping", 6.0)
    knee_kp: float = _q("torsional_stiffness", 100.0)       # knee servo in flight
    knee_kv: float = _q("torsional_damping", 2.0)
    posture_kp: float = _q("torsional_stiffness", 20.0)     # Eq. 4 at the knee in stance
    posture_kv: float = _q("torsional_damping", 5.0)
    pitch_desired: float = _q("angle", -0.30)    # trunk world pitch [rad] (the built rest pose)
    tail_amplitude: float = _q("angle", 0.15)    # step of the tail base rest angle [rad]
    tail_lift: float = _q("angle", 0.3)          # tail base rest raised above the built pose [rad]
    tail_period: float = _q("time", 0.35)        # tail's first-mode period, trunk held [s]
    tail_damping_ratio: float = _q(None, 0.6)
    head_kp: float = _q("torsional_stiffness", 3.0)
    head_kv: float = _q("torsional_damping", 0.03)
    contact_timeconst: float = _q("time", 0.02)  # MuJoCo contact solref time constant [s]


@dataclass(frozen=True)
class JumpPlan:
    """Jump over a box whose near face is at x = ``near_x`` [m], ``depth`` [m]
    long and ``height`` [m] tall. The take-off stance uses an ankle
    ``stiffness_factor`` times stiffer; the landing stance an ankle damping
    ``landing_damping_factor`` times larger; the COM apex clears the box by
    the tucked leg plus ``clearance`` [m]."""

    near_x: float = field(metadata={"quantity": "length"})
    height: float = field(metadata={"quantity": "length"})
    depth: float = _q("length", 0.1)
    clearance: float = _q("length", 0.08)
    takeoff_gap: float = _q("length", 0.3)      # take-off toe at least this far before the box [m]
    landing_gap: float = _q("length", 0.4)      # landing COM this far past the box [m]
    energy_factor: float = _q(None, 1.5)        # Eq. 2 energy × this at take-off (losses)
    speed_kept: float = _q(None, 0.75)          # forward speed kept through the take-off
    takeoff_placement: float = _q(None, 0.5)    # take-off foot at this fraction of Eq. 3
    stiffness_factor: float = _q(None, 1.5)
    landing_damping_factor: float = _q(None, 4.0)


_PARENT = {"thigh": "trunk", "shin": "thigh", "foot": "shin", "tail1": "trunk", "head": "trunk"}


def _pitch(xmat_row) -> float:
    """World pitch [rad] of a body's +x axis from its xmat row (9,)."""
    return math.atan2(-xmat_row[6], xmat_row[0])


def landing_pose(toe, com, l1: float, l2: float, r_toe: float) -> tuple[float, float, float]:
    """World pitches (thigh, shin, toe direction from the ankle) [rad] that put
    the toe at ``toe`` = (x, z) [m] relative to the hip with the knee on the
    line from the toe toward ``com`` (x, z, relative to the hip), thigh ``l1``
    and shin ``l2`` long, the toe ``r_toe`` from the ankle, ankle behind the
    knee-toe line (heel up). Unreachable targets are clamped."""
    px, pz = toe
    wx, wz = com[0] - px, com[1] - pz
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    pw = px * wx + pz * wz
    s = -pw - math.sqrt(max(0.0, pw * pw - (px * px + pz * pz) + l1 * l1))
    kx, kz = px + s * wx, pz + s * wz
    ex, ez = px - kx, pz - kz
    e = math.hypot(ex, ez)
    ux, uz = ex / e, ez / e
    d = max(abs(l2 - r_toe) + 1e-9, min(l2 + r_toe - 1e-9, e))
    along = (l2 * l2 - r_toe * r_toe + d * d) / (2.0 * d)
    h = math.sqrt(max(0.0, l2 * l2 - along * along))
    ax, az = kx + along * ux + h * uz, kz + along * uz - h * ux
    return (math.atan2(-kz, kx), math.atan2(-(az - kz), ax - kx), math.atan2(-(pz - az), px - ax))


def thrust_line_thigh(hip, toe, com, l1: float) -> float:
    """World pitch [rad] of a thigh of length ``l1`` from ``hip`` whose far end
    (the knee) lies on the line from ``toe`` through ``com`` (points (x, z)),
    on the toe side of the hip."""
    wx, wz = com[0] - toe[0], com[1] - toe[1]
    n = math.hypot(wx, wz)
    wx, wz = wx / n, wz / n
    hx, hz = hip[0] - toe[0], hip[1] - toe[1]
    s = wx * hz - wz * hx
    t = hx * wx + hz * wz - math.sqrt(max(0.0, l1 * l1 - s * s))
    return math.atan2(-(t * wz - hz), t * wx - hx)


class KangarooHop:
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
        self.j = {n: character.joints[n] for n in _PARENT}
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
        g = self.g
        mujoco.mj_kinematics(model, data)
        xm = data.xmat
        self.off = {n: _pitch(xm[self.b[n]]) - _pitch(xm[self.b[p]]) - data.qpos[self.qa[n]]
                    for n, p in _PARENT.items()}
        self.rest = model.qpos_spring.copy()
        self.ankle_k0 = float(model.jnt_stiffness[self.mj["foot"]])
        self.ankle_b0 = float(model.dof_damping[self.da["foot"]])
        self.foot_geoms = {i for i in range(model.ngeom) if model.geom_bodyid[i] == self.b["foot"]}
        if g.contact_timeconst > 0.0:
            model.geom_solref[:, 0] = g.contact_timeconst
        self._tune_tail(model, data)
        self.I_pitch = self._pitch_inertia(model, data)
        self.fsm = PhaseMachine(compress_eps=g.compress_eps)
        self.timer = StanceTimer(default=g.stance_guess)
        self.stance_avg, self.x_offset, self.apex_bias = g.stance_guess, 0.0, 0.0
        self.v_cmd = min(self.speed, g.start_speed)
        self.apex, self.td_com_z, self.last_event = -math.inf, None, -math.inf
        self.rest_len, self.prev_len, self.apex_target = 0.0, None, None
        self.ankle_rest = self.td_rest = float(self.rest[self.qa["foot"]])
        self.stage = None
        self._bind(model, data)
        self._stance_gains(model, False)
        self._start(model, data)

    def _start(self, model, data) -> None:
        """Start in flight, toe a little above the ground, leg set for landing,
        moving forward at the starting speed (the animator's initial state)."""
        mujoco.mj_forward(model, data)
        for _ in range(3):
            self._flight_targets(model, data, self.v_cmd, -1.0, place=True)
            mujoco.mj_forward(model, data)
        jx, jz = model.joint("trunk_x").id, model.joint("trunk_z").id
        A = np.array([[data.xaxis[jx][0], data.xaxis[jz][0]], [data.xaxis[jx][2], data.xaxis[jz][2]]])
        data.qpos[0:2] += np.linalg.solve(A, [0.0, 0.12 * self.g.leg_length_td - data.site_xpos[self.toe][2]])
        data.qvel[0:2] = np.linalg.solve(A, [self.v_cmd, 0.0])
        mujoco.mj_forward(model, data)

    def _tune_tail(self, model, data) -> None:
        """Scale the three tail springs by one factor so the tail's first mode
        (trunk held) has period ``tail_period``; damping to the ratio."""
        names = ("tail1", "tail2", "tail3")
        jid = [self.character.joints[n].mj_joints[0] for n in names]
        dof = [self.character.joints[n].dof.start for n in names]
        M = np.zeros((model.nv, model.nv))
        mujoco.mj_forward(model, data)
        mujoco.mj_fullM(model, data, M)
        Mt = M[np.ix_(dof, dof)]
        k = np.array([float(model.jnt_stiffness[j]) for j in jid])
        scale = (2.0 * math.pi / self.g.tail_period) ** 2 / scipy.linalg.eigh(np.diag(k), Mt, eigvals_only=True)[0]
        for j, i, kk, mm in zip(jid, dof, k * scale, np.diag(Mt)):
            model.jnt_stiffness[j] = kk
            model.dof_damping[i] = 2.0 * self.g.tail_damping_ratio * math.sqrt(kk * mm)
        self.tail_stiffness = tuple(float(x) for x in k * scale)

    def _pitch_inertia(self, model, data) -> float:
        """Whole-body moment of inertia [kg m²] about the COM, y axis, rest pose."""
        c = data.subtree_com[self.b["trunk"]]
        total = 0.0
        for b in range(1, model.nbody):
            R = data.ximat[b].reshape(3, 3)
            r = data.xipos[b] - c
            total += float((R @ np.diag(model.body_inertia[b]) @ R.T)[1, 1]) + model.body_mass[b] * (r[0] ** 2 + r[2] ** 2)
        return total

    def _bind(self, model, data) -> None:
        """Keep the arrays read each tick (attribute lookups on MjData cost
        as much as the arithmetic)."""
        self._for = data
        self.v_xpos, self.v_xmat, self.v_site = data.xpos, data.xmat, data.site_xpos
        self.v_com, self.v_lin, self.v_ang = data.subtree_com, data.subtree_linvel, data.subtree_angmom
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

    def _flight_targets(self, model, data, vx: float, vz: float, place: bool = False) -> None:
        """Eq. 3: hip, knee and ankle rest angles for the landing toe spot."""
        g = self.g
        if self._for is not data:
            self._bind(model, data)
        com = self.v_com[self.b["trunk"]].tolist()
        hip = self.v_xpos[self.b["thigh"]].tolist()
        # Eq. 3 (toolbox.foot_placement in scalar form: numpy costs more than the sum).
        xf = vx * self.stance_avg / 2.0 + g.k_x * (vx - self.v_cmd) + self.x_offset
        if self.stage == "approach" and self.last_approach:  # a take-off foot nearer the COM brakes less
            xf *= self.jump.takeoff_placement
        L = g.leg_length_td
        over = self.stage == "flight" and com[0] < self.jump.near_x + self.jump.depth + self.r_toe
        floor = self.jump.height if over else 0.0
        if vz > 0.0 or floor > 0.0:  # tucked while rising or over the box
            L = max(0.6 * L, min(L, hip[2] - floor - g.swing_clearance))
        px = max(-0.8 * L, min(0.8 * L, com[0] + xf - hip[0]))
        th1, th2, th3 = landing_pose((px, -math.sqrt(L * L - px * px)), (com[0] - hip[0], com[2] - hip[2]),
                                     self.l1, self.l2, self.r_toe)
        trunk = _pitch(self.v_xmat[self.b["trunk"]])
        q = (th1 - trunk - self.off["thigh"], th2 - th1 - self.off["shin"],
             th3 - self.toe_angle - th2 - self.off["foot"])
        qs, qa = self.v_qs, self.qa
        qs[qa["thigh"]], qs[qa["shin"]], qs[qa["foot"]] = q
        if place:
            data.qpos[qa["thigh"]], data.qpos[qa["shin"]], data.qpos[qa["foot"]] = q
        self.ankle_rest = q[2]

    def _knee_line_torque(self, model, data, com, toe) -> float:
        """Knee torque [N m] that turns the ground force onto the toe-to-COM
        line (massless shin and foot; force from the ankle torque and lever)."""
        knee, ankle = self.v_xpos[self.b["shin"]].tolist(), self.v_xpos[self.b["foot"]].tolist()
        wx, wz = com[0] - toe[0], com[2] - toe[2]
        n = math.hypot(wx, wz)
        wx, wz = wx / n, wz / n
        j = self.qa["foot"]
        tau_a = float(self.v_k[self.mj["foot"]] * (self.v_qs[j] - self.v_qpos[j]))
        lever = (toe[2] - ankle[2]) * wx - (toe[0] - ankle[0]) * wz
        if abs(lever) < 0.01 * self.r_toe:
            return 0.0
        f = min(max(-tau_a / lever, 0.0), 20.0 * self.mass * G)
        return f * ((knee[2] - toe[2]) * wx - (knee[0] - toe[0]) * wz)

    def _touching(self, data) -> bool:
        if self.touch_sensor is not None:
            return bool(self.touch_sensor(data))
        n = data.ncon
        if n == 0:
            return False
        fg = self.foot_geoms
        return any(a in fg or b in fg for a, b in data.contact.geom[:n].tolist())

    def _apex_wanted(self, com_z: float) -> float:
        """COM apex [m] wanted after this stance (normal hop or jump take-off)."""
        if self.stage == "takeoff":
            return self.apex_target
        t_fly = self.t_approach if self.stage == "approach" else self.g.flight_time
        return self.td_com_z + G * t_fly ** 2 / 8.0 + self.apex_bias

    def _plan_jump(self, toe_x: float, vx: float, com_z: float) -> None:
        """At a touchdown before the box. Up to four strides early
        ("approach") flights are lengthened or shortened so that a touchdown
        lands ``takeoff_gap`` plus 40 % of a stride before the near face; that
        stance is the take-off. Its flight must carry the COM from liftoff
        (half a stance sweep ahead of the toe) to ``landing_gap`` past the far
        face with the tucked toe above the box: the higher apex wins."""
        jp, g = self.jump, self.g
        ahead, vx = jp.near_x - toe_x, max(vx, 0.1)
        stride = vx * (self.stance_avg + g.flight_time)
        if 0.0 < ahead <= jp.takeoff_gap + 0.8 * stride:  # (too close is still better jumped)
            # The take-off stance brakes the body: plan with the speed it keeps.
            t_fly = (ahead + jp.depth + jp.landing_gap - 0.5 * vx * self.stance_avg) / (jp.speed_kept * vx)
            # Lift-off is about 0.15 leg lengths above touchdown, the landing at touchdown height.
            drop = 0.15 * g.leg_length_td
            over_box = jp.height + 0.65 * g.leg_length_td + jp.clearance
            self.apex_target = max(over_box, com_z + drop + max(0.0, G * t_fly ** 2 / 8.0 - 0.5 * drop))
            self.stage = "takeoff"
        elif jp.takeoff_gap + 0.8 * stride < ahead <= jp.takeoff_gap + 4.0 * stride:
            # Spread the distance to the take-off spot over whole strides.
            to_go = ahead - jp.takeoff_gap - 0.4 * stride
            hops = max(1, round(to_go / stride))
            self.last_approach = hops == 1
            step = to_go / hops
            t_fly = step / vx - self.stance_avg
            self.t_approach = min(max(t_fly, 0.6 * g.flight_time), 1.4 * g.flight_time)
            self.stage = "approach"
        else:
            self.stage = None

    # ------------------------------------------------------------------ tick
    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        g = self.g
        t = data.time
        self.v_cmd = min(self.speed, self.v_cmd + g.accel * g.control_dt)
        if self._for is not data:
            self._bind(model, data)
        mujoco.mj_subtreeVel(model, data)
        bt = self.b["trunk"]
        com = self.v_com[bt].tolist()
        vx, _, vz = self.v_lin[bt].tolist()
        toe = self.v_site[self.toe].tolist()
        hip = self.v_xpos[self.b["thigh"]].tolist()
        touching = self._touching(data) if t - self.last_event >= g.debounce else self.fsm.phase.in_stance
        leg = math.hypot(hip[0] - toe[0], hip[2] - toe[2])
        rate = 0.0 if self.prev_len is None else (leg - self.prev_len) / g.control_dt
        self.prev_len = leg
        old = self.fsm.phase
        phase = self.fsm.update(t, touching, leg, rate, self.rest_len)
        if phase is not old:
            self._transition(model, phase, t, leg, com, toe, vx)
        qs, qa, trunk = self.v_qs, self.qa, _pitch(self.v_xmat[bt])
        qs[qa["tail1"]] = self.rest[qa["tail1"]] + g.tail_lift + (
            -g.tail_amplitude if phase.in_stance else g.tail_amplitude)
        qs[qa["head"]] = self.rest[qa["head"]] - (trunk - g.pitch_desired)
        knee = self.da["shin"]
        if phase is Phase.FLIGHT:
            self.apex = max(self.apex, com[2])
            self._flight_targets(model, data, vx, vz)
            self.v_frc[knee] = 0.0
            return
        qs[qa["thigh"]] = (thrust_line_thigh((hip[0], hip[2]), (toe[0], toe[2]), (com[0], com[2]), self.l1)
                           - trunk - self.off["thigh"])
        rate_body = float(self.v_ang[bt][1]) / self.I_pitch
        tau = -g.posture_kp * (trunk - g.pitch_desired) - g.posture_kv * rate_body  # Eq. 4, scalar form
        self.v_frc[knee] = -tau + self._knee_line_torque(model, data, com, toe)
        j = qa["foot"]
        if phase is Phase.UNLOADING:  # no more thrust: a foot that kept extending would never leave the ground
            return
        # Eq. 2 as a feedback law: rest angle giving the energy for the wanted apex.
        k = float(self.v_k[self.mj["foot"]])
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


def with_obstacle(character: Character, near_x: float, height: float, depth: float = 0.1,
                  width: float = 0.6) -> mujoco.MjModel:
    """A copy of the character's model with a box on the ground: near face at
    x = ``near_x`` [m], ``depth`` long (x), ``height`` tall, ``width`` wide."""
    if character.mjspec is None:
        raise GaitforgeError(f"with_obstacle: {character.name} was not built from a creature spec")
    spec = character.mjspec.copy()
    box = spec.worldbody.add_geom(name="obstacle", type=mujoco.mjtGeom.mjGEOM_BOX,
                                  size=[depth / 2, width / 2, height / 2], pos=[near_x + depth / 2, 0.0, height / 2])
    ground = character.model.geom("ground")
    box.contype, box.conaffinity = int(ground.contype[0]), int(ground.conaffinity[0])
    box.rgba = [0.75, 0.45, 0.25, 1.0]
    return spec.compile()


def leg_angles(character: Character, qpos: np.ndarray) -> dict[str, np.ndarray]:
    """Hip, knee and ankle angles [rad] of frames ``qpos`` (T, nq) (RH91
    Fig. 6 data): hip = thigh pitch relative to the trunk, knee = included
    angle thigh-shin, ankle = included angle shin-foot; each (T,)."""
    d = character.make_data()
    b = {n: character.model.body(n).id for n in ("trunk", "thigh", "shin", "foot")}
    off = {n: _pitch(d.xmat[b[n]]) - _pitch(d.xmat[b[p]]) for n, p in
           (("thigh", "trunk"), ("shin", "thigh"), ("foot", "shin"))}
    q = {n: np.asarray(qpos)[:, character.joints[n].qpos.start] for n in off}
    return {"hip": off["thigh"] + q["thigh"], "knee": math.pi - (off["shin"] + q["shin"]),
            "ankle": math.pi + off["foot"] + q["foot"]}


def fig6_data(character: Character, rollout, hops: int = 3, start: float = 0.0,
              vertical_force: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Arrays for a Fig. 6-like plot from a Rollout: ``hops`` hop cycles from
    the first touchdown after ``start`` [s]: time t (T,) [s] from that
    touchdown, hip/knee/ankle (T,) [rad] (see ``leg_angles``), vertical ground
    force fz (T,) [N] (the rollout's, or ``vertical_force`` (T_all,) e.g. from
    the foot model) and stance (T,) bool."""
    stance = np.array([s.split(":")[-1] != "flight" for s in rollout.states])
    times = rollout.times
    td = np.flatnonzero(~stance[:-1] & stance[1:]) + 1
    td = td[times[td] >= start]
    if len(td) < hops + 1:
        raise GaitforgeError(f"fig6_data: the rollout has {len(td)} touchdowns after t = {start} s, "
                             f"needs {hops + 1}")
    sl = slice(td[0], td[hops] + 1)
    fz = rollout.grf[:, 0, 2] if vertical_force is None else np.asarray(vertical_force)
    out = {"t": times[sl] - times[td[0]], "fz": fz[sl], "stance": stance[sl]}
    out.update({k: v[sl] for k, v in leg_angles(character, rollout.clip.qpos).items()})
    return out

"""Biped running and galloping after Raibert & Hodgins 1991 (RH91 §4): gains,
supported speeds, the factory, and the machinery the gaits share.

The creature is ``raibert_biped`` (trunk, ball hips, telescoping sprung legs).
Each leg is driven the way RH91 drives its robot legs:

- its length by the rest length of its sprung slide joint (``qpos_spring``,
  Eq. 1): lengthened for landing, raised in thrust by the energy the hop
  needs (Eq. 2), shortened to clear the ground;
- its hip by a joint servo (Eq. 5): the hip's own spring-damper with a
  programmable set point, stiffened to ``hip_kp``/``hip_kv`` on the run's
  model copy, swings the leg to where Eq. 3 wants the foot;
- in stance the same hip spring-damper becomes the posture servo (Eq. 4).

RH91's ground model has a torsional spring about the surface normal; the
compiled foot contact has none (``condim`` 3), so ``reset`` gives the feet
``condim`` 4 with torsional friction ``gains.torsion`` [m] on the run's model
copy: without it a yaw torque at the hip only spins the leg about its axis.
Per-tick code uses plain floats and element writes: the physics runs in C
between ticks and the controller must stay cheap next to it.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import mujoco

from gaitforge.control.raibert.common import trunk_fall_check
from gaitforge.control.raibert.paths import PathFollower, WaypointPath
from gaitforge.control.raibert.toolbox import G
from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import set_torsional_friction
from gaitforge.errors import GaitforgeError, UnknownNameError

GAITS = ("run", "gallop_together", "gallop_alternate")
# Desired speeds [m/s] for which 60 s runs were measured to hold the mean
# speed of their last 20 s within 10 % without falling (the ends of each
# range are checked in tests/test_raibert_biped.py). Measured just above:
# run 5.0 m/s fell at 51 s, gallop_together 1.5 at 32 s, gallop_alternate
# 1.25 at 27 s.
SPEED_RANGES: dict[str, tuple[float, float]] = {
    "run": (0.5, 4.0), "gallop_together": (0.5, 1.25), "gallop_alternate": (0.5, 1.0)}
CONTROL_DT = 0.010  # s: three physics steps (raibert_biped: 1/300 s) per control tick
LEG_LENGTH = 0.83  # m: hip to foot tip at slide coordinate 0 (Table 3: 0.20 + 0.63)
SIDES = ("left", "right")


@dataclass(frozen=True)
class BipedGains:
    """Control parameters (SI units), symbols after RH91.

    k_x [s]: Eq. 3 speed gain; stance_default [s]: T_s before one is
    measured; kp_posture/kv_posture [N m/rad, N m s/rad]: Eq. 4 roll and
    pitch servo; kp_yaw/kv_yaw: its yaw part (through the hip twist);
    hip_kp/hip_kv: swing hip servo (Eq. 5); landing/short [m]: slide set
    points (0 = the 0.83 m leg) to land with and to keep a leg clear; apex
    [m]: desired apex of the mass centre (Eq. 2); thrust_max [m]: largest
    thrust extension (the slide stops at +0.10 m); slew [m/s]: rate of all
    other rest-length changes; loss_gain: fraction of each apex error's
    energy added to the learned hop loss; torsion [m]: torsional friction of
    the feet; roll_lead: fraction of a flight's roll pre-compensated in the
    support before it (run); trim_gain, trim_max [m/s]: speed trim learning
    rate and bound; gallop_lag [s]: least delay of the leading footfall
    after the trailing one; gallop_share: share of the energy deficit the
    trailing leg injects.
    """

    k_x: float = 0.08
    stance_default: float = 0.18
    kp_posture: float = 600.0
    kv_posture: float = 50.0
    kp_yaw: float = 30.0
    kv_yaw: float = 16.0
    hip_kp: float = 400.0
    hip_kv: float = 10.0
    landing: float = 0.0
    short: float = -0.15
    apex: float = 0.86
    thrust_max: float = 0.09
    slew: float = 1.5
    loss_gain: float = 0.5
    torsion: float = 0.02
    roll_lead: float = 0.5
    trim_gain: float = 0.3
    trim_max: float = 1.0
    gallop_lag: float = 0.0
    gallop_share: float = 0.5


class _Leg:
    """Where one leg lives in the model: hip ball joint (qpos 4, dof 3), slide
    joint (qpos 1, dof 1), foot sphere geom, hip offset y [m], index."""

    def __init__(self, model: mujoco.MjModel, character: Character, side: str, hip_y: float, index: int):
        upper, lower = character.joints[f"{side}_upper_leg"], character.joints[f"{side}_lower_leg"]
        self.side, self.index, self.hip_y = side, index, hip_y
        self.hip_q, self.hip_d, self.hip_jnt = upper.qpos.start, upper.dof.start, upper.mj_joints[0]
        self.slide_q, self.slide_d, self.slide_jnt = lower.qpos.start, lower.dof.start, lower.mj_joints[0]
        body = model.body(lower.body).id
        self.geoms = tuple(g for g in range(model.ngeom) if model.geom_bodyid[g] == body)
        self.foot = next(g for g in self.geoms if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE)


def quat_to_mat(w: float, x: float, y: float, z: float) -> tuple[float, ...]:
    """Row-major rotation matrix (9 floats) of a unit quaternion (w, x, y, z)."""
    return (1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
            2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
            2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))


def roll_pitch_quat(a: float, b: float) -> tuple[float, float, float, float]:
    """Quaternion (w, x, y, z) of Rx(a) Ry(b) (as ``common.quat_roll_pitch``)."""
    ca, sa, cb, sb = math.cos(a / 2), math.sin(a / 2), math.cos(b / 2), math.sin(b / 2)
    return ca * cb, sa * cb, ca * sb, sa * sb


def qmul(a, b) -> tuple[float, float, float, float]:
    """Quaternion product a ⊗ b of two (w, x, y, z) sequences."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


def wrap(angle: float) -> float:
    """Angle wrapped to [-π, π)."""
    return (angle + math.pi) % (2 * math.pi) - math.pi


class BipedBase:
    """State and actions shared by the gaits; subclasses implement ``_tick``
    and ``state``. speed [m/s] (clamped), heading [rad]: direction of travel
    without a path; path: a :class:`WaypointPath` to follow instead."""

    gait = ""

    def __init__(self, character: Character, speed: float, gains: BipedGains, heading: float = 0.0,
                 path: WaypointPath | None = None, lookahead: float = 1.0):
        self.character, self.gains, self.speed, self.heading0 = character, gains, float(speed), float(heading)
        self.follower = PathFollower(path, speed, lookahead) if path is not None else None
        m = character.model
        self.legs = (_Leg(m, character, "left", 0.072, 0), _Leg(m, character, "right", -0.072, 1))
        self.mass = character.mass
        self.k_leg = float(m.jnt_stiffness[self.legs[0].slide_jnt])
        self.b_leg = float(m.dof_damping[self.legs[0].slide_d])
        self.foot_r = float(m.geom_size[self.legs[0].foot, 0])
        self._feet = (self.legs[0].foot, self.legs[1].foot)
        self._slides = (self.legs[0].slide_q, self.legs[1].slide_q)
        self._slew_step = gains.slew * CONTROL_DT  # [m] largest rest-length change per tick

    # ------------------------------------------------------------ lifecycle
    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Configure the run's model copy; start in flight at the apex with
        the desired velocity (RH91: the animator sets the initial state)."""
        g = self.gains
        self.model, self.data = model, data
        self.spring, self.qfrc = model.qpos_spring, data.qfrc_applied
        self.stiff, self.damp = model.jnt_stiffness, model.dof_damping
        # numpy views of the data, fetched once (each attribute access builds a new view)
        self._qpos, self._qvel, self._gxpos = data.qpos, data.qvel, data.geom_xpos
        self._com, self._comvel = data.subtree_com, data.subtree_linvel
        for leg in self.legs:
            self.swing_hip(leg)
            set_torsional_friction(model, leg.geoms, g.torsion)
            self.spring[leg.slide_q] = g.short
        self.qfrc[:] = 0.0
        if self.follower is not None:
            self.follower.segment = 0
            data.qpos[0:2] = self.follower.path.waypoints[0]
            self.steer(data.qpos[0:2])
        else:
            self.yaw_d = self.heading0
            self.vd = (self.speed * math.cos(self.yaw_d), self.speed * math.sin(self.yaw_d))
        data.qpos[3:7] = (math.cos(self.yaw_d / 2), 0.0, 0.0, math.sin(self.yaw_d / 2))
        mujoco.mj_kinematics(model, data)
        mujoco.mj_comPos(model, data)
        data.qpos[2] += g.apex - float(data.subtree_com[0, 2])
        data.qvel[:] = 0.0
        data.qvel[0:2] = self.vd
        self.rest = [g.short, g.short]  # slide rest lengths now (mirror of qpos_spring) [m]
        self.goal = [g.short, g.short]  # ... and where they are slewing to
        self.loss, self.apex_z, self.trim = 0.0, -math.inf, (0.0, 0.0)
        self.roll_d, self.drift, self._lo = 0.0, {}, None
        self._vel = self._last_td = None
        mujoco.mj_forward(model, data)
        self._sense()

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self._sense()
        self._tick()
        rest, goals = self.rest, self.goal
        for i in (0, 1):
            cur, goal = rest[i], goals[i]
            if cur != goal:  # slew: a step would snap the lower leg and jerk the trunk
                step = self._slew_step
                rest[i] = slide = goal if abs(goal - cur) <= step else cur + math.copysign(step, goal - cur)
                self.spring[self._slides[i]] = slide

    # --------------------------------------------------------------- sensing
    def _sense(self) -> None:
        self.t = self.data.time
        self.q = q = self._qpos.tolist()
        self.v = self._qvel.tolist()
        w, x, y, z = q[3], q[4], q[5], q[6]
        self.R = (1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),  # quat_to_mat, inlined
                  2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                  2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))
        # A foot touches when its sphere reaches the ground plane: exactly when
        # MuJoCo makes the contact (zero margin), and cheaper to read.
        item, r, (f0, f1) = self._gxpos.item, self.foot_r, self._feet
        self.touch = (item(f0, 2) <= r, item(f1, 2) <= r)

    @property
    def roll(self) -> float:
        """Trunk roll [rad] (Z-Y-X Euler angles, as ``common.attitude``)."""
        return math.atan2(self.R[7], self.R[8])

    @property
    def yaw(self) -> float:
        """Trunk heading [rad]."""
        return math.atan2(self.R[3], self.R[0])

    def com_state(self) -> tuple[list[float], list[float]]:
        """Centre of mass position (3,) [m] and velocity (3,) [m/s], world."""
        mujoco.mj_subtreeVel(self.model, self.data)
        return self._com[0].tolist(), self._comvel[0].tolist()

    def flight_com(self) -> tuple[list[float], list[float]]:
        """``com_state``, with the velocity measured on the first flight tick
        and then extrapolated ballistically (cheaper)."""
        if self._vel is None:
            com, self._vel = self.com_state()
            self._vel_t = self.t
        else:
            com = self._com[0].tolist()
        self.apex_z = max(self.apex_z, com[2])  # the flight's highest point, for the hop loss
        vx, vy, vz = self._vel
        return com, [vx, vy, vz - G * (self.t - self._vel_t)]

    def loaded(self, i: int) -> bool:
        """Leg ``i`` touches or its spring is still compressed by over 5 mm.
        For a leg in stance: a foot chattering at impact is no liftoff."""
        return self.touch[i] or self.rest[i] - self.q[self.legs[i].slide_q] > 0.005

    def length(self, leg: _Leg) -> tuple[float, float, float]:
        """Leg length [m], its rate [m/s], and its spring's rest length [m]."""
        return LEG_LENGTH + self.q[leg.slide_q], self.v[leg.slide_d], LEG_LENGTH + self.rest[leg.index]

    def hip_pitch(self, leg: _Leg) -> float:
        """Fore-aft angle b [rad] of the leg in the trunk frame (as in
        ``hip_angles_for_foot``: positive = foot behind the hip)."""
        w, x, y, z = self.q[leg.hip_q:leg.hip_q + 4]
        return math.asin(max(-1.0, min(1.0, 2 * (x * z + w * y))))

    # ---------------------------------------------------------------- actions
    def _write_rest(self, i: int, slide: float) -> None:
        self.rest[i] = slide
        self.spring[self.legs[i].slide_q] = slide

    def set_length(self, leg: _Leg, slide: float) -> None:
        """Leg rest length goal, slide coordinate [m]; reached at ``slew``."""
        self.goal[leg.index] = slide

    def _hip_gains(self, leg: _Leg, kp: float, kv: float, kv_twist: float) -> None:
        d, damp, qfrc = leg.hip_d, self.damp, self.qfrc
        self.stiff[leg.hip_jnt] = kp
        damp[d], damp[d + 1], damp[d + 2] = kv, kv, kv_twist
        qfrc[d], qfrc[d + 1], qfrc[d + 2] = 0.0, 0.0, 0.0

    def swing_hip(self, leg: _Leg) -> None:
        """Hip servo (Eq. 5) with the swing gains; no posture torque."""
        self._hip_gains(leg, self.gains.hip_kp, self.gains.hip_kv, self.gains.hip_kv)

    def zero_hip(self, leg: _Leg) -> None:
        """No hip torque at all (LOADING, UNLOADING)."""
        self._hip_gains(leg, 0.0, 0.0, 0.0)

    def aim_hip(self, leg: _Leg, quat) -> None:
        """Hip servo set point: the hip rotation (w, x, y, z) of the leg."""
        s, i = self.spring, leg.hip_q
        s[i], s[i + 1], s[i + 2], s[i + 3] = quat

    def place_foot(self, leg: _Leg, fx: float, fy: float, length: float) -> float:
        """Aim the leg so its foot lands at world (fx, fy) [m] with the leg
        ``length`` [m] long (the kinematic transformation after Eq. 3).
        Returns how far [rad] the leg's fore-aft angle still is from there."""
        q, R = self.q, self.R
        dx, dy = fx - q[0] - leg.hip_y * R[1], fy - q[1] - leg.hip_y * R[4]
        reach = math.hypot(dx, dy)
        if reach > 0.9 * length:
            dx, dy, reach = dx * 0.9 * length / reach, dy * 0.9 * length / reach, 0.9 * length
        dz = -math.sqrt(length * length - reach * reach)
        tx = R[0] * dx + R[3] * dy + R[6] * dz  # R^T (dx, dy, dz): into the trunk frame
        ty = R[1] * dx + R[4] * dy + R[7] * dz
        tz = R[2] * dx + R[5] * dy + R[8] * dz
        # hip angles as common.hip_angles_for_foot (inlined: this runs every tick)
        b = -math.asin(max(-0.95, min(0.95, tx / length)))
        a = math.atan2(ty, -tz) if tz < 0 else 0.0
        self.aim_hip(leg, roll_pitch_quat(a, b))
        return abs(b - self.hip_pitch(leg))

    def neutral_target(self, com: list[float], vel: list[float], stance: float) -> tuple[float, float]:
        """Eq. 3 in x and y: world foot point [m] for the next support, with
        the learned speed trim (forward, lateral of the heading) added to the
        desired velocity."""
        c, s = math.cos(self.yaw_d), math.sin(self.yaw_d)
        vx = self.vd[0] + c * self.trim[0] - s * self.trim[1]
        vy = self.vd[1] + s * self.trim[0] + c * self.trim[1]
        k_x = self.gains.k_x
        return (com[0] + vel[0] * stance / 2 + k_x * (vel[0] - vx),
                com[1] + vel[1] * stance / 2 + k_x * (vel[1] - vy))

    def aim_foot(self, leg: _Leg, com: list[float], vel: list[float], stance: float, length: float) -> float:
        """``place_foot(leg, *neutral_target(com, vel, stance), length)`` in one
        call, with the helpers inlined (the swing legs run it every tick)."""
        c, s = math.cos(self.yaw_d), math.sin(self.yaw_d)
        (vdx, vdy), (tf, tl) = self.vd, self.trim
        vx = vdx + c * tf - s * tl
        vy = vdy + s * tf + c * tl
        k_x = self.gains.k_x
        v0, v1 = vel[0], vel[1]
        fx = com[0] + v0 * stance / 2 + k_x * (v0 - vx)
        fy = com[1] + v1 * stance / 2 + k_x * (v1 - vy)
        q, (R0, R1, R2, R3, R4, R5, R6, R7, R8) = self.q, self.R
        hip_y = leg.hip_y
        dx, dy = fx - q[0] - hip_y * R1, fy - q[1] - hip_y * R4
        reach = math.hypot(dx, dy)
        if reach > 0.9 * length:
            dx, dy, reach = dx * 0.9 * length / reach, dy * 0.9 * length / reach, 0.9 * length
        dz = -math.sqrt(length * length - reach * reach)
        tx = R0 * dx + R3 * dy + R6 * dz
        ty = R1 * dx + R4 * dy + R7 * dz
        tz = R2 * dx + R5 * dy + R8 * dz
        b = -math.asin(max(-0.95, min(0.95, tx / length)))
        a = math.atan2(ty, -tz) if tz < 0 else 0.0
        ca, sa, cb, sb = math.cos(a / 2), math.sin(a / 2), math.cos(b / 2), math.sin(b / 2)
        sp, i = self.spring, leg.hip_q
        sp[i], sp[i + 1], sp[i + 2], sp[i + 3] = ca * cb, sa * cb, ca * sb, sa * sb
        w, x, y, z = q[i], q[i + 1], q[i + 2], q[i + 3]
        return abs(b - math.asin(max(-1.0, min(1.0, 2 * (x * z + w * y)))))

    def steer(self, com) -> None:
        """Desired velocity and heading from the path follower (if any)."""
        if self.follower is not None:
            cmd = self.follower.update(com[:2])
            self.vd, self.yaw_d = (float(cmd.velocity[0]), float(cmd.velocity[1])), cmd.heading

    def _tick(self) -> None:
        """One control tick of the gait; each gait subclass defines it."""
        raise NotImplementedError(f"{type(self).__name__} does not define a control tick")


def fall_check(character: Character):
    """Fall detector: trunk (hip) below 0.45 m or tilted beyond 45°."""
    return trunk_fall_check(0.45, math.radians(45.0), body=character.body_id("trunk"))


def make_controller(character: Character, gait: str, speed: float, *, gains: BipedGains | None = None,
                    heading: float = 0.0, path: WaypointPath | None = None, lookahead: float = 1.0):
    """A controller for ``raibert_biped``, to use with
    ``gaitforge.sim.run(..., control_dt=CONTROL_DT)``.

    gait: ``run`` (RH91 Fig. 4), ``gallop_together`` (legs swing forward
    together in flight) or ``gallop_alternate`` (each leg swings forward in
    the other's single support); speed [m/s], clamped into
    ``SPEED_RANGES[gait]`` with a warning; heading [rad]: direction of travel;
    path: follow these waypoints at ``speed`` (carrot ``lookahead`` [m]).
    """
    if gait not in GAITS:
        raise UnknownNameError(f"unknown biped gait {gait!r} (valid gaits: {', '.join(GAITS)})")
    if not all(f"{s}_{part}" in character.joints for s in SIDES for part in ("upper_leg", "lower_leg")):
        raise GaitforgeError(f"the biped controllers need the raibert_biped creature, got {character.name!r}")
    lo, hi = SPEED_RANGES[gait]
    if not lo <= speed <= hi:
        clamped = min(max(speed, lo), hi)
        warnings.warn(f"biped {gait}: desired speed {speed} m/s is outside the supported range "
                      f"{lo}-{hi} m/s; using {clamped} m/s", stacklevel=2)
        speed = clamped
    gains = gains or BipedGains()
    if gait == "run":
        from gaitforge.control.raibert.biped_run import BipedRun
        return BipedRun(character, speed, gains, heading, path, lookahead)
    from gaitforge.control.raibert.biped_gallop import BipedGallop
    return BipedGallop(character, speed, gains, heading, path, lookahead, style=gait.split("_")[1])

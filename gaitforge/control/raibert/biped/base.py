"""What the biped gaits share: where the legs are in the model, the start
state, the kernel state, and the Python side of a control tick.

A tick is one call of the gait's compiled kernel (``biped.tick``), which
does the whole control law. Python only serves and follows it: when the
kernel needs the mass-centre velocity (``mj_subtreeVel``) or a path follower
must steer, it stops, Python does that and resumes it (``_resume``); the
phase changes the kernel logs are fed to the gait's ``PhaseMachine`` and
``StanceTimer`` objects (``_flush``) before these are looked at (the gaits'
``fsm``, ``timer``... properties) or when the log is full.
"""
from __future__ import annotations

import math

import mujoco

from gaitforge.creatures.contacts import set_time_constant
from gaitforge.jit import block, buffer_window, slot
from gaitforge.control.raibert.biped import kernel as K
from gaitforge.control.raibert.biped import servo as biped_servo
from gaitforge.control.core.rotations import quat_to_mat
from gaitforge.control.raibert.biped.body import SIDES, fall_check, leg_geometries
from gaitforge.control.raibert.biped.gains import BipedGains
from gaitforge.control.raibert.common import rh91_limits
from gaitforge.control.raibert.scaling import factor
from gaitforge.control.core.phase import drain
from gaitforge.control.raibert.fsm import PHASES as fsm_phases
from gaitforge.control.raibert.fsm import PhaseMachine, StanceTimer, replay
from gaitforge.control.paths import PathFollower, WaypointPath
from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import set_torsional_friction

# the kernels' phase codes -> fsm.Phase
PHASES = fsm_phases  # fsm.Phase by the kernels' phase code (core.phase)


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




class BipedBase:
    """State and actions shared by the gaits; subclasses implement
    ``_tick_kernel`` and ``state`` and, before ``reset`` here, set
    ``_machines`` and ``_timers`` (their phase machines and stance timers, by
    kernel slot; read them through ``machines()``). speed [m/s] (clamped),
    heading [rad]: direction of travel without a path; path: a
    :class:`WaypointPath` to follow instead.

    ``kstate`` (``biped.kernel.SIZE``,) holds the gains and leg indices the
    kernel needs and the control state; ``rest`` and ``goal`` (2,) [m] are
    views of it (slide rest lengths now, and where they are slewing to)."""

    gait = ""
    _machines: tuple[PhaseMachine, ...]  # set by the subclass before reset
    _timers: tuple[StanceTimer, ...]
    _next_stage = (K.ACT, K.ACT)  # where a tick resumes after leg 0's / leg 1's steering stop

    yaw_d = slot("kstate", K.YAW_D)  # Desired heading [rad].
    vd = block("kstate", K.VD, 2)  # Desired velocity (x, y) [m/s], world.
    trim = block("kstate", K.TRIM, 2)  # Learned speed trim (forward, lateral of the heading) [m/s].
    roll_d = slot("kstate", K.ROLL_D)  # Desired trunk roll in the coming support [rad].
    apex_z = slot("kstate", K.APEX_Z)  # Highest mass centre of the current flight [m] (-inf: none yet).
    loss = slot("kstate", K.LOSS)  # Learned energy loss per hop [J], added to the thrust.

    def __init__(self, character: Character, speed: float, gains: BipedGains, heading: float = 0.0,
                 path: WaypointPath | None = None, lookahead: float = 1.0):
        self.character, self.gains, self.speed, self.heading0 = character, gains, float(speed), float(heading)
        self.follower = PathFollower(path, speed, lookahead) if path is not None else None
        m = character.model
        geometry = leg_geometries(character)
        self.legs = tuple(_Leg(m, character, side, g.hip[1], i) for i, (side, g) in enumerate(zip(SIDES, geometry)))
        # Timing follows the creature's size (RH91 Table 1: times × √L).
        self.leg_length = geometry[0].length
        self.control_dt = K.CONTROL_DT * factor("time", self.leg_length / K.LEG_LENGTH)
        self.fall_check = fall_check(character)  # the runner's fall check (sim.controller)
        self.joint_limits = rh91_limits(self.leg_length)  # enforced and reported by the runner (sim.limits)
        self.mass = character.mass
        self.k_leg = float(m.jnt_stiffness[self.legs[0].slide_jnt])
        self.b_leg = float(m.dof_damping[self.legs[0].slide_d])
        self.foot_r = float(m.geom_size[self.legs[0].foot, 0])
        s, g = K.LAYOUT.new(), gains
        s[K.SLEW] = g.slew * self.control_dt  # [m] largest rest-length change per tick
        s[[K.LEG_LEN, K.DT, K.TOUCH_SLACK, K.SPEED_FLOOR, K.LATE_VZ, K.LATE_T]] = (
            self.leg_length, self.control_dt, g.touch_slack, g.speed_floor, g.late_fall_speed, g.late_time)
        s[[K.K_X, K.LANDING, K.SHORT, K.KP, K.KV, K.KP_YAW, K.KV_YAW, K.LAG, K.APEX, K.THRUST_MAX, K.SHARE,
           K.HIP_KP, K.HIP_KV, K.LOSS_GAIN, K.TRIM_GAIN, K.TRIM_MAX, K.ROLL_LEAD]] = (
            g.k_x, g.landing, g.short, g.kp_posture, g.kv_posture, g.kp_yaw, g.kv_yaw, g.gallop_lag, g.apex,
            g.thrust_max, g.gallop_share, g.hip_kp, g.hip_kv, g.loss_gain, g.trim_gain, g.trim_max, g.roll_lead)
        s[[K.SPEED, K.MASS, K.K_LEG, K.B_LEG, K.FOOT_R, K.STEER]] = (
            self.speed, self.mass, self.k_leg, self.b_leg, self.foot_r, self.follower is not None)
        for leg in self.legs:
            b = K.LEG + K.LEG_STRIDE * leg.index
            s[b + K.HIP_Y], s[b + K.HIP_Q], s[b + K.HIP_D], s[b + K.HIP_JNT] = (
                leg.hip_y, leg.hip_q, leg.hip_d, leg.hip_jnt)
            s[b + K.SLIDE_Q], s[b + K.SLIDE_D], s[b + K.FOOT] = leg.slide_q, leg.slide_d, leg.foot
        self.kstate, self.rest, self.goal = s, s[K.REST:K.REST + 2], s[K.GOAL:K.GOAL + 2]

    def kernel_state(self) -> dict:
        """The kernel state by field name (``biped.kernel.LAYOUT``)."""
        return K.LAYOUT.as_dict(self.kstate)

    # ------------------------------------------------------------ lifecycle
    def prepare_model(self, model: mujoco.MjModel) -> None:
        """Give the run's model copy the gains' ground contacts (so the run's
        physics record shows them; :meth:`reset` sets them again, for a model
        given as it is)."""
        if self.gains.contact_timeconst > 0.0:
            set_time_constant(model, self.gains.contact_timeconst)

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Configure the run's model copy; start in flight at the apex with
        the desired velocity (RH91: the animator sets the initial state)."""
        self.prepare_model(model)
        g, s = self.gains, self.kstate
        self.model, self.data = model, data
        self.spring, self.qfrc = model.qpos_spring, data.qfrc_applied
        self.stiff, self.damp = model.jnt_stiffness, model.dof_damping
        # numpy views of the data, fetched once (each attribute access builds a new view)
        self._qpos, self._qvel, self._gxpos = data.qpos, data.qvel, data.geom_xpos
        self._com, self._comvel = data.subtree_com, data.subtree_linvel
        self._D, s[[K.QPOS, K.QVEL, K.GXPOS, K.COM, K.COMVEL, K.QFRC]] = buffer_window(
            (data.qpos, data.qvel, data.geom_xpos, data.subtree_com, data.subtree_linvel, data.qfrc_applied),
            data.nbuffer)
        self._M, s[[K.SPRING, K.STIFF, K.DAMP]] = buffer_window(
            (model.qpos_spring, model.jnt_stiffness, model.dof_damping), model.nbuffer)
        s[[K.NQ, K.NV, K.NGEOM, K.NBODY, K.NJNT]] = model.nq, model.nv, model.ngeom, model.nbody, model.njnt
        self._kernel = self._tick_kernel()
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
        # the control state: legs short, nothing learned, both phase machines
        # in FLIGHT with their timers' defaults; no touchdown, liftoff, drift
        fsm, nan = self._machines[0], math.nan
        s[[K.EPS, K.FULL]] = fsm.compress_eps, fsm.full_fraction
        s[K.REST:K.REST + 2] = s[K.GOAL:K.GOAL + 2] = g.short
        s[[K.TRIM, K.TRIM + 1, K.ROLL_D, K.APEX_Z, K.VEL_OK, K.LOSS]] = 0.0, 0.0, 0.0, -math.inf, 0.0, 0.0
        s[K.PHASE:K.PHASE + 2] = [PHASES.index(m.phase) for m in (self._machines * 2)[:2]]
        s[K.STANCE:K.STANCE + 2] = [t.predicted_stance for t in (self._timers * 2)[:2]]
        s[[K.DONE_LEG, K.DONE_LEG + 1, K.TRAIL_DOWN, K.IN_SUPPORT, K.ACTIVE]] = 0.0, 0.0, nan, 0.0, 0.0
        s[[K.TD_T, K.TD_T + 1, K.LAST_T, K.LO_KIND]] = nan, nan, nan, -1.0
        s[K.DRIFT:K.DRIFT + 2] = s[K.HAS_DRIFT:K.HAS_DRIFT + 2] = 0.0
        s[K.LOG_N] = 0  # no phase change logged
        self._flags = self._fresh = 0
        mujoco.mj_forward(model, data)
        self._sense()

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """One control tick: the compiled kernel, and Python only to serve it."""
        flags, t = self._flags, data.time  # FRESH when the last tick said this one needs the velocity
        if flags:
            mujoco.mj_subtreeVel(model, data)
        code = self._kernel(t, flags, self._D, self._M, self.kstate)
        if code > K.DONE_PRE:
            code = self._resume(code, t, flags, 0)
        self._flags = code * K.FRESH  # DONE or DONE_PRE

    def _tick_kernel(self):
        """The gait's tick kernel (a ``biped.tick`` function)."""
        raise NotImplementedError(f"{type(self).__name__} does not name its tick kernel")

    def _start(self, stage: int) -> None:
        """The gait's first tick actions at reset, from ``stage`` (no slew)."""
        t, flags = self.data.time, stage + K.RESET
        code = self._resume(self._kernel(t, flags, self._D, self._M, self.kstate), t, flags, K.RESET)
        self._flags = code * K.FRESH

    def _resume(self, code: int, t: float, flags: int, reset: int) -> int:
        """Serve the kernel until the tick at time t [s] is done: make room in
        its phase log, measure the velocity or steer when it asks, and resume it.
        flags: of its first call; reset: ``RESET`` or 0. Returns the final
        code (``DONE`` or ``DONE_PRE``)."""
        self._fresh = flags & K.FRESH
        while code > K.DONE_PRE:
            if code == K.FLUSH:
                self._flush()
                stage = K.SENSE
            elif code < K.EVENT:
                mujoco.mj_subtreeVel(self.model, self.data)
                self._fresh, stage = K.FRESH, code - K.NEED_VEL
            else:  # a touchdown that learned or a liftoff into flight: the path steers
                self.steer(self._com[0].tolist())
                stage = self._next_stage[code - K.EVENT]
            code = self._kernel(t, stage + self._fresh + reset, self._D, self._M, self.kstate)
        return code

    def _flush(self) -> None:
        """Feed the phase changes the kernel logged to the phase machines and
        the stance timers (at touchdowns and liftoffs): ``fsm.replay``."""
        if self.kstate[K.LOG_N]:
            replay(drain(self.kstate, K.LOG_N, K.QCAP), self._machines, self._timers)

    def machines(self) -> tuple:
        """The gait's phase machines and stance timers (tuples, by slot), fed
        with every phase change so far."""
        self._flush()
        return self._machines, self._timers

    # --------------------------------------------------------------- sensing
    def _sense(self) -> None:
        """Snapshot of time t [s], qpos q and qvel v (lists), trunk matrix R
        (9,) and foot contacts touch (2 bools) (at reset; for inspection)."""
        self.t = self.data.time
        self.q = q = self._qpos.tolist()
        self.v = self._qvel.tolist()
        self.R = quat_to_mat(q[3], q[4], q[5], q[6])
        # A foot touches when its sphere reaches the ground plane: exactly when
        # MuJoCo makes the contact (zero margin).
        item, r = self._gxpos.item, self.foot_r
        self.touch = (item(self.legs[0].foot, 2) <= r, item(self.legs[1].foot, 2) <= r)

    @property
    def roll(self) -> float:
        """Trunk roll [rad] now (Z-Y-X Euler angles, as ``common.attitude``)."""
        R = quat_to_mat(*self._qpos[3:7].tolist())
        return math.atan2(R[7], R[8])

    @property
    def yaw(self) -> float:
        """Trunk heading [rad] now."""
        R = quat_to_mat(*self._qpos[3:7].tolist())
        return math.atan2(R[3], R[0])

    def com_state(self) -> tuple[list[float], list[float]]:
        """Centre of mass position (3,) [m] and velocity (3,) [m/s], world
        (measured now: the kernel may use the velocity this tick)."""
        mujoco.mj_subtreeVel(self.model, self.data)
        self._fresh = K.FRESH
        return self._com[0].tolist(), self._comvel[0].tolist()

    # ---------------------------------------------------------------- actions
    def _write_rest(self, i: int, slide: float) -> None:
        self.rest[i] = slide
        self.spring[self.legs[i].slide_q] = slide

    def swing_hip(self, leg: _Leg) -> None:
        """Hip servo (Eq. 5) with the swing gains; no posture torque."""
        d, damp, qfrc, kv = leg.hip_d, self.damp, self.qfrc, self.gains.hip_kv
        self.stiff[leg.hip_jnt] = self.gains.hip_kp
        damp[d], damp[d + 1], damp[d + 2] = kv, kv, kv
        qfrc[d], qfrc[d + 1], qfrc[d + 2] = 0.0, 0.0, 0.0

    def neutral_target(self, com: list[float], vel: list[float], stance: float) -> tuple[float, float]:
        """Eq. 3 in x and y: world foot point [m] for the next support (the
        compiled ``biped.servo.neutral_point`` the swing legs aim at)."""
        return biped_servo.neutral_point(self.kstate, com[0], com[1], vel[0], vel[1], stance)

    def steer(self, com) -> None:
        """Desired velocity and heading from the path follower (if any)."""
        if self.follower is not None:
            cmd = self.follower.update(com[:2])
            self.vd, self.yaw_d = (float(cmd.velocity[0]), float(cmd.velocity[1])), cmd.heading

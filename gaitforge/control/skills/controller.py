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

The tick's arithmetic is one compiled kernel over flat arrays (``tick``);
``reference`` is the same tick in plain Python (``compute_reference``),
the oracle the compiled one is tested against. The commander and the
servo re-gains at liftoff and touchdown stay in Python.
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.creatures.contacts import set_time_constant
from gaitforge.jit import block, buffer_window, entry, slot
from gaitforge.control.skills import limbs as L
from gaitforge.control.skills import quat as Q
from gaitforge.control.skills import reference
from gaitforge.control.skills import tick as T
from gaitforge.control.skills.commands import Commander
from gaitforge.control.skills.gaitgraph import LIMBS, Gait
from gaitforge.control.skills.kernels import pack
from gaitforge.control.skills.params import SkillParams
from gaitforge.control.skills.pose import PoseSolver, flexion
from gaitforge.control.skills.vforce import VirtualForces, pack_links
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.sim.limits import JointLimits
from gaitforge.constants import GRAVITY

STANCE, SWING = T.STANCE, T.SWING
INTEGRATORS = {"implicitfast": mujoco.mjtIntegrator.mjINT_IMPLICITFAST,
               "discrete": mujoco.mjtIntegrator.mjINT_DISCRETE}
SOLVERS = {"newton": mujoco.mjtSolver.mjSOL_NEWTON, "pgs": mujoco.mjtSolver.mjSOL_PGS}
#: A (2, 2) int32 array with strides, like ``data.contact.geom``: the tick is
#: compiled for contact pairs of any layout.
PAIRS_SAMPLE = np.zeros((2, 4), dtype=np.int32)[:, :2]


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
        self.gait_arrays = {name: T.pack_gait(g) for name, g in self.gaits.items()}
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
        # Enforced and reported by the runner (sim.limits); L is the hip height at rest.
        self.joint_limits = JointLimits(self.hip_height, params.joint_torque, speed=params.joint_speed)
        self.vf = VirtualForces(m, limbs)
        self.packed = [pack(limb) for limb in self.order]  # the compiled IK's constants
        self.gait_name = ""
        self._hot: tuple = (None, None, None, ())

    # ------------------------------------------------------------ protocol
    @property
    def state(self) -> str:
        if not self.gait_name:
            return "stand"
        return self.gait_name + ":" + "".join("W" if s == SWING else "S" for s in self.mode)

    def prepare_model(self, m: mujoco.MjModel) -> None:
        """PD gains into the joint springs and dampers; the physics step, integrator and solver."""
        p = self.params
        free = m.jnt_type == int(mujoco.mjtJoint.mjJNT_FREE)
        m.jnt_stiffness[:] = np.where(free, 0.0, m.jnt_stiffness * p.kp_scale)
        for b in self.spine:
            m.jnt_stiffness[m.body_jntadr[b]] *= p.spine_scale
        # The servos are joint springs as stiff as the creature's weight asks.
        # Under MuJoCo's discrete integrator (no runner's any more: the
        # gorilla ran one 10 ms step per tick until its contacts proved
        # unconverged, docs/physics.md) the backward Euler step damps a spring
        # K by about h·K more: the dampers give that back, so a servo's
        # damping stays kd_time × K, as the gains were tuned.
        integrator = INTEGRATORS[p.integrator]
        extra = p.timestep if integrator == mujoco.mjtIntegrator.mjINT_DISCRETE else 0.0
        if not 0.0 <= extra < p.kd_time or p.timestep <= 0.0:
            raise GaitforgeError(f"timestep {p.timestep} s must be positive (and below kd_time {p.kd_time} s "
                                 "under the discrete integrator)")
        m.dof_damping[:] = m.jnt_stiffness[m.dof_jntid] * (p.kd_time - extra)
        m.opt.timestep = p.timestep
        self._own_solref = (m.geom_solref[:, 0].copy(), m.pair_solref[:, 0].copy())
        self._contact_timeconst = 0.0
        self.gait_contacts(m, self.commander.current(0.0).gait)  # those of the gait it starts in
        m.opt.integrator = integrator
        m.opt.solver = SOLVERS[p.solver]
        # A floating tree with four limbs: the constraint solver's Newton
        # steps factor a far sparser Hessian than MuJoCo's dense default for
        # the gorilla's 40 DOFs assumes (about 1.5x faster walking physics measured,
        # BENCHMARKS.md); the dog's 80 are sparse by default already.
        m.opt.jacobian = mujoco.mjtJacobian.mjJAC_SPARSE

    def gait_contacts(self, m: mujoco.MjModel, gait_name: str) -> None:
        """``gait_name``'s contacts on ``m``: the gait's own time constant, else the creature's."""
        gait = self.gaits.get(gait_name)
        own = gait.contact_timeconst if gait is not None else 0.0
        self._set_contacts(m, own if own > 0.0 else self.params.contact_timeconst)

    def _set_contacts(self, m: mujoco.MjModel, timeconst: float) -> None:
        """The ground contacts' time constant [s] (0: the model's own), set
        on the run's model copy only when it changes (a gait may carry its own)."""
        if timeconst == self._contact_timeconst:
            return
        if timeconst > 0.0:
            set_time_constant(m, timeconst)
        else:
            m.geom_solref[:, 0], m.pair_solref[:, 0] = self._own_solref
        self._contact_timeconst = timeconst

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
        self.limit = self.params.torque_limit * self.mass * GRAVITY * self.hip_height  # N m
        self.S, self.ints, self.C = np.zeros(T.NS), np.zeros(T.NI, np.int64), np.zeros(T.NC)
        self.mode = self.ints[T.I_MODE:T.I_MODE + 4]
        self.servo_mode = self.ints[T.I_SERVO:T.I_SERVO + 4]  # the mode each limb's servo gains were last set for
        self.plant = self.S[T.S_PLANT:T.S_PLANT + 12].reshape(4, 3)
        self.lift_at = self.S[T.S_LIFT_AT:T.S_LIFT_AT + 12].reshape(4, 3)
        self.lift_time = self.S[T.S_LIFT_TIME:T.S_LIFT_TIME + 4]
        self.swing_time = self.S[T.S_SWING_TIME:T.S_SWING_TIME + 4]
        self.knee = self.S[T.S_KNEE:T.S_KNEE + 4]
        self.opened = self.S[T.S_OPENED:T.S_OPENED + 4]  # no window yet: every limb may lift
        self.opened[:] = -1.0e9
        self.mode[:] = STANCE
        self.servo_mode[:] = -1
        self.plant[:] = [d.site_xpos[limb.site] for limb in self.order]
        self.plant[:, 2] = 0.0
        self.swing_time[:] = 1.0
        self.knee[:] = [flexion(d.qpos, limb) for limb in self.order]
        self.body_limb = np.full(m.nbody, -1, np.int64)
        for i, limb in enumerate(self.order):
            self.body_limb[list(limb.bodies[2:])] = i
        self.com_prev = d.subtree_com[1]
        self.ref = d.subtree_com[1][:2]
        self.commander.state = self.S[T.S_SPEED:T.S_SPEED + 2]  # the tick ramps the speed and turns
        self.commander.reset(Q.yaw_of(d.xquat[self.frames[self.anchor]]))
        self.gait_name = ""
        self._due, self._target, self._turn = -math.inf, math.nan, 0.0
        self._gait = next(iter(self.gait_arrays.values()))
        self._pack(m)

    # ------------------------------------------------------------ the tick
    def compute(self, m: mujoco.MjModel, d: mujoco.MjData) -> None:
        """One control tick (the compiled kernel, ``tick.tick``)."""
        bound_m, bound_d, run, args = self._hot
        if bound_d is not d or bound_m is not m:
            self._bind(m, d)
            bound_m, bound_d, run, args = self._hot
        t = d.time
        if t >= self._due:  # a schedule entry is due, or a path is followed
            self._command(t)
            self.gait_contacts(m, self.gait_name)
        changed = run(self.S, self.ints, self.C, self._gait, *args, self._contacts.geom, self._spring, t,
                      self._target, self._turn)
        if changed:
            for i in range(4):
                if changed >> i & 1:
                    self.regain(m, i)

    def command(self, gait: str, speed: float, turn_rate: float) -> bool:
        """Take a new command now, without a restart: ``gait`` at ``speed``
        [m/s] turning at ``turn_rate`` [rad/s], from the next tick (the tick
        ramps the speed at its own acceleration). False, and nothing
        changed, when the controller follows a path (the path commands it)."""
        from gaitforge.control.skills.commands import Command

        cmd = self.commander
        if cmd.follower is not None:
            return False
        if gait not in self.gait_arrays:
            from gaitforge.errors import GaitforgeError

            raise GaitforgeError(f"gait {gait!r}: this controller has {', '.join(self.gait_arrays)}")
        cmd.schedule = [Command(0.0, gait, float(speed))]
        cmd.turn_rate = float(turn_rate)
        self._due = -math.inf  # read the commander at the next tick
        return True

    def _command(self, t: float) -> None:
        """The commander's gait and target speed for the compiled tick (it
        ramps the speed and turns itself); with a path, the whole update
        (the tick is told so by a NaN target)."""
        cmd = self.commander
        if cmd.follower is not None:
            gait, _, _ = cmd.update(t, self.control_dt, self._com_xy)
            self._target = math.nan
        else:
            c = cmd.current(t)
            gait, self._target, self._turn = c.gait, c.speed, cmd.turn_rate
            self._due = cmd.next_change(t)
        self.gait_name, self._gait = gait, self.gait_arrays[gait]

    def compute_reference(self, m: mujoco.MjModel, d: mujoco.MjData) -> None:
        """The same tick in plain Python (``reference.compute``)."""
        reference.compute(self, m, d)

    def regain(self, m: mujoco.MjModel, i: int) -> None:
        """Limb i landed or lifted: its servos at ``stance_kp`` in stance (the
        gait's at the commanded speed, ``Gait.stance_softness``), full in swing."""
        joints, dofs = self.limb_joints[i], self.vf.cols[LIMBS[i]]
        scale = 1.0
        if self.mode[i] == STANCE:
            gait = self.gaits.get(self.gait_name)
            scale = self.params.stance_kp if gait is None else gait.stance_softness(self.S[T.S_SPEED],
                                                                                    self.params.stance_kp)
        m.jnt_stiffness[joints] = self.kp[joints] * scale
        m.dof_damping[dofs] = self.kd[dofs] * scale
        self.servo_mode[i] = self.mode[i]

    def _bind(self, m: mujoco.MjModel, d: mujoco.MjData) -> None:
        """Fetch the arrays the kernel reads and writes, once per (model,
        data) (each MjData attribute read costs about a microsecond), and
        its compiled entry point."""
        self._contacts = d.contact  # (the list reads d.ncon live)
        self._spring = m.qpos_spring
        self._com_xy = d.subtree_com[1][:2]
        arrays = [getattr(d, name) for name in T.DATA]
        window, starts = buffer_window(arrays, d.nbuffer)
        off = np.array([(s, a.shape[0]) for s, a in zip(starts, arrays)], np.int64)
        args = (*self._static, window, off)
        sample = (self.S, self.ints, self.C, self.gait_arrays[next(iter(self.gait_arrays))], *args, PAIRS_SAMPLE,
                  self._spring, 0.0, 0.0, 0.0)
        self._hot = (m, d, entry(T.tick, sample), args)

    def _pack(self, m: mujoco.MjModel) -> None:
        """The constants the kernel reads (``tick`` module docstring)."""
        p, C = self.params, self.C
        C[T.C_DT], C[T.C_MASS], C[T.C_LIMIT] = self.control_dt, self.mass, self.limit
        C[T.C_COM_HEIGHT], C[T.C_HIP_HEIGHT], C[T.C_SPAN] = self.com_height, self.hip_height, self.span
        C[T.C_REST_H:T.C_REST_H + 2] = self.rest_height
        C[T.C_ANCHOR], C[T.C_FRONT_FIRST] = self.anchor, self.anchor == 0
        for k, v in ((T.C_KP_POSITION, p.kp_position), (T.C_KV, p.kv), (T.C_LEAD, p.lead),
                     (T.C_KP_HEIGHT, p.kp_height), (T.C_KD_HEIGHT, p.kd_height), (T.C_ORIENT_FREQ, p.orient_freq),
                     (T.C_ORIENT_DAMPING, p.orient_damping), (T.C_FRICTION, p.friction),
                     (T.C_REGULARIZE, p.regularize), (T.C_MAX_PUSH, p.max_push),
                     (T.C_SWING_GRAVITY, p.swing_gravity), (T.C_IPM_SAGITTAL, p.ipm_sagittal),
                     (T.C_IPM_CORONAL, p.ipm_coronal)):
            C[k] = v
        C[T.C_FOOT:T.C_FOOT + 12] = np.ravel(self.foot_offset)
        C[T.C_ACCEL] = self.commander.accel
        LI, LW, anc = pack_links(m, self.order)
        n = LW.shape[1]
        geom, axes = np.zeros((4, 18)), np.zeros((4, n - 1, 3))
        balls, qadr = np.zeros((4, n - 1), np.bool_), np.zeros((4, n), np.int64)
        for i, (g, x, bl, q) in enumerate(self.packed):  # the IK's constants, stacked
            k = len(q)
            geom[i], axes[i, :k - 1], balls[i, :k - 1], qadr[i, :k] = g, x, bl, q
        spine_q = np.array([m.jnt_qposadr[m.body_jntadr[b]] for b in self.spine], np.int64)
        spine_pos = np.array([m.body_pos[b] for b in self.spine], float).reshape(-1, 3)
        self._static = (LI, LW, anc, geom, axes, balls, qadr, spine_q, spine_pos, self.body_limb,
                        m.geom_bodyid.astype(np.int64))
        self._hot = (None, None, None, ())

    # ------------------------------------------------------------ views of the state arrays
    phase = slot("S", T.S_PHASE)
    vel = block("S", T.S_VEL, 3)
    com_prev = block("S", T.S_COM_PREV, 3)
    ref = block("S", T.S_REF, 2)


"""The kangaroo's hopping and jumping controller (see the package
docstring, :mod:`gaitforge.control.raibert.kangaroo`): the Python side of
the compiled tick (:mod:`kangaroo.kernel`), its phase machine and stance
timer, and the fall check."""
from __future__ import annotations

import math
from typing import Any

import mujoco
import numpy as np

from gaitforge.control.core.errors import InternalError
from gaitforge.constants import GRAVITY as G
from gaitforge.jit import entry, slot
from gaitforge.control.raibert.common import rh91_limits, trunk_fall_check
from gaitforge.control.raibert.fsm import PHASES, Phase, PhaseMachine, StanceTimer
from gaitforge.control.raibert.kangaroo import kernel as kk
from gaitforge.control.raibert.kangaroo import state as ks
from gaitforge.control.raibert.kangaroo.gains import KangarooGains
from gaitforge.control.raibert.kangaroo.geometry import PARENT, pitch
from gaitforge.control.raibert.kangaroo.jump import JumpPlan, JumpStages
from gaitforge.control.raibert.kangaroo.kernel import (
    flight_targets,
    resume,
    stance_gains,
    tick,
    tick_contacts,
    tick_early,
)
from gaitforge.control.raibert.kangaroo.setup import pitch_inertia, tune_tail
from gaitforge.control.raibert.kangaroo.state import STAGES
from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import set_time_constant

_FLIGHT, _LOADING, _HOLD = Phase.FLIGHT, Phase.LOADING, kk.HOLD
_EXTENDING = (Phase.THRUST, Phase.UNLOADING)  # stance phases whose contact is read inside the debounce time
_subtree_vel = mujoco.mj_subtreeVel
_PHASES = PHASES  # fsm.Phase by kernel code


class KangarooHop(JumpStages):
    """The kangaroo's hopping (and jumping) controller; see the module docstring.

    ``speed`` [m/s] is the desired forward speed; ``touch_sensor(data) -> bool``
    replaces MuJoCo's foot contacts (used with ``footmodel``). The quantities
    the tick updates live in the state array ``_st`` (see
    :mod:`kangaroo.kernel`: floats ``_s``, ints ``_ix``); the attributes
    below and ``stage`` read and write it."""

    speed, v_cmd = slot("_s", kk.SPEED), slot("_s", kk.V_CMD)                  # desired, commanded [m/s]
    stance_avg, x_offset = slot("_s", kk.STANCE_AVG), slot("_s", kk.X_OFFSET)  # T_s [s]; Eq. 3 integral [m]
    # COM apex this flight; its correction [m]
    apex, apex_bias = slot("_s", kk.APEX), slot("_s", kk.APEX_BIAS)
    td_com_z = slot("_s", kk.TD_COM_Z, optional=True)                    # COM height at touchdown [m]
    apex_target = slot("_s", kk.APEX_TARGET, optional=True)              # jump take-off apex [m]
    t_approach = slot("_s", kk.T_APPROACH)                               # approach flight time [s]
    rest_len = slot("_s", kk.REST_LEN)                                   # leg length at touchdown [m]
    prev_len = slot("_s", kk.PREV_LEN, optional=True)                    # leg length last tick [m]
    # ankle rest angle: now, at touchdown [rad]
    ankle_rest, td_rest = slot("_s", kk.ANKLE_REST), slot("_s", kk.TD_REST)

    def __init__(self, character: Character, speed: float, gains: KangarooGains | None = None,
                 jump: JumpPlan | None = None, touch_sensor=None):
        self._st, self._s, self._ix = ks.new_state(0)
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
        self._hot: tuple[Any, ...] = (None,) * 5  # (data bound, state, data window, model window, tick entry)
        self.fall_check = fall_check(character)  # the runner's fall check (sim.controller)
        # Enforced and reported by the runner (sim.limits); L: thigh + shin + ankle to toe.
        self.joint_limits = rh91_limits(self.l1 + self.l2 + self.r_toe)

    def kernel_state(self) -> dict:
        """The compiled tick's state by field name (``kangaroo.kernel.S_LAYOUT``,
        ``IX_LAYOUT``; the foot geom ids as ``ix.feet``)."""
        ix = self._ix
        return {**kk.S_LAYOUT.as_dict(self._s), **{f"ix.{k}": v for k, v in kk.IX_LAYOUT.as_dict(ix).items()},
                "ix.feet": ix[kk.NI:].tolist()}

    # ------------------------------------------------------- run settings
    @property
    def control_dt(self) -> float:
        """Control interval [s] (``gains.control_dt``)."""
        return self.g.control_dt

    def prepare_model(self, model: mujoco.MjModel) -> None:
        """Give the run's model copy the physics step and the contacts' time
        constant of the gains (so the run's physics record shows them;
        :meth:`reset` sets the contacts again, for a model given as it is)."""
        model.opt.timestep = self.g.timestep
        if self.g.contact_timeconst > 0.0:
            set_time_constant(model, self.g.contact_timeconst)

    # ------------------------------------------------------------- protocol
    @property
    def stage(self) -> str | None:
        """Jump stage (None when not jumping; see :mod:`kangaroo.jump`)."""
        return STAGES[self._ix[kk.STAGE]]

    @stage.setter
    def stage(self, value: str | None) -> None:
        self._ix[kk.STAGE] = STAGES.index(value)

    @property
    def last_approach(self) -> bool:
        """The current approach hop is the last before the take-off."""
        return bool(self._ix[kk.LAST_APPROACH])

    @last_approach.setter
    def last_approach(self, value: bool) -> None:
        self._ix[kk.LAST_APPROACH] = bool(value)

    @property
    def state(self) -> str:
        return self.fsm.phase.value if self.stage in (None, "done") else f"jump_{self.stage}:{self.fsm.phase.value}"

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        g, qa = self.g, self.qa
        mujoco.mj_kinematics(model, data)
        xm = data.xmat
        self.off = {n: pitch(xm[self.b[n]]) - pitch(xm[self.b[p]]) - data.qpos[qa[n]] for n, p in PARENT.items()}
        self.rest = model.qpos_spring.copy()
        self.ankle_k0 = float(model.jnt_stiffness[self.mj["foot"]])
        self.ankle_b0 = float(model.dof_damping[self.da["foot"]])
        self.foot_geoms = {i for i in range(model.ngeom) if model.geom_bodyid[i] == self.b["foot"]}
        if g.contact_timeconst > 0.0:
            set_time_constant(model, g.contact_timeconst)
        if g.armature > 0.0:
            model.dof_armature[3:] += g.armature
        model.dof_armature[self.da["foot"]] += g.ankle_armature
        self.tail_stiffness = tune_tail(model, data, self.character, g.tail_period,
                                        g.tail_damping_ratio)
        self.I_pitch = pitch_inertia(model, data, self.b["trunk"])
        self.fsm = PhaseMachine(compress_eps=g.compress_eps)
        self.timer = StanceTimer(default=g.stance_guess)
        self._new_state()
        self.stance_avg, self.x_offset, self.apex_bias = g.stance_guess, 0.0, 0.0
        self.v_cmd = min(self.speed, g.start_speed)
        self.apex, self.td_com_z, self.last_event = -math.inf, None, -math.inf
        self.rest_len, self.prev_len, self.apex_target, self.t_approach = 0.0, None, None, 0.0
        self.ankle_rest = self.td_rest = float(self.rest[qa["foot"]])
        self._s[kk.TD_TIME] = self._s[kk.LAST_STANCE] = math.nan  # (the kernel's copy of the StanceTimer)
        self.stage, self.last_approach = None, False
        self._debounce = g.debounce
        self._bind(model, data)
        stance_gains(self._s, self._ix, self._m, False)
        self._start(model, data)

    def _new_state(self) -> None:
        """A fresh state array: the gains and geometry the kernels read (so
        gains changed before ``reset`` take effect) and the foot's geoms (an
        obstacle in the model shifts the geom ids)."""
        g, qa, feet, speed = self.g, self.qa, sorted(self.foot_geoms), self.speed
        self._st, self._s, self._ix = ks.new_state(len(feet))
        s, ix = self._s, self._ix
        s[kk.SPEED] = speed
        ks.load_gains(s, g, self.jump)
        s[kk.COMPRESS_EPS], s[kk.FULL_FRACTION] = self.fsm.compress_eps, self.fsm.full_fraction
        tail = self.rest[qa["tail1"]]
        s[kk.TAIL_STANCE] = float(tail + g.tail_lift + -g.tail_amplitude)
        s[kk.TAIL_FLIGHT] = float(tail + g.tail_lift + g.tail_amplitude)
        s[kk.HEAD_REST], s[kk.I_PITCH], s[kk.MASS], s[kk.GRAVITY] = (float(self.rest[qa["head"]]), self.I_pitch,
                                                                     self.mass, G)
        s[kk.L1], s[kk.L2], s[kk.R_TOE], s[kk.TOE_ANGLE] = self.l1, self.l2, self.r_toe, self.toe_angle
        s[kk.OFF_THIGH], s[kk.OFF_SHIN], s[kk.OFF_FOOT] = (float(self.off[n]) for n in ("thigh", "shin", "foot"))
        s[kk.ANKLE_K0], s[kk.ANKLE_B0] = self.ankle_k0, self.ankle_b0
        ix[kk.PHASE], ix[kk.HAS_JUMP], ix[kk.N_FOOT], ix[kk.NI:] = kk.FLIGHT, self.jump is not None, len(feet), feet

    def _start(self, model, data) -> None:
        """Start in flight, toe a little above the ground, leg set for landing,
        moving forward at the starting speed (the animator's initial state)."""
        mujoco.mj_forward(model, data)
        bt, th, qa = self.b["trunk"], self.b["thigh"], self.qa
        for _ in range(3):
            com, hip = data.subtree_com[bt], data.xpos[th]
            q = flight_targets(self._s, self._ix, self._m, self.v_cmd, -1.0, float(com[0]), float(com[2]),
                               float(hip[0]), float(hip[2]), pitch(data.xmat[bt]))
            data.qpos[qa["thigh"]], data.qpos[qa["shin"]], data.qpos[qa["foot"]] = q
            mujoco.mj_forward(model, data)
        jx, jz = model.joint("trunk_x").id, model.joint("trunk_z").id
        A = np.array([[data.xaxis[jx][0], data.xaxis[jz][0]], [data.xaxis[jx][2], data.xaxis[jz][2]]])
        data.qpos[0:2] += np.linalg.solve(A, [0.0, 0.12 * self.g.leg_length_td - data.site_xpos[self.toe][2]])
        data.qvel[0:2] = np.linalg.solve(A, [self.v_cmd, 0.0])
        mujoco.mj_forward(model, data)

    def _bind(self, model, data) -> None:
        """Fetch what the tick reads and writes, once (each MjData attribute
        read costs about a microsecond, more than the compiled arithmetic):
        the windows, the live contact list, the kernels' entry points."""
        rows = {"body": self.b, "site": {"toe": self.toe}, "qpos": self.qa, "dof": self.da, "joint": self.mj}
        self._d, self._m = ks.bind_windows(self._ix, model, data, rows)
        self._contacts = data.contact  # (the list reads data.ncon live)
        self._i_com, self._i_vel, self._i_toe = (int(self._ix[k]) for k in (kk.C_COM, kk.C_LINVEL, kk.C_TOE))
        self._tick_contacts = entry(tick_contacts, (self._st, self._d, self._m, ks.PAIRS_SAMPLE, 0.0))
        self._tick_early = entry(tick_early, (self._st, self._d, self._m, ks.PAIRS_SAMPLE, 0.0))
        self._hot = (data, self._st, self._d, self._m, entry(tick, (self._st, self._d, self._m, 0, 0.0)))

    # ------------------------------------------------------------------ tick
    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        bound, st, d, m, run = self._hot  # (one attribute read: each costs ~0.1 µs here)
        if bound is not data:
            self._bind(model, data)
            bound, st, d, m, run = self._hot
        t = data.time
        _subtree_vel(model, data)
        # The foot's contact is read only once the last touchdown or liftoff is
        # older than the debounce time (until then the phase's holds), except
        # in THRUST and UNLOADING, where a foot letting go of an extended leg
        # is a liftoff (``tick_early``). In flight data.ncon is read first: it
        # is cheaper than the contact list.
        if t - self.last_event < self._debounce:
            if self.fsm.phase in _EXTENDING and self.touch_sensor is None:
                code = self._tick_early(st, d, m, self._contacts.geom, t)
            else:
                code = run(st, d, m, _HOLD, t)
        elif self.touch_sensor is not None:
            code = run(st, d, m, int(bool(self.touch_sensor(data))), t)
        elif self.fsm.phase is _FLIGHT and data.ncon == 0:
            code = run(st, d, m, 0, t)
        else:
            code = self._tick_contacts(st, d, m, self._contacts.geom, t)
        if code >= 0:
            self._phase_change(t, code)

    def _phase_change(self, t: float, code: int) -> None:
        """The tick entered phase ``code`` (+ PLAN: a touchdown that plans the
        jump before acting): the PhaseMachine and the StanceTimer record it
        (views of the tick's phase changes; the timer's stance is checked
        against the kernel's own), and the jump is planned."""
        s = self._s
        plan = code >= kk.PLAN
        code -= kk.PLAN if plan else 0
        phase = _PHASES[code]
        self.fsm.record(t, phase)
        if phase is _LOADING:
            self.last_event = t
            self.timer.touchdown(t)
            if plan:
                d = self._d
                self._plan_jump(float(d[self._i_toe]), float(d[self._i_vel]), float(d[self._i_com + 2]))
                resume(self._st, d, self._m, t)
        elif phase is _FLIGHT:
            self.last_event = t
            self.timer.liftoff(t)
            if self.timer.predicted_stance != s[kk.STANCE_PRED]:
                raise InternalError(f"kangaroo: the tick's stance {s[kk.STANCE_PRED]} s differs from the "
                                     f"StanceTimer's {self.timer.predicted_stance} s")


def fall_check(character: Character):
    """Fall detector: trunk below 40 % of its rest height or pitched more than
    60° from level."""
    trunk = character.model.body("trunk").id
    return trunk_fall_check(0.4 * float(character.make_data().xpos[trunk][2]), math.radians(60.0), trunk)

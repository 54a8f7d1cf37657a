"""Running control of the RH91 quadruped: trot, bound and gallop as virtual
biped gaits (Raibert & Hodgins 1991, §4 "Gaits"), gait changes on a time
schedule, and steering along waypoints.

Two virtual legs, each a pair of physical legs (diagonal pairs in the trot,
front and rear pairs in the bound and gallop; :mod:`quadruped.virtual_legs`), run the
biped state machine of Fig. 4 (``fsm.PhaseMachine`` on the active pair):

- FLIGHT: each leg of the pair about to land is swung to the Eq. 3 foot
  position ẋ T_s / 2 + k_x (ẋ − ẋ_d) ahead of *its own hip* (the same rule
  sideways), T_s the last stance of that pair, ẋ the mean velocity since the
  last touchdown; the legs are lengthened so that both feet hang at the same
  height (they then strike together even with the trunk tilted) and, just
  before touchdown, swept back at half the ground speed (partial ground speed
  matching). The idle pair is shortened and mirrors the active pair's world
  angle, so the two pairs' swing moments on the trunk cancel.
- LOADING: the landed legs' hips go limp (zero position gain).
- COMPRESSION, THRUST: the Eq. 4 servo on roll, pitch and heading acts
  through the stance hips, spread by least effort over the hip hinges of the
  legs that touch (``quadruped.virtual_legs.torque_allocation``; a planted foot cannot
  twist, so heading is turned by unequal sideways foot forces); THRUST
  raises the leg springs' rest lengths by the pair's thrust.
- UNLOADING: the pair is shortened; liftoff interchanges the virtual legs.

Hopping height (Eqs. 1-2, closed by feedback): each pair's thrust is trimmed at
its touchdown by the error of the highest mean height its hips reached since
its liftoff. In the trot that height is the trunk's; in the bound it is the
height of that end of the trunk, so equal targets for both ends hold the mean
pitch while the body rocks as the ends take turns (the pitch servo in stance
damps the rocking; it cannot stop it: one pair's push at one end is what
makes a bound).

Actuators: the hip servos (Eq. 5) are the model's hip joint springs; the
controller writes their rest angles (``qpos_spring``) and switches their gains
between the swing values and zero in stance. The leg springs' rest lengths are
their ``qpos_spring`` too, moved at a limited rate (a step would yank the 1 kg
lower leg on its 12 kN/m spring and jolt the trunk). Stance torques go to
``qfrc_applied``. A slow integral trim of the speed command sits on top of
Eq. 3, which alone leaves a steady error wherever losses shift the true
neutral point.

Gallop: the pairs of the bound, front-left and rear-right leading; the trailing
leg is held ``stagger`` shorter until its leader lands, so it strikes later and
further along, and each leg of a staggered pair then thrusts and unloads on
its own spring (single, double, single support; the pair shares the rebound).
A gallop runs as a bound for its first ``unison_time`` (staggering from the
first stride upsets the roll).

Heading: without a path it is held at 0 (x forward); with one,
``paths.PathFollower`` gives a heading and speed at each liftoff and the
heading command turns toward it at most ``turn_rate``.

Computation: the whole tick, touchdown and liftoff included, is compiled
(:mod:`quadruped.tick`, :mod:`quadruped.kernel`) over two state arrays the
runner owns; Python only refreshes the schedule and path commands at a
liftoff that needs them (:mod:`quadruped.legs`) and keeps the public views
(``fsm``, ``timers``, ``rest``, ...).
"""
from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from typing import Callable, Sequence

import mujoco
import numpy as np

from gaitforge.control.raibert.common import leg_geometry, rh91_limits, trunk_fall_check
from gaitforge.control.raibert.fsm import PhaseMachine
from gaitforge.control.paths import PathFollower, WaypointPath
from gaitforge.control.raibert.quadruped.gains import (
    CONTROL_DT,
    FALL_HEIGHT,
    GAIT_GAINS,
    LEG_LENGTH,
    SPEED_RANGES,
    TIMESTEP,
    QuadrupedGains,
)
from gaitforge.control.raibert.quadruped.kernel import (
    F_EPS,
    F_FULL,
    F_HIP,
    F_LEG,
    F_LEG_K,
    F_LAYOUT,
    FLIGHT,
    I_HIP_D,
    I_HIP_J,
    I_HIP_Q,
    I_PHASE,
    I_SITE,
    I_LAYOUT,
    I_SLIDE_D,
    I_SLIDE_J,
    I_SLIDE_Q,
)
from gaitforge.control.raibert.quadruped.legs import PHASES, LegEvents
from gaitforge.control.raibert.quadruped.tick import tick as compiled_tick
from gaitforge.control.raibert.scaling import factor, scale_gains
from gaitforge.control.raibert.quadruped.virtual_legs import LEG_NAMES
from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import set_time_constant
from gaitforge.errors import GaitforgeError, UnknownNameError


class QuadrupedRunner(LegEvents):
    """Virtual-leg running controller of the RH91 quadruped (module docstring).

    schedule: ((t_start [s], gait, speed [m/s]), ...) in time order, the first
    at 0; a change takes effect at the next liftoff. path: a
    :class:`WaypointPath` followed at the schedule's speed (without one the
    heading is held at 0). gains: gait → :class:`QuadrupedGains` overriding
    ``GAIT_GAINS``. ``control_dt`` [s] and :meth:`simulation_model` give the
    control period and physics step it is tuned for.
    """

    def __init__(self, character: Character, schedule: Sequence[tuple[float, str, float]],
                 path: WaypointPath | None = None, gains: dict[str, QuadrupedGains] | None = None,
                 lookahead: float = 2.0):
        self.character = character
        self.lookahead = float(lookahead)
        self.schedule = tuple((float(t), g, float(s)) for t, g, s in schedule)
        self.path = path
        self.gains = {**GAIT_GAINS, **(gains or {})}
        m = character.model
        hips = [character.joints[f"{n}_upper_leg"] for n in LEG_NAMES]
        slides = [character.joints[f"{n}_lower_leg"] for n in LEG_NAMES]
        self.hip_q = [h.qpos.start for h in hips]
        self.hip_d = [h.dof.start for h in hips]
        self.hip_j = [h.mj_joints[:2] for h in hips]
        self.slide_q = [s.qpos.start for s in slides]
        self.slide_d = [s.dof.start for s in slides]
        self.hips = np.array([m.body_pos[m.body(h.body).id] for h in hips])
        self.hip_pos = [tuple(float(c) for c in p) for p in self.hips]
        self.hip_xy = [p[:2] for p in self.hip_pos]
        self._site_of = [character.contacts[f"{n}_foot"] for n in LEG_NAMES]
        dofs = [k for i in range(4) for k in (self.hip_d[i], self.hip_d[i] + 1)]
        self._qf = slice(min(dofs), max(dofs) + 1)
        self._events: list[tuple[float, str]] = []
        # The state the compiled tick reads and writes (layout: quadruped.kernel).
        self._F = F_LAYOUT.new()
        self._I = ints = I_LAYOUT.new()
        self._F[F_HIP:F_HIP + 12] = self.hips.ravel()
        self.leg_length = self._F[F_LEG] = quadruped_leg_length(character)
        # Timing follows the creature's size (RH91 Table 1: times × √L).
        self.size = self.leg_length / LEG_LENGTH
        self.control_dt = CONTROL_DT * factor("time", self.size)
        self.timestep = TIMESTEP * factor("time", self.size)
        self.fall_check = fall_check(character)  # the runner's fall check (sim.controller)
        self.joint_limits = rh91_limits(self.leg_length)  # enforced and reported by the runner (sim.limits)
        per_joint = m.jnt_stiffness.size // m.njnt  # stiffness entries per joint (flat index of [j, 0])
        for i in range(4):
            ints[I_HIP_Q + i], ints[I_HIP_D + i], ints[I_SLIDE_Q + i] = self.hip_q[i], self.hip_d[i], self.slide_q[i]
            ints[I_SLIDE_D + i], ints[I_SITE + i] = self.slide_d[i], self._site_of[i]
            ints[I_HIP_J + 2 * i], ints[I_HIP_J + 2 * i + 1] = (j * per_joint for j in self.hip_j[i])
            ints[I_SLIDE_J + i] = slides[i].mj_joints[0] * per_joint
            self._F[F_LEG_K + i] = m.jnt_stiffness.reshape(-1)[ints[I_SLIDE_J + i]]

    # ---------------------------------------------------------------- protocol
    @property
    def state(self) -> str:
        return f"{self.gait}:{'AB'[self.active]}:{PHASES[self._I[I_PHASE]].value}"

    def kernel_state(self) -> dict:
        """The compiled tick's state by field name (``quadruped.kernel.F_LAYOUT``, ``I_LAYOUT``)."""
        return {**F_LAYOUT.as_dict(self._F), **{f"i.{k}": v for k, v in I_LAYOUT.as_dict(self._I).items()}}

    @property
    def events(self) -> tuple[tuple[float, str], ...]:
        """(time [s], gait) of the start and of every gait change applied."""
        return tuple(self._events)

    def prepare_model(self, model: mujoco.MjModel) -> None:
        """Give the run's model copy the physics step this controller is tuned
        for and the first scheduled gait's ground contacts."""
        model.opt.timestep = self.timestep
        self._set_contacts(model, self.gains[self.schedule[0][1]])

    def _set_contacts(self, model: mujoco.MjModel, g: QuadrupedGains) -> None:
        """The gait's contact time constant on the run's model copy (none: the creature's own)."""
        own = self.character.model
        model.geom_solref[:] = own.geom_solref
        model.pair_solref[:] = own.pair_solref
        if g.contact_timeconst > 0.0:
            set_time_constant(model, g.contact_timeconst)

    def simulation_model(self) -> mujoco.MjModel:
        """A copy of the creature's model with the physics step this controller is tuned for."""
        m = copy.copy(self.character.model)
        self.prepare_model(m)
        return m

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Start in flight at the first scheduled speed, the first pair
        lengthened for landing. Writes the hip servo gains of ``model``
        (``jnt_stiffness``, ``dof_damping``) from then on: give it a copy, as
        the runner does."""
        _, gait, speed = self.schedule[0]
        self._set_contacts(model, self.gains[gait])
        self._events = [(0.0, gait)]
        self._set_gait(gait, speed)
        self._gait_start = 0.0
        g = self.g
        self._fsm = PhaseMachine(compress_eps=g.compress_eps, full_fraction=1.0 - g.full_margin / self.leg_length)
        self._F[F_EPS], self._F[F_FULL] = self._fsm.compress_eps, self._fsm.full_fraction
        self._I[I_PHASE] = FLIGHT
        self._reset_state()
        self.follower = (PathFollower(self.path, speed, lookahead=self.lookahead)
                         if self.path is not None else None)
        self._bind(model, data)
        data.qfrc_applied[self._qf] = 0.0  # the tick writes only the hip torques
        for i in range(4):
            self._set_mode(model, i, False)
        for i in self.pairs[0]:
            self.rest[i] = g.landing
            data.qpos[self.slide_q[i]] = g.landing
        for i in self.pairs[1]:
            data.qpos[self.slide_q[i]] = -g.retract
        self.rest_out = self.rest
        data.qpos[2] = self.leg_length + g.landing + g.start_clearance
        self._update_command(0.0, data.qpos)
        half = 0.5 * self.heading
        data.qpos[3:7] = (math.cos(half), 0.0, 0.0, math.sin(half))
        data.qvel[0:2] = (speed * math.cos(self.heading), speed * math.sin(self.heading))
        mujoco.mj_kinematics(model, data)
        self.compute(model, data)
        for h in self.hip_q:
            data.qpos[h:h + 2] = model.qpos_spring[h:h + 2]
        mujoco.mj_forward(model, data)

    def _bind(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Keep the numpy views the compiled tick reads and writes (making
        them anew costs microseconds per tick, a large share of the budget)."""
        self._model, self._data = model, data
        self._qpos = data.qpos
        self._stiff, self._damp, self._frc = model.jnt_stiffness.reshape(-1), model.dof_damping, data.qfrc_applied
        self._tick_args = (self._F, self._I, data.qpos, data.qvel, data.site_xpos, model.qpos_spring,
                           data.qfrc_applied, self._stiff, model.dof_damping)

    # ---------------------------------------------------------------- control
    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """One control tick (compiled: ``quadruped.tick``): sense contacts and
        attitude, advance the active pair's state machine, write the spring
        set points (``qpos_spring``) and stance torques (``qfrc_applied``)."""
        if data is not self._data or model is not self._model:
            self._bind(model, data)
        if compiled_tick(*self._tick_args, data.time, False):
            self._commands(data.time)
            compiled_tick(*self._tick_args, data.time, True)


def make_controller(character: Character, gait: str, speed: float, **options) -> QuadrupedRunner:
    """A running controller for the RH91 quadruped.

    gait: one of ``SPEED_RANGES`` ("trot", "bound", "gallop"); speed [m/s],
    clamped into ``SPEED_RANGES[gait]`` (× √L for a creature scaled by L) with a warning. options:
    ``clamp`` (False: every speed run as asked, to measure beyond the range),
    ``schedule`` (later ``(t_start [s], gait, speed [m/s])`` changes, applied at
    the next liftoff), ``path`` (a :class:`WaypointPath` to follow),
    ``lookahead`` [m] (the path follower's), ``gains`` (gait →
    :class:`QuadrupedGains`), ``scale`` (the factor L the creature was scaled
    by: the gains, given or default, are scaled by it, RH91 Table 1), or any
    :class:`QuadrupedGains` field, which then overrides it for ``gait``.
    ``gaitforge.sim.run`` takes its control interval, physics step and fall
    check from the controller.
    """
    checked = []
    clamp = options.pop("clamp", True)
    speed_factor = factor("velocity", quadruped_leg_length(character) / LEG_LENGTH)
    for t, g, s in [(0.0, gait, speed), *options.pop("schedule", ())]:
        if g not in SPEED_RANGES:
            raise UnknownNameError(f"unknown quadruped gait {g!r} (valid gaits: {', '.join(SPEED_RANGES)})")
        lo, hi = (v * speed_factor for v in SPEED_RANGES[g])
        if clamp and not lo <= s <= hi:
            warnings.warn(f"desired speed {s} m/s is outside the quadruped {g} range [{lo}, {hi}] m/s; "
                          f"clamped", stacklevel=2)
            s = min(max(s, lo), hi)
        checked.append((float(t), g, float(s)))
    if any(b[0] <= a[0] for a, b in zip(checked, checked[1:])):
        raise GaitforgeError("quadruped schedule: start times must increase, after 0 s")
    path = options.pop("path", None)
    lookahead = options.pop("lookahead", 2.0)
    gains = dict(options.pop("gains", None) or {})
    scale = options.pop("scale", 1.0)
    if not scale > 0:
        raise GaitforgeError(f"scale must be positive, got {scale!r}")
    if scale != 1.0:
        gains = {g: scale_gains(gains.get(g, GAIT_GAINS[g]), scale) for g in {**GAIT_GAINS, **gains}}
    fields = {f.name for f in dataclasses.fields(QuadrupedGains)}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise GaitforgeError(f"unknown quadruped option {unknown[0]!r} (valid: schedule, path, lookahead, gains, "
                             f"scale, or a QuadrupedGains field)")
    if options:
        gains[gait] = dataclasses.replace(gains.get(gait, GAIT_GAINS[gait]), **options)
    return QuadrupedRunner(character, checked, path=path, gains=gains, lookahead=lookahead)


def quadruped_leg_length(character: Character) -> float:
    """The creature's leg length [m], hip to foot with the spring relaxed
    (front-left leg; the four are alike)."""
    return leg_geometry(character, "front_left_upper_leg", "front_left_lower_leg", "front_left_foot").length


def fall_check(character: Character) -> Callable[[mujoco.MjData], str | None]:
    """Trunk below 0.4 m (the unscaled robot's; × the leg length's scale) or
    tilted beyond 60°: a fall."""
    height = FALL_HEIGHT * (quadruped_leg_length(character) / LEG_LENGTH)
    return trunk_fall_check(height, math.radians(60.0), character.model.body("trunk").id)

"""Running control of the RH91 quadruped: trot, bound and gallop as virtual
biped gaits (Raibert & Hodgins 1991, §4 "Gaits"), gait changes on a time
schedule, and steering along waypoints.

Two virtual legs, each a pair of physical legs (diagonal pairs in the trot,
front and rear pairs in the bound and gallop; :mod:`virtual_legs`), run the
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
  legs that touch (``virtual_legs.torque_allocation``; a planted foot cannot
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
"""
from __future__ import annotations

import copy
import dataclasses
import math
import warnings
from typing import Callable, Sequence

import mujoco
import numpy as np

from gaitforge.control.raibert.common import trunk_fall_check
from gaitforge.control.raibert.fsm import Phase, PhaseMachine, StanceTimer
from gaitforge.control.raibert.paths import PathFollower, WaypointPath
from gaitforge.control.raibert.quadruped_gains import (
    CONTROL_DT, GAIT_GAINS, LEG_LENGTH, SPEED_RANGES, TIMESTEP, QuadrupedGains,
)
from gaitforge.control.raibert.quadruped_legs import LegEvents
from gaitforge.control.raibert.virtual_legs import LEG_NAMES
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError

_FLIGHT, _LOADING, _COMPRESSION, _THRUST, _UNLOADING = (
    Phase.FLIGHT, Phase.LOADING, Phase.COMPRESSION, Phase.THRUST, Phase.UNLOADING)


class QuadrupedRunner(LegEvents):
    """Virtual-leg running controller of the RH91 quadruped (module docstring).

    schedule: ((t_start [s], gait, speed [m/s]), ...) in time order, the first
    at 0; a change takes effect at the next liftoff. path: a
    :class:`WaypointPath` followed at the schedule's speed (without one the
    heading is held at 0). gains: gait → :class:`QuadrupedGains` overriding
    ``GAIT_GAINS``. ``control_dt`` [s] and :meth:`simulation_model` give the
    control period and physics step it is tuned for.
    """

    control_dt = CONTROL_DT

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
        sites = [character.contacts[f"{n}_foot"] for n in LEG_NAMES]
        self._site_of = sites
        # One slice write per tick for the set points and one for the torques.
        controlled = [k for i in range(4) for k in (self.hip_q[i], self.hip_q[i] + 1)] + self.slide_q
        self._qs = slice(min(controlled), max(controlled) + 1)
        self._qs_hip = [(self.hip_q[i] - self._qs.start, self.hip_q[i] + 1 - self._qs.start) for i in range(4)]
        self._qs_slide = [k - self._qs.start for k in self.slide_q]
        self._slide_pairs = tuple(enumerate(self._qs_slide))
        dofs = [k for i in range(4) for k in (self.hip_d[i], self.hip_d[i] + 1)]
        self._qf = slice(min(dofs), max(dofs) + 1)
        self._qf_hip = [(self.hip_d[i] - self._qf.start, self.hip_d[i] + 1 - self._qf.start) for i in range(4)]
        self._events: list[tuple[float, str]] = []

    # ---------------------------------------------------------------- protocol
    @property
    def state(self) -> str:
        return f"{self.gait}:{'AB'[self.active]}:{self.fsm.phase.value}"

    @property
    def events(self) -> tuple[tuple[float, str], ...]:
        """(time [s], gait) of the start and of every gait change applied."""
        return tuple(self._events)

    def simulation_model(self) -> mujoco.MjModel:
        """A copy of the creature's model with the physics step this controller is tuned for."""
        m = copy.copy(self.character.model)
        m.opt.timestep = TIMESTEP
        return m

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Start in flight at the first scheduled speed, the first pair
        lengthened for landing. Writes the hip servo gains of ``model``
        (``jnt_stiffness``, ``dof_damping``) from then on: give it a copy, as
        the runner does."""
        _, gait, speed = self.schedule[0]
        self._next_cmd = 1
        self._events = [(0.0, gait)]
        self._set_gait(gait, speed)
        self._gait_start = 0.0
        self.staggered = False
        g = self.g
        self.active = 0
        self.fsm = PhaseMachine(compress_eps=0.005, full_fraction=1.0 - 0.01 / LEG_LENGTH)
        self.timers = [StanceTimer(default=g.stance_guess), StanceTimer(default=g.stance_guess)]
        self.stance = [False] * 4            # hip limp (stance) or position servo (swing)
        self.leg_phase = [_FLIGHT] * 4      # per-leg cycle of a staggered pair
        self.rest = [-g.retract] * 4        # leg rest-length targets [m] from full length
        self.thrust = [g.thrust, g.thrust]  # per virtual leg [m]
        self.hip_top = [-math.inf, -math.inf]  # highest mean hip height of each pair since its liftoff [m]
        self.trim = 0.0                     # m/s added to the forward speed command
        self.alloc, self.alloc_legs, self._servo_legs = None, (), None
        self.td_time, self.td_xy = -1.0, None
        self.heading, self._cmd_time = 0.0, None
        self.follower = (PathFollower(self.path, speed, lookahead=self.lookahead)
                         if self.path is not None else None)
        self._stiffness = model.jnt_stiffness.reshape(model.njnt, -1)
        self._qs_buf = model.qpos_spring[self._qs].tolist()
        self._qf_buf = [0.0] * (self._qf.stop - self._qf.start)
        self._bind(model, data)
        for i in range(4):
            self._set_mode(model, i, False)
        for i in self.pairs[0]:
            self.rest[i] = g.landing
            data.qpos[self.slide_q[i]] = g.landing
        for i in self.pairs[1]:
            data.qpos[self.slide_q[i]] = -g.retract
        self.rest_out = list(self.rest)
        data.qpos[2] = LEG_LENGTH + g.landing + 0.03
        self._update_command(0.0, data.qpos.tolist())
        half = 0.5 * self.heading
        data.qpos[3:7] = (math.cos(half), 0.0, 0.0, math.sin(half))
        data.qvel[0:2] = (speed * math.cos(self.heading), speed * math.sin(self.heading))
        mujoco.mj_kinematics(model, data)
        self.compute(model, data)
        for i in range(4):
            h0, h1 = self._qs_hip[i]
            data.qpos[self.hip_q[i]:self.hip_q[i] + 2] = (self._qs_buf[h0], self._qs_buf[h1])
        mujoco.mj_forward(model, data)

    def _bind(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Keep numpy views of the arrays read and written every tick (making
        them anew costs microseconds per tick, a large share of the budget)."""
        self._model, self._data = model, data
        self._qpos, self._qvel = data.qpos, data.qvel
        self._foot_z = data.site_xpos[:, 2]
        self._spring_view = model.qpos_spring[self._qs]
        self._torque_view = data.qfrc_applied[self._qf]
        self._torques_on = True

    # ---------------------------------------------------------------- control
    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """One control tick: sense contacts and attitude, advance the active
        pair's state machine, write the spring set points and stance torques."""
        g = self.g
        if data is not self._data or model is not self._model:
            self._bind(model, data)
        q = self._qpos.tolist()
        v = self._qvel.tolist()
        zf = self._foot_z.tolist()
        t = data.time
        w, x, y, zq = q[3], q[4], q[5], q[6]
        r6, r7, r8 = 2.0 * (x * zq - w * y), 2.0 * (y * zq + w * x), 1.0 - 2.0 * (x * x + y * y)
        roll = math.atan2(r7, r8)
        pitch = -math.asin(r6) if -1.0 < r6 < 1.0 else -math.copysign(0.5 * math.pi, r6)
        sq, ro, rest = self.slide_q, self.rest_out, self.rest

        # Highest mean hip height of each pair since it lifted off.
        (hx, hy), (kx, ky) = self._pair_hip
        top = self.hip_top
        h = q[2] + r6 * hx + r7 * hy
        if h > top[0]:
            top[0] = h
        h = q[2] + r6 * kx + r7 * ky
        if h > top[1]:
            top[1] = h

        # State machine of the active virtual leg. A foot touches when it is at
        # the ground and its spring is loaded (a leg overshooting as it
        # lengthens can graze the ground unloaded).
        a0, a1 = self.pairs[self.active]
        th = g.touch_height
        x0, x1 = q[sq[a0]], q[sq[a1]]
        so = self._site_of
        t0 = zf[so[a0]] < th and x0 < ro[a0] - 0.002
        t1 = zf[so[a1]] < th and x1 < ro[a1] - 0.002
        fsm = self.fsm
        before = fsm.phase
        touch = t0 or t1 or (before is not _FLIGHT and t - self.td_time < g.min_stance)
        if before is _FLIGHT and not touch:
            phase = before  # what update would return (saves the call on most flight ticks)
        else:
            phase = fsm.update(t, touch, LEG_LENGTH + 0.5 * (x0 + x1),
                               0.5 * (v[self.slide_d[a0]] + v[self.slide_d[a1]]), LEG_LENGTH + 0.5 * (ro[a0] + ro[a1]))
        staggered = self.staggered
        if phase is not before:
            if phase is _LOADING:
                self._touchdown(t, q)
            elif phase is _FLIGHT:
                self._liftoff(model, t, q)
                g = self.g
                staggered = self.staggered
                a0, a1 = self.pairs[self.active]
                t0 = t1 = False
            elif not staggered:
                if phase is _THRUST:  # each leg keeps its touchdown offset
                    rest[a0] += self.thrust[self.active]
                    rest[a1] += self.thrust[self.active]
                elif phase is _UNLOADING:
                    rest[a0] = rest[a1] = -g.retract
            if phase is _COMPRESSION or phase is _THRUST:
                self.alloc_legs = self._servo_legs = None  # fresh allocation below
        stance = self.stance
        if phase is not _FLIGHT:
            if t0 and not stance[a0]:
                self._set_mode(model, a0, True)
            if t1 and not stance[a1]:
                self._set_mode(model, a1, True)
            if staggered:
                if stance[a0]:
                    self._leg_cycle(model, a0, q, v[self.slide_d[a0]], t0)
                if stance[a1]:
                    self._leg_cycle(model, a1, q, v[self.slide_d[a1]], t1)

        if phase is _COMPRESSION or phase is _THRUST or (staggered and phase is not _FLIGHT):
            if staggered:
                t0 = t0 and self.leg_phase[a0] is not _UNLOADING
                t1 = t1 and self.leg_phase[a1] is not _UNLOADING
            self._posture(q, v, (w, x, y, zq), roll, pitch, a0, a1, t0, t1)
        elif self.alloc_legs != ():
            self.alloc, self.alloc_legs, self._servo_legs = None, (), None
            for f in self._qf_hip[a0] + self._qf_hip[a1]:
                self._qf_buf[f] = 0.0

        if phase is _FLIGHT or (staggered and not stance[a1]):
            # A staggered pair's trailing leg is held short until the leader lands.
            self._place(q, v, t, (w, x, y, zq), pitch, r6, r7, a0, a1, staggered and phase is _FLIGHT)
        self._idle_legs(q, roll, pitch, r6, r7, a0, a1, phase is not _UNLOADING)

        # Leg rest lengths move toward their targets at a limited rate.
        step, buf = self._leg_step, self._qs_buf
        for i, k in self._slide_pairs:
            e = rest[i] - ro[i]
            r = ro[i] + (step if e > step else (-step if e < -step else e))
            ro[i] = buf[k] = r
        self._spring_view[:] = buf
        if self._torques_on or self.alloc is not None:  # (zeros need writing once)
            self._torque_view[:] = self._qf_buf
            self._torques_on = self.alloc is not None


def make_controller(character: Character, gait: str, speed: float, **options) -> QuadrupedRunner:
    """A running controller for the RH91 quadruped.

    gait: one of ``SPEED_RANGES`` ("trot", "bound", "gallop"); speed [m/s],
    clamped into ``SPEED_RANGES[gait]`` with a warning. options:
    ``schedule`` (later ``(t_start [s], gait, speed [m/s])`` changes, applied at
    the next liftoff), ``path`` (a :class:`WaypointPath` to follow),
    ``lookahead`` [m] (the path follower's), ``gains`` (gait →
    :class:`QuadrupedGains`), or any :class:`QuadrupedGains` field, which then
    overrides it for ``gait``. Run it with ``control_dt=controller.control_dt``
    and ``model=controller.simulation_model()``.
    """
    checked = []
    for t, g, s in [(0.0, gait, speed), *options.pop("schedule", ())]:
        if g not in SPEED_RANGES:
            raise GaitforgeError(f"unknown quadruped gait {g!r} (valid gaits: {', '.join(SPEED_RANGES)})")
        lo, hi = SPEED_RANGES[g]
        if not lo <= s <= hi:
            warnings.warn(f"desired speed {s} m/s is outside the quadruped {g} range [{lo}, {hi}] m/s; "
                          f"clamped", stacklevel=2)
            s = min(max(s, lo), hi)
        checked.append((float(t), g, float(s)))
    if any(b[0] <= a[0] for a, b in zip(checked, checked[1:])):
        raise GaitforgeError("quadruped schedule: start times must increase, after 0 s")
    path = options.pop("path", None)
    lookahead = options.pop("lookahead", 2.0)
    gains = dict(options.pop("gains", None) or {})
    fields = {f.name for f in dataclasses.fields(QuadrupedGains)}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise GaitforgeError(f"unknown quadruped option {unknown[0]!r} (valid: schedule, path, lookahead, gains, "
                             f"or a QuadrupedGains field)")
    if options:
        gains[gait] = dataclasses.replace(gains.get(gait, GAIT_GAINS[gait]), **options)
    return QuadrupedRunner(character, checked, path=path, gains=gains, lookahead=lookahead)


def fall_check(character: Character) -> Callable[[mujoco.MjData], str | None]:
    """Trunk below 0.4 m or tilted beyond 60°: a fall."""
    return trunk_fall_check(0.4, math.radians(60.0), character.model.body("trunk").id)

"""Step-level logic of the RH91 quadruped controller (see
:mod:`gaitforge.control.raibert.quadruped`) that stays in Python: the
schedule and path commands refreshed at a liftoff, and views of the state
the compiled tick keeps (:mod:`quadruped.kernel`, :mod:`quadruped.tick`:
the state machine, touchdown and liftoff, placement by RH91 Eq. 3, the Eq. 4
posture servo, the idle pair, the hip servo modes).

:class:`LegEvents` is a mixin of :class:`~gaitforge.control.raibert.quadruped.QuadrupedRunner`.
That state lives in the runner's arrays ``_F`` (float64) and ``_I`` (int64),
laid out in :mod:`quadruped.kernel`; the properties below name its slots.
Leg indices: 0 front-left, 1 front-right, 2 rear-left, 3 rear-right. Leg
rest lengths are in metres from the full (relaxed) length ``LEG_LENGTH``.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import mujoco
import numpy as np

from gaitforge.jit import block, slot
from gaitforge.control.core.phase import drain
from gaitforge.control.raibert.fsm import PHASES, PhaseMachine, StanceTimer, replay  # noqa: F401 (PHASES re-exported)
from gaitforge.control.raibert.quadruped.kernel import (
    F_GAIT_START,
    F_HC,
    F_HEADING,
    F_HIP_TOP,
    F_HS,
    F_LEG_STEP,
    F_LOG_N,
    F_NEXT_CMD,
    F_PAIR_HIP,
    F_REST,
    F_REST_OUT,
    F_TD_TIME,
    F_THRUST,
    F_TIMER,
    F_TRIM,
    F_TRIM_FLOOR,
    F_TS,
    F_WANT,
    FLIGHT,
    GAIN_FIELDS,
    MORE_FIELDS,
    I_ACTIVE,
    I_ALLOC_N,
    I_ALLOC_ON,
    I_FOLLOW,
    I_IDLE_CLEAR,
    I_LEG_PHASE,
    I_PAIR_ALLOC,
    I_PAIRS,
    I_PATTERN_STAGGERED,
    I_SERVO_N,
    I_STAGGERED,
    I_STANCE,
    I_TD_VALID,
    LOG_SIZE,
    set_mode,
)
from gaitforge.control.raibert.quadruped.virtual_legs import GAITS, GaitPattern

if TYPE_CHECKING:
    from gaitforge.control.raibert.quadruped.gains import QuadrupedGains
    from gaitforge.control.paths import PathFollower, WaypointPath

_TIMER_FIELDS = ("touchdown_time", "liftoff_time", "last_stance", "last_flight")  # F_TIMER slots per pair



class LegEvents:
    """Command handling and state views of the quadruped runner."""

    # Set by the runner (QuadrupedRunner.__init__, reset, _bind).
    _F: np.ndarray
    _I: np.ndarray
    _fsm: PhaseMachine
    _timers: list[StanceTimer]
    _events: list[tuple[float, str]]
    _next_cmd: int
    _cmd_time: float | None
    _qpos: np.ndarray
    _stiff: np.ndarray
    _damp: np.ndarray
    _frc: np.ndarray
    gait: str
    speed: float
    pattern: GaitPattern
    pairs: tuple[tuple[int, int], tuple[int, int]]
    g: QuadrupedGains
    gains: dict[str, QuadrupedGains]
    schedule: tuple[tuple[float, str, float], ...]
    path: WaypointPath | None
    follower: PathFollower | None
    control_dt: float
    hip_xy: list[tuple[float, ...]]
    _model: mujoco.MjModel  # the run's model copy (set at reset)

    def _set_contacts(self, model: mujoco.MjModel, g: QuadrupedGains) -> None:  # pragma: no cover - the runner's
        raise NotImplementedError

    active = slot("_I", I_ACTIVE, int)          # virtual leg now in use (0 or 1)
    staggered = slot("_I", I_STAGGERED, bool)  # the active gait's pairs land staggered now
    trim = slot("_F", F_TRIM, float)            # m/s added to the forward speed command
    want = slot("_F", F_WANT, float)            # commanded speed along the heading [m/s]
    heading = slot("_F", F_HEADING, float)      # heading command [rad]
    td_time = slot("_F", F_TD_TIME, float)      # time of the last touchdown [s] (-1 before)
    _gait_start = slot("_F", F_GAIT_START, float)  # when the present gait began [s]
    rest = block("_F", F_REST, 4)                 # leg rest-length targets [m] from full length
    rest_out = block("_F", F_REST_OUT, 4)         # rest lengths written (rate limited) [m]
    hip_top = block("_F", F_HIP_TOP, 2)           # highest mean hip height of each pair since its liftoff [m]
    thrust = block("_F", F_THRUST, 2)             # per virtual leg [m]
    stance = block("_I", I_STANCE, 4)             # 1: hip limp (stance), 0: position servo (swing)

    def _copy_phase_log(self) -> PhaseMachine:
        """The active pair's Fig. 4 state machine, its record brought up to
        date: the compiled tick logs phase changes, copied in here."""
        replay(drain(self._F, F_LOG_N, LOG_SIZE), (self._fsm,))
        return self._fsm

    fsm = property(_copy_phase_log)

    @property
    def timers(self) -> list[StanceTimer]:
        """Stance timers of the two virtual legs, brought up to date from the
        compiled tick's copy (which is the one in use)."""
        for k, timer in enumerate(self._timers):
            for j, name in enumerate(_TIMER_FIELDS):
                value = float(self._F[F_TIMER + 4 * k + j])
                setattr(timer, name, None if math.isnan(value) else value)
        return self._timers

    @timers.setter
    def timers(self, timers: list[StanceTimer]) -> None:
        self._timers = timers
        for k, timer in enumerate(timers):
            for j, name in enumerate(_TIMER_FIELDS):
                value = getattr(timer, name)
                self._F[F_TIMER + 4 * k + j] = math.nan if value is None else value

    def _set_gait(self, gait: str, speed: float) -> None:
        self.gait, self.speed = gait, speed
        self.pattern = GAITS[gait]
        self.pairs = self.pattern.pairs
        self.g = g = self.gains[gait]
        F, ints = self._F, self._I
        F[:len(GAIN_FIELDS)] = [getattr(g, f) for f in GAIN_FIELDS]
        F[F_TRIM_FLOOR:F_TRIM_FLOOR + len(MORE_FIELDS)] = [getattr(g, f) for f in MORE_FIELDS]
        F[F_LEG_STEP] = g.leg_rate * self.control_dt
        ints[I_PAIRS:I_PAIRS + 4] = self.pairs[0] + self.pairs[1]
        ints[I_IDLE_CLEAR], ints[I_PAIR_ALLOC] = bool(g.idle_clearance), bool(g.pair_alloc)
        ints[I_PATTERN_STAGGERED] = self.pattern.staggered
        # Mean hip offsets of each pair (trunk axes): their height is the pair's hop height.
        F[F_PAIR_HIP:F_PAIR_HIP + 4] = [float(np.mean([self.hip_xy[i][k] for i in p])) for p in self.pairs
                                        for k in (0, 1)]

    def _set_mode(self, model: mujoco.MjModel, leg: int, stance: bool) -> None:
        """Hip servo gains of one leg (``quadruped.kernel.set_mode``) in the
        model bound at reset."""
        set_mode(self._F, self._I, self._stiff, self._damp, self._frc, leg, 1 if stance else 0)

    def _schedule_next(self) -> None:
        """Tell the compiled tick when the next schedule entry falls due [s]."""
        due = self.schedule[self._next_cmd][0] if self._next_cmd < len(self.schedule) else math.inf
        self._F[F_NEXT_CMD] = due

    def _update_command(self, t: float, q) -> None:
        """Apply a due schedule entry and refresh the path command (at liftoff)."""
        if self._next_cmd < len(self.schedule) and t >= self.schedule[self._next_cmd][0]:
            _, gait, speed = self.schedule[self._next_cmd]
            self._next_cmd += 1
            self._schedule_next()
            if gait != self.gait:
                landing = self.pairs[self.active][0]
                before = {frozenset(p) for p in self.pairs}
                self._set_gait(gait, speed)
                self._set_contacts(self._model, self.g)
                # From a bound the gallop's pairs are already running: no unison start.
                same = before == {frozenset(p) for p in self.pairs}
                self._gait_start = t - (self.g.unison_time if same else 0.0)
                self._events.append((t, gait))
                # The leg about to land stays in the active pair.
                self.active = 0 if landing in self.pairs[0] else 1
                self.timers = [StanceTimer(default=self.g.stance_guess) for _ in range(2)]
                self.thrust = [self.g.thrust, self.g.thrust]
                self.hip_top = [-math.inf, -math.inf]
            self.speed = speed
        if self.follower is not None:
            self.follower.speed = self.speed
            cmd = self.follower.update((float(q[0]), float(q[1])))
            # Turn toward the path's heading at a limited yaw rate: a corner
            # asks for a step the trunk cannot follow within one stride.
            heading = self.heading
            turn = (cmd.heading - heading + math.pi) % (2.0 * math.pi) - math.pi
            room = math.pi if self._cmd_time is None else self.g.turn_rate * max(t - self._cmd_time, 0.0)
            self.heading = heading + max(-room, min(room, turn))
            self.want = math.hypot(float(cmd.velocity[0]), float(cmd.velocity[1]))
        else:
            self.want = self.speed
        self._F[F_HC], self._F[F_HS] = math.cos(self.heading), math.sin(self.heading)
        self._cmd_time = t

    def _commands(self, t: float) -> None:
        """At a liftoff the compiled tick hands over (see ``quadruped.tick``):
        copy out its phase log and refresh the commands (a due gait change,
        the path's heading and speed)."""
        self._copy_phase_log()
        self._update_command(t, self._qpos)

    def _reset_state(self) -> None:
        """The runner's state at the start of a run, in flight (see ``reset``)."""
        g, ints = self.g, self._I
        self.staggered = False
        self.active = 0
        self.timers = [StanceTimer(default=g.stance_guess), StanceTimer(default=g.stance_guess)]
        self._F[F_TS] = g.stance_guess
        ints[I_STANCE:I_STANCE + 4] = 0
        ints[I_LEG_PHASE:I_LEG_PHASE + 4] = FLIGHT
        self.rest = -g.retract
        self.thrust = g.thrust
        self.hip_top = -math.inf
        self.trim = 0.0
        ints[I_ALLOC_ON] = ints[I_ALLOC_N] = 0
        ints[I_SERVO_N] = -1
        self.td_time = -1.0
        ints[I_TD_VALID] = 0
        self._F[F_LOG_N] = 0
        self.heading, self._cmd_time = 0.0, None
        ints[I_FOLLOW] = self.path is not None
        self._next_cmd = 1
        self._schedule_next()

"""The running state machine of RH91 Fig. 4 and the stance-duration bookkeeping.

One cycle per step of the *active* leg (or virtual leg):

    FLIGHT --touchdown--> LOADING --spring shortens--> COMPRESSION
      ^                                                    |
      |                                            spring lengthens
      |                                                    v
    (liftoff: swap active and idle legs) <-- UNLOADING <-- THRUST
                                      spring near full length

The machine only tracks phases from sensed events; the actions of each phase
(lengthen the leg, servo pitch, ...) belong to the creature's controller.
The rule is the compiled ``core.phase.next_phase`` that every controller's
tick runs; the controllers feed these Python machines the inputs of each
phase change their ticks made, so they follow the compiled state.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from gaitforge.control.core.errors import InternalError
from gaitforge.control.core.phase import NAMES, next_phase


class Phase(Enum):
    FLIGHT = "flight"
    LOADING = "loading"
    COMPRESSION = "compression"
    THRUST = "thrust"
    UNLOADING = "unloading"


PHASES = tuple(Phase)  # index: the compiled phase code (core.phase)
_CODE = {p: i for i, p in enumerate(PHASES)}
if tuple(p.value for p in PHASES) != NAMES:
    raise InternalError(f"fsm.Phase {[p.value for p in PHASES]} is not in core.phase order {NAMES}")
_FLIGHT = Phase.FLIGHT


@dataclass
class PhaseMachine:
    """Advances through the phases in order from sensed events.

    ``compress_eps`` [m or rad]: how far the leg must shorten below its rest
    length before LOADING counts as COMPRESSION; ``full_fraction``: THRUST ends
    when the leg is back within this fraction of its rest length.
    ``steps`` counts liftoffs (each one swaps the active leg).
    """

    compress_eps: float = 1e-3
    full_fraction: float = 0.98
    phase: Phase = Phase.FLIGHT
    steps: int = 0
    history: list[tuple[float, Phase]] = field(default_factory=list)

    def update(self, t: float, touching: bool, length: float, length_rate: float,
               rest_length: float) -> Phase:
        """Feed one control tick; returns the (possibly new) phase.

        t [s]; touching: the active foot is loaded; length / length_rate: the
        active leg's spring length [m] and its rate [m/s] (or angle and rate for
        a torsional spring); rest_length: the spring's current rest length.
        """
        p = PHASES[next_phase(_CODE[self.phase], bool(touching), float(length), float(length_rate),
                              float(rest_length), float(self.compress_eps), float(self.full_fraction))]
        if p is _FLIGHT and self.phase is not _FLIGHT:  # a liftoff
            self.steps += 1
        if p is not self.phase:
            self.history.append((t, p))
            self.phase = p
        return p

    def record(self, t: float, phase: Phase) -> None:
        """Take a phase change a compiled tick made at t [s] (the machine as a
        view of the tick's phase log)."""
        if phase is not self.phase:
            if phase is _FLIGHT:
                self.steps += 1
            self.history.append((t, phase))
            self.phase = phase


@dataclass
class StanceTimer:
    """Measures support durations; the next one is predicted to equal the last
    (RH91 §4, speed control). ``default`` [s] is used before any stance ends."""

    default: float = 0.15
    touchdown_time: float | None = None
    last_stance: float | None = None
    last_flight: float | None = None
    liftoff_time: float | None = None

    def touchdown(self, t: float) -> None:
        if self.liftoff_time is not None:
            self.last_flight = t - self.liftoff_time
        self.touchdown_time = t

    def liftoff(self, t: float) -> None:
        if self.touchdown_time is not None:
            self.last_stance = t - self.touchdown_time
        self.liftoff_time = t
        self.touchdown_time = None

    @property
    def predicted_stance(self) -> float:
        return self.default if self.last_stance is None else self.last_stance

    def record(self, t: float, phase: Phase) -> None:
        """Take a phase change at t [s]: a touchdown (LOADING) or a liftoff (FLIGHT)."""
        if phase is Phase.LOADING:
            self.touchdown(t)
        elif phase is _FLIGHT:
            self.liftoff(t)


def replay(entries, machines, timers=()) -> None:
    """Feed the changes drained from a compiled tick's phase log
    (``core.phase.drain``: (t [s], slot, code)) to the phase machines and
    stance timers of each slot (sequences indexed by slot; no timers: none)."""
    for t, slot, code in entries:
        phase = PHASES[code]
        machines[slot].record(t, phase)
        if timers:
            timers[slot].record(t, phase)

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
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Phase(Enum):
    FLIGHT = "flight"
    LOADING = "loading"
    COMPRESSION = "compression"
    THRUST = "thrust"
    UNLOADING = "unloading"

    @property
    def in_stance(self) -> bool:
        return self is not _FLIGHT


# Members as module constants: in Python 3.11 ``Phase.FLIGHT`` is a slow
# descriptor lookup (~0.2 µs), and ``update`` runs every control tick.
_FLIGHT, _LOADING, _COMPRESSION, _THRUST, _UNLOADING = (
    Phase.FLIGHT, Phase.LOADING, Phase.COMPRESSION, Phase.THRUST, Phase.UNLOADING)


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
        p = self.phase
        if p is _FLIGHT:
            if touching:
                p = _LOADING
        elif not touching:  # every other phase is a stance phase
            p = _FLIGHT
            self.steps += 1
        elif p is _LOADING:
            if length < rest_length - self.compress_eps:
                p = _COMPRESSION
        elif p is _COMPRESSION:
            if length_rate > 0.0:
                p = _THRUST
        elif p is _THRUST and length >= self.full_fraction * rest_length:
            p = _UNLOADING
        if p is not self.phase:
            self.history.append((t, p))
            self.phase = p
        return p


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

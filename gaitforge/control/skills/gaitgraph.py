"""Gait graphs and the gait generator's parameter sets (Wang 2011 §3.1.1,
after Coros et al. 2011).

A gait graph says, for each limb, where its swing lies within the gait cycle
(phase in [0, 1)): it lifts off at ``lift`` and touches down ``swing``
cycle-fractions later. A gait keeps a slow and a fast graph and stride
period; between its slowest and fastest speed both are interpolated
linearly, so one parameter set covers a speed range (a DS walk with one limb
in swing at a time when slow and overlapping swings when fast).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gaitforge.errors import GaitforgeError

#: Limb order used throughout the skills controller.
LIMBS = ("front_left", "front_right", "rear_left", "rear_right")


@dataclass(frozen=True)
class GaitGraph:
    """Swing intervals per limb (``LIMBS`` order): ``lift`` (4,) the phase
    at which each limb lifts off, ``swing`` (4,) its swing duration as a
    fraction of the cycle (0: never swings)."""

    lift: tuple[float, float, float, float]
    swing: tuple[float, float, float, float]

    def __post_init__(self) -> None:
        for name, v in (("lift", self.lift), ("swing", self.swing)):
            if len(v) != 4 or not all(math.isfinite(x) for x in v):
                raise GaitforgeError(f"gait graph {name} must be 4 finite numbers, got {v!r}")
        if not all(0.0 <= s < 1.0 for s in self.swing):
            raise GaitforgeError(f"gait graph swing fractions must lie in [0, 1), got {self.swing!r}")

    def mix(self, other: "GaitGraph", w: float) -> "GaitGraph":
        """The graph (1 − w) self + w other (lift phases mixed on the circle)."""
        lift = []
        for a, b in zip(self.lift, other.lift):
            d = (b - a + 0.5) % 1.0 - 0.5
            lift.append((a + w * d) % 1.0)
        swing = tuple((1 - w) * a + w * b for a, b in zip(self.swing, other.swing))
        return GaitGraph(tuple(lift), swing)  # type: ignore[arg-type]

    def swing_progress(self, phase: float) -> np.ndarray:
        """(4,) for each limb: its progress through swing in [0, 1) at
        ``phase``, or −1 when the graph has it in stance."""
        out = np.full(4, -1.0)
        for i, (a, s) in enumerate(zip(self.lift, self.swing)):
            if s > 0.0:
                u = (phase - a) % 1.0
                if u < s:
                    out[i] = u / s
        return out

    def duty(self) -> np.ndarray:
        """(4,) fraction of the cycle each limb spends in stance."""
        return 1.0 - np.asarray(self.swing)


@dataclass(frozen=True)
class Gait:
    """One gait generator state: its name, the graphs and stride periods [s]
    at its slowest and fastest speed [m/s], the leg-frame heights offset
    [m] from the rest pose (front, rear), trunk pitch offset [rad, nose up
    positive], shoulder twist amplitude [rad] (rolls the swing shoulder up),
    swing-foot lift [m] per leg frame (front, rear), and
    late_reach [m per swing time] at the slowest and fastest speed: how fast
    a swing foot that has not found the ground by the end of its swing keeps
    reaching down (``reach``); stance_kp: knots (speed [m/s], fraction)
    of the stance limbs' servo softness by speed, interpolated linearly and
    held beyond the end knots (empty: the creature's ``SkillParams.stance_kp``
    at every speed; ``stance_softness``); stride_knots: knots (speed [m/s],
    stride period [s]) that replace ``period``'s straight line above the
    first knot's speed, held beyond the last (``stride``; at most six);
    contact_timeconst [s]: the ground contacts' solref time constant while
    this gait runs (0: the creature's ``SkillParams.contact_timeconst``)."""

    name: str
    slow: GaitGraph
    fast: GaitGraph
    period: tuple[float, float]
    speeds: tuple[float, float]
    heights: tuple[float, float] = (0.0, 0.0)
    pitch: float = 0.0
    twist: float = 0.0
    lift_height: tuple[float, float] = (0.08, 0.08)
    late_reach: tuple[float, float] = (0.1, 0.1)
    stance_kp: tuple[tuple[float, float], ...] = ()
    stride_knots: tuple[tuple[float, float], ...] = ()
    contact_timeconst: float = 0.0

    def weight(self, speed: float) -> float:
        """Where ``speed`` lies between the slow (0) and fast (1) parameter sets."""
        lo, hi = self.speeds
        return 0.0 if hi <= lo else min(1.0, max(0.0, (abs(speed) - lo) / (hi - lo)))

    def graph(self, speed: float) -> GaitGraph:
        return self.slow.mix(self.fast, self.weight(speed))

    def reach(self, speed: float) -> float:
        """Late reach [m per swing time] at ``speed`` [m/s]."""
        w = self.weight(speed)
        return (1 - w) * self.late_reach[0] + w * self.late_reach[1]

    def stance_softness(self, speed: float, default: float) -> float:
        """The stance limbs' servo gains as a fraction of their full gains at
        ``speed`` [m/s] (``default`` without knots)."""
        if not self.stance_kp:
            return default
        knots = np.asarray(self.stance_kp, float)
        return float(np.interp(abs(speed), knots[:, 0], knots[:, 1]))

    def stride(self, speed: float) -> float:
        """Stride period [s] at ``speed`` [m/s]: ``period`` interpolated
        between the slow and fast speeds, or above the first of the
        ``stride_knots`` the knots."""
        if self.stride_knots and abs(speed) > self.stride_knots[0][0]:
            knots = np.asarray(self.stride_knots, float)
            return float(np.interp(abs(speed), knots[:, 0], knots[:, 1]))
        w = self.weight(speed)
        return (1 - w) * self.period[0] + w * self.period[1]


def standing(name: str = "stand") -> Gait:
    """Standing still: no limb swings."""
    g = GaitGraph((0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0))
    return Gait(name, g, g, (1.0, 1.0), (0.0, 0.0))

"""What the skills controller is asked to do over time: gait and speed
(changed on command by a schedule, speed ramped at a bounded acceleration),
and heading (a turn rate, or a waypoint path followed by its carrot)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from gaitforge.jit import slot
from gaitforge.control.paths import PathFollower, WaypointPath
from gaitforge.errors import GaitforgeError


@dataclass(frozen=True)
class Command:
    """From time ``at`` [s]: walk ``gait`` at ``speed`` [m/s]."""

    at: float
    gait: str
    speed: float


class Commander:
    """The commanded gait, speed [m/s] and heading [rad] at each tick.

    schedule: commands sorted by time (the first at 0); accel [m/s²]: how
    fast the speed follows a new command; turn_rate [rad/s]: constant yaw
    rate (0: straight); path: a waypoint path to follow instead (its speed
    is the scheduled one). Once the follower says the end of an open path is
    reached, the creature stops there and keeps its heading (without the
    latch, drifting past the end point would turn it round to step back,
    again and again). ``speed`` and ``heading`` are kept in ``state`` (2,),
    an array the skills controller points into its compiled tick's state,
    which ramps them itself between schedule entries when no path is
    followed (``next_change``)."""

    speed = slot("state", 0)
    heading = slot("state", 1)

    def __init__(self, schedule: Sequence[Command], accel: float, turn_rate: float = 0.0,
                 path: WaypointPath | None = None):
        if not schedule or schedule[0].at != 0.0:
            raise GaitforgeError("a command schedule starts at t = 0")
        if any(b.at <= a.at for a, b in zip(schedule, schedule[1:])):
            raise GaitforgeError("command times must increase")
        self.schedule = list(schedule)
        self.accel = float(accel)
        self.turn_rate = float(turn_rate)
        self.path = path
        self.follower: PathFollower | None = None
        self.state = np.zeros(2)
        self.speed = 0.0
        self.heading = 0.0
        self.arrived = False

    def reset(self, heading: float) -> None:
        self.speed, self.heading, self.arrived = 0.0, heading, False
        if self.path is not None:
            self.follower = PathFollower(self.path, max(self.schedule[0].speed, 0.05))

    def current(self, t: float) -> Command:
        c = self.schedule[0]
        for n in self.schedule:
            if n.at <= t:
                c = n
        return c

    def next_change(self, t: float) -> float:
        """When [s] the schedule next changes after t (inf: never)."""
        return min((c.at for c in self.schedule if c.at > t), default=math.inf)

    def update(self, t: float, dt: float, position) -> tuple[str, float, float]:
        """(gait, speed [m/s], heading [rad]) for the tick at t [s]."""
        c = self.current(t)
        target = c.speed
        if self.arrived:
            target = 0.0
        elif self.follower is not None:
            self.follower.speed = max(c.speed, 0.05)
            cmd = self.follower.update(position)
            self.arrived = cmd.done
            target = float(math.hypot(*cmd.velocity))
            turn = (cmd.heading - self.heading + math.pi) % (2 * math.pi) - math.pi
            self.heading += max(-0.6 * dt, min(0.6 * dt, turn))  # at most 0.6 rad/s
        else:
            self.heading += self.turn_rate * dt
        step = self.accel * dt
        self.speed += max(-step, min(step, target - self.speed))
        return c.gait, self.speed, self.heading

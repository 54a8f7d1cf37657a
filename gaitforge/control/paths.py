"""Path following for every runner that follows paths (the RH91 biped and
quadruped, the skills dog and gorilla): a list of waypoints becomes, at each
moment, a desired horizontal velocity vector and a trunk heading.

Pure math (numpy only). The follower chases a *carrot*: the point a fixed
``lookahead`` distance [m] further along the polyline than the runner's
projection onto its current segment. Aiming the velocity at the carrot rounds
off corners smoothly, which a running creature needs: it can only change its
velocity a little at each footfall (RH91 Eq. 3), so a sharp corner cannot be
followed exactly. A closed path (``loop``) wraps around; an open one ends
with the runner slowing to a stop on its last waypoint.

Positions and velocities are world (x, y) pairs [m], [m/s]; headings are
angles about +z from +x [rad].
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.sim.track import distance_to_polyline


@dataclass(frozen=True, eq=False)
class WaypointPath:
    """A polyline to follow. waypoints (N, 2) [m], N ≥ 2, consecutive points
    distinct; speed [m/s] the cruising speed the path asks for (None: the
    caller's); loop: the last waypoint connects back to the first."""

    waypoints: np.ndarray
    speed: float | None = None
    loop: bool = False

    def __post_init__(self) -> None:
        w = np.array(self.waypoints, dtype=float)
        if w.ndim != 2 or w.shape[1] != 2 or w.shape[0] < 2:
            raise GaitforgeError(f"path: waypoints must be an (N, 2) array with N >= 2, got shape {w.shape}")
        if not np.all(np.isfinite(w)):
            raise GaitforgeError("path: waypoints must be finite numbers")
        seg = np.diff(np.vstack([w, w[:1]]) if self.loop else w, axis=0)
        short = np.flatnonzero(np.linalg.norm(seg, axis=1) < 1e-9)
        if short.size:
            i = int(short[0])
            raise GaitforgeError(f"path: waypoints {i} and {(i + 1) % len(w)} coincide")
        if self.speed is not None and not (math.isfinite(self.speed) and self.speed > 0):
            raise GaitforgeError(f"path: speed must be a positive number, got {self.speed!r}")
        w.flags.writeable = False
        object.__setattr__(self, "waypoints", w)

    @property
    def segments(self) -> tuple[np.ndarray, np.ndarray]:
        """Segment start points (S, 2) and end points (S, 2)."""
        w = self.waypoints
        ends = np.vstack([w[1:], w[:1]]) if self.loop else w[1:]
        starts = w if self.loop else w[:-1]
        return starts, ends

    @property
    def length(self) -> float:
        """Total length [m] of the polyline (closing segment included for loops)."""
        a, b = self.segments
        return float(np.linalg.norm(b - a, axis=1).sum())


class PathCommand(NamedTuple):
    """What the runner should do now: velocity (2,) [m/s] world; heading [rad];
    segment: index of the segment being followed; cross_track [m]: signed
    distance from that segment's line (positive = path lies to the runner's
    right, i.e. runner left of it); done: an open path's end was reached."""

    velocity: np.ndarray
    heading: float
    segment: int
    cross_track: float
    done: bool


def distance_to_path(path: WaypointPath, points) -> np.ndarray:
    """Distance [m] from each point (T, 2) (or one (2,)) to the nearest point
    of the whole polyline: the cross-track error independent of any follower."""
    d = distance_to_polyline(np.atleast_2d(np.asarray(points, float)), path.waypoints, path.loop)
    return d if np.ndim(points) == 2 else d[:1].reshape(())


class PathFollower:
    """Turns a :class:`WaypointPath` into velocity and heading commands.

    speed [m/s]: cruising speed; lookahead [m]: carrot distance along the
    path; stop_radius [m]: within this distance of an open path's end the
    commanded speed falls linearly to zero (and ``done`` turns true within
    ``stop_radius / 10``). Keeps the current segment index between calls.
    """

    def __init__(self, path: WaypointPath, speed: float, lookahead: float = 0.6, stop_radius: float = 0.8):
        if not (speed > 0 and lookahead > 0 and stop_radius > 0):
            raise GaitforgeError("path follower: speed, lookahead and stop_radius must be positive")
        self.path = path
        self.speed = float(speed)
        self.lookahead = float(lookahead)
        self.stop_radius = float(stop_radius)
        a, b = path.segments
        self._a = a
        self._u = (b - a) / np.linalg.norm(b - a, axis=1)[:, None]
        self._len = np.linalg.norm(b - a, axis=1)
        self.segment = 0

    def _carrot(self, seg: int, s: float) -> np.ndarray:
        """The point ``lookahead`` beyond arc position ``s`` on segment ``seg``."""
        left = s + self.lookahead
        n = len(self._len)
        while left > self._len[seg]:
            if not self.path.loop and seg == n - 1:
                return self._a[seg] + self._u[seg] * self._len[seg]  # clamp at the end
            left -= self._len[seg]
            seg = (seg + 1) % n
        return self._a[seg] + self._u[seg] * left

    def update(self, position) -> PathCommand:
        """Command for the runner at ``position`` (2,) [m]."""
        p = np.asarray(position, float)[:2]
        n = len(self._len)
        # Move on once the projection passes the end of the current segment.
        while True:
            s = float((p - self._a[self.segment]) @ self._u[self.segment])
            last = not self.path.loop and self.segment == n - 1
            if s < self._len[self.segment] or last:
                break
            self.segment = (self.segment + 1) % n
        seg = self.segment
        u = self._u[seg]
        rel = p - self._a[seg]
        cross = float(u[0] * rel[1] - u[1] * rel[0])  # z of u x rel: > 0 when p is left of the line
        target = self._carrot(seg, max(s, 0.0))
        to = target - p
        dist = float(np.hypot(*to))
        speed = self.speed
        done = False
        if not self.path.loop:
            end = self._a[-1] + self._u[-1] * self._len[-1]
            to_end = float(np.hypot(*(end - p)))
            if seg == n - 1 and to_end < self.stop_radius:
                speed *= to_end / self.stop_radius
                done = to_end < 0.1 * self.stop_radius
        direction = to / dist if dist > 1e-9 else u
        heading = math.atan2(direction[1], direction[0])
        return PathCommand(0.0 * direction if done else speed * direction, heading, seg, cross, done)

"""A catalogue entry for a simulated runner: what the generic preparation
needs to build a creature and its controller for a gait at a speed, scaled
or not. A catalogue (e.g. ``gaitforge.control.raibert.catalog``) is a table
of these; adding a controller is adding one entry."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.sim.controller import Controller


@dataclass(frozen=True)
class Runner:
    """One creature's runner.

    key: the catalogue name; creature: its registry name; speed_ranges: gait
    → (lo, hi) desired speeds [m/s] it holds (unscaled); default_gait,
    default_speed [m/s]; paths: it follows waypoint paths; scalable: it runs
    scaled by a length factor L (RH91 Table 1); make(character, gait, speed,
    *, scale, path, **options): the controller (``scale``: the L the
    character was scaled by, for its gains; ``path`` only if ``paths``). The
    controller carries its run settings (``sim.controller.Controller``).
    """

    key: str
    creature: str
    speed_ranges: Mapping[str, tuple[float, float]]
    default_gait: str
    default_speed: float
    paths: bool
    scalable: bool
    make: Callable[..., Controller] | None = None

    def check_gait(self, gait: str) -> None:
        """Raise ``UnknownNameError`` unless ``gait`` is one of the runner's."""
        if gait not in self.speed_ranges:
            raise UnknownNameError(f"{self.key} has no gait {gait!r} (valid gaits: {', '.join(self.speed_ranges)})")

    def speed_range(self, gait: str, scale: float = 1.0) -> tuple[float, float]:
        """(lo, hi) [m/s] of ``gait`` for the creature scaled by ``scale`` (× √L)."""
        self.check_gait(gait)
        lo, hi = self.speed_ranges[gait]
        return lo * math.sqrt(scale), hi * math.sqrt(scale)


def check_options(runners: Mapping[str, Runner], r: Runner, *, path: object = None, scale: float = 1.0) -> None:
    """User errors of a request to ``r`` (of the catalogue ``runners``): a
    path it cannot follow, a scale it cannot run at or that is not positive."""
    if path is not None and not r.paths:
        raise GaitforgeError(f"{r.key} does not follow paths (paths work for: "
                             f"{', '.join(k for k, v in runners.items() if v.paths)})")
    if scale != 1.0 and not r.scalable:
        raise GaitforgeError(f"{r.key} cannot be scaled (scaling works for: "
                             f"{', '.join(k for k, v in runners.items() if v.scalable)})")
    if not (isinstance(scale, (int, float)) and scale > 0):
        raise GaitforgeError(f"scale must be positive, got {scale!r}")

"""The playback clock of a clip: play, pause, single step, reset and a
playback speed from 1/8× to 8× (pure state, advanced by wall time)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from gaitforge.errors import GaitforgeError

RATES = (0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0)  # playback speeds offered (× real time)


@dataclass
class Clock:
    """time [s] into the clip, playing or paused, rate (× real time)."""

    time: float = 0.0
    playing: bool = True
    rate: float = 1.0

    def set_rate(self, rate: float) -> None:
        """Playback speed, from 1/8× to 8×."""
        if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not math.isfinite(rate) \
                or not RATES[0] <= rate <= RATES[-1]:
            raise GaitforgeError(f"playback speed must be from 1/8x to 8x, got {rate!r}")
        self.rate = float(rate)

    def advance(self, wall_dt: float) -> None:
        """Move on by ``wall_dt`` [s] of wall time × rate when playing."""
        if self.playing:
            self.time += max(0.0, float(wall_dt)) * self.rate

    def step(self, dt: float) -> None:
        """Pause and move on by one frame of ``dt`` [s]."""
        self.playing = False
        self.time += dt

    def reset(self) -> None:
        self.time = 0.0

    def frame(self, fps: float, n_frames: int) -> int:
        """The frame shown at the current time in a looping clip of ``n_frames`` at ``fps``."""
        return int(math.floor(self.time * fps + 1e-9)) % max(1, n_frames)

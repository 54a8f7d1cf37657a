"""MotionClip: a character's generalized coordinates sampled at a fixed rate.

Frames are MuJoCo ``qpos`` vectors of one :class:`Character` (free root:
position [m] then orientation quaternion w, x, y, z; then each joint's
coordinates in model order — hinge angles [rad], slide lengths [m], ball
quaternions). Storing ``qpos`` keeps every exporter and metric exact and
independent of how the motion was made (kinematic synthesis or simulation).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gaitforge.errors import GaitforgeError


@dataclass(frozen=True, eq=False)
class MotionClip:
    """fps [frames/s]; qpos (T, nq); character_name: which character the
    coordinates belong to (exporters check it against the character)."""

    fps: float
    qpos: np.ndarray
    character_name: str = ""

    def __post_init__(self) -> None:
        q = np.array(self.qpos, dtype=float)  # own copy, read-only
        if q.ndim != 2 or q.shape[0] < 1:
            raise GaitforgeError(f"motion clip: qpos must be a (frames, nq) array, got shape {q.shape}")
        if not np.all(np.isfinite(q)):
            bad = int(np.argwhere(~np.isfinite(q))[0][0])
            raise GaitforgeError(f"motion clip: qpos has a non-finite value at frame {bad}")
        if not (isinstance(self.fps, (int, float)) and np.isfinite(self.fps) and self.fps > 0):
            raise GaitforgeError(f"motion clip: fps must be a positive number, got {self.fps!r}")
        q.flags.writeable = False
        object.__setattr__(self, "qpos", q)
        object.__setattr__(self, "fps", float(self.fps))

    @property
    def n_frames(self) -> int:
        return self.qpos.shape[0]

    @property
    def nq(self) -> int:
        return self.qpos.shape[1]

    @property
    def dt(self) -> float:
        return 1.0 / self.fps

    @property
    def duration(self) -> float:
        """Seconds from the first to the last frame."""
        return (self.n_frames - 1) / self.fps

    @property
    def times(self) -> np.ndarray:
        """Frame times (T,) [s] starting at 0."""
        return np.arange(self.n_frames) / self.fps

    def check_character(self, character) -> None:
        """Raise if the clip's coordinates do not fit ``character``."""
        if self.nq != character.nq:
            raise GaitforgeError(f"motion clip has {self.nq} coordinates per frame but {character.name} "
                                 f"has nq = {character.nq}")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, MotionClip) and self.fps == other.fps
                and self.character_name == other.character_name
                and self.qpos.shape == other.qpos.shape and bool(np.array_equal(self.qpos, other.qpos)))

    __hash__ = None  # type: ignore[assignment]

"""Optimization checkpoints: one pickle file, replaced atomically on every
save, so a run killed at any moment leaves the last complete state.

Only load checkpoints you wrote yourself: pickle runs code on load.
"""
from __future__ import annotations

import os
import pickle
from pathlib import Path

from gaitforge.errors import GaitforgeError
from gaitforge.io.atomic import atomic_path


class PickleCheckpoint:
    """``save(state)`` / ``load() -> state or None`` on ``path``; ``resume``
    False ignores an existing file on load (a fresh run overwrites it)."""

    def __init__(self, path: str | os.PathLike, *, resume: bool = True):
        self.path = Path(path)
        self.resume = resume

    def load(self) -> dict | None:
        if not self.resume or not self.path.exists():
            return None
        try:
            with open(self.path, "rb") as fh:
                state = pickle.load(fh)
        except (OSError, pickle.UnpicklingError, EOFError) as exc:
            raise GaitforgeError(f"{self.path}: cannot read the checkpoint ({exc})") from None
        if not isinstance(state, dict):
            raise GaitforgeError(f"{self.path}: not an optimization checkpoint")
        return state

    def save(self, state: dict) -> None:
        with atomic_path(self.path) as tmp:
            with open(tmp, "wb") as fh:
                pickle.dump(state, fh, protocol=pickle.HIGHEST_PROTOCOL)

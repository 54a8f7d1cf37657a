"""What every part of a studio page shares: the session, the lock, the
status line and the handles the parts read from one another (declared here,
set by the parts: :mod:`.panels` builds the GUI, :mod:`.controls` answers it,
:mod:`.view` places the creature, :mod:`.render` runs the frame loop)."""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.studio.scene import MeshBatch, Poser
from gaitforge.studio.session import Session


RATE_LABELS = {"1/8x": 0.125, "1/4x": 0.25, "1/2x": 0.5, "1x": 1.0, "2x": 2.0, "4x": 4.0, "8x": 8.0}


def one_line(exc: BaseException) -> str:
    """An exception as one line: the library's own message, else its type and message."""
    text = str(exc) if isinstance(exc, GaitforgeError) else f"{type(exc).__name__}: {exc}"
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:299] + "…"


def from_page(callback: Callable[[], object]) -> Callable[[Any], None]:
    """A GUI callback that runs ``callback`` for a change made in the page
    and not for the server's own setting of the value (viser calls a
    handle's callbacks for both; the server's has no client)."""
    def on_update(event) -> None:
        if event.client is not None:
            callback()
    return on_update


class PageBase:
    """The state of one browser tab that its parts share (module docstring)."""

    client: Any
    session: Session
    lock: threading.RLock
    names: list[str]
    status: Any
    # GUI handles read across parts (viser handles)
    creature: Any
    shadows: Any
    follow: Any
    physics: Any
    rest_pose: Any
    runner_list: Any
    drive_recipe: Any
    puppets: list
    drag_body: Any
    drag_pushes: Any
    metrics: Any
    footfall: Any
    perf: Any
    shown: Any
    mode_list: Any
    rate: Any
    # the scene
    poser: Poser
    batches: list[MeshBatch]
    mesh_handles: list
    world: Any
    grid: Any
    drag: Any
    drag_id: int
    dragging: bool
    pose_version: int
    edits: int
    last_pose: np.ndarray
    fps: float
    _shown_clip: object
    _push_lock: threading.Lock
    _refine: threading.Timer | None
    _listed: str

    def act(self, what: str, *steps: Callable[[], object], busy: str | None = None) -> None:
        raise NotImplementedError

    def push_pose(self) -> np.ndarray:
        raise NotImplementedError

    def _build_scene(self) -> None:
        raise NotImplementedError

    def _drag_handle(self) -> None:
        raise NotImplementedError

    def _reload(self) -> None:
        raise NotImplementedError

    def _build_runner_gui(self) -> None:
        raise NotImplementedError

    def _build_shortcuts(self) -> None:
        raise NotImplementedError

    def _transport(self, what: str) -> None:
        raise NotImplementedError

    def _rate_step(self, steps: int) -> None:
        raise NotImplementedError

    def _push(self) -> None:
        raise NotImplementedError

"""The controller protocol every simulated behaviour implements."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import mujoco


@runtime_checkable
class Controller(Protocol):
    """Called by the runner once per control tick (every ``control_dt``).

    ``reset`` prepares the controller (and may set the initial state in
    ``data``); ``compute`` reads the state and writes actuation for the
    coming tick: ``data.qfrc_applied`` (generalized forces), ``data.ctrl``,
    or spring set points in ``model.qpos_spring`` (the runner gives every
    rollout its own copy of the model, so that is safe). A controller keeps
    its own state; no globals.

    ``state`` is a short label of the controller's current phase (for logs
    and fall reports).
    """

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None: ...

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None: ...

    @property
    def state(self) -> str: ...

"""The controller protocol every simulated behaviour implements, and the
optional attributes through which a controller tells the runner how it must
be run."""
from __future__ import annotations

import copy
from typing import Callable, NamedTuple, Protocol, runtime_checkable

import mujoco

DEFAULT_CONTROL_DT = 0.002  # s: the control interval of a controller that names none


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

    A controller may also carry what the runner needs to run it (see
    :class:`RunSettings`; each is optional, with the default in brackets):
    ``control_dt`` [s] its control interval (0.002 s), ``prepare_model(model)``
    to configure the run's model copy in place, e.g. the physics step it is
    tuned for (nothing), and ``fall_check(data) -> str | None`` the reason
    the creature has fallen, or None (no fall check).
    """

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None: ...

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None: ...

    @property
    def state(self) -> str: ...


class RunSettings(NamedTuple):
    """How a controller is run: control interval [s], the run's model copy
    (prepared) and the fall check (None: none)."""

    control_dt: float
    model: mujoco.MjModel
    fall_check: Callable[[mujoco.MjData], str | None] | None


def run_settings(controller: Controller, model: mujoco.MjModel, *, timestep: float | None = None) -> RunSettings:
    """The controller's own settings (``Controller`` lists them) for a run on
    a copy of ``model`` (never changed); ``timestep`` [s] replaces the
    physics step the controller prepared (it must divide the control
    interval: ``sim.physics.check_timestep``)."""
    m = copy.copy(model)
    prepare = getattr(controller, "prepare_model", None)
    if prepare is not None:
        prepare(m)
    control_dt = float(getattr(controller, "control_dt", DEFAULT_CONTROL_DT))
    if timestep is not None:
        from gaitforge.sim.physics import check_timestep

        check_timestep(timestep, control_dt)
        m.opt.timestep = float(timestep)
    return RunSettings(control_dt, m, getattr(controller, "fall_check", None))

"""A registry runner (``control.registry``: the RH91 biped, quadruped and
kangaroo, the skills dog and gorilla) simulated live on its own thread.

The controller is the registry's own for the entry's gait at the commanded
speed (and turn rate, where the entry takes one), run the way
``sim.runner.run`` runs it: on the model copy its ``prepare_model`` sets up
(its declared physics step), one ``compute`` per control interval followed
by ``nstep`` physics steps (through the joint-limit clipper when it declares
limits), its own fall check. A new speed reaches a controller that takes
commands live (one with a ``commander``: the skills runners ramp to it at
their own acceleration, and turn at the new rate); any other is started
again at the new speed. Pushes and the drag handle apply forces
(``xfrc_applied``), as ``gaitforge push`` does.
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.studio.live import LiveSim
from gaitforge.constants import GRAVITY

DRAG_STIFFNESS = 5.0    # [1/m] the drag handle pulls a body with (body weight) × this × distance
DRAG_LIMIT = 2.0        # the drag's pull is at most this many body weights


def runnable(entry) -> bool:
    """Whether the studio runs ``entry`` live: it takes a commanded speed and builds its own controller."""
    return entry.speed_range is not None and entry.controller is not None


def live_command(controller, gait: str, speed: float, turn_rate: float) -> bool:
    """Give ``controller`` a new speed [m/s] and turn rate [rad/s] without a
    restart, where it takes commands live (a ``command(gait, speed,
    turn_rate)`` method: the skills controller); False where it does not."""
    command = getattr(controller, "command", None)
    return bool(command(gait, speed, turn_rate)) if callable(command) else False


class RunnerSim(LiveSim):
    """A registry entry's controller simulated on a thread (module docstring).

    entry: a ``control.entry.Entry`` (:func:`runnable`); character: the
    entry's creature; speed [m/s] (None: the entry's default; outside the
    gait's range: refused, as ``gaitforge run`` refuses it); turn_rate
    [rad/s] (refused for an entry that does not turn on command).
    Thread-safe: every public method takes the lock."""

    # a pause of the thread (the page's footfall analysis holds the interpreter) is made up to this [s]
    max_catch_up = 0.2
    thread_name = "gaitforge-runner"

    def __init__(self, entry, character, speed: float | None = None, turn_rate: float = 0.0):
        from gaitforge.control import registry

        if not runnable(entry):
            raise GaitforgeError(f"{entry.label} takes no commanded speed: the studio runs it as physics "
                                 "(Physics on), not as a runner")
        self.entry, self.character = entry, character
        self.speed = entry.speed_for(speed)
        self.turn_rate = self._check_turn(turn_rate)
        registry.check_options(entry, {"turn_rate": self.turn_rate})
        self._start_live()
        self.fall: str | None = None
        self._push = (0, np.zeros(3), -1.0)        # (body, force [N], until [s])
        self._goal: tuple[int, np.ndarray] | None = None
        self._weight = float(character.mass) * GRAVITY
        self._build()

    # ------------------------------------------------------------ the controller
    def _check_turn(self, turn_rate: float) -> float:
        from gaitforge import inputs

        return float(inputs.TURN_RATE.check("turn rate", turn_rate))

    def _controller(self):
        """The entry's controller at the commanded speed and turn rate."""
        from gaitforge.control import registry

        e = self.entry
        if self.turn_rate and "turn_rate" in e.options:
            r = registry.catalogue(e)
            assert r is not None and r.make is not None
            return r.make(self.character, e.gait, self.speed, turn_rate=self.turn_rate)
        return e.controller(e, self.character, self.speed)

    def _build(self) -> None:
        """A new controller, model and state at rest (the run's start)."""
        from gaitforge.sim.controller import run_settings
        from gaitforge.sim.limits import Limiter, limits_of

        controller = self._controller()
        settings = run_settings(controller, self.character.model)
        m = settings.model
        d = mujoco.MjData(m)
        d.qpos[:] = self.character.rest_qpos
        nstep = int(round(settings.control_dt / m.opt.timestep))
        controller.reset(m, d)
        limits = limits_of(controller)
        mujoco.mj_forward(m, d)
        with self.lock:
            self.controller, self.model, self.data = controller, m, d
            self.control_dt, self.nstep, self.fall_check = settings.control_dt, nstep, settings.fall_check
            self.dt = float(m.opt.timestep)
            self.limiter = None if limits is None else Limiter(m, limits)
            self.fall = None
            self._clear_record()

    # ------------------------------------------------------------ commands
    def command(self, speed: float | None = None, turn_rate: float | None = None) -> str:
        """New speed [m/s] and/or turn rate [rad/s] (None: unchanged), checked
        by the registry's rules; returns how it was taken ("live",
        "restarted", or "unchanged" when both are as they were)."""
        from gaitforge.control import registry

        new_speed = self.speed if speed is None else self.entry.speed_for(speed)
        new_turn = self.turn_rate if turn_rate is None else self._check_turn(turn_rate)
        registry.check_options(self.entry, {"turn_rate": new_turn})
        assert new_speed is not None
        if new_speed == self.speed and new_turn == self.turn_rate:
            return "unchanged"
        with self.lock:
            live = live_command(self.controller, self.entry.gait, new_speed, new_turn)
            self.speed, self.turn_rate = new_speed, new_turn
        if not live:
            self._build()
        return "live" if live else "restarted"

    def push(self, force, seconds: float = 0.2, body: int = 1) -> None:
        """Push ``body`` with ``force`` (3,) [N, world] for ``seconds`` of simulated time."""
        with self.lock:
            if not 0 < body < self.model.nbody:
                raise GaitforgeError(f"body {body}: the model has bodies 1 to {self.model.nbody - 1}")
            self.data.xfrc_applied[:] = 0.0
            self._push = (int(body), np.asarray(force, float).reshape(3), self.data.time + float(seconds))

    def hold(self, body: int, point) -> None:
        """While the drag handle is held: pull ``body`` toward ``point`` (3,)
        [m] with a spring of :data:`DRAG_STIFFNESS` body weights per metre
        (at most :data:`DRAG_LIMIT` body weights), every control tick."""
        point = np.asarray(point, float).reshape(3)
        if not np.all(np.isfinite(point)):
            raise GaitforgeError(f"drag target must be a finite point, got {point!r}")
        if not 0 < body < self.model.nbody:
            raise GaitforgeError(f"body {body}: the model has bodies 1 to {self.model.nbody - 1}")
        self._goal = (int(body), point)

    def release(self) -> None:
        """The handle was let go: no more pull."""
        self._goal = None
        with self.lock:
            self.data.xfrc_applied[:] = 0.0

    def reset(self) -> None:
        """Start again from rest at the commanded speed."""
        self._build()

    # ------------------------------------------------------------ stepping
    @property
    def quantum(self) -> float:
        return self.control_dt

    def advance(self, seconds: float) -> int:
        """Simulate ``seconds`` [s] in whole control intervals; returns the physics steps taken."""
        diverged = False
        with self.lock:
            m, d, c = self.model, self.data, self.controller
            ticks = max(0, int(round(seconds / self.control_dt)))
            for _ in range(ticks):
                self._forces()
                if self.fall is None and self.fall_check is not None:
                    reason = self.fall_check(d)
                    if reason is not None:
                        self.fall = str(getattr(reason, "reason", reason))
                c.compute(m, d)
                if self.limiter is None:
                    mujoco.mj_step(m, d, nstep=self.nstep)
                else:
                    self.limiter.step(m, d, self.nstep)
                self._record_frame()
                if not math.isfinite(float(d.qpos.sum())):
                    diverged = True
                    break
        if diverged:  # started again from rest, and the page says why
            self._build()
            self.fall = "the simulation diverged and was started again"
        return ticks * self.nstep

    def _forces(self) -> None:
        """The push and the drag's pull for the coming tick (under the lock)."""
        d = self.data
        body, force, until = self._push
        if until >= 0:
            if d.time < until:
                d.xfrc_applied[body, :3] = force
            else:
                d.xfrc_applied[body, :3] = 0.0
                self._push = (0, np.zeros(3), -1.0)
        goal = self._goal
        if goal is not None:
            b, point = goal
            pull = self._weight * DRAG_STIFFNESS * (point - d.xpos[b])
            size = float(np.linalg.norm(pull))
            if size > DRAG_LIMIT * self._weight:
                pull *= DRAG_LIMIT * self._weight / size
            d.xfrc_applied[b, :3] = pull

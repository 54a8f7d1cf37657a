"""The registry runners of a studio session: the list the page offers,
starting one (with its creature), its speed and turn rate, stopping it.
A mixin of :class:`~gaitforge.studio.session.Session`."""
from __future__ import annotations

from typing import Any

from gaitforge.api import creatures as gf_creatures
from gaitforge.errors import GaitforgeError
from gaitforge.studio.runner_sim import RunnerSim, runnable


class Runs:
    """Registry runners in a session (module docstring)."""

    character: Any
    built: Any
    label: str
    runner: RunnerSim | None

    def _use(self, character, label: str, built=None) -> None:
        raise NotImplementedError

    def stop_physics(self) -> None:
        raise NotImplementedError

    def play(self, playing: bool = True) -> None:
        raise NotImplementedError

    def runners(self) -> list[str]:
        """``"dog trot"`` per registry runner the studio runs live (those
        taking a commanded speed), the current creature's first."""
        from gaitforge.control import registry

        mine = [e for e in registry.ENTRIES if runnable(e)]
        mine.sort(key=lambda e: e.creature != self.character.name)
        return [e.label for e in mine]

    def start_runner(self, label: str, speed: float | None = None, turn_rate: float = 0.0) -> None:
        """Simulate the registry runner ``label`` (``"dog trot"``, as
        :meth:`runners` names it) live at ``speed`` [m/s] (None: its default;
        outside its gait's range: refused) turning at ``turn_rate`` [rad/s]
        (refused for a runner that does not turn); the runner's creature is
        loaded when it is not the current one."""
        from gaitforge.control import registry

        if not isinstance(label, str) or " " not in label.strip():
            raise GaitforgeError(f"runner: give it as 'creature gait' (e.g. 'dog trot'), got {label!r}")
        key, gait = label.strip().split(" ", 1)
        entry = registry.entry(key, gait)
        mine = entry.creature == self.character.name
        # the creature as loaded: the registry's controllers are tuned to its own rest pose
        character = self.built if mine else gf_creatures.creature(entry.creature)
        sim = RunnerSim(entry, character, speed, turn_rate)  # refused before anything changes
        self.stop_runner()
        self.stop_physics()
        if character is not self.character:
            self._use(character, self.label if mine else entry.creature)
        self.runner = sim
        sim.start()
        self.play(True)

    def runner_turns(self, label: str) -> bool:
        """Whether the runner ``label`` turns on command (the registry's ``turn_rate`` option)."""
        from gaitforge.control import registry

        key, gait = label.strip().split(" ", 1)
        return "turn_rate" in registry.entry(key, gait).options

    def runner_speed(self, speed: float) -> str:
        """The running runner's speed [m/s] (its gait's range; outside: refused);
        returns "live" or "restarted" (a runner that takes no live command starts again)."""
        return self._running().command(speed=speed)

    def turn(self, turn_rate: float) -> str:
        """The running runner's turn rate [rad/s] (refused for one that does not turn on command)."""
        return self._running().command(turn_rate=turn_rate)

    def _running(self) -> RunnerSim:
        if self.runner is None:
            raise GaitforgeError("no runner is running: choose one in the Runner list")
        return self.runner

    def stop_runner(self) -> None:
        """Back to kinematic playback from a runner."""
        sim, self.runner = getattr(self, "runner", None), None
        if sim is not None:
            sim.stop()

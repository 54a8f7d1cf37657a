"""The page's Runner folder: pick a registry runner (``control.registry``:
what ``gaitforge runners`` lists), run it live, and steer it with a speed
slider (m/s, over the gait's own range) and a turn-rate slider (rad/s; a
runner that does not turn on command refuses it with the registry's one
line)."""
from __future__ import annotations

from typing import Any

from gaitforge.studio.page_base import PageBase, from_page

NONE = "(none)"
TURN_LIMIT = 1.0  # [rad/s] the turn slider's reach either way


class RunnerPanel(PageBase):
    """The Runner folder of a page (module docstring)."""

    runner_list: Any
    runner_folder: Any
    runner_speed: Any
    runner_turn: Any
    runner_stop: Any

    def _build_runner_gui(self) -> None:
        gui = self.client.gui
        with gui.add_folder("Runner") as folder:
            self.runner_folder = folder
            self.runner_list = gui.add_dropdown("Runner", [NONE] + self.session.runners(),
                                                hint="a simulated controller of the registry, run live")
            self.runner_speed = gui.add_slider("Runner speed (m/s)", 0.0, 1.0, 0.05, 0.0, disabled=True)
            self.runner_turn = gui.add_slider("Turn rate (rad/s)", -TURN_LIMIT, TURN_LIMIT, 0.05, 0.0,
                                              hint="yaw rate asked of the runner (skills runners turn on command)")
            self.runner_stop = gui.add_button("Stop runner")
        self.runner_list.on_update(from_page(self._runner_chosen))
        self.runner_speed.on_update(from_page(self._runner_speed))
        self.runner_turn.on_update(from_page(self._runner_turn))
        self.runner_stop.on_click(lambda e: self.act("stop runner", self._stop_runner))

    def _runner_chosen(self) -> None:
        label = self.runner_list.value
        if label == NONE:
            self.act("stop runner", self._stop_runner)
            return
        before = self.session.character.name
        # a runner that does not turn starts straight
        turn = float(self.runner_turn.value) if self.session.runner_turns(label) else 0.0
        self.act(f"runner {label}", lambda: self.session.start_runner(label, turn_rate=turn),
                 lambda: self._runner_started(before), busy=f"starting {label}")
        running = self.session.runner
        if running is None or running.entry.label != label:  # refused: the list shows what runs
            self._quiet(self.runner_list, NONE if running is None else running.entry.label)

    def _runner_started(self, before: str) -> None:
        """After a start: the creature's scene (if it changed) and the speed slider over the gait's range."""
        sim = self.session.runner
        assert sim is not None
        if self.session.character.name != before:
            self._quiet(self.creature, self.session.character.name)
            self._reload()
        self._sync()   # the rest pose: the creature as loaded
        self._speed_slider(sim.entry.speed_range, sim.speed)
        self._turn_slider(sim.turn_rate)
        self._drag_handle()

    def _sync(self) -> None:
        raise NotImplementedError

    def _speed_slider(self, span, value) -> None:
        """Re-make the speed slider over ``span`` (lo, hi) [m/s] at ``value`` (disabled for a range of one speed)."""
        lo, hi = span
        with self.runner_folder:
            new = self.client.gui.add_slider("Runner speed (m/s)", lo, max(hi, lo + 0.05), 0.05, value,
                                             disabled=hi <= lo, order=self.runner_speed.order,
                                             hint=f"{lo:g}–{hi:g} m/s: the speeds this gait holds")
        self.runner_speed.remove()
        self.runner_speed = new
        new.on_update(from_page(self._runner_speed))

    def _turn_slider(self, value: float) -> None:
        """Re-make the turn slider at ``value`` [rad/s] (a new slider: setting a
        slider's value from the server can leave the page's number box deaf
        to the next typed value)."""
        with self.runner_folder:
            new = self.client.gui.add_slider("Turn rate (rad/s)", -TURN_LIMIT, TURN_LIMIT, 0.05, value,
                                             order=self.runner_turn.order, hint=self.runner_turn.hint)
        self.runner_turn.remove()
        self.runner_turn = new
        new.on_update(from_page(self._runner_turn))

    def _runner_speed(self) -> None:
        value = float(self.runner_speed.value)
        self.act("runner speed", lambda: self.session.runner_speed(value))

    def _runner_turn(self) -> None:
        value = float(self.runner_turn.value)
        self.act("turn rate", lambda: self.session.turn(value))
        sim = self.session.runner
        if sim is None or sim.turn_rate != value:  # refused: the slider back where the runner is
            self._turn_slider(0.0 if sim is None else sim.turn_rate)

    def _stop_runner(self) -> None:
        self.session.stop_runner()
        self._quiet(self.runner_list, NONE)
        self._drag_handle()

    @staticmethod
    def _quiet(handle, value) -> None:
        """Set a GUI value from the server (its callbacks see no client and do nothing)."""
        handle.value = value

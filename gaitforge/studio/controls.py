"""What the page's controls do beyond one session call: live term edits
(pinned a moment later), transport and playback speed, physics on and off,
puppet sliders, pushes, the drag handle and downloads."""
from __future__ import annotations

import threading

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.studio.page_base import RATE_LABELS, PageBase, one_line
from gaitforge.constants import GRAVITY

REFINE_DELAY = 0.25  # [s] after the last term edit, the live clip's stance feet are pinned


class Controls(PageBase):
    """The page's callbacks (module docstring)."""

    def _edit_term(self, i: int, field: str, value: float) -> None:
        """A term slider moved: the live clip at once (pose pushed without
        waiting for the next frame), the pinned clip a moment later."""
        self.act("term", lambda: self.session.set_term(i, **{field: value}), self.push_pose)
        if self.session.unpinned:
            if self._refine is not None:
                self._refine.cancel()
            self._refine = threading.Timer(REFINE_DELAY, self._refine_now)
            self._refine.daemon = True
            self._refine.start()

    def _refine_now(self) -> None:
        try:
            with self.lock:
                self.session.refine()
        except Exception as exc:  # shown like any other failure
            self.status.content = f"**Error** (pin feet): {one_line(exc)}"

    def _transport(self, what: str) -> None:
        """Play, Pause, Back (one frame), Step (one frame), Reset; a simulation resets to rest."""
        c = self.session.clock
        if what == "Play":
            self.session.play(True)
        elif what == "Pause":
            self.session.play(False)
        elif what == "Step":
            self.session.step()
        elif what == "Back":
            self.session.step(-1)
        else:
            c.reset()
            sim = self.session.sim
            if sim is not None:
                sim.reset()

    def _rate(self, rate: float) -> None:
        self.session.clock.set_rate(rate)
        sim = self.session.sim
        if sim is not None:
            sim.rate = rate

    def _rate_step(self, steps: int) -> None:
        """One playback speed slower (-1) or faster (+1), through the dropdown."""
        labels = list(RATE_LABELS)
        i = labels.index(self.rate.value) + steps
        if not 0 <= i < len(labels):
            raise GaitforgeError(f"playback speed is already the {'slowest' if steps < 0 else 'fastest'} "
                                 f"({labels[i - steps]})")
        self.rate.value = labels[i]   # its callback sets the clock

    def _pin(self, pin: bool) -> None:
        self.session.pin = bool(pin)
        if self.session.recipe is not None:
            self.session._set_recipe(self.session.recipe)

    def _physics(self) -> None:
        if self.physics.value:
            self.session.start_physics(len(self.puppets), drive_recipe=bool(self.drive_recipe.value))
            self.runner_list.value = "(none)"  # the runner stopped (its callback ignores the server's own setting)
            sim = self.session.physics
            assert sim is not None
            for i, h in enumerate(self.puppets):
                h.label = f"Puppet mode {sim.puppet[i]}" if i < self.session.puppet_sliders else h.label
        else:
            self.session.stop_physics()
        self._drag_handle()

    def _drag_handle(self) -> None:
        """The drag handle (translation only) on the chosen body while physics runs."""
        if self.drag is not None:
            self.drag.remove()
            self.drag = None
        sim, name = self.session.sim, self.drag_body.value
        if sim is None or name == "(none)":
            return
        body = self.session.character.model.body(name).id
        handle = self.client.scene.add_transform_controls("/world/drag", scale=0.2, disable_rotations=True,
                                                          position=sim.body_position(body), depth_test=False)
        handle.on_drag_start(lambda e: setattr(self, "dragging", True))
        handle.on_drag_end(lambda e: self._drag_end())
        handle.on_update(lambda e: self.act("drag", lambda: self._dragged(body, handle.position)))
        self.drag, self.drag_id = handle, body

    def _drag_end(self) -> None:
        self.dragging = False
        sim = self.session.sim
        if sim is not None:
            sim.release()

    def _dragged(self, body: int, point) -> None:
        sim = self.session.sim
        if sim is None:
            return
        # puppetry with Drag pushes: a spring from the body to the handle, m g per 0.2 m (a runner pulls likewise)
        if self.drag_pushes.value and sim is self.session.physics:
            k = self.session.character.mass * GRAVITY / 0.2
            sim.push(k * (np.asarray(point) - sim.body_position(body)), seconds=0.1, body=body)
        else:
            sim.hold(body, point)

    def _puppet(self, i: int) -> None:
        sim = self.session.physics
        if sim is None:
            raise GaitforgeError("turn physics on to puppeteer")
        if i < self.session.puppet_sliders:
            sim.set_target(i, float(self.puppets[i].value))

    def _push(self) -> None:
        sim = self.session.sim
        if sim is None:
            raise GaitforgeError("turn physics on (or start a runner) to push")
        sim.push((0.0, 0.5 * self.session.character.mass * GRAVITY, 0.0))

    def _download(self, kind: str) -> None:
        name, content = self.session.download(kind, **({"width": 480, "height": 360} if kind == "MP4" else {}))
        self.client.send_file_download(name, content, save_immediately=True)
        self.last_download = (name, content)


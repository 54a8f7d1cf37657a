"""Keyboard shortcuts of the studio page, as data.

viser sends no raw key events to Python, but (1.1) it has a command
palette whose commands may carry a hotkey (``client.gui.add_command(...,
hotkey=...)``): the page listens for the key (not while typing in a field)
and calls the command's trigger on the server. Its hotkeys are letters,
digits and named keys (space, arrows, …), not punctuation, so single steps
are on the arrow keys rather than ``.``/``,`` and the playback speed on
up/down rather than ``[``/``]``. Each shortcut is one entry of
:data:`SHORTCUTS`; the page (:class:`Shortcuts`) binds each to the same
call its button makes, so a key press shows in the status like a click.
"""
from __future__ import annotations

from typing import NamedTuple

from gaitforge.studio.page_base import PageBase


class Shortcut(NamedTuple):
    """key: viser's name for it; label and description: as the command palette shows them;
    action: the :class:`Shortcuts` method it calls (``"_key_" + action``)."""

    key: str
    label: str
    description: str
    action: str


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("space", "Play / pause", "play or pause the clip or the simulation", "toggle"),
    Shortcut("arrowright", "Step", "one frame forward (paused)", "step"),
    Shortcut("arrowleft", "Back", "one frame back (paused; a clip only)", "back"),
    Shortcut("R", "Reset", "the clip to its start; a simulation back to rest", "reset"),
    Shortcut("arrowup", "Faster", "the next playback speed up (to 8x)", "faster"),
    Shortcut("arrowdown", "Slower", "the next playback speed down (to 1/8x)", "slower"),
    Shortcut("P", "Push sideways", "push the simulated trunk sideways", "push"),
    Shortcut("F", "Follow camera", "follow the creature or not", "follow"),
)


class Shortcuts(PageBase):
    """Binds :data:`SHORTCUTS` to the page's own calls."""

    def _build_shortcuts(self) -> None:
        self.commands = {}
        for s in SHORTCUTS:
            handle = self.client.gui.add_command(s.label, description=s.description, hotkey=s.key)
            handle.on_trigger(lambda e, f=getattr(self, "_key_" + s.action): f())
            self.commands[s.key] = handle

    def _key_toggle(self) -> None:
        what = "Pause" if self.session.clock.playing else "Play"
        self.act(what.lower(), lambda: self._transport(what))

    def _key_step(self) -> None:
        self.act("step", lambda: self._transport("Step"))

    def _key_back(self) -> None:
        self.act("back", lambda: self._transport("Back"))

    def _key_reset(self) -> None:
        self.act("reset", lambda: self._transport("Reset"))

    def _key_faster(self) -> None:
        self.act("playback speed", lambda: self._rate_step(1))

    def _key_slower(self) -> None:
        self.act("playback speed", lambda: self._rate_step(-1))

    def _key_push(self) -> None:
        self.act("push", self._push)

    def _key_follow(self) -> None:
        self.act("follow camera", lambda: setattr(self.follow, "value", not self.follow.value))

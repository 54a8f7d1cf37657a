"""Keyboard shortcuts of the studio page.

viser (1.x) reports no key events to Python: its GUI API has buttons,
sliders and the like, and its scene pointer events, but no keyboard. What it
does have is a message that runs a piece of JavaScript in the page (it
sends plotly.js that way): the page gets one small listener, installed once
per tab, that turns a key press into a click on the page's own button of
that name — so a shortcut does exactly what the button does, through the
same callback, and shows in the status line the same way. Keys typed into a
text or number field are left alone, as are keys with Ctrl, Alt or Meta.
"""
from __future__ import annotations

import json

# key (as the browser's KeyboardEvent.key names it) → the label of the button it clicks;
# the space bar clicks Pause while playing and Play while paused (the page is told which)
KEYS: dict[str, str] = {
    ".": "Step",
    ",": "Back",
    "r": "Reset",
    "[": "Slower",
    "]": "Faster",
    "p": "Push sideways",
    "m": "Modes",
}
SPACE = (" ", "Play", "Pause")  # key, button while paused, button while playing

_SCRIPT = """
if (!window.__gaitforgeKeys) {
  window.__gaitforgeKeys = true;
  window.__gaitforgePlaying = true;
  window.__gaitforgePressed = [];
  const keys = %(keys)s, space = %(space)s;
  const click = (label) => {
    const b = Array.from(document.querySelectorAll("button")).find((x) => x.textContent.trim() === label);
    if (b) b.click();
    return !!b;
  };
  document.addEventListener("keydown", (ev) => {
    const t = ev.target;
    if (ev.ctrlKey || ev.altKey || ev.metaKey || ev.repeat) return;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable))
      return;
    let label = keys[ev.key];
    if (ev.key === space[0]) label = window.__gaitforgePlaying ? space[2] : space[1];
    if (label === undefined) return;
    if (t && t.tagName === "BUTTON") t.blur();  // else the focused button clicks too on key up
    ev.preventDefault();
    if (click(label)) window.__gaitforgePressed.push(label);
  }, true);
}
"""


def script() -> str:
    """The page's key listener (JavaScript), with :data:`KEYS` and :data:`SPACE` in it."""
    return _SCRIPT % {"keys": json.dumps(KEYS), "space": json.dumps(list(SPACE))}


def _run(client, source: str) -> None:
    from viser import _messages

    # viser's own way to run JavaScript in one page (ClientHandle has no public call for it)
    client._websock_connection.queue_message(_messages.RunJavascriptMessage(source=source))


def install(client) -> None:
    """Install the key listener in ``client``'s page."""
    _run(client, script())


def tell_playing(client, playing: bool) -> None:
    """Tell ``client``'s key listener whether the clock plays (for the space bar)."""
    _run(client, f"window.__gaitforgePlaying = {'true' if playing else 'false'};")

"""The studio's web page: a viser server, one :class:`Page` per browser tab.

Each connecting client gets its own session, GUI and scene (``client.gui``,
``client.scene``) and a render thread. A page is put together from parts
with one purpose each: :mod:`.panels` (the GUI and its lists),
:mod:`.controls` (what the controls do), :mod:`.runner_panel` (registry
runners live), :mod:`.keys` (keyboard shortcuts), :mod:`.view` (the creature in the
scene, one atomic pose update per frame) and :mod:`.render` (the frame
loop). Every callback calls one :class:`Session` method through
:meth:`Page.act`; a :class:`GaitforgeError` (or any failure) shows as one
line in the status.
"""
from __future__ import annotations

import threading
from typing import Callable

from gaitforge.studio.keys import Shortcuts
from gaitforge.studio.page_base import one_line
from gaitforge.studio.panels import RATE_LABELS, Panels
from gaitforge.studio.runner_panel import RunnerPanel
from gaitforge.studio.render import FRAME_RATE, INFO_RATE, RenderLoop
from gaitforge.studio.session import Session
from gaitforge.studio.view import SceneView

__all__ = ["FRAME_RATE", "INFO_RATE", "RATE_LABELS", "Page", "Studio", "one_line"]


class Page(Panels, RunnerPanel, Shortcuts, SceneView, RenderLoop):
    """One browser tab: its session, GUI handles, scene handles and render thread."""

    def __init__(self, client, creature: str, names: list[str]):
        self.client = client
        self.session = Session(creature)
        self.lock = threading.RLock()   # one session change at a time
        self.names = names
        self.frames = 0
        self.fps = 0.0
        self.pose_version = 0           # frames pushed since start (tests and benchmarks read it)
        self.edits = 0                  # clips shown since start (a new recipe, creature or edit)
        self._shown_clip = None
        self._refine = None
        self._push_lock = threading.Lock()
        self.drag = None                # the drag handle (transform controls) or None
        self.drag_id = 0
        self.dragging = False
        self._listed = "(compute modes)"  # the mode list's value as the server last set it
        self._stop = threading.Event()
        self._report_key = None
        self._report = None
        self._build_gui()
        self._build_shortcuts()
        self._build_scene()
        self._thread = threading.Thread(target=self._render_loop, name=f"studio-page-{client.client_id}", daemon=True)
        self._thread.start()

    def act(self, what: str, *steps: Callable[[], object], busy: str | None = None) -> None:
        """Run ``steps`` in turn under the session lock, reporting ``busy``
        while they run, then "``what``: done" (or the last step's text, when
        it returns one), or one line on failure (the steps after it are skipped)."""
        if busy:
            self.status.content = f"**{busy}…**"
        try:
            result = None
            with self.lock:
                for step in steps:
                    result = step()
        except Exception as exc:  # every failure reaches the page as one line; the server keeps serving
            self.status.content = f"**Error** ({what}): {one_line(exc)}"
            return
        self.status.content = f"{what}: {result if isinstance(result, str) else 'done'}"

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)
        self.session.close()


class Studio:
    """The server: a viser server whose every client gets its own :class:`Page`."""

    def __init__(self, creature: str = "dog", host: str = "127.0.0.1", port: int = 8080, verbose: bool = False):
        import viser

        from gaitforge.creatures import registry

        Session(creature).close()  # a bad creature fails here, before serving
        self.creature = creature
        self.names = sorted(registry.names())
        self.pages: dict[int, Page] = {}
        self.server = viser.ViserServer(host=host, port=port, verbose=verbose)
        self.server.scene.set_up_direction("+z")
        self.server.on_client_connect(self._connect)
        self.server.on_client_disconnect(self._disconnect)

    @property
    def url(self) -> str:
        host = self.server.get_host()
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{self.server.get_port()}"

    def _connect(self, client) -> None:
        self.pages[client.client_id] = Page(client, self.creature, self.names)

    def _disconnect(self, client) -> None:
        page = self.pages.pop(client.client_id, None)
        if page is not None:
            page.close()

    def stop(self) -> None:
        for page in list(self.pages.values()):
            page.close()
        self.pages.clear()
        self.server.stop()

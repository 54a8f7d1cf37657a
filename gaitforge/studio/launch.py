"""Starting the interactive studio: modes, gaits, sliders and puppetry
served to a browser (:mod:`gaitforge.studio`). The studio sits on top of the
API (its page calls the library through :mod:`gaitforge.api`), so it is
started from here, not from the API."""
from __future__ import annotations

import os

from gaitforge import inputs

HOST = "127.0.0.1"  # this machine only
PORT = 8080


def serve(creature: str | os.PathLike = "dog", *, host: str = HOST, port: int = PORT):
    """Start serving the interactive studio (:class:`gaitforge.studio.app.Studio`)
    on ``host`` and ``port`` (1 to 65535), starting with ``creature`` (a
    built-in name or a creature file; a bad one fails here, before
    serving). Returns the running studio: its ``url`` to open in a browser,
    ``stop()`` to end it. Any other ``host`` than the loopback address lets
    anyone who reaches the port use the studio and upload files to it."""
    from gaitforge.studio.app import Studio

    creature = inputs.path_or_name("creature", creature)
    port = inputs.Span(1, 65535, integer=True).check("port", port)
    return Studio(creature, host=inputs.text("host", host), port=port)

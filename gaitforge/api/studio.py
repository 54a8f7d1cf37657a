"""The API's interactive studio: modes, gaits, sliders and puppetry served
to a browser (:mod:`gaitforge.studio`, :mod:`gaitforge.api`)."""
from __future__ import annotations

import os

from gaitforge import inputs

STUDIO_HOST = "127.0.0.1"  # this machine only
STUDIO_PORT = 8080


def studio(creature: str | os.PathLike = "dog", *, host: str = STUDIO_HOST, port: int = STUDIO_PORT):
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

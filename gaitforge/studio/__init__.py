"""The browser studio (``gaitforge studio``): an interactive session over
the library's own calls, served by viser.

The page's logic is plain Python over a :class:`~gaitforge.studio.session.Session`
(tested without a browser); :mod:`gaitforge.studio.app` wires one session per
browser tab to viser's GUI and scene; :mod:`gaitforge.studio.puppet` owns the
physics of live puppetry on its own thread; :func:`gaitforge.studio.launch.serve`
starts it (``gaitforge studio``).
"""
__all__ = ["Session"]


def __getattr__(name: str):
    # Loaded on first use: ``gaitforge studio``'s parser reads only :mod:`gaitforge.studio.launch`.
    if name == "Session":
        from gaitforge.studio.session import Session
        return Session
    raise AttributeError(f"module 'gaitforge.studio' has no attribute {name!r}")

"""The browser studio (``gaitforge studio``): an interactive session over
the library's own calls, served by viser.

The page's logic is plain Python over a :class:`~gaitforge.studio.session.Session`
(tested without a browser); :mod:`gaitforge.studio.app` wires one session per
browser tab to viser's GUI and scene; :mod:`gaitforge.studio.puppet` owns the
physics of live puppetry on its own thread.
"""
from gaitforge.studio.session import Session

__all__ = ["Session"]

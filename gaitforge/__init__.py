"""gaitforge: physics-based character locomotion from natural vibrations and
dynamic control, on MuJoCo.

``import gaitforge as gf`` gives the one-import API (:mod:`gaitforge.api`):
``gf.creature`` (``gf.creature_names``), ``gf.modes`` (``gf.constraint``, ``gf.describe``,
``gf.mode_sheet``, ``gf.tune``), ``gf.animate`` (``gf.animation`` with what it
was made from), ``gf.metrics``, ``gf.gait_class``, ``gf.save`` (``gf.load``), ``gf.run`` and
``gf.push`` (any runner of the controller registry), ``gf.runners``
(``gf.runner``, ``gf.runner_names``, ``gf.push_speeds``, ``gf.published_pushes``),
``gf.motion_formats``, ``gf.balance`` (standing balance with modal displacements),
``gf.sketch`` and ``gf.sketch_recipe`` (sketch-guided modal control).
They are loaded on first use, so importing the package stays cheap.
"""
from gaitforge.errors import GaitforgeError, NotMetError
from gaitforge.version import __version__

_API = ("creature", "creature_names", "modes", "constraint", "describe", "mode_sheet", "tune", "animate",
        "animation", "metrics", "gait_class", "save", "load", "motion_formats", "run", "push", "runners", "runner",
        "runner_names", "push_speeds", "published_pushes", "balance", "sketch", "sketch_recipe")
__all__ = ["GaitforgeError", "NotMetError", "__version__", *_API]


def __getattr__(name: str):
    if name in _API:
        from gaitforge import api
        return getattr(api, name)
    raise AttributeError(f"module 'gaitforge' has no attribute {name!r}")

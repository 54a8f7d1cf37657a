"""Compiled per-tick kernels for the controllers.

A controller's control tick runs hundreds of times per simulated second
between short bursts of MuJoCo physics; interpreted, its arithmetic costs
as much as the physics itself. The hot arithmetic is therefore written as
plain functions over floats and numpy arrays and compiled with numba's
``njit``. Rare events (phase changes, bookkeeping at touchdown and liftoff)
stay in ordinary Python.

``kernel`` compiles a function (``nopython`` mode, cached on disk next to
the module). With the environment variable ``GAITFORGE_NO_JIT=1`` set
before import it returns the function unchanged, so the same code runs
interpreted (for debugging, and to check the compiled form against it: a
compiled kernel also keeps its interpreted original as ``.py_func``).
"""
from __future__ import annotations

import os

__all__ = ["JIT_ENABLED", "kernel"]

JIT_ENABLED = os.environ.get("GAITFORGE_NO_JIT", "") not in ("1", "true", "yes")

if JIT_ENABLED:
    import numba

    def kernel(fn):
        """``fn`` compiled in nopython mode (error model: Python's, so a
        division by zero raises instead of giving inf)."""
        return numba.njit(cache=True, error_model="python")(fn)
else:
    def kernel(fn):
        """``fn`` itself: compilation is switched off by ``GAITFORGE_NO_JIT``."""
        return fn

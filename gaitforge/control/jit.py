"""Compiled per-tick kernels for the controllers.

A controller's control tick runs hundreds of times per simulated second
between short bursts of MuJoCo physics; interpreted, its arithmetic costs
as much as the physics itself. The hot arithmetic is therefore written as
plain functions over floats and numpy arrays and compiled with numba's
``njit``. Rare events (phase changes, bookkeeping at touchdown and liftoff)
stay in ordinary Python.

``kernel`` compiles a function (``nopython`` mode, cached on disk). With the environment variable ``GAITFORGE_NO_JIT=1`` set
before import it returns the function unchanged, so the same code runs
interpreted (for debugging, and to check the compiled form against it: a
compiled kernel also keeps its interpreted original as ``.py_func``).
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["JIT_ENABLED", "cache_dir", "kernel"]

JIT_ENABLED = os.environ.get("GAITFORGE_NO_JIT", "") not in ("1", "true", "yes")


def cache_dir() -> Path:
    """Where compiled kernels are cached: ``$NUMBA_CACHE_DIR`` when set, else
    a folder under the user's cache named after a hash of every source file
    of ``gaitforge.control``.

    numba validates a cached kernel against its own file only, so a kernel
    calling kernels of another module would keep stale machine code after
    that module changed; keying the folder on all the sources rules that
    out (and keeps the cache out of a read-only install)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for source in sorted(root.rglob("*.py")):
        digest.update(str(source.relative_to(root)).encode())
        digest.update(source.read_bytes())
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "gaitforge" / "numba" / digest.hexdigest()[:16]


if JIT_ENABLED:
    import numba

    numba.config.CACHE_DIR = str(cache_dir())

    def kernel(fn):
        """``fn`` compiled in nopython mode (error model: Python's, so a
        division by zero raises instead of giving inf)."""
        return numba.njit(cache=True, error_model="python")(fn)
else:
    def kernel(fn):
        """``fn`` itself: compilation is switched off by ``GAITFORGE_NO_JIT``."""
        return fn

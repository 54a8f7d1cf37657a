"""Compiled kernels: the plumbing every layer's compiled loops share (the
controllers' per-tick kernels, the creatures' batched kinematics, the
motion layer's grounding and IK loops).

A controller's control tick runs hundreds of times per simulated second
between short bursts of MuJoCo physics; interpreted, its arithmetic costs
as much as the physics itself. The hot arithmetic is therefore written as
plain functions over floats and numpy arrays and compiled with numba's
``njit``. Rare events (phase changes, bookkeeping at touchdown and liftoff)
stay in ordinary Python.

``kernel`` compiles a function (``nopython`` mode, cached on disk). With the
environment variable ``GAITFORGE_NO_JIT=1`` set before import it returns the
function unchanged, so the same code runs interpreted (for debugging, and to
check the compiled form against it: a compiled kernel also keeps its
interpreted original as ``.py_func``).
"""
from __future__ import annotations

import hashlib
import math
import os
import tempfile
from pathlib import Path

import numpy as np

from gaitforge.errors import GaitforgeError

__all__ = ["JIT_ENABLED", "block", "buffer_window", "cache_dir", "entry", "kernel", "slot"]

JIT_ENABLED = os.environ.get("GAITFORGE_NO_JIT", "") not in ("1", "true", "yes")


def cache_dir() -> Path:
    """Where compiled kernels are cached: ``$NUMBA_CACHE_DIR`` when set, else
    a folder under the user's cache named after a hash of the name, size and
    modification time of every source file of the package (what numba
    itself checks, for one file).

    numba validates a cached kernel against its own file only, so a kernel
    calling kernels of another module would keep stale machine code after
    that module changed; keying the folder on all the sources rules that
    out (and keeps the cache out of a read-only install). When the user's
    cache folder cannot be written, a folder in the temporary directory is
    used instead."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    digest = hashlib.sha256()
    root = Path(__file__).parent
    for source in sorted(root.rglob("*.py")):
        stat = source.stat()
        digest.update(f"{source.relative_to(root)} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    name = digest.hexdigest()[:16]
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "gaitforge" / "numba" / name
    try:  # numba gives up caching (with an error) in a folder it cannot write
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK):
            return folder
    except OSError:
        pass
    return Path(tempfile.gettempdir()) / f"gaitforge-numba-{os.getuid() if hasattr(os, 'getuid') else 0}" / name


if JIT_ENABLED:
    import numba

    numba.config.CACHE_DIR = str(cache_dir())  # type: ignore[attr-defined]  # numba.config's options are set dynamically

    def kernel(fn):
        """``fn`` compiled in nopython mode (error model: Python's, so a
        division by zero raises instead of giving inf)."""
        return numba.njit(cache=True, error_model="python")(fn)
else:
    def kernel(fn):
        """``fn`` itself: compilation is switched off by ``GAITFORGE_NO_JIT``."""
        return fn


# --------------------------------------------------------------- plumbing
# A numba call pays for matching each argument's type (~0.2 µs an array) and
# a controller reads a dozen MuJoCo arrays per tick: the helpers below let a
# tick take one array per MuJoCo struct and skip the per-call matching.

def buffer_window(arrays, limit: int):
    """One float64 array (W,) over the memory of ``arrays`` (C-contiguous
    float64 arrays of one MjData or one MjModel, which MuJoCo carves out of a
    single buffer of ``limit`` = ``nbuffer`` bytes) and each array's start in
    it [elements]. The window is a view of the lowest of them, so it keeps
    their owner alive; reading or writing it reads or writes them.

    Raises GaitforgeError when the arrays are not float64, not contiguous,
    misaligned to each other or spread over more than ``limit`` bytes (then
    they are not one buffer and the window would reach foreign memory)."""
    for a in arrays:
        if a.dtype != np.float64 or not a.flags.c_contiguous:
            raise GaitforgeError(f"buffer window: an array is {a.dtype}"
                                 f"{'' if a.flags.c_contiguous else ', not contiguous'} (needs contiguous float64)")
    starts = [a.__array_interface__["data"][0] for a in arrays]
    low = min(starts)
    end = max(p - low + a.nbytes for p, a in zip(starts, arrays))
    if end > limit or any((p - low) % 8 for p in starts):
        raise GaitforgeError(f"buffer window: the arrays span {end} bytes, misaligned or beyond the "
                             f"{limit}-byte buffer")
    base = arrays[starts.index(low)]
    window = np.lib.stride_tricks.as_strided(base, shape=(end // 8,), strides=(8,))
    return window, [(p - low) // 8 for p in starts]


def entry(fn, sample_args):
    """The compiled ``fn`` for the types of ``sample_args`` (compiled, or
    loaded from the cache, now) as a direct entry point that skips numba's
    per-call type matching. Callers must keep passing arguments of the same
    types. An interpreted ``fn`` (``GAITFORGE_NO_JIT``, or a ``py_func``) is
    returned as it is."""
    if not hasattr(fn, "compile"):
        return fn
    return fn.compile(tuple(numba.typeof(a) for a in sample_args))


def slot(array: str, index: int, kind: type = float, optional: bool = False) -> property:
    """A controller attribute stored at ``index`` of its state array named
    ``array``, read as ``kind``; ``optional``: NaN reads as None and None
    writes NaN."""
    def get(self):
        value = getattr(self, array)[index]
        if optional and math.isnan(value):
            return None
        return kind(value)

    def put(self, value) -> None:
        getattr(self, array)[index] = math.nan if value is None else value
    return property(get, put)


def block(array: str, index: int, size: int) -> property:
    """A controller attribute over ``size`` slots of its state array named
    ``array``: reads give the live view (item writes go through to the
    state), assignment fills the slots."""
    def get(self):
        return getattr(self, array)[index:index + size]

    def put(self, values) -> None:
        getattr(self, array)[index:index + size] = values
    return property(get, put)

"""Print the OpenBLAS core type (kernel family) numpy picks by itself here.

``make test`` re-runs the modal tests under other OpenBLAS kernels; the one
OpenBLAS picks by default is already what the main pytest run used (an AMD
EPYC with AVX-512 gets Haswell kernels, an Intel one SkylakeX), so the
Makefile skips a re-run under that kernel. Prints the name in lower case
(``haswell``, ``skylakex``, ``sandybridge``), or nothing where it cannot
tell (another BLAS, a build without the query), so that nothing is skipped.
Honours ``OPENBLAS_CORETYPE`` like OpenBLAS does (it prints what is in use).
"""
from __future__ import annotations

import ctypes


def core_name() -> str:
    """OpenBLAS's core name as numpy's bundled OpenBLAS reports it, lower case; "" if unknown."""
    try:
        from threadpoolctl import threadpool_info
        for lib in threadpool_info():
            if lib.get("internal_api") == "openblas" and lib.get("architecture"):
                return str(lib["architecture"]).lower()
    except ImportError:
        pass
    import numpy  # noqa: F401  (loads numpy's OpenBLAS into this process)
    from pathlib import Path
    libs = sorted((Path(numpy.__file__).parent.parent / "numpy.libs").glob("lib*openblas*.so*"))
    for path in libs:
        lib = ctypes.CDLL(str(path))
        for symbol in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                       "openblas_get_corename64_", "openblas_get_corename"):
            fn = getattr(lib, symbol, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return (fn() or b"").decode().strip().lower()
    return ""


if __name__ == "__main__":
    print(core_name())

"""Speed of the modal analysis against a bare generalized eigensolve.

For each creature: the wall time of ``compute_modes`` (every mode), of
``describe_modes`` on the first ``--describe`` modes (warm: the per-character
scratch data and mirror matrix already made, as in repeated analyses of one
creature; cold: first call for the character), and of a bare
``scipy.linalg.eigh(K̄, M̄)`` on the same reduced matrices, measured in the
same run (median of many repeats, ``time.perf_counter``), with the ratio of
``compute_modes`` + warm ``describe_modes`` (the full analysis) to the bare solve.

    .venv/bin/python benchmarks/bench_modal.py [--creatures dog human] [--repeats 200]

BLAS runs single-threaded unless OPENBLAS_NUM_THREADS is set: on this 2-core
machine shared with other jobs, threaded OpenBLAS made small eigensolves
stall (medians of ~8 ms instead of ~0.4-1 ms, in both the baseline and the
analysis); single-threaded it is steady and no slower for matrices this small.
"""
from __future__ import annotations

import argparse
import os
import platform

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads OpenBLAS; see the docstring

import numpy as np  # noqa: E402
import scipy  # noqa: E402
import scipy.linalg  # noqa: E402

from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.modal import compute_modes  # noqa: E402
from gaitforge.modal import describe  # noqa: E402
from gaitforge.modal.describe import describe_modes  # noqa: E402
from timing import median_time  # noqa: E402  (benchmarks/timing.py)


def reduced_matrices(basis) -> tuple[np.ndarray, np.ndarray]:
    """K̄, M̄ of the basis: joint-space K, M restricted to the admissible motions."""
    K, M = np.asarray(basis.stiffness_matrix), np.asarray(basis.mass_matrix)
    A = getattr(basis, "admissible", None)
    if A is None:
        return K, M
    A = np.asarray(A)
    return A.T @ K @ A, A.T @ M @ A


def bench(name: str, repeats: int, describe_count: int) -> dict:
    character = Character.from_spec(registry.build(name))
    basis = compute_modes(character)
    Kbar, Mbar = reduced_matrices(basis)
    t_eigh = median_time(lambda: scipy.linalg.eigh(Kbar, Mbar), repeats)
    t_modes = median_time(lambda: compute_modes(character), repeats)
    few = compute_modes(character, count=describe_count)
    t_desc = median_time(lambda: describe_modes(character, few), repeats)

    def cold():
        describe._SCRATCH.clear()
        describe_modes(character, few)

    t_cold = median_time(cold, max(repeats // 10, 10))
    return {"name": name, "nv": character.nv, "n": Kbar.shape[0], "eigh": t_eigh, "modes": t_modes,
            "describe": t_desc, "cold": t_cold, "k": few.shapes.shape[1]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--creatures", nargs="+", default=["dog", "human"])
    p.add_argument("--repeats", type=int, default=200)
    p.add_argument("--describe", type=int, default=10, metavar="K", help="modes described (default 10)")
    args = p.parse_args(argv)
    print(f"python {platform.python_version()}, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"{os.cpu_count()} CPUs, OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; "
          f"median of {args.repeats} repeats")
    print(f"{'creature':10s} {'nv':>4s} {'n':>4s} {'eigh':>7s} {'modes':>7s} {'describe':>9s} "
          f"{'full':>7s} {'ratio':>6s} {'modes/eigh':>10s} {'cold describe':>14s}   [ms]")
    for name in args.creatures:
        if name not in registry.names():
            print(f"{name:10s} (not in the registry: {', '.join(registry.names())})")
            continue
        r = bench(name, args.repeats, args.describe)
        full = r["modes"] + r["describe"]
        print(f"{r['name']:10s} {r['nv']:4d} {r['n']:4d} {1e3 * r['eigh']:7.3f} {1e3 * r['modes']:7.3f} "
              f"{1e3 * r['describe']:9.3f} {1e3 * full:7.3f} {full / r['eigh']:6.2f} "
              f"{r['modes'] / r['eigh']:10.2f} {1e3 * r['cold']:14.3f}")
    print(f"describe: first {args.describe} modes; full = modes + describe; ratio = full / eigh")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

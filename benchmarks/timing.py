"""Timing helper shared by the benchmark scripts (run them from the repo root:
``python benchmarks/bench_x.py`` puts this folder on the import path)."""
from __future__ import annotations

import statistics
import time


def median_time(fn, repeats: int, warmup: int = 3) -> float:
    """Median wall time [s] of ``fn()`` over ``repeats`` calls after ``warmup``."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def split_ticks(compute, m, d, nstep: int, ticks: int) -> tuple[float, float]:
    """(control, physics) wall seconds of ``ticks`` control ticks run the way
    ``gaitforge.sim.run`` runs them: ``compute(m, d)``, then ``nstep``
    physics steps in one ``mj_step`` call, each part timed on its own."""
    import mujoco

    step, clock = mujoco.mj_step, time.perf_counter
    control = physics = 0.0
    for _ in range(ticks):
        t0 = clock()
        compute(m, d)
        t1 = clock()
        step(m, d, nstep=nstep)
        t2 = clock()
        control += t1 - t0
        physics += t2 - t1
    return control, physics

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

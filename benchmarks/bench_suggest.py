"""Speed of gait suggestion (``heuristics.suggest``) per creature and gait.

For each gait of the chosen creatures, in the same run (median of
``--repeats`` calls, ``time.perf_counter``):

- ``modes``: ``compute_modes(count=POOL)``, the analysis a suggestion starts
  from (the baseline);
- ``suggest``: the suggestion from that basis (candidates fitted and checked
  by footfall analysis of grounded clips), and how many candidates it tried;
- ``pinned``: the same with ``pinned=True`` (what ``gaitforge animate`` does:
  a passing candidate is checked again with the stance feet pinned);
- the ratio suggest / modes, and whether the result passes its check.

    .venv/bin/python benchmarks/bench_suggest.py [--creatures dog,human] [--repeats 5]

``--at-speed CASES`` (``dog:walk:0.1,0.25,0.45;...``, ``dog`` for the dog's
cases of benchmarks/gait_speeds.py) times ``speed.suggest_at_speed``
instead (issue 9 item 6: under 1 s for the dog): per case the shortest
wall and CPU (``time.process_time``) time of ``--repeats`` calls, after one
warm-up suggestion per creature that pays the compiled kernels' loading,
the shortest of the baseline (:data:`BASELINE_STEPS` raw ``mj_step`` calls,
timed before each call) and the ratio, and the load average, since the
machine may be shared and its speed drifts.

BLAS runs single-threaded unless OPENBLAS_NUM_THREADS is set.
"""
from __future__ import annotations

import argparse
import os
import platform
import warnings

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.modal import compute_modes  # noqa: E402
from gaitforge.motion import heuristics  # noqa: E402
from timing import median_time  # noqa: E402  (benchmarks/timing.py)


def _tries(character, basis, gait) -> tuple[int, bool]:
    """How many candidates ``suggest`` checks, and whether one passes."""
    calls = []
    original = heuristics.footfall_error

    def counting(*args, **kwargs):
        err = original(*args, **kwargs)
        calls.append(err)
        return err

    heuristics.footfall_error = counting
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            heuristics.suggest(character, gait, basis)
    finally:
        heuristics.footfall_error = original
    return len(calls), min(calls) == 0.0


DOG_AT_SPEED = "dog:walk:0.1,0.25,0.45;dog:trot:0.5,1,2;dog:pace:0.5,1,2;dog:bound:1,2,3;dog:gallop:2,3,4,5"


BASELINE_STEPS = 500    # raw mj_step calls of the creature's model, from Python: the in-run baseline


def _baseline(character) -> float:
    """Seconds of :data:`BASELINE_STEPS` raw ``mj_step`` calls (a Python loop
    over MuJoCo's C, as much of a suggestion is): timed beside each case, so
    a machine that runs slower for a while shows in both."""
    import time

    d = mujoco.MjData(character.model)
    d.qpos[:] = character.rest_qpos
    t0 = time.perf_counter()
    for _ in range(BASELINE_STEPS):
        mujoco.mj_step(character.model, d)
    return time.perf_counter() - t0


def at_speed(cases: str, repeats: int) -> None:
    """Time ``suggest_at_speed`` per case (module docstring)."""
    import time

    from gaitforge.motion import speed
    from gaitforge.motion.mode_selection import pool_size

    print(f"python {platform.python_version()}, load average {os.getloadavg()[0]:.2f} at the start")
    print(f"baseline: {BASELINE_STEPS} raw mj_step calls of the creature, timed before each suggestion (shortest)")
    print("| creature | gait | Fr | wall [s] | CPU [s] | baseline [ms] | wall / baseline | meets all | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    chars: dict = {}
    for case in (DOG_AT_SPEED if cases == "dog" else cases).split(";"):
        name, gait, froudes = case.split(":")
        if name not in chars:
            c = Character.from_spec(registry.build(name))
            chars[name] = (c, compute_modes(c, count=pool_size(c)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                speed.suggest_at_speed(chars[name][0], gait, chars[name][1])  # warm-up: loads the kernels
        c, basis = chars[name]
        for fr in (float(x) for x in froudes.split(",")):
            wall, cpu, base = [], [], []
            for _ in range(repeats):
                base.append(_baseline(c))
                t0, p0 = time.perf_counter(), time.process_time()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _, plan, check = speed.suggest_at_speed(c, gait, basis, froude=fr)
                wall.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - p0)
            ok = "no" if speed.misses(plan, check, gait) else "yes"
            print(f"| {name} | {gait} | {fr:g} | {min(wall):.2f} | {min(cpu):.2f} | {1e3 * min(base):.1f} | "
                  f"{min(wall) / min(base):.1f} | {ok} | {os.getloadavg()[0]:.2f} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--creatures", default="dog,human")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--at-speed", metavar="CASES", help="time suggest_at_speed instead ('dog': the dog's table cases)")
    args = ap.parse_args()
    if args.at_speed:
        at_speed(args.at_speed, args.repeats)
        return
    print(f"python {platform.python_version()}, numpy {np.__version__}, mujoco {mujoco.__version__}, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    print("| creature | gait | modes [ms] | suggest [ms] | suggest / modes | candidates | passes | pinned [ms] |")
    print("|---|---|---|---|---|---|---|---|")
    for name in args.creatures.split(","):
        c = Character.from_spec(registry.build(name))
        basis = compute_modes(c, count=heuristics.POOL)
        for gait in heuristics.gaits_for(c):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_modes = median_time(lambda: compute_modes(c, count=heuristics.POOL), args.repeats, 1)
                t_sug = median_time(lambda: heuristics.suggest(c, gait, basis), args.repeats, 1)
                t_pin = median_time(lambda: heuristics.suggest(c, gait, basis, pinned=True),
                                    max(1, args.repeats // 2), 0)
            n, ok = _tries(c, basis, gait)
            print(f"| {name} | {gait} | {1e3 * t_modes:.1f} | {1e3 * t_sug:.0f} | {t_sug / t_modes:.0f} | {n} | "
                  f"{'yes' if ok else 'no'} | {1e3 * t_pin:.0f} |", flush=True)


if __name__ == "__main__":
    main()

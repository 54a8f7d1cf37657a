"""Speed of the quadruped skills controllers (dog, gorilla): real-time
factor of each gait, and the cost of a controlled physics step relative to a
raw ``mj_step`` of the same model, both measured in the same run.

As in ``bench_raibert.py``: each case runs ``seconds`` of simulated time the
way ``gaitforge.sim.run`` does (``compute`` once per control tick, then the
physics as one ``mj_step`` call with ``nstep``), minus the recording; the
two parts are timed apart on every tick, so "raw" is exactly the physics of
this run. The median of ``rounds`` rounds is reported, after a short
warm-up round that loads the compiled kernels.

    .venv/bin/python benchmarks/bench_skills.py [seconds] [rounds]
"""
from __future__ import annotations

import os
import statistics
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
from timing import split_ticks  # noqa: E402

from gaitforge.control.skills import catalog  # noqa: E402
from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.sim.controller import run_settings  # noqa: E402

CASES = [("gorilla", "stand", 0.0), ("gorilla", "ds_walk", 0.3), ("gorilla", "trot", 0.4),
         ("dog", "walk", 0.6), ("dog", "trot", 1.0)]


def one_round(key: str, gait: str, speed: float, seconds: float,
              configure=None) -> tuple[float, float, int, float, float]:
    """(control, physics) wall seconds, ticks, physics step [s], control
    interval [s]; ``configure(model)``, if given, changes the prepared
    model's options before the run."""
    character = Character.from_spec(registry.build(key))
    ctrl = catalog.RUNNERS[key].make(character, gait, speed)
    settings = run_settings(ctrl, character.model)
    m, dt = settings.model, settings.control_dt
    if configure is not None:
        configure(m)
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    ctrl.reset(m, d)
    mujoco.mj_forward(m, d)
    nstep = int(round(dt / m.opt.timestep))
    ticks = int(round(seconds / dt))
    control, physics = split_ticks(ctrl.compute, m, d, nstep, ticks)
    return control, physics, ticks, m.opt.timestep, dt


def bench(key: str, gait: str, speed: float, seconds: float, rounds: int) -> dict[str, float]:
    one_round(key, gait, speed, 0.5)  # warm up: compiled kernels loaded from numba's cache
    runs = [one_round(key, gait, speed, seconds) for _ in range(rounds)]
    control = statistics.median(r[0] for r in runs)
    physics = statistics.median(r[1] for r in runs)
    _, _, ticks, h, dt = runs[0]
    return {"step_ms": h * 1e3, "tick_ms": dt * 1e3, "real_time": seconds / (control + physics),
            "raw_real_time": seconds / physics, "ratio": (control + physics) / physics,
            "raw_us": physics / (ticks * round(dt / h)) * 1e6, "control_us": control / ticks * 1e6}


def main(seconds: float = 20.0, rounds: int = 3) -> None:
    print(f"{'creature':8s} {'gait':8s} {'step [ms]':>9s} {'tick [ms]':>9s} {'x real time':>11s} "
          f"{'raw x real':>10s} {'controlled/raw':>14s} {'raw step [us]':>13s} {'control [us/tick]':>17s}")
    for key, gait, speed in CASES:
        r = bench(key, gait, speed, seconds, rounds)
        print(f"{key:8s} {gait:8s} {r['step_ms']:9.1f} {r['tick_ms']:9.1f} {r['real_time']:11.1f} "
              f"{r['raw_real_time']:10.1f} {r['ratio']:14.2f} {r['raw_us']:13.1f} {r['control_us']:17.1f}")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 20.0, int(sys.argv[2]) if len(sys.argv) > 2 else 3)

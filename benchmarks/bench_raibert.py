"""Speed of the RH91 runners: real-time factor of each gait, and the cost of
a controlled physics step relative to a raw ``mj_step`` of the same model,
both measured in the same run.

Each gait runs ``seconds`` of simulated time the way ``gaitforge.sim.run``
does it (the controller's ``compute`` once per control tick, then the
physics as one ``mj_step`` call with ``nstep``), minus the recording. The
two parts are timed apart on every tick, so "raw" is exactly the physics of
this run (same states, contacts and servo settings) and "controlled" is
physics plus control. The run is repeated ``rounds`` times from the start;
the table gives the median round.

    .venv/bin/python benchmarks/bench_raibert.py [seconds] [rounds]
"""
from __future__ import annotations

import os
import statistics
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
from timing import split_ticks  # noqa: E402

from gaitforge.control.raibert import catalog  # noqa: E402

CASES = [("biped", "run", 1.5), ("biped", "gallop_together", 1.0), ("biped", "gallop_alternate", 0.75),
         ("quadruped", "trot", 1.5), ("quadruped", "bound", 2.0), ("quadruped", "gallop", 1.5),
         ("kangaroo", "hop", 3.0),
         # the tops of the ranges, where the Table 2 comparisons run
         ("quadruped", "trot", 2.3), ("quadruped", "bound", 2.8), ("kangaroo", "hop", 5.5)]


def one_round(key: str, gait: str, speed: float, seconds: float) -> tuple[float, float, int, float, float]:
    """(control, physics) wall seconds, ticks, physics step [s], control interval [s]."""
    character, ctrl, m, dt = catalog.prepare(key, gait, speed)
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    ctrl.reset(m, d)
    mujoco.mj_forward(m, d)
    nstep = int(round(dt / m.opt.timestep))
    ticks = int(round(seconds / dt))
    control, physics = split_ticks(ctrl.compute, m, d, nstep, ticks)
    return control, physics, ticks, m.opt.timestep, dt


def bench(key: str, gait: str, speed: float, seconds: float, rounds: int) -> dict[str, float]:
    runs = [one_round(key, gait, speed, seconds) for _ in range(rounds)]
    control = statistics.median(r[0] for r in runs)
    physics = statistics.median(r[1] for r in runs)
    _, _, ticks, h, dt = runs[0]
    return {"step_ms": h * 1e3, "tick_ms": dt * 1e3, "real_time": seconds / (control + physics),
            "ratio": (control + physics) / physics, "raw_us": physics / (ticks * round(dt / h)) * 1e6,
            "control_us": control / ticks * 1e6}


def main(seconds: float = 20.0, rounds: int = 3) -> None:
    print(f"{'creature':10s} {'gait':17s} {'speed':>5s} {'step [ms]':>9s} {'tick [ms]':>9s} {'x real time':>11s} "
          f"{'controlled/raw':>14s} {'raw step [us]':>13s} {'control [us/tick]':>17s}")
    for key, gait, speed in CASES:
        r = bench(key, gait, speed, seconds, rounds)
        print(f"{key:10s} {gait:17s} {speed:5.1f} {r['step_ms']:9.1f} {r['tick_ms']:9.1f} {r['real_time']:11.0f} "
              f"{r['ratio']:14.2f} {r['raw_us']:13.1f} {r['control_us']:17.1f}")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 20.0, int(sys.argv[2]) if len(sys.argv) > 2 else 3)

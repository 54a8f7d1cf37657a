"""Speed of the RH91 runners: real-time factor of each gait, and the cost of
a controlled physics step relative to a raw ``mj_step`` of the same model
under the same contact conditions, both measured in this run.

Controlled: the controller's ``compute`` once per control tick, then the
physics (``mj_step`` with ``nstep``) — what ``gaitforge.sim.run`` does, minus
its recording. Raw baseline: the same ticks replayed from the recorded states
(qpos, qvel, spring set points and applied forces restored), only physics.

    .venv/bin/python benchmarks/bench_raibert.py [seconds]
"""
from __future__ import annotations

import os
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402

from gaitforge.control.raibert import catalog  # noqa: E402

CASES = [("biped", "run", 1.5), ("biped", "gallop_together", 1.0), ("biped", "gallop_alternate", 0.75),
         ("quadruped", "trot", 1.5), ("quadruped", "bound", 2.0), ("quadruped", "gallop", 2.0),
         ("kangaroo", "hop", 3.0)]


def bench(key: str, gait: str, speed: float, seconds: float) -> tuple[float, float, float]:
    character, ctrl, model, dt = catalog.prepare(key, gait, speed)
    m = model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    ctrl.reset(m, d)
    mujoco.mj_forward(m, d)
    nstep = int(round(dt / m.opt.timestep))
    ticks = int(round(seconds / dt))
    states = []
    t0 = time.perf_counter()
    for _ in range(ticks):
        ctrl.compute(m, d)
        mujoco.mj_step(m, d, nstep=nstep)
    controlled = time.perf_counter() - t0
    # Record states for the replay (a second, untimed controlled pass).
    d2 = mujoco.MjData(m)
    d2.qpos[:] = character.rest_qpos
    ctrl.reset(m, d2)
    mujoco.mj_forward(m, d2)
    for _ in range(ticks):
        ctrl.compute(m, d2)
        states.append((d2.qpos.copy(), d2.qvel.copy(), m.qpos_spring.copy(), d2.qfrc_applied.copy(),
                       d2.xfrc_applied.copy(), d2.ctrl.copy()))
        mujoco.mj_step(m, d2, nstep=nstep)
    d3 = mujoco.MjData(m)

    def restore(state) -> None:
        qpos, qvel, spring, qfrc, xfrc, u = state
        d3.qpos[:] = qpos
        d3.qvel[:] = qvel
        m.qpos_spring[:] = spring
        d3.qfrc_applied[:] = qfrc
        d3.xfrc_applied[:] = xfrc
        d3.ctrl[:] = u

    t0 = time.perf_counter()
    for state in states:
        restore(state)
        mujoco.mj_step(m, d3, nstep=nstep)
    replay = time.perf_counter() - t0
    # The replay's own copies are not physics: time them alone and subtract.
    t0 = time.perf_counter()
    for state in states:
        restore(state)
    copies = time.perf_counter() - t0
    raw = max(replay - copies, 1e-9)
    return seconds / controlled, controlled / raw, m.opt.timestep


def main(seconds: float = 20.0) -> None:
    print(f"{'creature':10s} {'gait':17s} {'dt [ms]':>8s} {'x real time':>12s} {'controlled/raw':>15s}")
    for key, gait, speed in CASES:
        rt, ratio, dt = bench(key, gait, speed, seconds)
        print(f"{key:10s} {gait:17s} {dt * 1000:8.1f} {rt:12.0f} {ratio:15.2f}")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 20.0)

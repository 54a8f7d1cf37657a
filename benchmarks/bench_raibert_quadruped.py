"""Speed of the RH91 quadruped controllers (trot, bound, gallop).

For each gait, in one process and on the same model (the controller's
``simulation_model()``, physics step 4 ms, control tick 12 ms):

- controlled step: wall time of ``compute`` plus ``mj_step(nstep)`` per physics
  step, over 2000 ticks of running, divided by a raw ``mj_step`` measured right
  after from the same state (target: ≤ 1.3);
- runner: the whole ``gaitforge.sim.runner.run`` (fall check, finite check,
  recording at 25 frames/s) per physics step against the same raw step, and
  its real-time factor (simulated s per wall s; target: ≥ 100).

Each figure is the best of ``--repeat`` tries (the machine is shared; the best
try is the least disturbed). Usage::

    MUJOCO_GL=egl .venv/bin/python benchmarks/bench_raibert_quadruped.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import mujoco

from gaitforge.control.raibert import quadruped
from gaitforge.creatures.character import Character
from gaitforge.creatures.registry import build
from gaitforge.sim.runner import run

GAITS = (("trot", 2.0), ("bound", 2.0), ("gallop", 2.0))


def controlled_vs_raw(character: Character, gait: str, speed: float, ticks: int = 2000) -> tuple[float, float, float]:
    """(compute [µs/tick], controlled step [µs/physics step], raw step [µs])."""
    ctl = quadruped.make_controller(character, gait, speed)
    m = ctl.simulation_model()
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    ctl.reset(m, d)
    mujoco.mj_forward(m, d)
    nstep = int(round(ctl.control_dt / m.opt.timestep))
    for _ in range(300):  # settle into the gait (and past a gallop's unison start)
        ctl.compute(m, d)
        mujoco.mj_step(m, d, nstep=nstep)
    t_compute = 0.0
    start = time.perf_counter()
    for _ in range(ticks):
        a = time.perf_counter()
        ctl.compute(m, d)
        t_compute += time.perf_counter() - a
        mujoco.mj_step(m, d, nstep=nstep)
    controlled = (time.perf_counter() - start) / (ticks * nstep)
    raw_data = mujoco.MjData(m)
    raw_data.qpos[:], raw_data.qvel[:] = d.qpos, d.qvel
    start = time.perf_counter()
    mujoco.mj_step(m, raw_data, nstep=ticks * nstep)
    raw = (time.perf_counter() - start) / (ticks * nstep)
    return t_compute / ticks * 1e6, controlled * 1e6, raw * 1e6


def runner_vs_raw(character: Character, gait: str, speed: float, seconds: float = 20.0) -> tuple[float, float, float]:
    """(runner [µs/physics step], raw step [µs], real-time factor)."""
    ctl = quadruped.make_controller(character, gait, speed)
    m = ctl.simulation_model()
    roll = run(character, ctl, seconds, control_dt=ctl.control_dt, record_fps=25.0,
               fall_check=quadruped.fall_check(character), model=m)
    steps = int(round(seconds / m.opt.timestep))
    d = mujoco.MjData(m)
    d.qpos[:] = roll.clip.qpos[-1]
    start = time.perf_counter()
    mujoco.mj_step(m, d, nstep=steps)
    raw = (time.perf_counter() - start) / steps
    return roll.wall_time / steps * 1e6, raw * 1e6, seconds / roll.wall_time


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    character = Character.from_spec(build("raibert_quadruped"))
    print(f"control tick {quadruped.CONTROL_DT * 1e3:.0f} ms, physics step {quadruped.TIMESTEP * 1e3:.0f} ms")
    print(f"{'gait':7s} {'compute':>10s} {'ctrl step':>10s} {'raw step':>9s} {'ratio':>6s} | "
          f"{'runner':>8s} {'ratio':>6s} {'x real time':>11s}")
    for gait, speed in GAITS:
        best = min((controlled_vs_raw(character, gait, speed) for _ in range(args.repeat)),
                   key=lambda r: r[1] / r[2])
        rbest = min((runner_vs_raw(character, gait, speed) for _ in range(args.repeat)),
                    key=lambda r: r[0] / r[1])
        print(f"{gait:7s} {best[0]:8.1f}us {best[1]:8.1f}us {best[2]:7.1f}us {best[1] / best[2]:6.2f} | "
              f"{rbest[0]:6.1f}us {rbest[0] / rbest[1]:6.2f} {rbest[2]:11.0f}")


if __name__ == "__main__":
    main()

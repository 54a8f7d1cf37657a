"""Speed of the RH91 biped controllers (run, both gallops, path following).

For each gait this script runs the controller in a plain loop, timing the
controller's ``compute`` and the physics (``mj_step`` with ``nstep``) of the
same run separately, and prints:

- ``ctrl/step``: (compute + physics) / physics per control tick — the
  controlled step against a raw ``mj_step`` of the same model, states and
  contacts (target ≤ 1.3);
- ``x realtime``: simulated seconds per wall second of that loop (target
  ≥ 100 on one core), and of ``gaitforge.sim.run`` (which also records the
  clip, contacts and ground forces at 125 Hz and checks for falls).

Usage: ``python benchmarks/bench_raibert_biped.py [seconds]`` (default 20).
Timings depend on the machine and its load; compare ratios within one run.
"""
from __future__ import annotations

import copy
import sys
import time

import mujoco

from gaitforge.control.raibert import biped
from gaitforge.control.paths import WaypointPath
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.sim.runner import run

CASES = (("run", 1.5, None), ("gallop_together", 1.0, None), ("gallop_alternate", 1.0, None),
         ("run", 1.0, WaypointPath([[0, 0], [4, 0], [4, 4], [0, 4]], loop=True)))


def timed_loop(character: Character, controller, seconds: float) -> tuple[float, float, int]:
    """(seconds in compute, seconds in mj_step, ticks) for a run of ``seconds``."""
    m = copy.copy(character.model)
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    controller.reset(m, d)
    mujoco.mj_forward(m, d)
    nstep = int(round(biped.CONTROL_DT / m.opt.timestep))
    ticks = int(round(seconds / biped.CONTROL_DT))
    t_ctrl = t_step = 0.0
    clock = time.perf_counter
    for _ in range(ticks):
        t0 = clock()
        controller.compute(m, d)
        t1 = clock()
        mujoco.mj_step(m, d, nstep=nstep)
        t2 = clock()
        t_ctrl += t1 - t0
        t_step += t2 - t1
    return t_ctrl, t_step, ticks


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    seconds = float(argv[0]) if argv else 20.0
    character = Character.from_spec(registry.build("raibert_biped"))
    print(f"raibert_biped, {seconds:g} s simulated per case, control_dt {biped.CONTROL_DT} s, "
          f"timestep {character.model.opt.timestep} s")
    print(f"{'case':26s} {'ctrl us/tick':>12s} {'step us/tick':>12s} {'ctrl/step':>9s} "
          f"{'x realtime':>10s} {'runner x rt':>11s}")
    for gait, speed, path in CASES:
        name = f"{gait} {speed:g} m/s" + (" path" if path is not None else "")
        t_ctrl, t_step, ticks = timed_loop(
            character, biped.make_controller(character, gait, speed, path=path), seconds)
        rollout = run(character, biped.make_controller(character, gait, speed, path=path), seconds,
                      control_dt=biped.CONTROL_DT, record_fps=125, fall_check=biped.fall_check(character))
        fell = f"  FELL: {rollout.fall}" if rollout.fall else ""
        print(f"{name:26s} {1e6 * t_ctrl / ticks:12.1f} {1e6 * t_step / ticks:12.1f} "
              f"{(t_ctrl + t_step) / t_step:9.2f} {seconds / (t_ctrl + t_step):10.0f} "
              f"{seconds / rollout.wall_time:11.0f}{fell}")


if __name__ == "__main__":
    main()

"""Modal control timings, each beside a baseline measured in the same run:

1. controlled step vs raw ``mj_step``: the hand-set worm and loop gaits
   (Kry09 §4.1), and the dog's suggested bound (two frequencies, ball
   joints: the controller's general path) stepped in a Python loop; each tick's ``mj_step`` is timed
   on its own, so "raw" is the physics of exactly the same trajectory and
   the ratio (control + physics) / physics is the controller's overhead.
   The full recorded rollout (``simulate_modal``: the runner, energy and
   contact sampling every 10 ticks, divergence checks) is timed too.
2. optimizer throughput: 5 s worm rollouts per second through
   ``BatchEvaluator`` with 2 worker processes vs 1 (pool started and warmed
   before timing; the same 16 candidates; best of 3 batches), and on a
   local Ray cluster of 2 CPUs vs the 2-worker pool.

Each figure is the least disturbed of 3 rounds: other jobs on the machine
only ever slow a round down. The load average is printed; on a machine
with fewer free cores than workers the 2-worker figure cannot scale.

    MUJOCO_GL=egl .venv/bin/python benchmarks/bench_modal_control.py
"""
from __future__ import annotations

import copy
import os
import time

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from gaitforge.control.modal import modal_controller, simulate_modal  # noqa: E402
from gaitforge.control.modal.presets import RAMP, hand_set  # noqa: E402
from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.modal import compute_modes  # noqa: E402
from gaitforge.optimize import ModalProblem  # noqa: E402
from gaitforge.sim.batch import BatchEvaluator, candidate_seeds  # noqa: E402


def _gait(name: str):
    """(character, basis, recipe): the hand-set gait, or the dog's suggested bound."""
    ch = Character.from_spec(registry.build(name))
    if name == "dog":
        from gaitforge.motion import heuristics

        basis = compute_modes(ch, count=heuristics.POOL)
        return ch, basis, heuristics.suggest(ch, "bound", basis)
    return ch, compute_modes(ch, count=2), hand_set(name)


def step_overhead(name: str, seconds: float = 10.0) -> dict[str, float]:
    ch, basis, recipe = _gait(name)
    ctl = modal_controller(ch, basis, recipe, ramp=RAMP)
    m = copy.copy(ch.model)
    d = mujoco.MjData(m)
    d.qpos[:] = ch.rest_qpos
    ctl.reset(m, d)
    mujoco.mj_forward(m, d)
    ticks = int(round(seconds / m.opt.timestep))
    compute, step, clock = ctl.compute, mujoco.mj_step, time.perf_counter
    physics = 0.0
    t0 = clock()
    for _ in range(ticks):
        compute(m, d)
        a = clock()
        step(m, d)
        physics += clock() - a
    total = clock() - t0
    t1 = clock()
    simulate_modal(ch, modal_controller(ch, basis, recipe, ramp=RAMP), seconds)
    recorded = clock() - t1
    return {"raw_us": physics / ticks * 1e6, "ratio": total / physics, "recorded_ratio": recorded / physics,
            "realtime": seconds / recorded}


def throughput(workers: int, batch: int = 16, rounds: int = 3, ray: str | None = None) -> float:
    """Best of ``rounds`` batches: rollouts per second [1/s] (``ray``: on
    that Ray cluster instead of ``workers`` local processes)."""
    p = ModalProblem("worm", seconds=5.0)
    x0 = p.vector(hand_set("worm"))
    rng = np.random.default_rng(0)
    cands = [x0 * (1.0 + 0.1 * rng.standard_normal(4)) for _ in range(batch)]
    seeds = candidate_seeds(0, 0, batch)
    best = 0.0
    with BatchEvaluator(p, workers=workers, ray=ray) as ev:
        ev.map(cands[:workers], seeds[:workers])  # start and warm the workers
        for _ in range(rounds):
            t0 = time.perf_counter()
            ev.map(cands, seeds)
            best = max(best, batch / (time.perf_counter() - t0))
    return best


def main() -> None:
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'creature':8s} {'raw step [us]':>13s} {'controlled/raw':>14s} {'recorded/raw':>12s} {'x real time':>11s}")
    for name in ("worm", "loop", "dog"):
        r = min((step_overhead(name) for _ in range(3)), key=lambda x: x["ratio"])  # least disturbed round
        print(f"{name:8s} {r['raw_us']:13.1f} {r['ratio']:14.2f} {r['recorded_ratio']:12.2f} {r['realtime']:11.0f}")
    one = throughput(1)
    two = throughput(2)
    print(f"optimizer throughput (5 s worm rollouts/s): 1 worker {one:.2f}, 2 workers {two:.2f}, "
          f"speed-up {two / one:.2f}x")
    try:
        import ray
    except ImportError:
        print("ray not installed: no Ray figure")
    else:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)  # a local cluster of 2 CPUs
        try:
            on_ray = throughput(2, ray="auto")
        finally:
            ray.shutdown()
        print(f"Ray, local cluster of 2 CPUs: {on_ray:.2f} rollouts/s, {on_ray / two:.2f}x the 2-worker pool")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

"""Modal control timings, each beside a baseline measured in the same run:

1. controlled step vs raw ``mj_step``: the hand-set worm and loop gaits
   (Kry09 §4.1), and the dog's suggested bound (two frequencies, ball
   joints: the controller's general path) stepped in a Python loop; each tick's ``mj_step`` is timed
   on its own, so "raw" is the physics of exactly the same trajectory and
   the ratio (control + physics) / physics is the controller's overhead.
   The full recorded rollout (``simulate_modal``: the runner, energy and
   contact sampling every 10 ticks, divergence checks) is timed too.
2. optimizer throughput: 5 s worm rollouts per second through
   ``BatchEvaluator`` with 2 worker processes vs 1, and on a local Ray
   cluster of 2 CPUs vs the 2-worker pool; beside them the hardware
   ceiling: the same batches of bare ``mj_step`` (no controller) with 2
   workers vs 1. All evaluators are started and warmed first and their
   batches alternate, round by round (best of 5 rounds of 16 candidates).

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


class BareSteps:
    """A stand-in candidate for the hardware ceiling: ``steps`` bare
    ``mj_step`` of the worm at rest, no controller, no recording (what two
    processes can do at once on this machine, whatever the controller)."""

    def __init__(self, steps: int):
        self.steps = steps
        self.ch = None  # built in each worker (a Character does not pickle)

    def __getstate__(self) -> dict:
        return {"steps": self.steps, "ch": None}

    def __call__(self, x, seed: int) -> float:
        if self.ch is None:
            self.ch = Character.from_spec(registry.build("worm"))
        d = mujoco.MjData(self.ch.model)
        d.qpos[:] = self.ch.rest_qpos
        mujoco.mj_step(self.ch.model, d, nstep=self.steps)
        return 0.0


def throughput(rounds: int = 5, batch: int = 16, ray: bool = False) -> dict[str, float]:
    """Rollouts per second [1/s] of 5 s worm candidates with 1 and 2 local
    workers (and on a local Ray cluster of 2 CPUs if ``ray``), and of the
    same number of bare physics steps with 1 and 2 workers (the ceiling).
    The evaluators are started and warmed first, then their batches
    alternate round by round so that every figure sees the same machine;
    each is the best of ``rounds``."""
    p = ModalProblem("worm", seconds=5.0)
    x0 = p.vector(hand_set("worm"))
    rng = np.random.default_rng(0)
    cands = [x0 * (1.0 + 0.1 * rng.standard_normal(4)) for _ in range(batch)]
    seeds = candidate_seeds(0, 0, batch)
    bare = BareSteps(int(round(5.0 / Character.from_spec(registry.build("worm")).model.opt.timestep)))
    setups = {"1 worker": (p, 1, None), "2 workers": (p, 2, None), "bare, 1 worker": (bare, 1, None),
              "bare, 2 workers": (bare, 2, None)}
    if ray:
        setups["Ray, 2 CPUs"] = (p, 2, "auto")
    evaluators = {k: BatchEvaluator(prob, workers=w, ray=r) for k, (prob, w, r) in setups.items()}
    best = dict.fromkeys(evaluators, 0.0)
    try:
        for ev in evaluators.values():
            ev.__enter__()
            ev.map(cands[:2], seeds[:2])  # start and warm the workers
        for _ in range(rounds):
            for key, ev in evaluators.items():
                t0 = time.perf_counter()
                ev.map(cands, seeds)
                best[key] = max(best[key], batch / (time.perf_counter() - t0))
    finally:
        for ev in evaluators.values():
            ev.__exit__(None, None, None)
    return best


def main() -> None:
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'creature':8s} {'raw step [us]':>13s} {'controlled/raw':>14s} {'recorded/raw':>12s} {'x real time':>11s}")
    for name in ("worm", "loop", "dog"):
        r = min((step_overhead(name) for _ in range(3)), key=lambda x: x["ratio"])  # least disturbed round
        print(f"{name:8s} {r['raw_us']:13.1f} {r['ratio']:14.2f} {r['recorded_ratio']:12.2f} {r['realtime']:11.0f}")
    try:
        import ray
    except ImportError:
        ray = None
        print("ray not installed: no Ray figure")
    if ray is not None:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)  # a local cluster of 2 CPUs
    try:
        r = throughput(ray=ray is not None)
    finally:
        if ray is not None:
            ray.shutdown()
    speedup, ceiling = r["2 workers"] / r["1 worker"], r["bare, 2 workers"] / r["bare, 1 worker"]
    print(f"optimizer throughput (5 s worm rollouts/s): 1 worker {r['1 worker']:.2f}, 2 workers "
          f"{r['2 workers']:.2f}, speed-up {speedup:.2f}x")
    print(f"hardware ceiling (bare mj_step, same batches): 1 worker {r['bare, 1 worker']:.2f}, 2 workers "
          f"{r['bare, 2 workers']:.2f}, speed-up {ceiling:.2f}x; the pool reaches {speedup / ceiling:.2f} of it")
    if "Ray, 2 CPUs" in r:
        print(f"Ray, local cluster of 2 CPUs: {r['Ray, 2 CPUs']:.2f} rollouts/s, "
              f"{r['Ray, 2 CPUs'] / r['2 workers']:.2f}x the 2-worker pool")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

"""What the skills runners' physics settings cost: the raw ``mj_step`` time
per simulated second of each gait under MuJoCo option variants (integrator,
physics step, solver, constraint Jacobian), all measured in the same run and
interleaved round by round so that the machine's load falls on every variant
alike.

Each case runs ``seconds`` of simulated time with its controller (its tick
is not timed: only the physics between ticks is), from the same start.
Printed: the median over ``rounds`` of the physics' real-time factor
(simulated seconds per wall second of ``mj_step`` alone), and each
variant's physics time relative to the runners' own setting (the first
column; above 1: slower). Variants that change the step integrate a
different motion: whether a gait holds under them is checked apart
(``skills_grid.py``, ``tests/test_skills_gaits.py``).

    .venv/bin/python benchmarks/bench_skills_physics.py [seconds] [rounds] [variant,variant,...]
"""
from __future__ import annotations

import os
import statistics
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
from bench_skills import one_round  # noqa: E402

from gaitforge.control.skills.catalog import PARAMS as _ALL  # noqa: E402

CASES = [("gorilla", "stand", 0.0), ("gorilla", "ds_walk", 0.3), ("gorilla", "trot", 0.4),
         ("dog", "walk", 0.3), ("dog", "trot", 0.8)]

INT, SOL, JAC = mujoco.mjtIntegrator, mujoco.mjtSolver, mujoco.mjtJacobian
PARAMS = _ALL["gorilla"]
assert all(p.kd_time == PARAMS.kd_time and p.timestep == PARAMS.timestep for p in _ALL.values())


def _options(**opt):
    """Set ``opt`` on the prepared model's options; where the integrator or
    step changes, the servos' dampers as ``SkillController.prepare_model``
    would set them for it (it gives back the h·K the discrete integrator
    adds; implicitfast adds none)."""
    def configure(m: mujoco.MjModel) -> None:
        kd, h = PARAMS.kd_time, m.opt.timestep
        for k, v in opt.items():
            setattr(m.opt, k, v)
        extra = m.opt.timestep if m.opt.integrator == INT.mjINT_DISCRETE else 0.0
        m.dof_damping[:] *= (kd - extra) / (kd - h)
    return configure


# name -> changes to the prepared model's options; the first is what the runners use.
VARIANTS = {
    "runners": _options(),  # discrete integrator, one 10 ms step per control tick
    "implicitfast 2ms": _options(integrator=INT.mjINT_IMPLICITFAST, timestep=0.002),  # the runners until now
    "discrete 2ms": _options(timestep=0.002),
    "discrete 5ms": _options(timestep=0.005),
    "implicitfast 5ms": _options(integrator=INT.mjINT_IMPLICITFAST, timestep=0.005),
    "PGS": _options(solver=SOL.mjSOL_PGS),
    "dense": _options(jacobian=JAC.mjJAC_DENSE),
    "no islands": _options(disableflags=int(mujoco.mjtDisableBit.mjDSBL_ISLAND)),
}
DEFAULT = ["runners", "implicitfast 2ms", "discrete 2ms", "discrete 5ms"]


def physics_real_time(key: str, gait: str, speed: float, seconds: float, configure) -> float:
    """Simulated seconds per wall second of the physics alone over ``seconds`` of the gait."""
    _, physics, ticks, _, dt = one_round(key, gait, speed, seconds, configure)
    return ticks * dt / physics


def main(seconds: float = 10.0, rounds: int = 3, names: list[str] | None = None) -> None:
    names = names or DEFAULT
    print(f"load average {os.getloadavg()[0]:.2f}; physics x real time (median of {rounds} rounds of {seconds:g} s)")
    print(f"{'creature':8s} {'gait':8s} " + " ".join(f"{n:>17s}" for n in names) + "   time relative to "
          + names[0])
    for key, gait, speed in CASES:
        physics_real_time(key, gait, speed, 0.5, VARIANTS[names[0]])  # warm up the compiled tick
        rt: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(rounds):
            for n in names:
                rt[n].append(physics_real_time(key, gait, speed, seconds, VARIANTS[n]))
        med = {n: statistics.median(v) for n, v in rt.items()}
        rel = " ".join(f"{med[names[0]] / med[n]:.2f}" for n in names[1:])
        print(f"{key:8s} {gait:8s} " + " ".join(f"{med[n]:17.1f}" for n in names) + f"   {rel}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0, int(sys.argv[2]) if len(sys.argv) > 2 else 3,
         sys.argv[3].split(",") if len(sys.argv) > 3 else None)

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

from gaitforge.control.skills.catalog import PARAMS  # noqa: E402

CASES = [("gorilla", "stand", 0.0), ("gorilla", "ds_walk", 0.3), ("gorilla", "trot", 0.4),
         ("dog", "walk", 0.3), ("dog", "trot", 0.8)]

INT, SOL, JAC = mujoco.mjtIntegrator, mujoco.mjtSolver, mujoco.mjtJacobian
IFAST, DISCRETE, NEWTON, PGS = INT.mjINT_IMPLICITFAST, INT.mjINT_DISCRETE, SOL.mjSOL_NEWTON, SOL.mjSOL_PGS

# name -> options set on the prepared model; "runners" is each creature's own
# (catalog.PARAMS: the gorilla discrete at 10 ms with Newton, the dog
# implicitfast at 2 ms with PGS); "implicitfast 2ms Newton" what both ran before.
VARIANTS: dict[str, dict] = {
    "runners": {},
    "implicitfast 2ms Newton": dict(integrator=IFAST, timestep=0.002, solver=NEWTON),
    "discrete 10ms Newton": dict(integrator=DISCRETE, timestep=0.01, solver=NEWTON),
    "implicitfast 2ms PGS": dict(integrator=IFAST, timestep=0.002, solver=PGS),
    "discrete 5ms Newton": dict(integrator=DISCRETE, timestep=0.005, solver=NEWTON),
    "discrete 2ms Newton": dict(integrator=DISCRETE, timestep=0.002, solver=NEWTON),
    "implicitfast 5ms Newton": dict(integrator=IFAST, timestep=0.005, solver=NEWTON),
    "dense": dict(jacobian=JAC.mjJAC_DENSE),
    "no islands": dict(disableflags=int(mujoco.mjtDisableBit.mjDSBL_ISLAND)),
}
DEFAULT = ["runners", "implicitfast 2ms Newton", "discrete 10ms Newton", "implicitfast 2ms PGS"]


def configure(key: str, options: dict):
    """Set ``options`` on the prepared model; where the integrator or step
    changes, the servos' dampers as ``SkillController.prepare_model`` sets
    them for it (it gives back the h·K the discrete integrator adds)."""
    def apply(m: mujoco.MjModel) -> None:
        kd = PARAMS[key].kd_time
        before = m.opt.timestep if m.opt.integrator == DISCRETE else 0.0
        for k, v in options.items():
            setattr(m.opt, k, v)
        after = m.opt.timestep if m.opt.integrator == DISCRETE else 0.0
        m.dof_damping[:] *= (kd - after) / (kd - before)
    return apply


def physics_real_time(key: str, gait: str, speed: float, seconds: float, options: dict) -> float:
    """Simulated seconds per wall second of the physics alone over ``seconds`` of the gait."""
    _, physics, ticks, _, dt = one_round(key, gait, speed, seconds, configure(key, options))
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

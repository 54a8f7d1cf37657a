"""What the skills runners' physics settings cost: the raw ``mj_step`` time
per 2 ms step of each gait under MuJoCo option variants (the constraint
Jacobian dense or sparse, constraint islands on or off), all measured in
the same run and interleaved round by round so that the machine's load
falls on every variant alike.

Each case runs ``seconds`` of simulated time with its controller (its tick
is not timed: only the physics between ticks is), from the same start, so
the variants integrate the same motion up to roundoff. Printed: the median
over ``rounds`` of the raw step [µs], and each variant's time relative to
the runners' own setting (the first column).

    .venv/bin/python benchmarks/bench_skills_physics.py [seconds] [rounds]
"""
from __future__ import annotations

import os
import statistics
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import mujoco  # noqa: E402
from bench_skills import one_round  # noqa: E402

CASES = [("gorilla", "stand", 0.0), ("gorilla", "ds_walk", 0.3), ("gorilla", "trot", 0.4),
         ("dog", "walk", 0.3), ("dog", "trot", 0.8)]

# name -> (jacobian, extra disable flags); the first is what the runners use.
VARIANTS = {
    "runners (sparse)": (mujoco.mjtJacobian.mjJAC_SPARSE, 0),
    "dense": (mujoco.mjtJacobian.mjJAC_DENSE, 0),
    "sparse, no islands": (mujoco.mjtJacobian.mjJAC_SPARSE, int(mujoco.mjtDisableBit.mjDSBL_ISLAND)),
}


def raw_step_us(key: str, gait: str, speed: float, seconds: float, jacobian, disable: int) -> float:
    """Mean raw physics time [µs] per step over ``seconds`` of the gait."""
    def configure(m: mujoco.MjModel) -> None:
        m.opt.jacobian = jacobian
        m.opt.disableflags |= disable

    _, physics, ticks, h, dt = one_round(key, gait, speed, seconds, configure)
    return physics / (ticks * round(dt / h)) * 1e6


def main(seconds: float = 10.0, rounds: int = 3) -> None:
    names = list(VARIANTS)
    print(f"{'creature':8s} {'gait':8s} " + " ".join(f"{n + ' [us]':>24s}" for n in names) + "   relative")
    for key, gait, speed in CASES:
        raw_step_us(key, gait, speed, 0.5, *VARIANTS[names[0]])  # warm up the compiled tick
        times: dict[str, list[float]] = {n: [] for n in names}
        for _ in range(rounds):
            for n in names:
                times[n].append(raw_step_us(key, gait, speed, seconds, *VARIANTS[n]))
        med = {n: statistics.median(v) for n, v in times.items()}
        rel = " ".join(f"{med[n] / med[names[0]]:.2f}" for n in names[1:])
        print(f"{key:8s} {gait:8s} " + " ".join(f"{med[n]:24.1f}" for n in names) + f"   {rel}", flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0, int(sys.argv[2]) if len(sys.argv) > 2 else 3)

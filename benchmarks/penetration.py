"""How deep do the contacts go, from perturbed starts and at several physics
steps? For each case RUNNER:GAIT:SPEED (a controller registry runner, one of
its gaits, the commanded speed [m/s]): ``--starts`` perturbed starts
(``gaitforge.sim.ensemble.StartNoise``, as in ``benchmarks/robustness.py``),
each simulated for ``--seconds`` at each step of ``--timesteps``, the
deepest ground penetration read at every physics step
(``convergence.ContactProbe``). Prints the deepest and the median of the
starts' deepest [mm], the cap (half the smallest radius of a geom that
touched the ground, at most 20 mm: docs/physics.md) and how many starts
went past it.

    .venv/bin/python benchmarks/penetration.py dog:gallop:1.3 --timesteps 0.002,0.001,0.0005
    .venv/bin/python benchmarks/penetration.py biped:run:4 kangaroo:hop:4     # each at its own step
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convergence import ContactProbe  # noqa: E402 (a sibling script)

CAP = 0.020  # m: the deepest a contact may go whatever the geom's size


def deepest(runner: str, gait: str, speed: float, seconds: float, timestep: float | None,
            seed: int) -> tuple[float, float, float, float]:
    """(deepest penetration [m], smallest radius [m] of a geom that touched
    the ground, fall time [s] or nan, the physics step [s] it ran) of one
    perturbed start (``timestep`` None: the runner's own)."""
    from gaitforge.control import registry as runners
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character
    from gaitforge.sim.ensemble import StartNoise, simulate_perturbed

    probe = ContactProbe(Character.from_spec(registry.build(runners.entry(runner, gait).creature)).model)
    try:
        _, r = simulate_perturbed(runner, gait, speed, seconds, StartNoise(), seed, timestep=timestep,
                                  perturb=probe)
    finally:
        probe.close()
    return probe.depth, probe.radius, (r.fall.time if r.fall else math.nan), r.physics.timestep


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cases", nargs="+", help="RUNNER:GAIT:SPEED")
    p.add_argument("--timesteps", default="own", help="physics steps [s], comma-separated (own: the runner's)")
    p.add_argument("--starts", type=int, default=20)
    p.add_argument("--seconds", type=float, default=60.0)
    a = p.parse_args(argv)
    steps = [None if v == "own" else float(v) for v in a.timesteps.split(",")]
    cases = []
    for c in a.cases:
        runner, gait, speed = c.split(":")
        cases.append((runner, gait, float(speed)))
    print(f"{a.starts} perturbed starts × {a.seconds:g} s each, the deepest ground penetration read at every "
          "physics step\n")
    print("| runner | gait | speed m/s | step ms | deepest mm | median of the starts' deepest mm | cap mm "
          "| starts past the cap | falls |")
    print("|---|---|---|---|---|---|---|---|---|")
    for runner, gait, speed in cases:
        for dt in steps:
            runs = [deepest(runner, gait, speed, a.seconds, dt, seed) for seed in range(a.starts)]
            depth = 1000.0 * np.array([r[0] for r in runs])
            cap = 1000.0 * min(CAP, 0.5 * min(r[1] for r in runs))
            falls = sum(not math.isnan(r[2]) for r in runs)
            step = f"{1000 * runs[0][3]:.4g}"
            print(f"| {runner} | {gait} | {speed:g} | {step} | {depth.max():.1f} | {np.median(depth):.1f} "
                  f"| {cap:.1f} | {int((depth > cap).sum())} | {falls} |", flush=True)


if __name__ == "__main__":
    main()

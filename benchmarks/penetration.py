"""How deep do the contacts go, from perturbed starts and at several physics
steps? For each case RUNNER:GAIT:SPEED (a controller registry runner, one of
its gaits, the commanded speed [m/s]): ``--starts`` perturbed starts
(``gaitforge.sim.starts.StartNoise``, seeds 1 … N as in
``benchmarks/robustness.py``),
each simulated for ``--seconds`` at each step of ``--timesteps``, the
deepest ground penetration read at every physics step
(``gaitforge.sim.contact_depth.ContactProbe``). Prints the deepest and the
median of the starts' deepest [mm], and by the contact rule (each geom may
sink at most half its own radius, a box's or ellipsoid's least
half-extent, and at most 20 mm: docs/physics.md) the geom that came
nearest its cap or furthest past it, that cap [mm], its depth over the cap
(worst start) and how many starts had any geom past its cap.

    .venv/bin/python benchmarks/penetration.py dog:gallop:1.3 --timesteps 0.002,0.001,0.0005
    .venv/bin/python benchmarks/penetration.py biped:run:4 kangaroo:hop:4     # each at its own step
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from gaitforge.sim.contact_depth import ContactProbe


def deepest(runner: str, gait: str, speed: float, seconds: float, timestep: float | None,
            seed: int, gains: str = "ours") -> tuple[float, float, str, float, float, float]:
    """(deepest penetration [m], the worst geom's depth over its cap, its
    name, its cap [m], fall time [s] or nan, the physics step [s] it ran) of
    one perturbed start (``timestep`` None: the runner's own) under the
    runner's gain set ``gains``."""
    from gaitforge.control import registry as runners
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character
    from gaitforge.control.ensembles import simulate_perturbed
    from gaitforge.sim.starts import StartNoise

    with ContactProbe(Character.from_spec(registry.build(runners.entry(runner, gait).creature)).model) as probe:
        _, r = simulate_perturbed(runner, gait, speed, seconds, StartNoise(), seed, timestep=timestep,
                                  perturb=probe, gains=gains)
    g = probe.worst
    return (probe.deepest, probe.worst_ratio, probe.geom_name(g), float(probe.caps[g]),
            (r.fall.time if r.fall else math.nan), r.physics.timestep)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("cases", nargs="+", help="RUNNER:GAIT:SPEED")
    p.add_argument("--timesteps", default="own", help="physics steps [s], comma-separated (own: the runner's)")
    p.add_argument("--starts", type=int, default=20)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--gains", default="ours", help="the runners' gain set (a physics or gain variant)")
    a = p.parse_args(argv)
    steps = [None if v == "own" else float(v) for v in a.timesteps.split(",")]
    seeds = range(1, a.starts + 1)  # the seeds benchmarks/robustness.py draws (control.ensembles.ensemble)
    cases = []
    for c in a.cases:
        runner, gait, speed = c.split(":")
        cases.append((runner, gait, float(speed)))
    print(f"{a.starts} perturbed starts × {a.seconds:g} s each, the deepest ground penetration read at every "
          "physics step" + (f"; gain set {a.gains}" if a.gains != "ours" else "") + "\n")
    print("| runner | gait | speed m/s | step ms | deepest mm | median of the starts' deepest mm | worst geom "
          "| its cap mm | its depth / cap | starts past a cap | falls |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for runner, gait, speed in cases:
        for dt in steps:
            runs = [deepest(runner, gait, speed, a.seconds, dt, seed, a.gains) for seed in seeds]
            depth = 1000.0 * np.array([r[0] for r in runs])
            ratio = np.array([r[1] for r in runs])
            w = runs[int(np.argmax(ratio))]
            falls = sum(not math.isnan(r[4]) for r in runs)
            step = f"{1000 * runs[0][5]:.4g}"
            print(f"| {runner} | {gait} | {speed:g} | {step} | {depth.max():.1f} | {np.median(depth):.1f} "
                  f"| {w[2]} | {1000 * w[3]:.1f} | {ratio.max():.2f} | {int((ratio > 1.0).sum())} | {falls} |",
                  flush=True)


if __name__ == "__main__":
    main()

"""Do the speed ranges hold from any start? For every simulated runner and
gait, the ends and the middle of its offered range, each from ``--starts``
perturbed starts (``gaitforge.sim.starts.StartNoise``: joints ±0.01 rad,
start speed ±5 %, friction ×0.8–1.2) for ``--seconds`` of simulated time.
A range is offered only where every start holds (docs/robustness.md).

    .venv/bin/python benchmarks/robustness.py [--runners dog,gorilla,...] [--gaits walk,trot]
        [--speeds 0.4,0.8] [--starts 20] [--seconds 60] [--workers 2] [--json out.json]
        [--timestep DT | --step-scale 0.5]

Prints a markdown table: runner, gait, speed [m/s], starts held, the
earliest fall [s], the largest miss of the commanded speed among the starts
that held (mean forward speed over the run's second half), what their
footfalls read as (``control.ensembles.footfall_class``), the worst start's
peak joint drive and joint speed as fractions of the creature's limits and
its share of control ticks with a drive clipped (``sim.limits``); the wall time
of each case on stderr.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

from gaitforge.control.ensembles import ensemble

from gaitforge.sim.starts import StartNoise

RUNNERS = ("dog", "gorilla", "biped", "quadruped", "kangaroo")


def _ranges(name: str) -> dict[str, tuple[float, float]]:
    """gait → (lo, hi) [m/s] of the registry runner ``name`` (gaits with a range)."""
    from gaitforge.control import registry

    return {e.gait: e.speed_range for e in registry.gaits(name) if e.speed_range is not None}


def _speeds(lo: float, hi: float) -> list[float]:
    return sorted({round(lo, 3), round(0.5 * (lo + hi), 3), round(hi, 3)})


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runners", default=",".join(RUNNERS))
    ap.add_argument("--gaits", default="", help="only these gaits (default: every gait with a range)")
    ap.add_argument("--speeds", default="", help="these speeds instead of each range's ends and middle")
    ap.add_argument("--starts", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--timestep", type=float, default=None, help="this physics step [s] for every runner")
    ap.add_argument("--step-scale", type=float, default=None,
                    help="each runner at its own physics step times this (0.5: at half the step)")
    ap.add_argument("--gains", default="ours", help="the runners' gain set (a physics or gain variant)")
    ap.add_argument("--workers", type=int, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if args.timestep is not None and args.step_scale is not None:
        ap.error("give --timestep or --step-scale, not both")
    noise = StartNoise()
    rows = []
    print(f"noise: joints ±{noise.joint} rad, start speed ±{noise.speed:.0%}, friction ×{noise.friction[0]}–"
          f"{noise.friction[1]}; {args.starts} starts × {args.seconds:g} s each"
          + (f"; each runner's own step × {args.step_scale:g}" if args.step_scale is not None else "")
          + (f"; gain set {args.gains}" if args.gains != "ours" else "") + "\n")
    print("| runner | gait | speed m/s | held | first fall s | speed miss | footfalls read as | peak τ/limit "
          "| peak ω/limit | ticks clipped |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for name in args.runners.split(","):
        for gait, (lo, hi) in _ranges(name).items():
            if (args.gaits and gait not in args.gaits.split(",")) or hi <= 0.0:
                continue
            speeds = [float(v) for v in args.speeds.split(",")] if args.speeds else _speeds(lo, hi)
            timestep = args.timestep
            if args.step_scale is not None:
                from gaitforge.control import registry

                timestep = registry.entry(name, gait).physics().timestep * args.step_scale
            for v in speeds:
                t0 = time.perf_counter()
                e = ensemble(name, gait, v, starts=args.starts, seconds=args.seconds, noise=noise,
                             timestep=timestep, workers=args.workers, gains=args.gains)
                wall = time.perf_counter() - t0
                fall = "—" if math.isnan(e.first_fall) else f"{e.first_fall:.1f}"
                miss = e.speed_error()
                drive, omega, clipped = e.peaks()
                print(f"| {name} | {gait} | {v:g} | {e.held}/{args.starts} | {fall} | "
                      f"{'—' if math.isnan(miss) else f'{miss:.1%}'} | "
                      f"{', '.join(f'{k} {n}' for k, n in e.gaits().items())} | {drive:.2f} | {omega:.2f} | "
                      f"{clipped:.2%} |", flush=True)
                # the wall time goes to stderr: the table is what docs/figures.py compares
                print(f"{name} {gait} {v:g} m/s: {wall:.0f} s", file=sys.stderr, flush=True)
                rows.append({"runner": name, "gait": gait, "speed": v, "starts": args.starts, "held": e.held,
                             "first_fall": None if math.isnan(e.first_fall) else e.first_fall,
                             "speed_miss": None if math.isnan(miss) else miss,
                             "falls": {o.seed: o.fall for o in e.outcomes if not o.held},
                             "gaits": e.gaits(), "peak_drive": drive, "peak_joint_speed": omega,
                             "clipped": clipped})
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    held = sum(row["held"] == row["starts"] for row in rows)
    print(f"\n{held} of {len(rows)} cases held from every start", file=sys.stderr)


if __name__ == "__main__":
    main()

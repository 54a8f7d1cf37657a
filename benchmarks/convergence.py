"""Is each runner's physics step converged? Every simulated runner and gait
at the middle of its range, from the unperturbed start, at its own timestep
dt and at dt/2 and dt/4 (the control interval unchanged), for ``--seconds``:
the mean forward speed over the second half [m/s], the stride [s] (mean
interval between one foot's touchdowns over the second half), when it fell,
the deepest penetration of any contact [mm], and the worst geom's deepest
penetration over its bound under the contact rule (``depth / cap``: each
geom that touches the ground may sink at most half its radius, at most
20 mm; ``gaitforge.sim.contact_depth``). A figure is converged when it moves
by at most 5 % from dt to dt/2 (docs/physics.md).

    .venv/bin/python benchmarks/convergence.py [--runners dog,gorilla,...] [--gaits trot] [--seconds 60]
        [--starts N]      # means over N perturbed starts: a chaotic gait's one run is one sample
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from gaitforge.sim.contact_depth import ContactProbe
from gaitforge.control.ensembles import simulate_perturbed
from gaitforge.sim.starts import QUIET, StartNoise

RUNNERS = ("dog", "gorilla", "biped", "quadruped", "kangaroo")


def _stride(rollout) -> float:
    """Mean interval [s] between the first foot's touchdowns over the second
    half, its contacts read as the ensembles read them
    (``control.ensembles.footfall_class``): airborne gaps under 0.1 s filled (a
    foot that bounces on landing has not taken a step: the gorilla's first
    foot, its front left knuckles, on 3 ms contacts lifts for up to 0.08 s
    after some landings), then contacts under 0.05 s dropped."""
    from gaitforge.motion.footfall import debounce

    t = rollout.times
    half = t >= 0.5 * t[-1]
    c = debounce(rollout.contact[half], 1.0 / float(np.median(np.diff(t))), 0.05, 0.1)[:, 0].astype(int)
    down = t[half][1:][np.diff(c) == 1]
    return float(np.mean(np.diff(down))) if len(down) > 2 else math.nan


def measure(runner: str, gait: str, speed: float, seconds: float, timestep: float | None, starts: int = 0):
    """(speed [m/s], stride [s], fall [s] or nan, penetration [m], the worst
    geom's depth / cap) of the quiet run (``starts`` 0), else over the
    perturbed starts 1 … ``starts`` (``sim.starts.StartNoise``, as
    benchmarks/robustness.py draws them): the mean speed and stride, the
    first fall, the deepest penetration and the worst depth / cap."""
    if starts:
        runs = [_one(runner, gait, speed, seconds, timestep, StartNoise(), seed) for seed in range(1, starts + 1)]
        speeds, strides, falls, depths, ratios = (np.array(c, float) for c in zip(*runs))
        return (float(np.mean(speeds)), float(np.nanmean(strides)), float(np.nanmin(falls)) if np.isfinite(falls).any()
                else math.nan, float(depths.max()), float(ratios.max()))
    return _one(runner, gait, speed, seconds, timestep, QUIET, 0)


def _one(runner: str, gait: str, speed: float, seconds: float, timestep: float | None, noise, seed: int):
    """``measure``'s figures of one start."""
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character
    from gaitforge.control import registry as runners

    with ContactProbe(Character.from_spec(registry.build(runners.entry(runner, gait).creature)).model) as probe:
        _, r = simulate_perturbed(runner, gait, speed, seconds, noise, seed, timestep=timestep, perturb=probe)
    t, x = r.times, r.clip.qpos[:, 0]
    half = t >= 0.5 * t[-1]
    v = float((x[half][-1] - x[half][0]) / (t[half][-1] - t[half][0]))
    return v, _stride(r), (r.fall.time if r.fall else math.nan), probe.deepest, probe.worst_ratio


def main(argv: list[str] | None = None) -> None:
    from gaitforge.control import registry as runners

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runners", default=",".join(RUNNERS))
    ap.add_argument("--gaits", default="")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--starts", type=int, default=0,
                    help="average over this many perturbed starts (0: the unperturbed start alone)")
    args = ap.parse_args(argv)
    if args.starts:
        print(f"means over {args.starts} perturbed starts (speed, stride), the first fall, the deepest of them\n")
    print("| runner | gait | speed m/s | dt ms | speed m/s | stride s | fell s | penetration mm | depth / cap "
          "| Δspeed, Δstride vs dt/2 |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for name in args.runners.split(","):
        for e in runners.gaits(name):
            gait = e.gait
            if e.speed_range is None or (args.gaits and gait not in args.gaits.split(",")) or e.speed_range[1] <= 0.0:
                continue
            lo, hi = e.speed_range
            v = round(0.5 * (lo + hi), 3)
            rows = []
            dt = None
            for k in (1, 2, 4):
                if dt is None:
                    rows.append(measure(name, gait, v, args.seconds, None, args.starts))
                    dt = _own_timestep(name, gait, v)
                else:
                    rows.append(measure(name, gait, v, args.seconds, dt / k, args.starts))
            for k, (speed, stride, fell, depth, ratio) in zip((1, 2, 4), rows):
                change = (f"{_rel(speed, rows[1][0]):.1%}, {_rel(stride, rows[1][1]):.1%}" if k == 1 else "")
                print(f"| {name} | {gait} | {v:g} | {1000 * dt / k:g} | {speed:.3f} | {stride:.3f} | "
                      f"{'—' if math.isnan(fell) else f'{fell:.1f}'} | {1000 * depth:.1f} | {ratio:.2f} | "
                      f"{change} |", flush=True)


def _rel(a: float, b: float) -> float:
    """|a − b| / |b| (nan where b is 0 or either is nan)."""
    return abs(a - b) / abs(b) if b and not (math.isnan(a) or math.isnan(b)) else math.nan


def _own_timestep(name: str, gait: str, speed: float) -> float:
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character
    from gaitforge.sim.controller import run_settings
    from gaitforge.control import registry as runners

    e = runners.entry(name, gait)
    character = Character.from_spec(registry.build(e.creature))
    assert e.controller is not None
    return float(run_settings(e.controller(e, character, speed), character.model).model.opt.timestep)


if __name__ == "__main__":
    main()

"""Physically valid modal locomotion from sketches (Kry 2012 §4.5; issue 27
items 3–4): each shipped sketch's optimized recipe
(``examples/sketches/results/NAME.yaml``, found by ``gaitforge optimize
CREATURE --sketch examples/sketches/NAME.yaml``) replayed for ``--seconds``
at its creature's modal step dt and at dt/2, from the rest start and
``--starts`` − 1 starts with a random velocity along the recipe's modes
(σ = 0.02 modal units/s): body lengths per second and cost of transport
(mean over the starts that held), the cycle residual (0 repeating, cyclic
below 0.2), the starts that fell or diverged, the avoided modes' excess
over their barrier (0: within it) and the change of the mean distance at
dt/2.

    PYTHONPATH=. .venv/bin/python benchmarks/sketch_table.py [--seconds 60] [--starts 4]
"""
from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from ensembles import mean_se  # noqa: E402

ROOT = Path(__file__).parents[1]
SKETCHES = ROOT / "examples" / "sketches"


def run_one(sketch_path: Path, recipe_path: Path, half: bool, seconds: float, seed: int) -> tuple:
    """(body lengths/s, cost of transport, cycle residual, fell, barrier excess, distance [m]) of one start."""
    import gaitforge as gf
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.measures import summarize
    from gaitforge.control.modal.physics import physics_for
    from gaitforge.control.modal.presets import RAMP
    from gaitforge.control.modal.rollout import kicked_start
    from gaitforge.io.recipe_files import load_recipe
    from gaitforge.io.sketch_files import load_sketch
    from gaitforge.motion.recipe import modes_for
    from gaitforge.optimize.sketch import barrier_excess, mode_content

    sketch, recipe = load_sketch(sketch_path), load_recipe(recipe_path)
    character = gf.creature(recipe.creature)
    basis = modes_for(character, recipe)
    initial = kicked_start(character, basis, dict.fromkeys(recipe.modes), 0.02, seed) if seed else None
    dt = physics_for(character).timestep / (2 if half else 1)
    r = run_recipe(character, recipe, seconds, ramp=RAMP, basis=basis, timestep=dt, initial=initial)
    s = summarize(r, character.mass)
    excess = math.nan
    if r.ok and sketch.avoid:
        fit = gf.modes(character, count=max(sketch.modes + sketch.avoid) + 1)
        late = r.clip.qpos[r.times >= RAMP]
        excess = barrier_excess(mode_content(character, fit.shapes, late)[:, list(sketch.avoid)],
                                sketch.bounds(character, fit))
    bl = s.body_lengths / seconds if r.ok else math.nan
    return bl, s.cost_of_transport if r.ok else math.nan, s.cycle_residual if r.ok else math.nan, not r.ok, \
        excess, s.distance


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--starts", type=int, default=4)
    args = ap.parse_args(argv)
    print("| sketch | creature | body lengths/s | cost of transport | cycle residual | fell | barrier excess "
          "| distance at dt/2 |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    for sketch_path in sorted(SKETCHES.glob("*.yaml")):
        recipe_path = SKETCHES / "results" / f"{sketch_path.stem}.yaml"
        if not recipe_path.exists():
            print(f"| {sketch_path.stem} | – | not optimized yet | | | | | |")
            continue
        rows = {half: np.array([run_one(sketch_path, recipe_path, half, args.seconds, seed)
                                for seed in range(args.starts)], float) for half in (False, True)}
        a = rows[False]
        bl, cot, res = mean_se(a[:, 0])[0], mean_se(a[:, 1])[0], float(np.nanmean(a[:, 2])) if np.isfinite(
            a[:, 2]).any() else math.nan
        excess = np.nanmax(a[:, 4]) if np.isfinite(a[:, 4]).any() else math.nan
        d0, d1 = float(np.mean(a[:, 5])), float(np.mean(rows[True][:, 5]))
        change = abs(d1 - d0) / abs(d0) if d0 else math.nan
        from gaitforge.io.recipe_files import load_recipe
        creature = load_recipe(recipe_path).creature
        print(f"| {sketch_path.stem} | {creature} | {bl:.3f} | {cot:.1f} | {res:.3f} | "
              f"{int(a[:, 3].sum())} of {args.starts} | {excess:.2f} | {d1:.2f} m ({change:.0%}) |", flush=True)


if __name__ == "__main__":
    main()

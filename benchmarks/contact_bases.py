"""Contact-aware bases against the single basis (Kry 2012 §3.5): the same
recipes simulated with the modes of the creature in the air only, and with
the modes of each contact state (``control/modal/contact_bases.py``;
``gaitforge simulate NAME --recipe R --contact-bases``).

Recipes: the shipped optimized dog bound and the Kry09 heuristics' dog
bound, trot and walk and human walk (``gf.animation(NAME, GAIT)``, made
here). Per cell, ``--starts`` runs of ``--seconds``: the unperturbed start
and starts with a random velocity along the recipe's modes (σ = ``--noise``
modal units/s, seeds 1, 2, …); a run has fallen when the root sinks below
40 % of its rest height or the trunk tilts past 60°. Columns: mean distance
of the centre of mass until the run ended or fell [m] ± the standard error,
mean speed over that time [m/s], cost of transport (work / (m g distance)),
mean cycle residual of the runs that held (0: repeating; cyclic below 0.2),
falls or divergences of the starts with the mean time upright [s], and the
mean distance at half the physics step (the unperturbed start and the
first perturbed one) with its change.

    PYTHONPATH=. .venv/bin/python benchmarks/contact_bases.py [--seconds 60] [--starts 4] [--workers 2]
"""
from __future__ import annotations

import argparse
import math
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from ensembles import mean_se  # noqa: E402

ROOT = Path(__file__).parents[1]
RECIPES = ("examples/dog_bound_optimized.yaml", "dog:bound", "dog:trot", "dog:walk", "human:walk")
_CACHE: dict = {}


def _setup(name: str):
    """(recipe, character, air basis) of a recipe file or CREATURE:GAIT."""
    if name not in _CACHE:
        import gaitforge as gf
        from gaitforge.io.recipe_files import load_recipe
        from gaitforge.motion.recipe import modes_for

        if ":" in name:
            creature, gait = name.split(":")
            recipe = gf.animation(creature, gait, seconds=1.0).recipe
        else:
            recipe = load_recipe(ROOT / name)
        character = gf.creature(recipe.creature)
        _CACHE[name] = (recipe, character, modes_for(character, recipe))
    return _CACHE[name]


def run_one(job):
    """(distance [m], speed [m/s], cost of transport, cycle residual (nan if it
    fell), fell, seconds upright [s]) of one start."""
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.rollout import kicked_start
    from gaitforge.control.modal.measures import G, summarize
    from gaitforge.control.modal.physics import physics_for
    from gaitforge.control.modal.presets import RAMP

    name, contact, half, seconds, seed, noise = job
    recipe, character, basis = _setup(name)
    initial = None
    if seed:
        initial = kicked_start(character, basis, dict.fromkeys(recipe.modes), noise, seed)
    dt = physics_for(character).timestep / (2 if half else 1)
    upright = (0.4 * float(character.rest_qpos[2]), math.radians(60.0))
    r = run_recipe(character, recipe, seconds, ramp=RAMP, basis=basis, timestep=dt, initial=initial,
                   contact_bases=contact, upright=upright)
    up = r.clip.duration
    dist = float(r.distance)
    cot = float(r.work[-1]) / (character.mass * G * dist) if dist > 1e-9 else math.inf
    residual = summarize(r, character.mass).cycle_residual if r.ok else math.nan
    return dist, dist / max(up, 1e-9), cot, residual, not r.ok, up


def _residual(values) -> str:
    v = np.asarray(values, float)
    return f"{np.nanmean(v):.2f}" if np.isfinite(v).any() else "—"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recipes", default=",".join(RECIPES), help="recipe files or CREATURE:GAIT")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--starts", type=int, default=4)
    ap.add_argument("--noise", type=float, default=0.02, help="σ of the start velocity along the modes")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"{args.seconds:g} s, {args.starts} starts per cell (the unperturbed one and {args.starts - 1} with a "
          f"start velocity σ = {args.noise:g} along the recipe's modes)\n")
    print("| recipe | bases | distance m | speed m/s | cost of transport | cycle residual | fell (mean s upright) | "
          "distance at dt/2 (2 starts) |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    try:
        for name in args.recipes.split(","):
            for contact in (False, True):
                jobs = [(name, contact, False, args.seconds, s, args.noise) for s in range(args.starts)]
                jobs += [(name, contact, True, args.seconds, s, args.noise) for s in range(min(2, args.starts))]
                out = np.array(list(pool.map(run_one, jobs)) if pool else [run_one(j) for j in jobs], float)
                full, half = out[:args.starts], out[args.starts:]
                d, se = mean_se(full[:, 0])
                same = full[:len(half), 0].mean()
                change = abs(half[:, 0].mean() - same) / same if same else math.nan
                label = Path(name).stem if name.endswith(".yaml") else name
                print(f"| {label} | {'contact-aware' if contact else 'one (air)'} | {d:.2f} ± {se:.2f} | "
                      f"{np.nanmean(full[:, 1]):.3f} | {np.nanmean(full[:, 2]):.3g} | {_residual(full[:, 3])} | "
                      f"{int(full[:, 4].sum())} of {args.starts} ({full[:, 5].mean():.1f}) | "
                      f"{half[:, 0].mean():.2f} ({change:.0%}) |",
                      flush=True)
    finally:
        if pool is not None:
            pool.shutdown()


if __name__ == "__main__":
    main()

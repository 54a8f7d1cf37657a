"""Is the physics of simulated modal control converged? Every shipped modal
gait (the hand-set worm and loop of ``gaitforge simulate``, and
examples/worm_optimized.yaml, examples/dog_bound_optimized.yaml) at its
creature's modal step dt (``control.modal.physics``) and at dt/2 and dt/4,
the contact model unchanged, over ``--seconds``.

A single long rollout of a chaotic gait is not a figure (its last digits,
then its path, move with the CPU's arithmetic), so each cell is an ensemble:
the unperturbed start and ``--starts`` − 1 starts with a random velocity
along the gait's modes (σ = ``--noise`` modal units/s; the seeds 1, 2, …).
Per cell: the mean horizontal distance of the centre of mass [m] ± the
standard error of the mean, the mean speed over the second half [m/s] ±
its standard error, the deepest ground contact of any start [mm] beside
what is allowed (half the radius of the thinnest geom that touched, at most
20 mm), the mean cycle residual (0: repeating, √2: unrelated cycles;
cyclic below 0.2), the peak joint speed [rad/s] and the peak joint drive
torque [m g L] of any start. A gait's figures are converged when they move
by at most 5 % from dt to dt/2 (docs/modal_physics.md).

    PYTHONPATH=. .venv/bin/python benchmarks/modal_convergence.py [--seconds 20] [--starts 8] [--workers 2]
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

EXAMPLES = Path(__file__).parents[1] / "examples"
RECIPES = ("worm", "loop", "examples/worm_optimized.yaml", "examples/dog_bound_optimized.yaml")


def _recipe(name: str):
    from gaitforge.control.modal.presets import hand_set
    from gaitforge.io.recipe_files import load_recipe

    if name.endswith((".yaml", ".yml", ".json")):
        return load_recipe(Path(__file__).parents[1] / name)
    return hand_set(name)


_CACHE: dict = {}


def _setup(name: str):
    if name not in _CACHE:
        from gaitforge.creatures import registry
        from gaitforge.creatures.character import Character
        from gaitforge.motion.recipe import modes_for

        recipe = _recipe(name)
        character = Character.from_spec(registry.build(recipe.creature))
        _CACHE[name] = (recipe, character, modes_for(character, recipe))
    return _CACHE[name]


def run_one(job):
    """(distance [m], second-half speed [m/s], penetration [m], allowed [m],
    cycle residual, peak joint speed [rad/s], peak torque [m g L], diverged)
    of one start."""
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.rollout import kicked_start
    from gaitforge.control.modal.measures import summarize
    from gaitforge.control.modal.presets import RAMP
    from gaitforge.control.modal.rollout import MAX_PENETRATION

    name, dt, seconds, seed, noise = job
    recipe, character, basis = _setup(name)
    initial = None
    if seed:
        initial = kicked_start(character, basis, dict.fromkeys(recipe.modes), noise, seed)
    r = run_recipe(character, recipe, seconds, ramp=RAMP, basis=basis, timestep=dt, initial=initial)
    s = summarize(r, character.mass)
    t, com = r.times, r.com
    half = t >= 0.5 * t[-1]
    speed = float(np.hypot(*(com[half][-1, :2] - com[half][0, :2])) / (t[half][-1] - t[half][0]))
    allowed = min(MAX_PENETRATION, 0.5 * r.contact_radius)
    return (s.distance, speed if r.ok else math.nan, r.penetration, allowed, s.cycle_residual, s.peak_joint_speed,
            s.peak_torque, not r.ok)


def main(argv: list[str] | None = None) -> None:
    from gaitforge.control.modal.physics import physics_for

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--recipes", default=",".join(RECIPES), help="hand-set gait names or recipe files")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--starts", type=int, default=8)
    ap.add_argument("--noise", type=float, default=0.02, help="σ of the start velocity along the modes")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    print(f"{args.seconds:g} s, {args.starts} starts per cell (the unperturbed one and {args.starts - 1} with a "
          f"start velocity σ = {args.noise:g} along the gait's modes)\n")
    print("| gait | dt ms | distance m | speed m/s | deepest / allowed mm | cycle residual | peak ω rad/s "
          "| peak τ mgL | diverged | Δdistance, Δspeed at half the step |")
    print("|---|---|---|---|---|---|---|---|---|---|", flush=True)
    pool = ProcessPoolExecutor(args.workers) if args.workers > 1 else None
    try:
        for name in args.recipes.split(","):
            recipe = _recipe(name)
            dt0 = physics_for(recipe.creature).timestep
            rows = []
            for k in (1, 2, 4):
                jobs = [(name, dt0 / k, args.seconds, seed, args.noise) for seed in range(args.starts)]
                rows.append(list(pool.map(run_one, jobs)) if pool else [run_one(j) for j in jobs])
            stats = []
            for runs in rows:
                a = np.array(runs, float)
                stats.append((mean_se(a[:, 0]), mean_se(a[:, 1]), np.nanmax(a[:, 2]), np.nanmin(a[:, 3]),
                              float(np.nanmean(a[:, 4])), np.nanmax(a[:, 5]), np.nanmax(a[:, 6]), int(a[:, 7].sum())))
            for k, (dist, speed, deep, allowed, res, w, tau, div) in zip((1, 2, 4), stats):
                change = ""
                if k < 4:
                    nxt = stats[(1, 2, 4).index(k) + 1]
                    change = f"{_rel(dist[0], nxt[0][0]):.1%}, {_rel(speed[0], nxt[1][0]):.1%}"
                print(f"| {Path(name).stem} | {1000 * dt0 / k:g} | {dist[0]:.3f} ± {dist[1]:.3f} | "
                      f"{speed[0]:.4f} ± {speed[1]:.4f} | {1000 * deep:.1f} / {1000 * allowed:.1f} | {res:.3f} | "
                      f"{w:.0f} | {tau:.2f} | {div} | {change} |", flush=True)
    finally:
        if pool is not None:
            pool.shutdown()


def _rel(a: float, b: float) -> float:
    """|a − b| / |b| (nan where b is 0 or either is nan)."""
    return abs(a - b) / abs(b) if b and not (math.isnan(a) or math.isnan(b)) else math.nan


if __name__ == "__main__":
    main()

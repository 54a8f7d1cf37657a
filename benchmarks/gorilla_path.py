"""The gorilla's waypoint paths under a gain set, from perturbed starts:
how many starts fall, how far the mass centre strays from the path after
5 s (the worst start) and how far from the end it stops (the worst start
that held). Two paths at 0.3 m/s: ``bend`` (3 m, a 45° bend, 2.8 m;
tests/test_skills_gaits.py walks it from the unperturbed start) and ``corner`` (3 m, a right-angle
turn, 3 m). Run it under several OpenBLAS kernels to see whether the
result depends on the CPU's arithmetic:

    for k in Haswell SkylakeX SandyBridge; do
        OPENBLAS_CORETYPE=$k .venv/bin/python benchmarks/gorilla_path.py ours ours-10ms; done
    .venv/bin/python benchmarks/gorilla_path.py ours --starts 20
"""
from __future__ import annotations

import argparse
import math
import os

import numpy as np

from gaitforge.control.paths import WaypointPath, distance_to_path
from gaitforge.sim.track import com_track

PATHS = {"bend": np.array([[0.4, 0.0], [2.4, 0.0], [4.4, 2.0]]),
         "corner": np.array([[0.4, 0.0], [3.4, 0.0], [3.4, 3.0]])}
SPEED = 0.3  # m/s


def follow(path: WaypointPath, gains: str, seed: int, seconds: float = 60.0) -> tuple[str | None, float, float]:
    """(fall or None, largest distance [m] of the mass centre from the path
    after 5 s, its distance [m] from the path's end at the last frame) of
    the start drawn for ``seed`` (0: the unperturbed start)."""
    from gaitforge.control import registry
    from gaitforge.sim.starts import PerturbedStart, StartNoise

    e = registry.entry("gorilla", "ds_walk")
    start = None if seed == 0 else PerturbedStart(StartNoise(), seed, SPEED)
    character, rollout, _ = e.simulate(e, SPEED, seconds, start=start, path=path, gains=gains)
    com = com_track(character, rollout.clip.qpos[::10])
    late = rollout.times[::10] > 5.0
    fall = str(rollout.fall) if rollout.fall else None
    return fall, float(distance_to_path(path, com[late]).max()), float(np.linalg.norm(com[-1] - path.waypoints[-1]))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("gains", nargs="*", default=["ours"], help="gain sets (default: ours)")
    ap.add_argument("--starts", type=int, default=0, help="perturbed starts (seeds 1 … N; 0: the unperturbed one)")
    ap.add_argument("--paths", default="bend,corner")
    a = ap.parse_args(argv)
    seeds = list(range(1, a.starts + 1)) or [0]
    kernel = os.environ.get("OPENBLAS_CORETYPE", "default kernel")
    for gains in a.gains:
        for name in a.paths.split(","):
            path = WaypointPath(PATHS[name], speed=SPEED)
            runs = [follow(path, gains, s) for s in seeds]
            falls = [f"{s}: {f}" for s, (f, _, _) in zip(seeds, runs) if f]
            held = [r for r in runs if r[0] is None]
            off = max(r[1] for r in held) if held else math.nan
            end = max(r[2] for r in held) if held else math.nan
            what = "the unperturbed start" if seeds == [0] else f"{len(seeds)} perturbed starts"
            print(f"{kernel}, {gains}, {name}: {what}, {len(runs) - len(falls)} held 60 s; "
                  f"off the path by up to {off:.2f} m, stops up to {end:.2f} m from its end"
                  + "".join(f"\n    seed {f}" for f in falls), flush=True)


if __name__ == "__main__":
    main()

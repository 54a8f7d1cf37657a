"""The skills controllers over a grid of commanded speeds: for each, a
60 s run from standing (``skills.catalog.simulate``), then the mean speed,
the gait class, the walk sequence, the beats, duty factors and phases after
10 s (``skills.gaitcheck.check``), or the fall. Produces the README's table.

    .venv/bin/python benchmarks/skills_grid.py gorilla ds_walk 0,0.1,0.2,0.3,0.4,0.5,0.6 [seconds]
"""
from __future__ import annotations

import sys

from gaitforge.control.skills.catalog import simulate
from gaitforge.control.skills.gaitcheck import check


def main(name: str, gait: str, speeds: list[float], seconds: float = 60.0) -> None:
    for v in speeds:
        character, rollout = simulate(name, gait, v, seconds)
        if rollout.fall is not None:
            print(f"{name} {gait} {v:g}: {rollout.fall}", flush=True)
            continue
        c = check(character, rollout, settle=min(10.0, seconds / 3))
        duty = {k: round(x, 2) for k, x in c.metrics.duty_factor.items()}
        phase = {k: round(x, 2) for k, x in c.metrics.phase.items()}
        print(f"{name} {gait} {v:g}: speed {c.speed:.3f} m/s, {c.gait} {c.sequence} ({c.beats} beats), "
              f"duty {duty}, phase {phase}, {rollout.wall_time:.1f} s wall", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [float(v) for v in sys.argv[3].split(",")],
         float(sys.argv[4]) if len(sys.argv) > 4 else 60.0)

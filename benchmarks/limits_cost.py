"""What do the joint limits cost? Each runner's default gait at the middle
of its range, from the unperturbed start, for ``--seconds``: the wall time
of ``sim.run`` with the controller's limits (the physics stepped one step at
a time, each joint's drive clipped) over the same run without them (MuJoCo
stepping a whole control tick in C), best of ``--repeat``.

    .venv/bin/python benchmarks/limits_cost.py [--runners dog,gorilla,...] [--seconds 20] [--repeat 3]
"""
from __future__ import annotations

import argparse

RUNNERS = ("dog", "gorilla", "biped", "quadruped", "kangaroo")


def wall(name: str, seconds: float, limits: bool) -> float:
    """Wall time [s] of one run (``Rollout.wall_time``: the loop only)."""
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character
    from gaitforge.sim.controller import run_settings
    from gaitforge.control import registry as runners
    from gaitforge.sim.runner import run

    e = runners.entry(name)  # its default gait
    lo, hi = e.speed_range
    character = Character.from_spec(registry.build(e.creature))
    assert e.controller is not None
    controller = e.controller(e, character, 0.5 * (lo + hi))
    if not limits:
        controller.joint_limits = None
    model = run_settings(controller, character.model).model
    return run(character, controller, seconds, model=model).wall_time


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runners", default=",".join(RUNNERS))
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print("| runner | without limits s | with limits s | ratio |")
    print("|---|---|---|---|", flush=True)
    for name in args.runners.split(","):
        wall(name, 1.0, True)  # compile and warm up
        off = min(wall(name, args.seconds, False) for _ in range(args.repeat))
        on = min(wall(name, args.seconds, True) for _ in range(args.repeat))
        print(f"| {name} | {off:.2f} | {on:.2f} | {on / off:.2f} |", flush=True)


if __name__ == "__main__":
    main()

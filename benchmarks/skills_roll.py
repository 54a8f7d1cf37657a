"""Roll of the skills controller's leg frames over a run, per 5 s window:
the growth of the trunk's roll oscillation stride by stride (a trot or a
pace on a support line), from several starts (seed 0: the rest pose; seed
k: every joint moved by 1e-6 rad), with the mean speed and the gait the
footfalls show (``skills.gaitcheck.check``) when the run held.

    .venv/bin/python benchmarks/skills_roll.py dog trot 1.2,1.4 [seeds=0,1,2] [seconds=60]
"""
from __future__ import annotations

import math
import sys

import numpy as np

from gaitforge.control.skills import catalog
from gaitforge.control.skills.gaitcheck import check, roll_windows as windows
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.sim.runner import run

WINDOW = 5.0  # s


def start(name: str, seed: int) -> Character:
    """The creature, its start pose moved by 1e-6 rad per joint (seed 0: unmoved)."""
    character = Character.from_spec(registry.build(name))
    if seed:
        q = character.rest_qpos.copy()
        q[7:] += np.random.default_rng(seed).normal(scale=1e-6, size=q.size - 7)
        character.rest_qpos = q
    return character


def roll_run(name: str, gait: str, speed: float, seed: int, seconds: float):
    """(rollout, character, times, roll (T, 2) [rad] of the front and rear leg frames)."""
    character = start(name, seed)
    controller = catalog.RUNNERS[name].make(character, gait, speed)
    times, rolls = [], []

    def record(t, d):
        times.append(t)
        rolls.append([math.atan2(d.xmat[b][7], d.xmat[b][8]) for b in controller.frames])

    rollout = run(character, controller, seconds, perturb=record)
    return rollout, character, np.array(times), np.array(rolls)


def main(name: str, gait: str, speeds: list[float], seeds: list[int], seconds: float) -> None:
    for v in speeds:
        for seed in seeds:
            rollout, character, times, roll = roll_run(name, gait, v, seed, seconds)
            front = " ".join(f"{a:.1f}" for a in windows(times, roll[:, 0]))
            rear = " ".join(f"{a:.1f}" for a in windows(times, roll[:, 1]))
            head = f"{name} {gait} {v:g} seed {seed}:"
            if rollout.fall is not None:
                print(f"{head} {rollout.fall}", flush=True)
            else:
                c = check(character, rollout, settle=min(10.0, seconds / 3))
                print(f"{head} speed {c.speed:.3f} m/s, {c.gait} {c.sequence} ({c.beats} beats), "
                      f"{rollout.wall_time:.0f} s wall", flush=True)
            print(f"  roll ±deg per {WINDOW:g} s, front: {front}\n  rear: {rear}", flush=True)


if __name__ == "__main__":
    a = sys.argv
    main(a[1], a[2], [float(v) for v in a[3].split(",")],
         [int(s) for s in a[4].split(",")] if len(a) > 4 else [0, 1, 2], float(a[5]) if len(a) > 5 else 60.0)

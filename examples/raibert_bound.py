"""Raibert & Hodgins' quadruped bounding at 2 m/s, simulated on MuJoCo.

    python examples/raibert_bound.py     # writes raibert_bound.glb here
"""
import os

import gaitforge as gf

SECONDS = 2.0 if os.environ.get("GAITFORGE_QUICK") else 20.0  # GAITFORGE_QUICK=1: the tests' short run


def main():
    character, rollout = gf.run("raibert_quadruped", "bound", speed=2.0, seconds=SECONDS)
    clip = rollout.clip
    travel = clip.qpos[-1, 0] - clip.qpos[0, 0]  # the free root's x [m]
    print(f"{clip.duration:.1f} s simulated in {rollout.wall_time:.1f} s; moved {travel:.2f} m forward; "
          f"fell: {rollout.fall}")
    gf.save(clip, "raibert_bound.glb", character)
    print("wrote raibert_bound.glb")


if __name__ == "__main__":
    main()

"""The gorilla's diagonal-sequence walk (locomotion skills), turning gently.

    python examples/gorilla_walk.py      # writes gorilla_walk.bvh here
"""
import os

import gaitforge as gf

SECONDS = 2.0 if os.environ.get("GAITFORGE_QUICK") else 30.0  # GAITFORGE_QUICK=1: the tests' short run


def main():
    character, rollout = gf.run("gorilla", "ds_walk", speed=0.4, seconds=SECONDS, turn_rate=0.1)
    print(f"{rollout.clip.duration:.1f} s simulated; physics: {rollout.physics}; fell: {rollout.fall}")
    gf.save(rollout.clip, "gorilla_walk.bvh", character)
    print("wrote gorilla_walk.bvh")


if __name__ == "__main__":
    main()

"""The dog speeding up from 0.5 to 4 m/s: walk, then trot, then gallop.

    python examples/speed_ramp.py        # writes dog_ramp.glb here
"""
import os

import gaitforge as gf

SECONDS = 2.0 if os.environ.get("GAITFORGE_QUICK") else 12.0  # GAITFORGE_QUICK=1: the tests' short run


def main():
    clip = gf.animate("dog", None, speed=(0.5, 4.0), seconds=SECONDS)  # gait None: the ramp picks them
    gf.save(clip, "dog_ramp.glb")
    print(f"wrote dog_ramp.glb ({clip.n_frames} frames at {clip.fps:g} fps)")


if __name__ == "__main__":
    main()

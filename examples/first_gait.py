"""A dog trot from its vibration modes, saved for Blender or a game engine.

    python examples/first_gait.py        # writes dog_trot.glb and dog_trot.bvh here
"""
import os

import gaitforge as gf

SECONDS = 1.0 if os.environ.get("GAITFORGE_QUICK") else 4.0  # GAITFORGE_QUICK=1: the tests' short run


def main():
    dog = gf.creature("dog")
    basis = gf.modes(dog, count=8)
    print("lowest elastic modes [Hz]:", ", ".join(f"{f:.2f}" for f in basis.frequencies[:4]))
    clip = gf.animate(dog, "trot", seconds=SECONDS)
    m = gf.metrics(clip, dog)
    print(f"{gf.gait_class(clip, dog)}: {m.speed:.2f} m/s, stride {m.stride_duration:.3f} s, "
          f"Froude {m.froude:.2f}")
    gf.save(clip, "dog_trot.glb", dog)
    gf.save(clip, "dog_trot.bvh", dog)
    print("wrote dog_trot.glb and dog_trot.bvh")


if __name__ == "__main__":
    main()

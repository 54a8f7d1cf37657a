"""Import skeletons from MJCF, URDF and BVH, find their modes, and animate one.

    python examples/import_skeleton.py   # writes tiny_dog_bound.glb here
"""
import os
from pathlib import Path

import gaitforge as gf

MODELS = Path(__file__).resolve().parent / "models"
SECONDS = 1.0 if os.environ.get("GAITFORGE_QUICK") else 4.0  # GAITFORGE_QUICK=1: the tests' short run


def main():
    for name in ("tiny_dog.xml", "tiny_quadruped.urdf", "tiny_biped.bvh"):
        character = gf.creature(MODELS / name)
        basis = gf.modes(character, count=4)
        print(f"{name}: {character.model.nbody - 1} bodies, {character.model.nv} DOFs, "
              f"mass {character.mass:.2f} kg, lowest mode {basis.frequencies[0]:.2f} Hz")
    dog = gf.creature(MODELS / "tiny_dog.xml")
    clip = gf.animate(dog, "bound", seconds=SECONDS)
    print("the tiny dog's footfalls read as:", gf.gait_class(clip, dog))
    gf.save(clip, "tiny_dog_bound.glb", dog)
    print("wrote tiny_dog_bound.glb")


if __name__ == "__main__":
    main()

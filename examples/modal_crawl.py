"""The worm's hand-set crawl under modal control: its joint springs' rest
angles follow two vibration modes 90° apart, and nothing else drives it.

    python examples/modal_crawl.py       # writes worm_crawl.glb here
"""
import os

import gaitforge as gf
from gaitforge.control.modal import run_recipe
from gaitforge.control.modal.presets import hand_set

SECONDS = 1.0 if os.environ.get("GAITFORGE_QUICK") else 5.0  # GAITFORGE_QUICK=1: the tests' short run


def main():
    worm = gf.creature("worm")
    result = run_recipe(worm, hand_set("worm"), SECONDS)
    if result.divergence is not None:
        raise SystemExit(f"diverged: {result.divergence}")
    print(f"travelled {result.distance:.3f} m in {result.clip.duration:.1f} s")
    gf.save(result.clip, "worm_crawl.glb", worm)
    print("wrote worm_crawl.glb")


if __name__ == "__main__":
    main()

"""The main job, ``gaitforge demo``: every built-in creature (summary table and
a rendered still each), then the dog trotting at a typical trotting speed
(the trot's typical Froude number, ``GaitSpec.typical_froude``: a kinematic
gait fitted from its vibration modes by dynamic similarity) — written as
glTF, BVH, a short MP4, the clip's data and recipe, and a gait diagram, with
its footfall metrics printed."""
from __future__ import annotations

import argparse
import time

from gaitforge.cli.creatures_cmd import summary_table
from gaitforge.cli.motion_cmd import analyse, console, recipe_table
from gaitforge.cli.outputs import save_clip

DEMO_CREATURE, DEMO_GAIT = "dog", "trot"
CLIP_SECONDS = 4.0      # the glTF / BVH / NPZ clip: a few strides at 60 frames/s
VIDEO_SECONDS = 2.0     # the MP4 is cut short: software rendering costs ~0.1-0.3 s a frame


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="the main job: every creature's still, then the dog trotting "
                                    "(.glb, .bvh, .mp4, gait diagram)")
    p.add_argument("--out-dir", "--out", dest="out", default="demo-output", metavar="DIR",
                   help="output folder (default: demo-output)")
    p.set_defaults(func=cmd_demo)


def cmd_demo(args) -> int:
    from gaitforge import api
    from gaitforge.io.atomic import atomic_paths, check_output_dir

    start = time.perf_counter()
    out = check_output_dir(args.out)
    characters, stills = [], []
    for name in api.creature_names():
        c = api.creature(name)
        characters.append(c)
        stills.append(api.still(c))
    console.print(summary_table(characters))

    made = api.animation(DEMO_CREATURE, DEMO_GAIT, seconds=CLIP_SECONDS, fps=60.0, froude=api.TYPICAL)
    dog, basis, recipe, clip = made.character, made.basis, made.recipe, made.clip
    assert recipe is not None  # a gait at a speed always has its recipe
    console.print(recipe_table(recipe, basis))
    console.print(recipe.description)
    stem = out / "dog_trot"
    short = api.MotionClip(clip.fps, clip.qpos[:int(VIDEO_SECONDS * clip.fps) + 1], clip.character_name)
    targets = [out / f"{c.name}.png" for c in characters] + \
        [out / "dog_trot_gait.png"] + [stem.with_suffix(ext) for ext in (".yaml", ".glb", ".bvh", ".npz", ".mp4")]
    # Every file of the demo is written together or not at all.
    with atomic_paths(*targets) as temps:
        paths = [t for t in temps if t is not None]
        for image, path in zip(stills, paths):
            api.save_png(path, image)
        gait_png, yaml_path, glb, bvh, npz, mp4 = paths[len(stills):]
        analyse(dog, clip, str(gait_png), "dog trot: footfalls")
        api.save_recipe(recipe, yaml_path)
        for path in (glb, bvh, npz):
            save_clip(dog, clip, str(path))
        save_clip(dog, short, mp4, label="dog_trot.mp4")  # 60 fps, 640x480
    console.print(f"stills of {len(characters)} creatures written to {out}/")
    written = ", ".join(f"dog_trot{s}" for s in (".glb", ".bvh", ".mp4", ".npz", ".yaml")) + ", dog_trot_gait.png"
    console.print(f"dog trot written to {out}/: {written} ({time.perf_counter() - start:.0f} s in all)")
    return 0

"""Make the README's and the docs' pictures (docs/img/*.gif).

Each picture is one CLI command (the same one the README shows beside it)
writing an .npz clip, then rendered small (256x192, 10 fps, 32 colours) so each GIF
stays under ~300 KB::

    MUJOCO_GL=egl python docs/gen_images.py            # all four, ~1-2 min on 2 cores
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

IMG = Path(__file__).resolve().parent / "img"

# name -> the command's arguments after `gaitforge` (the clip goes to -o NAME.npz)
PICTURES = {
    "dog_trot": ["animate", "dog", "--gait", "trot", "--seconds", "2"],
    "raibert_bound": ["run", "raibert_quadruped", "--gait", "bound", "--speed", "2.0", "--seconds", "3"],
    "gorilla_walk": ["run", "gorilla", "--gait", "ds_walk", "--speed", "0.4", "--seconds", "3"],
    "worm_crawl": ["simulate", "worm", "--seconds", "3"],
}
SIZE = (256, 192)
FPS = 10.0
COLOURS = 32


def shrink(src: Path, dst: Path) -> None:
    """Re-encode a GIF with one shared palette of COLOURS colours, no dither."""
    from PIL import Image, ImageSequence

    with Image.open(src) as im:
        frames = [f.convert("RGB") for f in ImageSequence.Iterator(im)]
        duration = im.info.get("duration", round(1000 / FPS))
    palette = frames[len(frames) // 2].quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT)
    out = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    out[0].save(dst, save_all=True, append_images=out[1:], duration=duration, loop=0, optimize=True)


def main() -> None:
    import gaitforge as gf
    from gaitforge.io.clipfiles import load_npz

    IMG.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in PICTURES.items():
            npz = Path(tmp) / f"{name}.npz"
            cmd = [sys.executable, "-m", "gaitforge.cli.main", *args, "-o", str(npz)]
            print("gaitforge", " ".join(args), "-o", npz.name, flush=True)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            clip = load_npz(npz)
            raw = Path(tmp) / f"{name}.gif"
            gf.save(clip, raw, width=SIZE[0], height=SIZE[1], fps=FPS)
            gif = IMG / f"{name}.gif"
            shrink(raw, gif)
            print(f"  wrote {gif.relative_to(IMG.parent.parent)} ({gif.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()

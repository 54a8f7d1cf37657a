"""Filmstrips of the kinematic gaits (issue 28 item 5): six frames of one
stride, seen from the side, one PNG per gait under docs/img/filmstrips/,
and the human walk's reference stick figure from normal-gait angle curves
(:mod:`gaitforge.motion.normal_gait`).

    MUJOCO_GL=egl .venv/bin/python docs/gen_filmstrips.py [--only dog-trot] [--out docs/img/filmstrips]

Each gait is made as ``gaitforge animate NAME --gait G`` makes it (its
typical Froude number); frames are taken a stride apart / 6, from 1 s in.
"""
from __future__ import annotations

import argparse
import os
import warnings
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from gaitforge import api  # noqa: E402

STRIPS = (("dog", "walk"), ("dog", "trot"), ("dog", "pace"), ("dog", "bound"), ("dog", "gallop"),
          ("human", "walk"), ("human", "run"))
FRAMES = 6
WIDTH, HEIGHT = 200, 180       # [px] per frame
START = 1.0                    # [s] the stride shown starts here


def strip(creature: str, gait: str) -> np.ndarray:
    """Six side views (HEIGHT, FRAMES·WIDTH, 3) uint8 of one stride of ``gait``."""
    from gaitforge.io.render import StillRenderer, View, frame_character
    from gaitforge.io.video import SIDE_AZIMUTH

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = api.animation(creature, gait, froude=api.TYPICAL, seconds=START + 2.0)
    clip, char = made.clip, made.character
    stride = 1.0 / made.recipe.base_frequency
    idx = np.round((START + np.arange(FRAMES) * stride / FRAMES) * clip.fps).astype(int)
    base = frame_character(char, char.rest_qpos)
    panels = []
    with StillRenderer(char, WIDTH, HEIGHT) as r:
        for i in idx:
            q = clip.qpos[i]
            c = char.com(q)                       # framed on the centre of mass, not the root body
            look = (float(c[0]), float(c[1]), base.lookat[2])
            panels.append(r.render(q, View(look, 0.9 * base.distance, SIDE_AZIMUTH, -5.0)))
    return np.concatenate(panels, axis=1)


def reference_figure(path: Path) -> None:
    """The normal-gait stick figure: both legs at the six phases a stride
    apart / 6 (right leg solid, left dashed, half a stride later)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gaitforge.motion.normal_gait import angles_at

    thigh, shank, foot = 0.42, 0.43, 0.15     # [m] the human's segments (gaitforge.creatures.builders.human)
    fig, axes = plt.subplots(1, FRAMES, figsize=(FRAMES * WIDTH / 100, HEIGHT / 100), dpi=100)
    for k, ax in enumerate(axes):
        for phase, style in ((k / FRAMES, "-"), (k / FRAMES + 0.5, "--")):
            h, kn, an = (np.radians(float(a)) for a in angles_at(phase))
            hip = np.array([0.0, 0.93])
            knee = hip + thigh * np.array([np.sin(h), -np.cos(h)])
            s = h - kn                                               # shank's angle from the vertical
            ankle = knee + shank * np.array([np.sin(s), -np.cos(s)])
            f = s + np.pi / 2 + an                                   # foot square to the shank at 0°
            toe = ankle + foot * np.array([np.sin(f), -np.cos(f)])
            xs, zs = zip(hip, knee, ankle, toe)
            ax.plot(xs, zs, style, color="k", lw=2)
        ax.plot([0, 0], [0.93, 1.5], "-", color="k", lw=2)           # trunk
        ax.add_patch(plt.Circle((0, 1.62), 0.1, fill=False, lw=2))
        ax.set_xlim(-0.6, 0.6)
        ax.set_ylim(-0.05, 1.75)
        ax.set_aspect("equal")
        ax.axis("off")
        ax.set_title(f"{100 * k / FRAMES:.0f} %", fontsize=8)
    fig.tight_layout(pad=0.2)
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    from gaitforge.io.images import save_png

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).parent / "img" / "filmstrips"))
    ap.add_argument("--only", help="CREATURE-GAIT: that strip only")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for creature, gait in STRIPS:
        name = f"{creature}-{gait}"
        if args.only and args.only != name:
            continue
        save_png(out / f"{name}.png", strip(creature, gait))
        print(f"wrote {out / name}.png", flush=True)
    if not args.only or args.only == "reference":
        reference_figure(out / "human-walk-reference.png")
        print(f"wrote {out / 'human-walk-reference.png'}")


if __name__ == "__main__":
    main()

"""How natural the kinematic gaits look (issue 28): the measures of
:mod:`gaitforge.motion.naturalness` on the clips ``gaitforge animate`` makes
(4 s at 60 frames/s), printed as a markdown table.

Spreads are 5th–95th percentile ranges [°]; "hands" is the highest a hand
rises above its shoulder [m] (– for creatures with no free arms), "hands
below shoulders" whether every hand stays below in every frame; joint
ranges are sagittal spreads of the hip, knee, ankle and shoulder [°], taken
from the posture the arms hang in where the gait swings them.

    .venv/bin/python benchmarks/natural_motion.py [--cases dog:walk:1.0;human:walk:1.3] [-o FILE]
    .venv/bin/python benchmarks/natural_motion.py --compare human:walk:typical

A case is CREATURE:GAIT:SPEED (m/s), CREATURE:GAIT:typical (the gait's
typical Froude number) or a preset name alone.
"""
from __future__ import annotations

import argparse
import math
import os
import warnings

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from gaitforge import api  # noqa: E402
from gaitforge.motion.arms import flung_hands, posture_qpos, swing_phase  # noqa: E402
from gaitforge.motion.naturalness import naturalness  # noqa: E402

CASES = ("dog:walk:typical;dog:trot:typical;dog:pace:typical;dog:bound:typical;dog:gallop:typical;"
         "human:walk:typical;human:run:typical;dog:walk:1.0;dog:trot:2.1;dog:pace:2.1;dog:bound:3.0;dog:gallop:4.0;human:walk:1.3;human:run:3.0;"
         "dog:trot:typical;human-run;human-run-stable-head")
HEAD = ("clip", "speed [m/s]", "head pitch", "head yaw", "head sway", "trunk heading", "trunk sway",
        "pelvis rotation", "hands above shoulders [m]", "hands below shoulders", "hip", "knee", "ankle", "shoulder")


def _cell(x: float, fmt: str = "{:.0f}") -> str:
    return "–" if not math.isfinite(x) else fmt.format(x)


def _made(case: str):
    """The animation of ``case`` (module docstring) and its naturalness,
    angles taken from the posture its arms hang in (the rest pose where
    its recipe swings no arms)."""
    parts = case.split(":")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if len(parts) == 1:
            made = api.animation(None, case, seconds=4.0)
        else:
            name, gait, v = parts
            kw = {"froude": api.TYPICAL} if v == "typical" else {"speed": float(v)}
            made = api.animation(name, gait, seconds=4.0, **kw)
    rest = posture_qpos(made.character, made.recipe.posture) if made.recipe is not None and made.recipe.arm_swing \
        else None
    return made, naturalness(made.character, made.clip.qpos, rest)


def measure(case: str) -> list[str]:
    """One table row for ``case`` (module docstring); "hands below
    shoulders": whether every hand stays below its shoulder in every frame
    (:func:`gaitforge.motion.arms.flung_hands`; – where no limb is free)."""
    made, n = _made(case)
    clip = made.clip
    x = clip.qpos[:, 0]
    speed = (x[-1] - x[0]) / (clip.n_frames - 1) * clip.fps
    r = n.ranges
    below = "–" if not math.isfinite(n.hands_above) else ("yes" if not flung_hands(made.character, clip.qpos)
                                                          else "no")
    return [case, f"{speed:.2f}", *(_cell(v) for v in (n.head_pitch, n.head_yaw, n.head_sway, n.trunk_heading,
                                                      n.trunk_sway, n.pelvis_rotation)),
            _cell(n.hands_above, "{:.2f}"), below, *(_cell(r[k]) for k in ("hip", "knee", "ankle", "shoulder"))]


def compare(case: str) -> list[str]:
    """The markdown rows comparing ``case``'s joint ranges with the normal-gait
    ranges (:data:`gaitforge.motion.normal_gait.RANGES`), each with its
    difference and whether it is within 35 %, then each arm's swing phase
    against its own side's hip (±180°: opposite;
    :func:`gaitforge.motion.arms.swing_phase`)."""
    from gaitforge.motion.normal_gait import RANGES

    made, n = _made(case)
    got = dict(n.ranges, **{"pelvis rotation": n.pelvis_rotation})
    out = ["| joint | normal gait [°] | " + case + " [°] | difference | within 35 % |", "|---|---|---|---|---|"]
    for k, ref in RANGES.items():
        d = got[k] / ref - 1.0
        out.append(f"| {k} | {ref:g} | {got[k]:.0f} | {100 * d:+.0f} % | {'yes' if abs(d) <= 0.35 else 'no'} |")
    posture = made.recipe.posture if made.recipe is not None else None
    for side, phase in swing_phase(made.character, made.clip.qpos, posture).items():
        d = (180.0 - abs(phase)) / 180.0
        out.append(f"| {side} shoulder swing against the {side} hip, phase | ±180 | {phase:.0f} | "
                   f"{100 * d:.0f} % of a half cycle off | {'yes' if d <= 0.35 else 'no'} |")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("-o", "--out", help="also write the table as markdown here")
    ap.add_argument("--compare", metavar="CREATURE:GAIT:SPEED",
                    help="instead: that clip's joint ranges against normal human gait")
    args = ap.parse_args()
    if args.compare:
        print("\n".join(compare(args.compare)))
        return
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    print(lines[0])
    print(lines[1])
    for case in args.cases.split(";"):
        row = "| " + " | ".join(measure(case)) + " |"
        print(row, flush=True)
        lines.append(row)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

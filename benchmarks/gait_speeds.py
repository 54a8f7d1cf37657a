"""Kinematic gaits at chosen speeds (issue 9 item 2): the table in docs/gait_speeds.md.

For each creature, gait and Froude number, ``suggest_at_speed`` picks and
scales a recipe, and the clip ``gaitforge animate --speed`` shows (grounded;
walks planted, other gaits with stance feet pinned; 4 strides at 60
frames/s) is measured by footfall analysis: asked and achieved speed, Froude
number, relative stride length λ/h beside Alexander's 2.3·Fr^0.3, duty
factors (per foot, and the plan's target), gait class, foot skate, stance
force (the largest |a + g ẑ|/g of the centre of mass outside flight: the
ground reaction per body weight the clip implies; bounded by 4 for the
gaits held the paired or loose way, ``GaitSpec.holding``), joint limit excess, peak joint
rotation, the trunk's sway (peak-to-peak roll, pitch and yaw of the root
body over the clip), the naturalness spreads of issue 28 (head pitch and
yaw, head sway, trunk heading and sway, pelvis rotation: 5th–95th
percentile ranges, :mod:`gaitforge.motion.naturalness`) and the
suggestion's wall time. "meets
all": speed within 10 %, λ/h within 25 % of 2.3·Fr^0.3, the gait class,
walks' duty factors above 0.5 and the others' below, skate ≤ 0.02, no joint
past its limit, a paired gait's stance force ≤ 4 ("phase margins": all that, but a landing phase is outside
the suggestion's stricter 0.7·tolerance; "skate margin", "speed margin",
"λ/h margin": all that, but the skate above 0.75 · 0.02, the speed or λ/h
outside 0.8 of their tolerance, "force margin": the stance force counted
and above 0.9 of its bound, the suggestion's stricter limits).

    .venv/bin/python benchmarks/gait_speeds.py [--cases dog:walk:0.1,0.25,0.45;...] [-o docs/gait_speeds.md]
"""
from __future__ import annotations

import argparse
import math
import os
import platform
import time
import warnings

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.modal import compute_modes  # noqa: E402
from gaitforge.motion.grounding import STANCE_FORCE  # noqa: E402
from gaitforge.motion.mode_selection import pool_size  # noqa: E402
from gaitforge.motion import speed  # noqa: E402
from gaitforge.motion.naturalness import naturalness  # noqa: E402

CASES = ("dog:walk:0.1,0.25,0.45;dog:trot:0.5,1,2;dog:pace:0.5,1,2;dog:bound:1,2,3;dog:gallop:2,3,4,5;"
         "human:walk:0.1,0.25,0.45;human:run:0.5,1,1.75")


def trunk_sway(character, clip) -> np.ndarray:
    """Peak-to-peak roll, pitch and yaw [°] (3,) of the root body over ``clip``
    (x forward, z up: roll about x, pitch about y, yaw about z, from its
    world rotation matrices)."""
    _, R = character.body_frames(clip.qpos, character.body_id(character.bodies[0]) + 1)
    R = R[:, -1]
    roll = np.arctan2(R[:, 2, 1], R[:, 2, 2])
    pitch = -np.arcsin(np.clip(R[:, 2, 0], -1.0, 1.0))
    yaw = np.unwrap(np.arctan2(R[:, 1, 0], R[:, 0, 0]))
    return np.degrees([np.ptp(np.unwrap(roll)), np.ptp(pitch), np.ptp(yaw)])


def _deg(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{x:.0f}"


def rows(cases: str, times: bool = True):
    """One table row (list of cells) per case, printed as it is measured;
    ``times=False`` leaves out the suggestion's wall time (the column the
    docs' table drops, so that its figures are the same on any machine)."""
    chars: dict = {}
    for case in cases.split(";"):
        name, gait, froudes = case.split(":")
        if name not in chars:
            ch = Character.from_spec(registry.build(name))
            chars[name] = (ch, compute_modes(ch, count=pool_size(ch)))
        ch, basis = chars[name]
        for fr in (float(x) for x in froudes.split(",")):
            t0 = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                recipe, plan, c = speed.suggest_at_speed(ch, gait, basis, froude=fr)
            wall = time.perf_counter() - t0
            duty = list(c.duty.values())
            want = speed.STRIDE_A * plan.froude ** speed.STRIDE_B
            miss = speed.misses(plan, c, gait)
            margin = ", ".join(name for name, over in (
                ("phase margins", c.footfall > 0), ("skate margin", c.skate > 0.75 * speed.MAX_SKATE),
                ("speed margin", abs(c.speed / plan.speed - 1) > 0.8 * speed.SPEED_TOL),
                ("λ/h margin", abs(c.relative_stride_length / want - 1) > 0.8 * speed.STRIDE_TOL),
                ("force margin", c.force_counts and c.force > 0.9 * STANCE_FORCE)) if over)
            ok = "no: " + "; ".join(miss) if miss else ("yes" if c.error == 0.0 else f"yes ({margin})")
            miss = 100 * (c.speed / plan.speed - 1)
            row = [name, gait, f"{fr:g}", f"{plan.speed:.2f}", f"{c.speed:.2f} ({miss:+.0f} %)",
                   f"{c.froude:.2f}", f"{c.relative_stride_length:.2f} / {want:.2f}",
                   f"{min(duty):.2f}–{max(duty):.2f} ({plan.duty:.2f})", c.gait_class, f"{c.skate:.3f}",
                   f"{c.force:.1f}", f"{math.degrees(c.limit_excess):.1f}", f"{math.degrees(c.rotation):.0f}",
                   f"{wall:.1f}", ok]
            del caught
            clip = speed.synthesize_at_speed(ch, basis, recipe, 4 / plan.frequency, 60.0)
            row.insert(-2, "/".join(f"{x:.0f}" for x in trunk_sway(ch, clip)))
            n = naturalness(ch, clip.qpos)
            row[-2:-2] = [_deg(n.head_pitch) + "/" + _deg(n.head_yaw), _deg(n.head_sway), _deg(n.trunk_heading),
                          _deg(n.trunk_sway), _deg(n.pelvis_rotation)]
            if not times:
                del row[-2]
            print("| " + " | ".join(row) + " |", flush=True)
            yield row


HEAD = ("creature", "gait", "Fr asked", "V asked [m/s]", "V achieved [m/s]", "Fr achieved", "λ/h (2.3·Fr^0.3)",
        "duty factors (target)", "class", "skate", "stance force [g]", "past limit [°]", "peak rotation [°]",
        "trunk roll/pitch/yaw [°]", "head pitch/yaw [°]", "head sway [°]", "trunk heading [°]",
        "trunk sway [°]", "pelvis rotation [°]", "suggest [s]", "meets all")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=CASES)
    ap.add_argument("-o", "--out", help="also write the table as markdown here")
    ap.add_argument("--no-wall", action="store_true",
                    help="the table alone: no machine line, no suggestion wall time (docs/gait_speeds.md)")
    args = ap.parse_args()
    head = [h for h in HEAD if not (args.no_wall and h == "suggest [s]")]
    if not args.no_wall:
        print(f"# {platform.node()} {platform.processor() or platform.machine()}, python {platform.python_version()}")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    print(lines[0])
    print(lines[1])
    lines += ["| " + " | ".join(r) + " |" for r in rows(args.cases, times=not args.no_wall)]
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

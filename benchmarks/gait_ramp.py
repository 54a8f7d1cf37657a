"""Speed ramps with gait transitions (issue 9 item 3): the ramp tables in docs/gait_speeds.md.

For each case the ramp of ``gaitforge animate NAME --speed FROM:TO --seconds S``
is made (``gaitforge.motion.ramp.ramp``), its gait switches printed, and
overlapping two-second windows of the clip measured by footfall analysis:
asked and achieved speed, class, duty factors and foot skate; then per
gait, for the root and the centre of mass, the largest frame-to-frame
velocity change |Δv| [m/s] (and of the forward velocity alone), the
largest |a + g ẑ| / g with a = Δv/dt (the ground reaction per body weight
the motion implies; in flight it is 0) and the centre of mass's vertical
acceleration in flight as a multiple of g (−1: a ballistic arc).
``--diagram DIR`` also writes each ramp's footfall diagram.

    .venv/bin/python benchmarks/gait_ramp.py [--cases dog:0.5:4.0:12;human:0.8:3.0:8] [--diagram DIR]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

os.environ.setdefault("MUJOCO_GL", "egl")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from gaitforge.creatures import registry  # noqa: E402
from gaitforge.creatures.character import Character  # noqa: E402
from gaitforge.errors import GaitforgeError  # noqa: E402
from gaitforge.modal import compute_modes  # noqa: E402
from gaitforge.motion.mode_selection import pool_size  # noqa: E402
from gaitforge.motion.clip import MotionClip  # noqa: E402
from gaitforge.motion.footfall import detect_footfalls  # noqa: E402
from gaitforge.motion.grounding import centres_of_mass, lowest_heights  # noqa: E402
from gaitforge.motion.metrics import classify_gait, gait_metrics  # noqa: E402
from gaitforge.motion.ramp import ramp  # noqa: E402


def run(name: str, v0: float, v1: float, seconds: float, diagram: str | None) -> None:
    ch = Character.from_spec(registry.build(name))
    basis = compute_modes(ch, count=pool_size(ch))
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = ramp(ch, (v0, v1), seconds, 60.0, basis)
    # the wall time on stderr: stdout is the same on any machine (docs/gait_speeds.md checks it)
    print(f"{name}: {time.perf_counter() - t0:.0f} s to make", file=sys.stderr)
    print(f"\n{name} {v0:g} → {v1:g} m/s over {seconds:g} s")
    for t, a, b in r.switches:
        i = int(round(t * 60))
        print(f"  switch {a} → {b} at {t:.2f} s, {r.speed[i]:.2f} m/s, Froude {r.froude[i]:.2f}")
    fps, q = 60.0, r.clip.qpos
    if diagram:
        from gaitforge.io.gait_plots import save_gait_diagram
        path = os.path.join(diagram, f"{name}-ramp.png")
        save_gait_diagram(detect_footfalls(ch, r.clip), path, f"{name} {v0:g} → {v1:g} m/s",
                          marks=[(t, f"{a} → {b}") for t, a, b in r.switches])
        print(f"  wrote {path}")
    print("| window [s] | asked V [m/s] | achieved | class | duty factors | skate |")
    print("|---|---|---|---|---|---|")
    for a in np.arange(0.0, seconds - 1.5, 1.0):
        i, j = int(a * fps), min(int((a + 2) * fps), len(q))
        sub = MotionClip(fps, q[i:j], ch.name)
        try:
            m = gait_metrics(ch, sub, detect_footfalls(ch, sub))
        except GaitforgeError as exc:
            print(f"| {a:g}–{a + 2:g} | {r.speed[i:j].mean():.2f} | – | {exc} | | |")
            continue
        gaits = " → ".join(dict.fromkeys(r.gait[i:j]))
        duty = ", ".join(f"{d:.2f}" for d in m.duty_factor.values())
        print(f"| {a:g}–{a + 2:g} ({gaits}) | {r.speed[i:j].mean():.2f} | {m.speed:.2f} | {classify_gait(m)} | "
              f"{duty} | {m.foot_skate:.3f} |")
    # each gait's stretch between switches, 0.4 s clear of each switch (the cross-fade is one stride)
    edges = [0.0] + [t for t, _, _ in r.switches] + [len(q) / fps]
    for k in range(len(edges) - 1):
        a = edges[k] + (0.4 if k > 0 else 0.0)
        b = edges[k + 1] - (0.4 if k + 1 < len(edges) - 1 else 0.0)
        i, j = int(a * fps), int(b * fps)
        try:
            part = MotionClip(fps, q[i:j], ch.name)
            m = gait_metrics(ch, part, detect_footfalls(ch, part))
            got = f"classified {classify_gait(m)}, {m.speed:.2f} m/s, skate {m.foot_skate:.3f}"
        except GaitforgeError as exc:
            got = str(exc)
        print(f"  {a:.1f}–{b:.1f} s ({r.gait[min(i, len(q) - 1)]}): {got}")
    g = np.array(r.gait[1:-1])
    air = lowest_heights(ch, q) > 1e-9
    fly = air[:-2] & air[1:-1] & air[2:]                     # accelerations taken wholly in flight
    for point, p in (("root", q[:, :3]), ("com", centres_of_mass(ch, q))):
        dv = np.diff(p, 2, axis=0) * fps                     # (T−2, 3) velocity change at frames 1 … T−2
        force = np.linalg.norm(dv * fps + [0.0, 0.0, 9.81], axis=1) / 9.81
        for gait in dict.fromkeys(r.gait):
            s = g == gait
            arc = (f", flight a_z/g [{dv[s & fly, 2].min() * fps / 9.81:.2f}, {dv[s & fly, 2].max() * fps / 9.81:.2f}]"
                   if (s & fly).any() else "")
            print(f"  {gait} {point}: max |Δv| {np.linalg.norm(dv[s], axis=1).max():.2f} m/s (forward "
                  f"{np.abs(dv[s, 0]).max():.2f}), max |a+g|/g {force[s & ~fly].max():.1f} "
                  f"(99th percentile {np.percentile(force[s & ~fly], 99):.1f}){arc}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="dog:0.5:4.0:12;human:0.8:3.0:8")
    ap.add_argument("--diagram", metavar="DIR")
    args = ap.parse_args()
    for case in args.cases.split(";"):
        name, v0, v1, seconds = case.split(":")
        run(name, float(v0), float(v1), float(seconds), args.diagram)


if __name__ == "__main__":
    main()

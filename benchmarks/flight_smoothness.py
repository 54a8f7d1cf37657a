"""How smooth flying gaits are: frame-to-frame changes of the centre of
mass's and the root's velocity in clips made as ``gaitforge animate`` makes
them (suggested recipe, grounded, stance feet pinned; 3 s at 60 frames/s).

For each gait it prints the largest velocity change between frames [m/s]
(its vertical part and its size), the largest |a + g ẑ| / g in stance (the
ground reaction per body weight the motion implies, a = Δv / dt), and the
centre of mass's vertical acceleration in flight as a multiple of g
(−1 on a ballistic arc). The centre of mass is computed here (mass-weighted
body positions), so the script runs on older checkouts too:

    PYTHONPATH=. MUJOCO_GL=egl .venv/bin/python benchmarks/flight_smoothness.py
"""
from __future__ import annotations

import os
import warnings

os.environ.setdefault("MUJOCO_GL", "egl")

import numpy as np  # noqa: E402

from gaitforge.api import animate, creature  # noqa: E402
from gaitforge.motion.grounding import centres_of_mass, lowest_heights  # noqa: E402

G = 9.81
GAITS = [("dog", "trot"), ("dog", "pace"), ("dog", "bound"), ("dog", "gallop"), ("human", "run")]


def main() -> None:
    print(f"{'gait':12s} {'point':5s} {'max |Δv_z|':>10s} {'max |Δv|':>9s} {'stance |a+g|/g':>15s} "
          f"{'flight a_z/g':>18s} {'flight |a_xy|/g':>16s}")
    for name, gait in GAITS:
        ch = creature(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clip = animate(ch, gait, seconds=3.0, fps=60.0)
        q, dt = clip.qpos, clip.dt
        air = lowest_heights(ch, q) > 1e-9
        fly = air[1:-1] & air[:-2] & air[2:]                 # frames whose acceleration is all flight
        for point, p in (("root", q[:, :3]), ("com", centres_of_mass(ch, q))):
            dv = np.diff(p, 2, axis=0) / dt                  # (T−2, 3) velocity change at frames 1 … T−2
            a = dv / dt
            force = np.linalg.norm(a[~fly] + [0.0, 0.0, G], axis=1).max() / G
            az, axy = a[fly, 2] / G, np.linalg.norm(a[fly, :2], axis=1) / G
            arc = f"[{az.min():.3f}, {az.max():.3f}]" if fly.any() else "(no 3-frame flight)"
            print(f"{name + ' ' + gait:12s} {point:5s} {np.abs(dv[:, 2]).max():10.3f} "
                  f"{np.linalg.norm(dv, axis=1).max():9.3f} {force:15.2f} {arc:>18s} "
                  f"{axy.max(initial=0.0):16.3f}")


if __name__ == "__main__":
    main()

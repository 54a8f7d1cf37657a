"""The gorilla's push table beside Wang 2011 Table 3.1: the DS walk and the
trot at 0.1 … 0.5 m/s, with our gains and with the thesis' (``--gains
thesis``: servos at kp_scale 1), each at our own step (1 ms implicitfast) and at
the former 10 ms discrete one (``ours-10ms``, ``thesis-10ms``), each cell what
``gaitforge push gorilla --gait G --gains S --workers 1`` prints (``sim.push.largest_push``: the largest force
such that every force on a grid of 2 % of body weight up to it survives at
all four phases), with the first failing force and its failing phases.
Prints a line per cell as it goes, then the markdown table of README.md.

    .venv/bin/python benchmarks/push_table.py [--gaits ds_walk,trot] [--speeds 0.1,0.2,0.3,0.4,0.5]
                                              [--gains ours,thesis,ours-10ms,thesis-10ms] [--workers 1]

``--jitter GAIT SPEED`` instead scans one cell (our gains) with every grid
force moved by 0, 0.01, 0.02, 0.03, 0.05 and 0.07 N: a pushed run is chaotic,
so the limit moves with the last bits of the force.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from gaitforge.control import registry
from gaitforge.sim.push import (THESIS_TABLE_3_1, PushCase, PushTrial, grid, largest_push, scan, unpushed)

GAIT_NAMES = {"ds_walk": "DS walk", "trot": "trotting walk"}


def _settings(gains: str) -> str:
    """A gain set's servo scale and physics step, as the table names them."""
    from gaitforge.control.skills import catalog

    p = catalog.params("gorilla", gains)
    return f"kp_scale {p.kp_scale:g}, {1000 * p.timestep:g} ms {p.integrator}"


GAINS_NAMES = {"ours": f"ours ({_settings('ours')})", "ours-10ms": "ours at 10 ms discrete",
               "thesis": f"thesis gains ({_settings('thesis')})", "thesis-10ms": "thesis gains at 10 ms discrete"}


def cell(res) -> str:
    if res.failed == 0.0:
        return f"0 (unpushed: {res.verdicts[0].why(res.reference, res.criteria)})"
    failing = "phase " + ", ".join(str(res.starts.index(s) + 1) for s in res.failing_starts)
    fails = "none to 1 × weight" if math.isinf(res.failed) else f"{res.failed:.1f} ({failing})"
    return f"{res.largest:.1f} / {fails}"


def table(gaits: list[str], speeds: list[float], gains: list[str], workers: int) -> None:
    results = {}
    for gait in gaits:
        for g in gains:
            for v in speeds:
                t = time.perf_counter()
                res = largest_push(PushCase(registry.entry("gorilla", gait), v, gains=g), workers=workers)
                wall = time.perf_counter() - t
                results[gait, g, v] = res
                why = "; ".join(f"phase {k + 1}: {x.why(res.reference, res.criteria)}"
                                for k, x in enumerate(res.verdicts) if not x.survived)
                print(f"gorilla {gait} {g} {v:g} m/s: {cell(res)} N, {res.trials} trials, {wall:.0f} s wall "
                      f"({wall / res.trials:.2f} s per trial)" + (f" — {why}" if res.failed > 0.0 else ""),
                      flush=True)
    print()
    print("| gorilla: largest push survived / first failing force (its failing phases) [N] | "
          + " | ".join(f"{v:g} m/s" for v in speeds) + " |")
    print("|---|" + "---|" * len(speeds))
    for gait in gaits:
        for g in gains:
            print(f"| {GAIT_NAMES.get(gait, gait)}, {GAINS_NAMES.get(g, g)} | "
                  + " | ".join(cell(results[gait, g, v]) for v in speeds) + " |")
        thesis = THESIS_TABLE_3_1.get(gait, {})
        print(f"| {GAIT_NAMES.get(gait, gait)}, Wang 2011 Table 3.1 | "
              + " | ".join(f"{thesis[v]:.0f}" if v in thesis else "—" for v in speeds) + " |")


def jitter(gait: str, speed: float) -> None:
    case = PushCase(registry.entry("gorilla", gait), speed)
    base = unpushed(case)
    trial = PushTrial(case, base.body, base.reference)
    for offset in (0.0, 0.01, 0.02, 0.03, 0.05, 0.07):
        forces = [f + offset for f in grid(base.weight)]
        out = scan(lambda pairs: [trial(np.array(p), 0) for p in pairs], forces, base.starts)
        why = [f"phase {k + 1}: tilt {v.peak_tilt:.1f}°" + (f", {v.foreign} on the ground" if v.foreign else "")
               + (", fell" if v.fall else "") for k, v in enumerate(out.verdicts) if not v.survived]
        print(f"gorilla {gait} {speed:g} m/s, grid + {offset:g} N: largest {out.largest:.2f} N, first failing "
              f"{out.failed:.2f} N ({'; '.join(why)})", flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gaits", default="ds_walk,trot")
    p.add_argument("--speeds", default="0.1,0.2,0.3,0.4,0.5")
    p.add_argument("--gains", default="ours,thesis,ours-10ms,thesis-10ms")
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--jitter", nargs=2, metavar=("GAIT", "SPEED"))
    a = p.parse_args()
    if a.jitter:
        jitter(a.jitter[0], float(a.jitter[1]))
        return
    table(a.gaits.split(","), [float(v) for v in a.speeds.split(",")], a.gains.split(","), a.workers)


if __name__ == "__main__":
    main()

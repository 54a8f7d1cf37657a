"""``balance``: standing balance with modal displacements (Kry 2012 §4.6):
the largest lateral and forward pushes a creature survives standing, with
the feedback and without, and standing on slowly tilting ground, through
``gf.balance``."""
from __future__ import annotations

import argparse
import json
import math

from rich.console import Console
from rich.table import Table

from gaitforge import api
from gaitforge.cli.args import number

console = Console(highlight=False)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("balance", help="largest pushes survived standing, with and without modal balance "
                                       "feedback (Kry 2012 §4.6)")
    p.add_argument("creature", metavar="NAME", help="a built-in creature with feet (human, dog, gorilla)")
    p.add_argument("--seconds", type=number(0, 600, above=True), default=5.0, metavar="S",
                   help="seconds judged after each push (default 5, the push protocol's)")
    p.add_argument("--quick", action="store_true",
                   help="a force grid of 10 %% of body weight instead of 2 %% (coarser, fewer runs)")
    p.add_argument("--timestep", type=number(1e-5, 0.05), metavar="DT",
                   help="physics step [s] instead of the creature's modal physics' own")
    p.add_argument("--workers", type=number(1, 1024, integer=True), default=1,
                   help="worker processes for the push trials (default 1)")
    p.add_argument("--json", metavar="FILE", help="write the forces [N] and tilt verdicts as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_balance)


def cmd_balance(args) -> int:
    from gaitforge.cli.progress import progress_bar

    api.creature_name(args.creature)  # a name error before the output checks and any work
    if args.json:
        from gaitforge.io.atomic import check_output
        check_output(args.json, (".json",), "balance table")
    with progress_bar(f"balance {args.creature}", api.balance_scans(), quiet=args.quiet, unit="scans") as bar:
        done = [0]

        def advance(what: str) -> None:
            done[0] += 1
            if bar is not None:
                bar(done[0], info=what)

        report = api.balance(args.creature, seconds=args.seconds, quick=args.quick, timestep=args.timestep,
                         workers=args.workers, progress=advance)
    _print(report, api.balance_goal())
    if args.json:
        from gaitforge.io.atomic import write_text
        write_text(args.json, json.dumps(report.as_dict(), indent=2) + "\n")
        console.print(f"wrote {args.json}")
    return 0


def _print(report, goal: float) -> None:
    s = report.settings
    t = Table(title=f"{report.creature} standing: largest push survived (0.5 s at the pelvis, every force on a "
                    f"{100 * s.step:g} % body-weight grid up to it)")
    for col in ("push", "without feedback (N)", "with feedback (N)", "ratio", f"goal ≥ {goal:g}",
                "first failing without / with (N)"):
        t.add_column(col, justify="right")
    for d in ("lateral", "forward"):
        f0, f1 = report.pushes[(d, "none")], report.pushes[(d, "feedback")]
        r = report.ratio(d)
        ok = math.isfinite(r) and r >= goal or (math.isinf(r) and r > 0)
        t.add_row(d, f"{f0.largest:.1f}", f"{f1.largest:.1f}", "—" if math.isnan(r) else f"{r:.2f}",
                  "met" if ok else "[red]not met[/red]", f"{_n(f0.failed)} / {_n(f1.failed)}")
    console.print(t)
    t = Table(title=f"{report.creature} on ground tilting ±{s.tilt_amplitude:g}° (period {s.tilt_period:g} s)")
    for col in ("tilt", "without feedback", "with feedback"):
        t.add_column(col, justify="right")
    for axis in ("roll", "pitch"):
        t.add_row(axis, *(_tilt(report.tilts[(axis, g)]) for g in ("none", "feedback")))
    console.print(t)
    modes = ", ".join(f"{i} ({f:.2f} Hz)" for i, f in report.modes)
    console.print(f"balance modes (feet pinned, chosen by their effect on the centre of mass): {modes}")
    console.print(f"survived: for {s.after:g} s after the push, root tilt < 30°, root height > 0.7 × the unpushed "
                  "run's lowest, only feet touch the ground, no divergence")
    for (d, g), p in report.pushes.items():
        if p.why:
            console.print(f"{d}, {'with' if g == 'feedback' else 'without'} feedback, at {_n(p.failed)} N: {p.why}")


def _n(force: float) -> str:
    return "—" if math.isinf(force) else f"{force:.1f}"


def _tilt(r) -> str:
    return f"stood (peak tilt {r.peak_tilt:.1f}°)" if r.survived else f"[red]fell[/red]: {r.why}"

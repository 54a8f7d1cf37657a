"""``push``: the largest sideways push a runner survives, per speed (Wang
2011 Table 3.1), for any runner of the controller registry that stands,
through ``gf.api.push_results``."""
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
    p = sub.add_parser("push", help="largest sideways push survived, per gait and speed (Wang 2011 Table 3.1)")
    p.add_argument("creature", metavar="RUNNER",
                   help=f"a runner that stands: {', '.join(api.runner_names(stands=True))}")
    p.add_argument("--gait", required=True, help="the gait to push (e.g. ds_walk, trot)")
    p.add_argument("--speeds", type=_speeds, default=None, metavar="V,V,...",
                   help="commanded speeds [m/s] (default: Wang 2011's 0.1,0.2,0.3,0.4,0.5 where the gait "
                        "holds them all, else five spread over its speed range)")
    p.add_argument("--phases", type=number(1, 16, integer=True), default=4,
                   help="push start points per stride (default 4)")
    p.add_argument("--force", type=_force, default=None, metavar="N",
                   help="test this one force [N] at every phase and report each phase's verdict and "
                        "measures (default: scan a grid of 2 %% of body weight upward for the largest "
                        "force survived)")
    p.add_argument("--timestep", type=number(1e-5, 0.05), metavar="DT",
                   help="physics step [s] instead of the runner's own (must divide its control interval)")
    p.add_argument("--gains", default="ours", metavar="SET",
                   help="named gain set: ours (default); for the gorilla also thesis (servos at kp_scale 1, "
                        "ours 3), and ours-10ms, thesis-10ms (the same at the former 10 ms discrete step; "
                        "ours: 1 ms implicitfast); for the dog contacts-4ms (ground contacts at a 4 ms "
                        "time constant)")
    p.add_argument("--workers", type=number(1, 1024, integer=True), default=None, help="worker processes "
                                                                                       "(default: every core)")
    p.add_argument("--ray", metavar="ADDRESS", help="run the trials on a Ray cluster (auto or host:port)")
    p.add_argument("--json", metavar="FILE", help="write gait → speed → largest force [N] as JSON (with "
                                                  "--force: gait → speed → force, survived, phases)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_push)


def _speeds(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected speeds like 0.1,0.2,0.3, got {text!r}") from None
    if not values or not all(math.isfinite(v) and 0 <= v <= 20 for v in values):
        raise argparse.ArgumentTypeError(f"speeds must be numbers from 0 to 20 m/s, got {text!r}")
    return values


def _force(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number ≥ 0 [N], got {text[:80]!r}")
    return value


def cmd_push(args) -> int:
    from gaitforge.cli.progress import progress_bar

    e = api.runner(args.creature, args.gait, pushed=True)  # name errors first, then the checks below, before any work
    e.check_gains(args.gains)
    if args.json:
        from gaitforge.io.atomic import check_output
        check_output(args.json, (".json",), "push table")
    label = f"push {e.label}" + (f" ({args.gains} gains)" if args.gains != "ours" else "")
    count = len(args.speeds) if args.speeds else len(api.push_speeds(e.key, e.gait))
    with progress_bar(label, count, quiet=args.quiet, unit="speeds") as bar:
        def advance(done: int, speed: float, force: float | None, trials: int | None) -> None:
            if bar is not None:
                bar(done, info="" if force is None else f"{speed:g} m/s: {force:.1f} N, {trials} trials")

        results = api.push_results(args.creature, e.gait, speeds=args.speeds or None, phases=args.phases,
                               workers=args.workers, ray=args.ray, force=args.force, gains=args.gains,
                               timestep=args.timestep, progress=advance)
    if args.force is not None:
        _print_force(args, e, results)
        table: dict = {e.gait: {f"{res.case.speed:g}": res.as_dict() for res in results}}
    else:
        _print_limits(args, e, results)
        table = {e.gait: {f"{res.case.speed:g}": round(res.largest, 1) for res in results}}
    if args.json:
        from gaitforge.io.atomic import write_text
        write_text(args.json, json.dumps(table, indent=2) + "\n")
        console.print(f"wrote {args.json}")
    return 0


def _criteria_line(res) -> str:
    criteria = res.criteria
    return (f"survived: for {res.case.after:g} s after the push, root tilt < {criteria.max_tilt:g}°, root height > "
            f"{criteria.min_height:g} × the unpushed run's lowest, "
            + ("only feet touch the ground, " if criteria.feet_only else "") + "no fall")


def _print_limits(args, e, results) -> None:
    thesis = api.published_pushes(e.key, e.gait)
    gains = f", {args.gains} gains" if args.gains != "ours" else ""
    t = Table(title=f"{e.label}{gains}: largest lateral push survived (0.5 s at the pelvis; "
                    f"every force on a 2 % body-weight grid up to it, at every phase)")
    columns = ["speed (m/s)", "force (N)", "× body weight", "first failing (N)", "failing phases", "stride (s)",
               "trials"]
    for col in columns + (["Wang 2011 (N)"] if thesis else []):
        t.add_column(col, justify="right")
    for res in results:
        failing = "unpushed" if res.failed == 0.0 else \
            ", ".join(str(res.starts.index(s) + 1) for s in res.failing_starts) or "—"
        row = [f"{res.case.speed:g}", f"{res.largest:.1f}", f"{res.relative:.3f}",
               "—" if math.isinf(res.failed) else f"{res.failed:.1f}", failing, f"{res.stride:.2f}",
               str(res.trials)]
        if thesis:
            ref = thesis.get(round(res.case.speed, 3))
            row.append("—" if ref is None else f"{ref:.0f}")
        t.add_row(*row)
    console.print(t)
    if results:
        console.print(_criteria_line(results[0]) + f" (phases 1–{len(results[0].starts)}: push starts "
                      "spread over one stride)")
    for res in results:
        for k, v in enumerate(res.verdicts):
            if not v.survived:
                what = "the unpushed run" if res.failed == 0.0 else f"{res.failed:.1f} N, phase {k + 1}"
                console.print(f"{res.case.speed:g} m/s, {what}: {v.why(res.reference, res.criteria)}")


def _print_force(args, e, tried) -> None:
    gains = f", {args.gains} gains" if args.gains != "ours" else ""
    t = Table(title=f"{e.label}{gains}: {args.force:g} N lateral push (0.5 s at the pelvis)")
    for col in ["speed (m/s)", "phase", "start (s)", "survived", "peak tilt (°)", "min height (m)",
                "height limit (m)", "other contact", "fall"]:
        t.add_column(col, justify="right")
    for res in tried:
        for k, v in enumerate(res.verdicts):
            t.add_row(f"{res.case.speed:g}", str(k + 1), f"{v.start:.3f}", "yes" if v.survived else "[red]no[/red]",
                      f"{v.peak_tilt:.1f}", f"{v.min_height:.3f}",
                      f"{res.criteria.min_height * res.reference:.3f}", v.foreign or "—", v.fall or "—")
    console.print(t)
    if tried:
        console.print(_criteria_line(tried[0]))
    for res in tried:
        console.print(f"{res.case.speed:g} m/s: {'survived' if res.survived else 'did not survive'} "
                      f"{res.force:g} N ({res.force / res.weight:.3f} × body weight)")

"""Commands for the quadruped skills controllers (dog, gorilla): ``run``
(shared with the RH91 runners, see ``raibert_cmd``) and ``push``, the push
recovery table of any simulated runner."""
from __future__ import annotations

import argparse
import json
import math

from rich.console import Console
from rich.table import Table

from gaitforge.cli.args import number
from gaitforge import inputs
from gaitforge.errors import GaitforgeError

console = Console(highlight=False)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("push", help="largest sideways push survived, per gait and speed (Wang 2011 Table 3.1)")
    p.add_argument("creature", metavar="CREATURE", help="gorilla, dog, or a Raibert runner (raibert_biped, "
                                                         "raibert_quadruped, kangaroo)")
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
                        "ours: 2 ms implicitfast)")
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
    from gaitforge.sim.push import PushCase, check_gains, family_of, largest_push, push_at, runner_of

    family = family_of(args.creature)
    r = runner_of(args.creature)
    r.check_gait(args.gait)
    check_gains(args.creature, args.gains)
    speeds = inputs.push_speeds(r, args.creature, args.gait, args.speeds or None)
    if args.json:
        from gaitforge.io.atomic import check_output
        check_output(args.json, (".json",), "push table")
    cases = [PushCase(family, r.key, args.gait, v, gains=args.gains, timestep=args.timestep) for v in speeds]
    label = f"push {args.creature} {args.gait}" + (f" ({args.gains} gains)" if args.gains != "ours" else "")
    with progress_bar(label, len(speeds), quiet=args.quiet, unit="speeds") as bar:
        if args.force is not None:
            tried = []
            for k, case in enumerate(cases):
                tried.append(push_at(case, args.force, phases=args.phases, workers=args.workers, ray=args.ray))
                if bar:
                    bar(k + 1)
        else:
            results = []
            for k, case in enumerate(cases):
                def advance(force: float, trials: int, k: int = k, v: float = case.speed) -> None:
                    if bar:
                        bar(k, info=f"{v:g} m/s: {force:.1f} N, {trials} trials")
                results.append(largest_push(case, phases=args.phases, workers=args.workers, ray=args.ray,
                                            progress=advance))
                if bar:
                    bar(k + 1)
    if args.force is not None:
        _print_force(args, tried)
        table: dict = {args.gait: {f"{res.case.speed:g}": res.as_dict() for res in tried}}
    else:
        _print_limits(args, results)
        table = {args.gait: {f"{res.case.speed:g}": round(res.largest, 1) for res in results}}
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


def _print_limits(args, results) -> None:
    from gaitforge.sim.push import THESIS_TABLE_3_1

    thesis = THESIS_TABLE_3_1.get(args.gait, {}) if args.creature == "gorilla" else {}
    gains = f", {args.gains} gains" if args.gains != "ours" else ""
    t = Table(title=f"{args.creature} {args.gait}{gains}: largest lateral push survived (0.5 s at the pelvis; "
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


def _print_force(args, tried) -> None:
    gains = f", {args.gains} gains" if args.gains != "ours" else ""
    t = Table(title=f"{args.creature} {args.gait}{gains}: {args.force:g} N lateral push (0.5 s at the pelvis)")
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


def run_skills(args) -> int:
    """``gaitforge run dog|gorilla``: simulate, report speed and gait, export."""
    from gaitforge.cli.progress import MIN_SECONDS, progress_bar
    from gaitforge.control.skills import catalog as skills
    from gaitforge.control.skills.gaitcheck import check
    from gaitforge.naming import match

    r = skills.runner(args.creature)
    gait = (match(args.gait, r.speed_ranges) or args.gait) if args.gait else r.default_gait
    r.check_gait(gait)
    if args.scale != 1.0:
        raise GaitforgeError(f"{args.creature} cannot be scaled (scaling works for the Raibert runners)")
    if args.output:
        from gaitforge.io.atomic import check_output
        from gaitforge.io.clipfiles import EXPORT_EXTENSIONS
        check_output(args.output, EXPORT_EXTENSIONS, "motion")
    if args.plots:
        from gaitforge.io.atomic import check_output_dir
        check_output_dir(args.plots)
    path = None
    if args.path:
        from gaitforge.io.paths import load_path
        path = load_path(args.path)
    from gaitforge.inputs import run_speed
    speed = run_speed(r, gait, args.speed, path)
    with progress_bar(f"{args.creature} {gait}", args.seconds, quiet=args.quiet,
                      worth_it=args.seconds >= MIN_SECONDS, unit="s") as advance:
        character, rollout = skills.simulate(args.creature, gait, speed, args.seconds, turn_rate=args.turn,
                                             path=path, progress=advance, timestep=args.timestep)
    sim = rollout.clip.duration
    console.print(f"{character.name} {gait} at {speed:g} m/s: {sim:.1f} s simulated in {rollout.wall_time:.2f} s "
                  f"({sim / max(rollout.wall_time, 1e-9):.0f}x real time)")
    console.print(str(rollout.physics), soft_wrap=True)
    status = 0
    if rollout.fall is not None:
        console.print(f"[red]{rollout.fall}[/red]")
        status = 1
    elif sim >= 4.0 and gait != "stand":
        c = check(character, rollout, settle=min(10.0, sim / 3))
        t = Table(title=f"{character.name} {gait}")
        t.add_column("quantity")
        t.add_column("value", justify="right")
        t.add_row("speed (m/s)", f"{c.speed:.3f}")
        t.add_row("footfalls classified", c.gait + (f" ({c.sequence} sequence)" if c.sequence else ""))
        t.add_row("stride (s)", f"{c.metrics.stride_duration:.3f}")
        for foot, duty in c.metrics.duty_factor.items():
            t.add_row(f"duty {foot}", f"{duty:.2f}")
        console.print(t)
    if args.output:
        from gaitforge.cli.outputs import save_clip, video_options
        save_clip(character, rollout.clip, args.output, **video_options(args))
        console.print(f"wrote {args.output}")
    if args.plots:
        _plots(character, rollout, r, gait, speed, args.plots)
    return status


def _plots(character, rollout, runner, gait: str, speed: float, folder: str) -> None:
    from pathlib import Path

    from gaitforge.control.skills.catalog import PARAMS
    from gaitforge.control.skills.gaitgraph import LIMBS
    from gaitforge.io.gait_plots import save_gait_diagram
    from gaitforge.io.skills_plots import footholds, save_footprints, save_gait_graph
    from gaitforge.motion.footfall import detect_footfalls

    out = Path(folder)  # (made by the first plot written; all are written with the command's other outputs)
    ff = detect_footfalls(character, rollout.clip, ground=0.0, height_tol=0.01)
    title = f"{character.name} {gait} at {speed:g} m/s"
    save_footprints(footholds(character, ff, rollout.clip.qpos), out / "footprints.png", f"Footprints: {title}")
    save_gait_graph(PARAMS[runner.key].gaits[gait].graph(speed), LIMBS, out / "gait_graph.png",
                    f"Gait graph: {title}")
    save_gait_diagram(ff, out / "gait_diagram.png", f"Footfalls: {title}")
    console.print(f"wrote footprints.png, gait_graph.png, gait_diagram.png in {out}")

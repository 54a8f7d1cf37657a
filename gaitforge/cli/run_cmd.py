"""``run`` (simulate any runner of the controller registry through
``gf.run``; plots through ``gaitforge.api.run_plots``) and ``runners``
(list the registry's entries)."""
from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from gaitforge import api, inputs
from gaitforge.cli.args import number, video_args

console = Console(highlight=False)


def register(sub: argparse._SubParsersAction) -> None:
    names = ", ".join(api.runner_names())
    p = sub.add_parser("run", help=f"simulate a controlled runner of any family ({names}; "
                                   "'gaitforge runners' lists their gaits)")
    p.add_argument("creature", metavar="RUNNER",
                   help=f"{names} ({', '.join(api.runner_names(aliases=True))} also accepted)")
    p.add_argument("--gait", help="one of the runner's gaits ('gaitforge runners' lists them). "
                                  "Default: the runner's default gait")
    p.add_argument("--turn", type=number(inputs.TURN_RATE), default=0.0, metavar="RATE",
                   help=f"yaw rate [rad/s] to turn at ({', '.join(api.runner_names(takes='turn_rate'))})")
    p.add_argument("--plots", metavar="DIR", help="write footprints.png, gait_graph.png and gait_diagram.png "
                                                  f"into DIR ({', '.join(api.runner_names(takes='plots'))})")
    p.add_argument("--speed", type=number(inputs.RUN_SPEED),
                   help="desired forward speed [m/s], within the gait's range (default: the gait's default; "
                        "a modal gait takes none)")
    p.add_argument("--path", metavar="FILE",
                   help=f"YAML file of waypoints to follow ({', '.join(api.runner_names(takes='path'))})")
    p.add_argument("--seconds", type=number(inputs.RUN_SECONDS), default=10.0, help="simulated time [s] (default 10)")
    p.add_argument("--scale", type=number(inputs.SCALE), default=1.0, metavar="L",
                   help=f"dynamic scaling factor (RH91 Table 1; {', '.join(api.runner_names(takes='scale'))})")
    p.add_argument("--timestep", type=number(inputs.TIMESTEP), metavar="DT",
                   help="physics step [s] instead of the runner's own (must divide its control interval)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("-o", "--out", "--output", dest="output", metavar="FILE",
                   help="write the motion: .mp4 .gif .glb .bvh .npz .csv")
    video_args(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("runners", help="the simulated controllers: every runner and gait, its speed range and "
                                       "whether it can be pushed")
    p.set_defaults(func=cmd_runners)


def cmd_run(args) -> int:
    from gaitforge.cli.progress import MIN_SECONDS, progress_bar

    e = api.runner(args.creature, args.gait, plots=args.plots)  # name errors before anything else
    if args.output:
        from gaitforge.io.atomic import check_output
        check_output(args.output, api.motion_formats(), "motion")
    if args.plots:
        from gaitforge.io.atomic import check_output_dir
        check_output_dir(args.plots)
    with progress_bar(e.label, args.seconds, quiet=args.quiet, worth_it=args.seconds >= MIN_SECONDS,
                      unit="s") as advance:
        run = api.run(args.creature, e.gait, speed=args.speed, seconds=args.seconds, scale=args.scale,
                     turn_rate=args.turn, path=args.path, timestep=args.timestep, progress=advance)
    character, rollout = run
    sim = rollout.clip.duration
    at = f" at {run.speed:g} m/s" if run.speed is not None else ""
    console.print(f"{character.name} {e.gait}{at}: {sim:.1f} s simulated in {rollout.wall_time:.2f} s "
                  f"({sim / max(rollout.wall_time, 1e-9):.0f}x real time)")
    console.print(str(rollout.physics), soft_wrap=True)
    if rollout.limits is not None:
        console.print(f"{rollout.limits.limits}; {rollout.limits}", soft_wrap=True)
    status = 0
    if rollout.fall is not None:
        console.print(f"[red]{rollout.fall}[/red]")
        status = 1
    else:
        measures = run.measures()
        if measures.rows:
            console.print(table(measures.title, ("quantity", "value"), measures.rows))
        for line in measures.notes:
            console.print(line, soft_wrap=True)
    if args.output:
        from gaitforge.cli.outputs import save_clip, video_options
        save_clip(character, rollout.clip, args.output, **video_options(args))
        console.print(f"wrote {args.output}")
    if args.plots:
        written = api.run_plots(run, args.plots)
        console.print(f"wrote {', '.join(p.name for p in written)} in {args.plots}")
    return status


def table(title: str, columns: tuple[str, ...], rows, *, numbers: bool = True) -> Table:
    """A rich table: the first column left-aligned, the rest right-aligned
    (``numbers``) or left-aligned too."""
    t = Table(title=title)
    for k, col in enumerate(columns):
        t.add_column(col, justify="right" if numbers and k > 0 else "left")
    for row in rows:
        t.add_row(*row)
    return t


def gait_text(e) -> str:
    """A gait with its speeds [m/s] (its range; none where it stands still
    or its drive sets them) and a * when it is the runner's default."""
    star = "*" if e.default else ""
    if e.speed_range is None or e.speed_range[1] <= 0:
        return f"{e.gait}{star}"
    lo, hi = e.speed_range
    return f"{e.gait}{star} " + (f"{lo:g}" if lo == hi else f"{lo:g}–{hi:g}")


def cmd_runners(args) -> int:
    rows = []
    entries = api.runners()
    for key in api.runner_names():
        mine = [g for g in entries if g.key == key]
        e = mine[0]
        rows.append((key + "".join(f" ({a})" for a in e.aliases), e.family, ", ".join(gait_text(g) for g in mine),
                     "yes" if e.stands else "no", ", ".join(sorted(e.options)) or "—"))
    console.print(table("simulated controllers: gaitforge run RUNNER --gait GAIT",
                        ("runner", "family", "gaits, m/s (* default)", "push", "options"), rows, numbers=False))
    console.print("gain sets (push --gains): " + "; ".join(
        f"{k}: {', '.join(api.runner(k).gain_sets)}" for k in api.runner_names()
        if api.runner(k).gain_sets != ("ours",)) + "; every other runner: ours")
    return 0

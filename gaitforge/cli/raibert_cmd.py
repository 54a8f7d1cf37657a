"""Commands for the RH91 dynamic runners: ``run`` and ``report raibert``."""
from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from gaitforge.naming import match
from gaitforge import inputs
from gaitforge.cli.args import number, video_args
from gaitforge.control.raibert import catalog
from gaitforge.errors import GaitforgeError

console = Console(highlight=False)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="simulate a controlled runner: a Raibert & Hodgins runner (raibert_biped, "
                                   "raibert_quadruped, kangaroo) or a quadruped skills controller (dog, gorilla)")
    p.add_argument("creature", metavar="CREATURE",
                   help="raibert_biped, raibert_quadruped, kangaroo (biped and quadruped also accepted), dog, gorilla")
    p.add_argument("--gait", help="run, gallop_together, gallop_alternate (biped); trot, bound, gallop "
                                  "(quadruped); hop (kangaroo); stand, walk, trot (dog); stand, ds_walk, "
                                  "trot (gorilla). Default: the creature's first")
    p.add_argument("--turn", type=number(inputs.TURN_RATE), default=0.0, metavar="RATE",
                   help="yaw rate [rad/s] to turn at (dog, gorilla)")
    p.add_argument("--plots", metavar="DIR", help="write footprints.png, gait_graph.png and gait_diagram.png "
                                                  "into DIR (dog, gorilla)")
    p.add_argument("--speed", type=number(inputs.RUN_SPEED), help="desired forward speed [m/s]")
    p.add_argument("--path", metavar="FILE", help="YAML file of waypoints to follow (biped, quadruped)")
    p.add_argument("--seconds", type=number(inputs.RUN_SECONDS), default=10.0, help="simulated time [s] (default 10)")
    p.add_argument("--scale", type=number(inputs.SCALE), default=1.0, metavar="L",
                   help="dynamic scaling factor (Table 1)")
    p.add_argument("--timestep", type=number(inputs.TIMESTEP), metavar="DT",
                   help="physics step [s] instead of the controller's own (must divide its control interval)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("-o", "--out", "--output", dest="output", metavar="FILE",
                   help="write the motion: .mp4 .gif .glb .bvh .npz .csv")
    video_args(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("report", help="reproduce a paper's measurements")
    p.add_argument("paper", choices=["raibert"], help="raibert: Table 2 of Raibert & Hodgins 1991")
    p.add_argument("--seconds", type=number(0, 600, above=True), default=30.0, help="simulated time per experiment [s]")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out-dir", "--out", dest="out", default="report-raibert", metavar="DIR",
                   help="folder for table2.md, table2.csv and the plots (default report-raibert)")
    p.set_defaults(func=cmd_report)


def _measures_table(title: str, measures) -> Table:
    t = Table(title=title)
    t.add_column("quantity")
    t.add_column("value", justify="right")
    for k, v in measures.as_dict().items():
        t.add_row(k.replace("_", " "), "—" if v is None else f"{v:.4g}" if isinstance(v, float) else str(v))
    return t


def cmd_run(args) -> int:
    from gaitforge.control.raibert.measures import measure_run
    from gaitforge.control.skills import catalog as skills

    from gaitforge.sim.push import family_of

    if family_of(args.creature) == "skills":
        from gaitforge.cli.skills_cmd import run_skills
        return run_skills(args)
    if args.plots:
        raise GaitforgeError(f"--plots works for the skills controllers ({', '.join(skills.RUNNERS)})")
    if args.turn:
        raise GaitforgeError(f"--turn works for the skills controllers ({', '.join(skills.RUNNERS)}); "
                             f"{args.creature} follows --path instead")

    r = catalog.runner(args.creature)
    gait = match(args.gait, r.speed_ranges) or args.gait if args.gait else r.default_gait
    r.check_gait(gait)
    if args.output:
        from gaitforge.io.atomic import check_output
        from gaitforge.io.clipfiles import EXPORT_EXTENSIONS
        check_output(args.output, EXPORT_EXTENSIONS, "motion")
    path = None
    if args.path:
        from gaitforge.io.paths import load_path
        path = load_path(args.path)
    # --speed, else the path file's speed, else the gait's default (inputs.default_speed); reported as
    # the controller uses it (clamped into the gait's range, which it warns about).
    speed = inputs.run_speed(r, gait, args.speed, path)
    lo, hi = r.speed_range(gait, args.scale)
    used = min(max(speed, lo), hi)
    from gaitforge.cli.progress import MIN_SECONDS, progress_bar

    with warnings.catch_warnings(record=True) as caught, \
            progress_bar(f"{args.creature} {gait}", args.seconds, quiet=args.quiet,
                         worth_it=args.seconds >= MIN_SECONDS, unit="s") as advance:
        warnings.simplefilter("always")
        character, rollout = catalog.simulate(args.creature, gait, speed, args.seconds, path=path,
                                              scale=args.scale, progress=advance, timestep=args.timestep)
    for w in caught:
        print(f"gaitforge: warning: {w.message}", file=sys.stderr)
    sim = rollout.clip.duration
    console.print(f"{character.name} {gait}: {sim:.1f} s simulated in {rollout.wall_time:.2f} s "
                  f"({sim / max(rollout.wall_time, 1e-9):.0f}x real time)")
    console.print(str(rollout.physics), soft_wrap=True)
    status = 0
    if rollout.fall is not None:
        console.print(f"[red]{rollout.fall}[/red]")
        status = 1
    else:
        settle = min(5.0, 0.3 * sim)
        try:
            console.print(_measures_table(f"{character.name} {gait} at {used:g} m/s",
                                          measure_run(character, rollout, used, settle)))
        except GaitforgeError as exc:
            console.print(f"no measurements: {exc}")
    if args.output:
        from gaitforge.cli.outputs import save_clip, video_options
        save_clip(character, rollout.clip, args.output, **video_options(args))
        console.print(f"wrote {args.output}")
    return status


def cmd_report(args) -> int:
    from gaitforge.control.raibert import kangaroo
    from gaitforge.control.raibert.report import report_lines, run_experiments
    from gaitforge.io.atomic import atomic_paths, check_output_dir
    from gaitforge.io.raibert_report import save_joint_force_plot, save_table, table_markdown

    from gaitforge.cli.progress import progress_bar
    from gaitforge.control.raibert.table2 import TABLE2

    out = check_output_dir(args.out)
    with progress_bar("report raibert", len(TABLE2), quiet=args.quiet, unit="experiments") as advance:
        done: list[str] = []

        def started(title: str) -> None:
            if advance is not None:
                advance(len(done), info=title)
            done.append(title)

        runs = run_experiments(args.seconds, settle=min(10.0, args.seconds / 3), progress=started)
    lines = report_lines(runs)
    console.print(table_markdown(lines))
    standing = []
    for r in runs:
        if r.rollout.fall is not None:
            console.print(f"[red]{r.experiment.title}: {r.rollout.fall}[/red]")
        else:
            name = r.experiment.title.lower().replace(" ", "_")
            standing.append((r, out / f"{name}_{'fig6' if r.experiment.creature == 'kangaroo' else 'legs'}.png"))
    # The table and every plot are written together or not at all.
    with atomic_paths(out / "table2.md", out / "table2.csv", *(p for _, p in standing)) as temps:
        md, csv, *plots = (t for t in temps if t is not None)
        save_table(lines, md, csv)
        for (r, _), path in zip(standing, plots):
            if r.experiment.creature == "kangaroo":
                d = kangaroo.fig6_data(r.character, r.rollout, hops=3, start=args.seconds / 2)
                save_joint_force_plot(path, d["t"], {k: np.degrees(d[k]) for k in ("hip", "knee", "ankle")},
                                      "leg angle [deg]", d["fz"], d["stance"],
                                      "Kangaroo hop: leg angles and vertical ground force (cf. RH91 Fig. 6)")
            else:
                _robot_plot(r, path, args.seconds / 2)
    console.print(f"wrote {out}/table2.md, {out}/table2.csv and plots")
    return 0


def _robot_plot(r, path: Path, start: float) -> None:
    """Leg lengths (slide joints) and total vertical ground force over ~1 s."""
    from gaitforge.io.raibert_report import save_joint_force_plot

    t = r.rollout.times
    sel = (t >= start) & (t <= start + 1.0)
    slides = [j for j in r.character.joints.values() if j.kind == "slide"]
    lengths = {j.name: r.rollout.clip.qpos[sel, j.qpos.start] for j in slides[:4]}
    fz = r.rollout.grf[sel, :, 2].sum(axis=1)
    stance = r.rollout.contact[sel].any(axis=1)
    save_joint_force_plot(path, t[sel] - t[sel][0], {k: v * 1000.0 for k, v in lengths.items()},
                          "leg length change [mm]", fz, stance,
                          f"{r.experiment.title}: leg lengths and vertical ground force")

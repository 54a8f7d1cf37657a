"""``report raibert``: Table 2 of Raibert & Hodgins 1991 reproduced (their
runs go through ``gaitforge run``, :mod:`.run_cmd`)."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from rich.console import Console

from gaitforge.cli.args import number

console = Console(highlight=False)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="reproduce a paper's measurements")
    p.add_argument("paper", choices=["raibert"], help="raibert: Table 2 of Raibert & Hodgins 1991")
    p.add_argument("--seconds", type=number(0, 600, above=True), default=30.0, help="simulated time per experiment [s]")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out-dir", "--out", dest="out", default="report-raibert", metavar="DIR",
                   help="folder for table2.md, table2.csv and the plots (default report-raibert)")
    p.set_defaults(func=cmd_report)


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

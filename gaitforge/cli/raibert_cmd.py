"""``report raibert``: Table 2 of Raibert & Hodgins 1991 reproduced (their
runs go through ``gaitforge run``, :mod:`.run_cmd`)."""
from __future__ import annotations

import argparse

from rich.console import Console

from gaitforge import api
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
    from gaitforge.cli.progress import progress_bar
    from gaitforge.io.atomic import check_output_dir

    out = check_output_dir(args.out)
    with progress_bar("report raibert", len(api.raibert_experiments()), quiet=args.quiet,
                      unit="experiments") as advance:
        done: list[str] = []

        def started(title: str) -> None:
            if advance is not None:
                advance(len(done), info=title)
            done.append(title)

        report = api.raibert_report(args.seconds, progress=started)
    console.print(report.markdown)
    for r in report.runs:
        if r.rollout.fall is not None:
            console.print(f"[red]{r.experiment.title}: {r.rollout.fall}[/red]")
    api.save_raibert_report(report, out)  # the table and every plot, together or not at all
    console.print(f"wrote {out}/table2.md, {out}/table2.csv and plots")
    return 0

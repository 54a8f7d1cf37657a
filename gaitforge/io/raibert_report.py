"""Files of the RH91 report: Table 2 as markdown and CSV, and Fig. 6-style
plots (joint angles and vertical ground force against time, stance shaded)."""
from __future__ import annotations

import csv
import io
import os

import numpy as np

from gaitforge.io.atomic import atomic_path, write_text


def _fmt(v: float | None) -> str:
    return "—" if v is None else f"{v:.3g}"


def table_markdown(lines) -> str:
    """Markdown tables, one per experiment, with the paper's two columns."""
    out, current = [], None
    for ln in lines:
        if ln.experiment != current:
            current = ln.experiment
            out += ["", f"### {current}", "", "| quantity | robot / animal | RH91 animation | gaitforge |",
                    "|---|---:|---:|---:|"]
        out.append(f"| {ln.quantity} | {_fmt(ln.real)} | {_fmt(ln.paper)} | {_fmt(ln.ours)} |")
    return "\n".join(out).lstrip() + "\n"


def table_csv(lines) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["experiment", "quantity", "robot_or_animal", "rh91_animation", "gaitforge"])
    for ln in lines:
        w.writerow([ln.experiment, ln.quantity, ln.real, ln.paper, "" if ln.ours is None else f"{ln.ours:.6g}"])
    return buf.getvalue()


def save_table(lines, markdown_path: str | os.PathLike | None = None,
               csv_path: str | os.PathLike | None = None) -> None:
    """Write the report as markdown and/or CSV (atomically)."""
    if markdown_path is not None:
        write_text(markdown_path, table_markdown(lines))
    if csv_path is not None:
        write_text(csv_path, table_csv(lines))


def save_joint_force_plot(path: str | os.PathLike, times: np.ndarray, series: dict[str, np.ndarray],
                          series_label: str, vertical_force: np.ndarray, stance: np.ndarray, title: str) -> None:
    """A Fig. 6-like figure: joint series (top, in the units ``series_label``
    names, e.g. angles in degrees) and vertical ground force [N] (bottom)
    against time [s] (T,), stance periods (T,) bool shaded and bracketed.
    PNG, written atomically."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 5), sharex=True)
    styles = ["-", "--", "-."]
    for (name, a), ls in zip(series.items(), styles * 3):
        ax1.plot(times, a, ls, color="k", label=name)
    ax2.plot(times, vertical_force, color="k")
    edges = np.flatnonzero(np.diff(np.concatenate([[0], stance.astype(int), [0]])))
    for a, b in zip(edges[::2], edges[1::2]):
        for ax in (ax1, ax2):
            ax.axvspan(times[a], times[min(b, len(times) - 1)], color="0.88", zorder=0)
            ax.axvline(times[a], color="0.4", ls=":", lw=0.8)
            ax.axvline(times[min(b, len(times) - 1)], color="0.4", ls=":", lw=0.8)
    ax1.set_ylabel(series_label)
    ax1.legend(loc="upper right", fontsize=8)
    ax2.set_ylabel("vertical force [N]")
    ax2.set_xlabel("time [s]")
    fig.suptitle(title)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=120, format="png")
    plt.close(fig)

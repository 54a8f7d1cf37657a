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


def plot_name(run) -> str:
    """The file name of a standing experiment run's plot (a
    ``control.raibert.report.ExperimentRun``): its title in lower case with
    underscores and the kind of plot (``Experiment.plot``: ``_fig6.png`` for
    the kangaroo's joint angles, ``_legs.png`` for a robot's leg lengths)."""
    name = run.experiment.title.lower().replace(" ", "_")
    return f"{name}_{run.experiment.plot}.png"


def save_run_plot(run, path: str | os.PathLike, start: float) -> None:
    """The plot of a standing experiment run from ``start`` [s]: for the
    kangaroo its leg angles [deg] and vertical ground force over 3 hops
    (cf. RH91 Fig. 6), for a robot its leg lengths [mm] and total vertical
    ground force over about 1 s."""
    if run.experiment.plot == "fig6":
        from gaitforge.control.raibert import kangaroo

        d = kangaroo.fig6_data(run.character, run.rollout, hops=3, start=start)
        save_joint_force_plot(path, d["t"], {k: np.degrees(d[k]) for k in ("hip", "knee", "ankle")},
                              "leg angle [deg]", d["fz"], d["stance"],
                              "Kangaroo hop: leg angles and vertical ground force (cf. RH91 Fig. 6)")
    else:
        _robot_plot(run, path, start)


def _robot_plot(r, path: str | os.PathLike, start: float) -> None:
    """Leg lengths (slide joints) and total vertical ground force over ~1 s."""
    t = r.rollout.times
    sel = (t >= start) & (t <= start + 1.0)
    slides = [j for j in r.character.joints.values() if j.kind == "slide"]
    lengths = {j.name: r.rollout.clip.qpos[sel, j.qpos.start] for j in slides[:4]}
    fz = r.rollout.grf[sel, :, 2].sum(axis=1)
    stance = r.rollout.contact[sel].any(axis=1)
    save_joint_force_plot(path, t[sel] - t[sel][0], {k: v * 1000.0 for k, v in lengths.items()},
                          "leg length change [mm]", fz, stance,
                          f"{r.experiment.title}: leg lengths and vertical ground force")

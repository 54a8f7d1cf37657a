"""Gait diagrams: the classic footfall plot (one row per foot, a dark bar
while the foot is on the ground, time on the horizontal axis), as PNG."""
from __future__ import annotations

import os

import numpy as np

from gaitforge.io.atomic import atomic_path


def contact_intervals(times: np.ndarray, column: np.ndarray) -> list[tuple[float, float]]:
    """(start, duration) [s] of each contact run in one foot's column (T,).

    A frame stands for the interval up to the next frame, so a run of n
    frames lasts n frame intervals (the last frame extends one median step).
    """
    t = np.asarray(times, float)
    step = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
    edges = np.r_[t, t[-1] + step]
    c = np.r_[False, np.asarray(column, bool), False].astype(np.int8)
    starts = np.flatnonzero(np.diff(c) == 1)
    ends = np.flatnonzero(np.diff(c) == -1)
    return [(float(edges[s]), float(edges[e] - edges[s])) for s, e in zip(starts, ends)]


def save_gait_diagram(footfalls, path: str | os.PathLike, title: str = "Gait diagram", *,
                      dpi: int = 100, marks=()) -> None:
    """Write the footfall diagram of ``footfalls`` (a ``Footfalls``) to ``path``
    as PNG, atomically; the first foot is the top row. marks: (time [s],
    label) pairs drawn as labelled vertical lines (a ramp's gait switches)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(footfalls.names)
    n = len(names)
    fig = Figure(figsize=(8.0, 1.0 + 0.45 * max(n, 1)), dpi=dpi)
    FigureCanvasAgg(fig)  # Agg canvas: no display or global pyplot state needed
    ax = fig.add_subplot(1, 1, 1)
    for row, name in enumerate(names):
        y = n - 1 - row
        bars = contact_intervals(footfalls.times, footfalls.contact[:, row])
        ax.broken_barh(bars, (y - 0.35, 0.7), facecolors="0.15")
    t = footfalls.times
    ax.set_xlim(float(t[0]), float(t[-1]) + (float(np.median(np.diff(t))) if len(t) > 1 else 0.0))
    ax.set_ylim(-0.6, n - 0.4 + (0.5 if len(marks) else 0.0))
    for at, label in marks:
        ax.axvline(float(at), color="tab:red", linewidth=1.2)
        ax.text(float(at), n - 0.35, f" {label}", color="tab:red", fontsize=8, va="bottom")
    ax.set_yticks(range(n))
    ax.set_yticklabels(reversed(names))
    ax.set_xlabel("time [s]")
    ax.set_title(title)
    ax.grid(axis="x", color="0.85", linewidth=0.6)
    ax.set_axisbelow(True)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, format="png")

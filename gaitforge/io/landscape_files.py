"""Files of the worm landscape (Kry 2012 Fig. 4): a CSV with one row per grid
cell and a heatmap PNG (distance travelled; blown-up cells hatched black,
non-cyclic cells dotted; the optimum and the π/2 column marked)."""
from __future__ import annotations

import math
import os

import numpy as np

from gaitforge.io.atomic import atomic_path, write_text

CSV_HEADER = "magnitude,phase_rad,phase_deg,distance_m,dx_m,cycle_residual,status"


def landscape_csv(ls) -> str:
    """CSV text of a ``Landscape``: status is ok, non_cyclic or blew_up."""
    rows = [CSV_HEADER]
    for i, a in enumerate(ls.magnitudes):
        for j, g in enumerate(ls.phases):
            status = "blew_up" if ls.blew_up[i, j] else "non_cyclic" if ls.non_cyclic[i, j] else "ok"
            res = ls.residual[i, j]
            rows.append(f"{float(a)!r},{float(g)!r},{math.degrees(g):.6g},{float(ls.distance[i, j])!r},"
                        f"{float(ls.dx[i, j])!r},"
                        f"{'inf' if math.isinf(res) else repr(float(res))},{status}")
    return "\n".join(rows) + "\n"


def save_landscape_csv(ls, path: str | os.PathLike) -> None:
    write_text(path, landscape_csv(ls))


def save_landscape_png(ls, path: str | os.PathLike, *, dpi: int = 110) -> None:
    """Heatmap of distance over phase (x) × magnitude (y), atomically."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 5.0), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    deg = np.degrees(ls.phases)

    def edges(v):
        v = np.asarray(v, float)
        if len(v) == 1:
            return np.array([v[0] - 0.5, v[0] + 0.5])
        mid = (v[1:] + v[:-1]) / 2
        return np.r_[v[0] - (mid[0] - v[0]), mid, v[-1] + (v[-1] - mid[-1])]

    shown = np.ma.masked_where(ls.blew_up, ls.distance)
    mesh = ax.pcolormesh(edges(deg), edges(ls.magnitudes), shown, cmap="viridis", shading="flat")
    fig.colorbar(mesh, ax=ax, label=f"distance in {ls.seconds:g} s [m]")
    ax.set_facecolor("black")  # blown-up cells (masked)
    ii, jj = np.nonzero(ls.non_cyclic)
    ax.scatter(deg[jj], ls.magnitudes[ii], s=10, c="white", marker=".", label="non-cyclic")
    i, j = ls.optimum()
    ax.scatter([deg[j]], [ls.magnitudes[i]], s=80, facecolors="none", edgecolors="red", label="optimum")
    ax.axvline(90.0, color="white", linestyle="--", linewidth=0.8, label="π/2")
    ax.set_xlabel("phase difference [deg]")
    ax.set_ylabel("activation magnitude (modal units)")
    ax.set_title(f"{ls.creature}: distance over magnitude × phase at {ls.frequency:g} Hz (black: blew up)")
    ax.legend(loc="upper right", fontsize=7, facecolor="0.8")
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, format="png")

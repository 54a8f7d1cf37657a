"""Plots of the quadruped skills: footprints (the footholds of each limb
seen from above, like Wang 2011 Fig. 3.17) and gait graphs (each limb's
swing within the cycle, like Fig. 3.2 and 3.11), as PNG."""
from __future__ import annotations

import os

import numpy as np

from gaitforge.io.atomic import atomic_path

COLOURS = {"front_left": "tab:blue", "front_right": "tab:orange", "rear_left": "tab:green",
           "rear_right": "tab:red"}


def footholds(character, footfalls, qpos: np.ndarray) -> dict[str, np.ndarray]:
    """Where each foot landed: foot name → (n, 2) [m] ground positions of its
    contact point at each touchdown of ``footfalls`` (frames of ``qpos``)."""
    from gaitforge.motion.footfall import feet_named, foot_positions

    feet = feet_named(character, footfalls.names)
    P = foot_positions(character, qpos, feet)  # (T, F, 3)
    out = {}
    for i, name in enumerate(footfalls.names):
        frames = footfalls.touchdowns(i)
        out[name] = P[frames, i, :2]
    return out


def _limb_of(name: str) -> str:
    return "_".join(name.split("_")[:2])


def save_footprints(prints: dict[str, np.ndarray], path: str | os.PathLike, title: str = "Footprints", *,
                    dpi: int = 100) -> None:
    """Plot footholds (foot name → (n, 2) [m]) from above, one colour per limb,
    front feet as filled circles, rear feet as squares; written atomically."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(9.0, 3.6), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for name, xy in prints.items():
        limb = _limb_of(name)
        marker = "o" if limb.startswith("front") else "s"
        ax.plot(xy[:, 0], xy[:, 1], marker, color=COLOURS.get(limb, "0.3"), label=name.replace("_", " "),
                markersize=6, alpha=0.85)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("x [m]")
    ax.set_ylabel("y [m]")
    ax.set_title(title)
    ax.grid(color="0.88", linewidth=0.6)
    ax.legend(loc="upper left", fontsize=8, ncol=4)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, format="png")


def save_gait_graph(graph, limbs: tuple[str, ...], path: str | os.PathLike, title: str = "Gait graph", *,
                    dpi: int = 100) -> None:
    """Plot a gait graph (``skills.gaitgraph.GaitGraph``): one row per limb,
    a dark bar over the phases [0, 1) in which it swings."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    n = len(limbs)
    fig = Figure(figsize=(7.0, 1.0 + 0.45 * n), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    for row, (name, lift, swing) in enumerate(zip(limbs, graph.lift, graph.swing)):
        y = n - 1 - row
        end = lift + swing
        bars = [(lift, min(end, 1.0) - lift)] + ([(0.0, end - 1.0)] if end > 1.0 else [])
        ax.broken_barh([b for b in bars if b[1] > 0], (y - 0.35, 0.7), facecolors="0.15")
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(-0.6, n - 0.4)
    ax.set_yticks(range(n))
    ax.set_yticklabels([s.replace("_", " ") for s in reversed(limbs)])
    ax.set_xlabel("phase of the gait cycle (dark: swing)")
    ax.set_title(title)
    ax.grid(axis="x", color="0.85", linewidth=0.6)
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, format="png")

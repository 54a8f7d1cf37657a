"""Energy and contact traces of a simulated modal-control run, as CSV:
time [s], kinetic, potential, work [J], centre of mass x, y, z [m], and one
0/1 column per body touching the ground."""
from __future__ import annotations

import os

import numpy as np

from gaitforge.io.atomic import write_text


def traces_csv(character, r) -> str:
    bodies = [character.model.body(i).name for i in range(1, character.model.nbody)]
    head = ["time", "kinetic_J", "potential_J", "work_J", "com_x", "com_y", "com_z"] + [f"contact_{b}" for b in bodies]
    rows = [",".join(head)]
    table = np.column_stack([r.times, r.kinetic, r.potential, r.work, r.com])
    for vals, touch in zip(table, r.ground_contact):
        rows.append(",".join(f"{v:.10g}" for v in vals) + "," + ",".join("1" if t else "0" for t in touch))
    return "\n".join(rows) + "\n"


def save_traces(character, r, path: str | os.PathLike) -> None:
    """Write the traces of ``r`` (a ``ModalRollout``) to ``path`` atomically."""
    write_text(path, traces_csv(character, r))

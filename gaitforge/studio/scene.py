"""The creature as batched meshes: geoms of one shape share a mesh and are
drawn as instances of it, placed every frame from a pose (pure numpy over
MuJoCo's forward kinematics; no viser here)."""
from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np


class MeshBatch(NamedTuple):
    """One shape: vertices (n, 3) [m] and faces (m, 3) in the geom's frame,
    the geoms (k,) drawn with it and its colour (r, g, b) 0–255."""

    vertices: np.ndarray
    faces: np.ndarray
    geoms: np.ndarray
    color: tuple[int, int, int]


def batches(model: mujoco.MjModel, segments: int = 16) -> list[MeshBatch]:
    """The model's visible geoms grouped by identical shape (type, size, mesh, colour)."""
    from gaitforge.io.meshes import geom_mesh

    groups: dict[tuple, list[int]] = {}
    for g in range(model.ngeom):
        if int(model.geom_type[g]) == int(mujoco.mjtGeom.mjGEOM_PLANE) or model.geom_rgba[g, 3] == 0:
            continue
        key = (int(model.geom_type[g]), tuple(np.round(model.geom_size[g], 6)), int(model.geom_dataid[g]),
               tuple(np.round(model.geom_rgba[g, :3], 3)))
        groups.setdefault(key, []).append(g)
    out = []
    for key, geoms in groups.items():
        mesh = geom_mesh(model, geoms[0], segments)
        if mesh is None:
            continue
        # geom_mesh places the surface in the body's frame; bring it back to the geom's own frame
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, model.geom_quat[geoms[0]])
        local = (np.asarray(mesh.positions) - model.geom_pos[geoms[0]]) @ R.reshape(3, 3)
        rgb = tuple(int(round(255 * c)) for c in key[3])
        out.append(MeshBatch(np.asarray(local, np.float32), np.asarray(mesh.triangles, np.uint32),
                             np.array(geoms, int), (rgb[0], rgb[1], rgb[2])))
    return out


class Poser:
    """Geom placements of a pose: ``place(qpos)`` → (positions (ngeom, 3) [m],
    orientations (ngeom, 4) w, x, y, z) from forward kinematics."""

    def __init__(self, model: mujoco.MjModel):
        self.model = model
        self.data = mujoco.MjData(model)
        self._quat = np.zeros((model.ngeom, 4))

    def place(self, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = self.data
        d.qpos[:] = qpos
        mujoco.mj_kinematics(self.model, d)
        for g in range(self.model.ngeom):
            mujoco.mju_mat2Quat(self._quat[g], d.geom_xmat[g])
        return d.geom_xpos.copy(), self._quat.copy()

    def root(self) -> np.ndarray:
        """Position (3,) [m] of the first body below the world after the last :meth:`place`."""
        return self.data.xpos[1].copy() if self.model.nbody > 1 else np.zeros(3)

"""Triangle meshes of MuJoCo geoms, for file formats that need surfaces (glTF).

Every mesh is closed, has outward normals and counter-clockwise triangles seen
from outside (glTF's front faces), and no degenerate triangles. Shapes follow
MuJoCo's geom conventions (``model.geom_size``): sphere radius; capsule and
cylinder radius and half-length along the geom's z axis; box half sizes;
ellipsoid radii; meshes use the model's own vertices (flat shaded).
"""
from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np


class TriMesh(NamedTuple):
    """positions (n, 3) [m], unit normals (n, 3), triangles (m, 3) vertex indices."""

    positions: np.ndarray
    normals: np.ndarray
    triangles: np.ndarray


def _lathe(strips: list[list[tuple[float, float, float, float]]], segments: int) -> TriMesh:
    """Surfaces of revolution about z. Each strip is a profile from top to
    bottom of points (r, z, normal_r, normal_z); strips share no vertices, so
    normals may jump between them (flat caps). Points with r = 0 are poles."""
    phi = 2 * np.pi * np.arange(segments) / segments
    c, s = np.cos(phi), np.sin(phi)
    pos, nrm, tri = [], [], []
    count = 0
    for strip in strips:
        rows = []
        for r, z, nr, nz in strip:
            if r == 0.0:  # a pole: one vertex stands for the whole ring
                pos.append(np.array([[0.0, 0.0, z]]))
                nrm.append(np.array([[0.0, 0.0, np.sign(nz)]]))
                rows.append(np.full(segments, count))
                count += 1
            else:
                pos.append(np.column_stack([r * c, r * s, np.full(segments, z)]))
                nrm.append(np.column_stack([nr * c, nr * s, np.full(segments, nz)]))
                rows.append(count + np.arange(segments))
                count += segments
        for up, low in zip(rows[:-1], rows[1:]):
            nxt = np.roll(np.arange(segments), -1)
            if low[0] != low[1]:  # skip the halves that collapse at a pole
                tri.append(np.column_stack([up, low, low[nxt]]))
            if up[0] != up[1]:
                tri.append(np.column_stack([up, low[nxt], up[nxt]]))
    normals = np.concatenate(nrm)
    normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    return TriMesh(np.concatenate(pos), normals, np.concatenate(tri).astype(np.uint32))


def _round(radius: float, half_length: float, segments: int) -> TriMesh:
    """A sphere (half_length 0) or capsule along z: two hemispheres apart by 2·half_length."""
    rings = max(segments // 2, 4)
    theta = np.linspace(0.0, np.pi, 2 * (rings // 2) + 1)  # includes the equator
    profile = []
    for k, t in enumerate(theta):
        nr, nz = float(np.sin(t)), float(np.cos(t))
        r = 0.0 if k in (0, len(theta) - 1) else radius * nr
        if k == len(theta) // 2 and half_length > 0:  # equator twice: the cylinder between
            profile += [(r, half_length, nr, 0.0), (r, -half_length, nr, 0.0)]
            continue
        shift = half_length if k < len(theta) // 2 else -half_length
        profile.append((r, radius * nz + shift, nr, nz))
    return _lathe([profile], segments)


def sphere(radius: float, segments: int = 24) -> TriMesh:
    return _round(radius, 0.0, segments)


def capsule(radius: float, half_length: float, segments: int = 24) -> TriMesh:
    return _round(radius, half_length, segments)


def ellipsoid(radii, segments: int = 24) -> TriMesh:
    """A unit sphere stretched by ``radii`` (3,); normals follow the inverse stretch."""
    unit = _round(1.0, 0.0, segments)
    radii = np.asarray(radii, float)
    normals = unit.normals / radii
    return TriMesh(unit.positions * radii, normals / np.linalg.norm(normals, axis=1, keepdims=True),
                   unit.triangles)


def cylinder(radius: float, half_length: float, segments: int = 24) -> TriMesh:
    r, h = radius, half_length
    return _lathe([[(0.0, h, 0.0, 1.0), (r, h, 0.0, 1.0)], [(r, h, 1.0, 0.0), (r, -h, 1.0, 0.0)],
                   [(r, -h, 0.0, -1.0), (0.0, -h, 0.0, -1.0)]], segments)


def box(half_sizes) -> TriMesh:
    """Six faces of four vertices each (sharp edges)."""
    half = np.asarray(half_sizes, float)
    pos: list[np.ndarray] = []
    nrm: list[np.ndarray] = []
    tri: list[np.ndarray] = []
    for axis in range(3):
        u, v = (axis + 1) % 3, (axis + 2) % 3  # e_u × e_v = e_axis
        for sign in (1.0, -1.0):
            n = np.zeros(3)
            n[axis] = sign
            du, dv = np.zeros(3), np.zeros(3)
            du[u], dv[v] = half[u], half[v] * sign  # flipping v keeps the -axis face counter-clockwise
            centre = n * half[axis]
            base = len(pos) * 4
            pos.append(np.array([centre - du - dv, centre + du - dv, centre + du + dv, centre - du + dv]))
            nrm.append(np.tile(n, (4, 1)))
            tri.append(base + np.array([[0, 1, 2], [0, 2, 3]]))
    return TriMesh(np.concatenate(pos), np.concatenate(nrm), np.concatenate(tri).astype(np.uint32))


def model_mesh(model: mujoco.MjModel, mesh_id: int) -> TriMesh:
    """A MuJoCo mesh asset (vertices in its geom's frame), flat shaded."""
    v0, nv = model.mesh_vertadr[mesh_id], model.mesh_vertnum[mesh_id]
    f0, nf = model.mesh_faceadr[mesh_id], model.mesh_facenum[mesh_id]
    corners = model.mesh_vert[v0:v0 + nv][model.mesh_face[f0:f0 + nf]]  # (nf, 3, 3)
    cross = np.cross(corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0])
    area = np.linalg.norm(cross, axis=1)
    corners, cross, area = corners[area > 1e-15], cross[area > 1e-15], area[area > 1e-15]
    normals = np.repeat(cross / area[:, None], 3, axis=0)
    return TriMesh(corners.reshape(-1, 3).astype(float), normals,
                   np.arange(3 * len(corners), dtype=np.uint32).reshape(-1, 3))


def geom_mesh(model: mujoco.MjModel, geom: int, segments: int = 24) -> TriMesh | None:
    """The surface of geom ``geom`` in its body's frame, or None for kinds
    without a closed surface (planes, height fields, SDFs)."""
    kind, size = int(model.geom_type[geom]), model.geom_size[geom]
    G = mujoco.mjtGeom
    if kind == G.mjGEOM_SPHERE:
        local = sphere(size[0], segments)
    elif kind == G.mjGEOM_CAPSULE:
        local = capsule(size[0], size[1], segments)
    elif kind == G.mjGEOM_CYLINDER:
        local = cylinder(size[0], size[1], segments)
    elif kind == G.mjGEOM_ELLIPSOID:
        local = ellipsoid(size, segments)
    elif kind == G.mjGEOM_BOX:
        local = box(size)
    elif kind == G.mjGEOM_MESH and model.geom_dataid[geom] >= 0:
        local = model_mesh(model, int(model.geom_dataid[geom]))
    else:
        return None
    R: np.ndarray = np.zeros(9)
    mujoco.mju_quat2Mat(R, model.geom_quat[geom])
    R = R.reshape(3, 3)
    return TriMesh(local.positions @ R.T + model.geom_pos[geom], local.normals @ R.T, local.triangles)

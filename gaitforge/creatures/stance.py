"""Static stance checks: where a creature touches the ground, whether its
centre of mass lies over that support, and whether it stands passively."""
from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np
from scipy.spatial import ConvexHull, QhullError

from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import contact_geoms

_TOUCH_TOL = 2e-3  # m: a geom point this close to the lowest point touches the ground


def _geom_points(model: mujoco.MjModel, data: mujoco.MjData, g: int) -> np.ndarray:
    """Points (n, 3) [m, world] whose lowest one is the geom's lowest point."""
    R = data.geom_xmat[g].reshape(3, 3)
    c, size, kind = data.geom_xpos[g], model.geom_size[g], model.geom_type[g]
    if kind == mujoco.mjtGeom.mjGEOM_BOX:
        signs = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T
        return c + (signs * size) @ R.T
    if kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
        ends = c + np.outer([-1, 1], R[:, 2] * size[1])
        return ends - [0.0, 0.0, size[0]]
    if kind == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        # Lowest point of an ellipsoid: c - A (A^T e_z) / |A^T e_z| with A = R diag(size).
        A = R * size
        v = A.T @ np.array([0.0, 0.0, 1.0])
        return (c - A @ v / np.linalg.norm(v))[None]
    return (c - [0.0, 0.0, model.geom_rbound[g]])[None]


def support_points(character: Character, qpos: np.ndarray | None = None) -> np.ndarray:
    """Ground-touching points (n, 2) [m] (x, y) of the creature at ``qpos``
    (default rest): geom points within 2 mm of the lowest point."""
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos if qpos is None else qpos
    mujoco.mj_kinematics(m, d)
    pts = np.vstack([_geom_points(m, d, g) for g in contact_geoms(m)])
    low = pts[:, 2].min()
    return pts[pts[:, 2] < low + _TOUCH_TOL, :2]


def com_support_margin(character: Character, qpos: np.ndarray | None = None) -> float:
    """Signed distance [m] from the centre of mass (ground projection) to the
    edge of the support polygon: positive inside. For a degenerate (line-like)
    support, minus the distance to that segment."""
    com = character.com(qpos)[:2]
    pts = support_points(character, qpos)
    try:
        hull = ConvexHull(pts)
    except (QhullError, ValueError):
        # Collinear support (a worm lying straight): distance to the segment.
        u = pts - pts.mean(axis=0)
        axis = np.linalg.svd(u, full_matrices=False)[2][0]
        t = (pts - pts[0]) @ axis
        a, b = pts[0] + t.min() * axis, pts[0] + t.max() * axis
        s = np.clip((com - a) @ (b - a) / max((b - a) @ (b - a), 1e-300), 0.0, 1.0)
        return -float(np.linalg.norm(com - (a + s * (b - a))))
    # Hull facets: n·x + offset <= 0 inside.
    return float(-np.max(hull.equations[:, :2] @ com + hull.equations[:, 2]))


class StandResult(NamedTuple):
    seconds: float
    height_ratio: float  # root body height at the end / at rest
    tilt_deg: float  # rotation of the root body from its rest attitude [deg]
    max_joint_deviation_deg: float  # largest hinge/ball deviation from rest [deg]
    lowest_body_z: float  # lowest body origin at the end [m]
    finite: bool


def simulate_stand(character: Character, seconds: float = 2.0, drop: float = 0.0) -> StandResult:
    """Let the creature stand (or fall from ``drop`` metres) with no control."""
    m = character.model
    d = character.make_data()
    root = character.joints[next(iter(character.joints))] if character.joints else None
    d.qpos[2] += drop if root is not None and root.kind == "free" else 0.0
    if root is not None and root.kind == "planar":
        d.qpos[root.qpos.start + 1] += drop
    mujoco.mj_forward(m, d)
    rest_pos = character.make_data().xpos[1].copy()
    rest_mat = character.make_data().xmat[1].reshape(3, 3).copy()
    steps = int(round(seconds / m.opt.timestep))
    for _ in range(steps):
        mujoco.mj_step(m, d)
    finite = bool(np.all(np.isfinite(d.qpos)))
    R = d.xmat[1].reshape(3, 3) @ rest_mat.T
    tilt = float(np.degrees(np.arccos(np.clip((np.trace(R) - 1) / 2, -1, 1))))
    dev = 0.0
    for j in character.joints.values():
        if j.kind in ("free", "planar", "slide"):  # root motion; slides are lengths, not angles
            continue
        if j.kind == "ball":
            q, q0 = d.qpos[j.qpos], character.rest_qpos[j.qpos]
            dev = max(dev, 2 * np.arccos(min(1.0, abs(float(np.dot(q, q0))))))
        else:
            dev = max(dev, float(np.max(np.abs(d.qpos[j.qpos] - character.rest_qpos[j.qpos]))))
    return StandResult(seconds, float(d.xpos[1][2] / rest_pos[2]) if rest_pos[2] else float("nan"),
                       tilt, float(np.degrees(dev)), float(d.xpos[1:, 2].min()), finite)

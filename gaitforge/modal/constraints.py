"""Bilateral constraints of the modal analysis (Kry09 §3.1, Kry12 §3.4).

Three kinds, all anchored at the rest pose:

- ``pin``: a point of a body stays where it is in the world (3 rows);
- ``lock``: the orientation of a body stays fixed in the world (3 rows);
- ``loop``: a point of ``bone`` stays on the same material point of ``other``
  (a ball closure, 3 rows); with an ``axis`` the closure is a hinge whose
  axis stays aligned in both bodies (2 more rows), optionally sprung.

Each kind is a function g(q) that is zero at rest (``constraint_violation``)
with velocity Jacobian G = ∂g/∂v (``constraint_jacobian``, rows × nv, in
MuJoCo's ``qvel`` tangent space, so ``mj_integratePos`` perturbations check it
by finite differences). The point and axis rows are exact gradients of these
functions at every pose, and the lock's angular-velocity rows at the rest pose
(away from it they differ by an antisymmetric term that the symmetrized
curvature of the gravity term cancels).
"""
from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

from gaitforge.creatures.spec import Constraint


@dataclass(frozen=True)
class Anchor:
    """A constraint tied to bodies and to the rest pose.

    body / other: MuJoCo body ids (``other`` is 0, the world, for pin and lock).
    point: (3,) the constrained point in ``body``'s frame [m]; point_other: (3,)
    the same material point in ``other``'s frame (pin: its world position).
    axis: (3,) unit closure axis in ``body``'s frame or None; axis_other: the
    same axis in ``other``'s frame; perp: (2, 3) two unit vectors normal to the
    axis in ``body``'s frame; rest_rotation: (3, 3) world orientation of
    ``body`` at rest (lock only). ``rows``: number of constraint rows.
    """

    constraint: Constraint
    body: int
    other: int
    point: np.ndarray
    point_other: np.ndarray
    axis: np.ndarray | None
    axis_other: np.ndarray | None
    perp: np.ndarray | None
    rest_rotation: np.ndarray | None = None

    @property
    def rows(self) -> int:
        c = self.constraint
        if c.kind == "loop":
            return 5 if c.axis is not None else 3
        return 3

    @property
    def sprung(self) -> bool:
        return self.axis is not None and self.constraint.stiffness > 0


def _frame(data: mujoco.MjData, body: int) -> tuple[np.ndarray, np.ndarray]:
    return data.xpos[body], data.xmat[body].reshape(3, 3)


def skew(p: np.ndarray) -> np.ndarray:
    """[p], the 3 × 3 matrix of the cross product p × (``np.cross`` costs tens of
    microseconds per call on 3-vectors; this is a plain product)."""
    return np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])


def perpendicular_pair(axis: np.ndarray) -> np.ndarray:
    """Two unit vectors (2, 3) that complete ``axis`` (unit) to a right-handed
    frame (axis, e1, e2): e1 × e2 = axis."""
    helper = np.eye(3)[int(np.argmin(np.abs(axis)))]
    e1 = skew(axis) @ helper
    e1 /= np.linalg.norm(e1)
    return np.array([e1, skew(axis) @ e1])


def anchor(character, data: mujoco.MjData, c: Constraint) -> Anchor:
    """Tie constraint ``c`` to ``character``'s bodies at the pose in ``data``
    (after ``mj_kinematics``). Unknown bodies raise ``UnknownNameError``
    listing the valid ones."""
    b = character.body_id(c.bone)
    o = character.body_id(c.other) if c.other is not None else 0
    pos, R = _frame(data, b)
    p = np.asarray(c.point, float)
    world = pos + R @ p
    if c.kind == "lock":
        return Anchor(c, b, 0, p, world, None, None, None, R.copy())
    pos_o, R_o = _frame(data, o)
    p_other = R_o.T @ (world - pos_o)
    if c.axis is None:
        return Anchor(c, b, o, p, p_other, None, None, None)
    a = np.asarray(c.axis, float) / np.linalg.norm(c.axis)
    return Anchor(c, b, o, p, p_other, a, R_o.T @ (R @ a), perpendicular_pair(a))


def anchor_all(character, data: mujoco.MjData, constraints) -> list[Anchor]:
    """Anchor every constraint (see :func:`anchor`)."""
    return [anchor(character, data, c) for c in constraints]


class _Jac:
    """Reusable (3, nv) buffers for ``mj_jac``."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData):
        self.m, self.d = model, data
        self.p = np.zeros((3, model.nv))
        self.r = np.zeros((3, model.nv))

    def at(self, body: int, point_world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Translational and rotational Jacobians (3, nv) of a world point fixed in ``body``."""
        if body == 0:
            return np.zeros_like(self.p), np.zeros_like(self.r)
        mujoco.mj_jac(self.m, self.d, self.p, self.r, point_world, body)
        return self.p.copy(), self.r.copy()


def _world_point(data, body: int, local: np.ndarray) -> np.ndarray:
    pos, R = _frame(data, body)
    return pos + R @ local


def constraint_jacobian(model: mujoco.MjModel, data: mujoco.MjData, anchors) -> np.ndarray:
    """G (rows, nv): d g / d qvel at the pose in ``data`` (needs ``mj_kinematics``
    and ``mj_comPos``). Rows follow ``anchors`` in order (pin/lock/loop: 3, hinge
    loop: 3 + 2)."""
    jac = _Jac(model, data)
    blocks = []
    for a in anchors:
        kind = a.constraint.kind
        if kind == "pin":
            blocks.append(jac.at(a.body, _world_point(data, a.body, a.point))[0])
            continue
        if kind == "lock":
            blocks.append(jac.at(a.body, data.xpos[a.body])[1])
            continue
        jp_b, jr_b = jac.at(a.body, _world_point(data, a.body, a.point))
        jp_o, jr_o = jac.at(a.other, _world_point(data, a.other, a.point_other))
        blocks.append(jp_b - jp_o)
        if a.axis is not None:
            # g_k = e_k(bone) · axis(other); its gradient is (e_k × axis)ᵀ(ω_bone − ω_other).
            R_b, R_o = _frame(data, a.body)[1], _frame(data, a.other)[1]
            a_o = R_o @ a.axis_other
            n = (a.perp @ R_b.T) @ skew(a_o)  # rows e_k × a_o
            blocks.append(n @ (jr_b - jr_o))
    if not blocks:
        return np.zeros((0, model.nv))
    return np.vstack(blocks)


def closure_springs(model: mujoco.MjModel, data: mujoco.MjData, anchors) -> tuple[np.ndarray, np.ndarray]:
    """Springs of hinge closures (loop constraints with an axis and a stiffness).

    Returns rows (s, nv), the rate of the closure angle (bone relative to
    other, about the axis) per unit qvel, and their stiffness (s,) [N m/rad];
    the stiffness matrix they add is rowsᵀ diag(k) rows.
    """
    jac = _Jac(model, data)
    rows, k = [], []
    for a in anchors:
        if not a.sprung:
            continue
        x = _world_point(data, a.body, a.point)
        axis = _frame(data, a.body)[1] @ a.axis
        rows.append(axis @ (jac.at(a.body, x)[1] - jac.at(a.other, x)[1]))
        k.append(a.constraint.stiffness)
    return np.array(rows).reshape(len(rows), model.nv), np.array(k, float)


def constraint_violation(model: mujoco.MjModel, data: mujoco.MjData, anchors) -> np.ndarray:
    """g (rows,): how far the pose in ``data`` (after ``mj_kinematics``) is from
    satisfying each constraint [m for points, rad for orientations]; zero at
    the rest pose the anchors were taken at. ``lock`` uses the rotation vector
    of R Rᵣₑₛₜᵀ (world frame)."""
    out = []
    for a in anchors:
        kind = a.constraint.kind
        x_b = _world_point(data, a.body, a.point)
        if kind == "pin":
            out.append(x_b - a.point_other)
        elif kind == "lock":
            out.append(_rotation_vector(data.xmat[a.body].reshape(3, 3) @ a.rest_rotation.T))
        else:
            out.append(x_b - _world_point(data, a.other, a.point_other))
            if a.axis is not None:
                R_b, R_o = _frame(data, a.body)[1], _frame(data, a.other)[1]
                out.append((a.perp @ R_b.T) @ (R_o @ a.axis_other))
    return np.concatenate(out) if out else np.zeros(0)


def _rotation_vector(R: np.ndarray) -> np.ndarray:
    """Rotation vector (3,) [rad] of the rotation matrix R."""
    quat = np.zeros(4)
    mujoco.mju_mat2Quat(quat, R.ravel())
    vel = np.zeros(3)
    mujoco.mju_quat2Vel(vel, quat, 1.0)
    return vel

"""Small helpers that builders use to write creatures one body part at a time."""
from __future__ import annotations

import math

import numpy as np

from gaitforge.creatures.spec import Shape, quat4, vec3

Vec3 = tuple[float, float, float]


def vec(v) -> Vec3:
    """A plain float 3-tuple (specs hold tuples, never arrays)."""
    return vec3(v)


def quat_axis_angle(axis, angle: float) -> tuple[float, float, float, float]:
    """Unit quaternion (w, x, y, z) turning ``angle`` [rad] about ``axis``."""
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    s = math.sin(angle / 2.0)
    return (math.cos(angle / 2.0), float(a[0] * s), float(a[1] * s), float(a[2] * s))


def capsule(p0, p1, radius: float, *, contact: bool = True) -> Shape:
    """A capsule of ``radius`` [m] between points ``p0`` and ``p1`` [m, bone frame]."""
    return Shape("capsule", radius=float(radius), fromto=vec(p0) + vec(p1), contact=contact)


def box(half_sizes, pos=(0.0, 0.0, 0.0), quat=(1.0, 0.0, 0.0, 0.0), *, contact: bool = True) -> Shape:
    """A solid box with half extents ``half_sizes`` [m] centred at ``pos``."""
    return Shape("box", half_sizes=vec(half_sizes), pos=vec(pos), quat=quat4(quat),
                 contact=contact)


def sphere(radius: float, pos=(0.0, 0.0, 0.0), *, contact: bool = True) -> Shape:
    return Shape("sphere", radius=float(radius), pos=vec(pos), contact=contact)


def ellipsoid(radii, pos=(0.0, 0.0, 0.0), quat=(1.0, 0.0, 0.0, 0.0), *, contact: bool = True) -> Shape:
    return Shape("ellipsoid", radii=vec(radii), pos=vec(pos), quat=quat4(quat),
                 contact=contact)


def mirror_y(v) -> Vec3:
    """Reflect a point or axis through the sagittal (x-z) plane."""
    return (float(v[0]), -float(v[1]), float(v[2]))

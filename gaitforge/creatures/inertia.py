"""Mass properties of shape primitives and of whole bones.

Solid, uniform-density primitives. The box is the solid cuboid of Wang 2011
ch. 4.1.4: I_x = m (b² + c²) / 12 with b, c its full side lengths. Capsules are
a cylinder plus two hemispheres, each offset by the parallel-axis theorem.
Everything is expressed in the bone frame: the result is (mass [kg], centre of
mass (3,) [m], inertia tensor about the centre of mass (3, 3) [kg m²]).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from gaitforge.creatures.spec_parts import Bone, Shape


class MassProperties(NamedTuple):
    mass: float
    com: np.ndarray  # (3,) m, bone frame
    inertia: np.ndarray  # (3, 3) kg m^2 about com, bone frame


def quat_to_mat(q) -> np.ndarray:
    """Rotation matrix (3, 3) of a unit quaternion (w, x, y, z)."""
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _z_to(direction: np.ndarray) -> np.ndarray:
    """A rotation matrix whose third column is the unit vector ``direction``."""
    z = direction / np.linalg.norm(direction)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def shape_mass_properties(s: Shape, density: float) -> MassProperties:
    """Mass properties of one solid primitive of uniform ``density`` [kg/m³]."""
    if s.kind == "box":
        assert s.half_sizes is not None  # validated shapes carry their kind's sizes
        a, b, c = (2.0 * h for h in s.half_sizes)  # full side lengths
        m = density * a * b * c
        local = m / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
        rot, com = quat_to_mat(s.quat), np.asarray(s.pos, float)
    elif s.kind in ("sphere", "ellipsoid"):
        if s.kind == "sphere":
            assert s.radius is not None
            a = b = c = s.radius
        else:
            assert s.radii is not None
            a, b, c = s.radii
        m = density * 4.0 / 3.0 * np.pi * a * b * c
        local = m / 5.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
        rot, com = quat_to_mat(s.quat), np.asarray(s.pos, float)
    else:  # capsule along its own z axis
        assert s.fromto is not None and s.radius is not None
        p0, p1 = np.asarray(s.fromto[:3], float), np.asarray(s.fromto[3:], float)
        length, r = float(np.linalg.norm(p1 - p0)), s.radius
        m_cyl = density * np.pi * r * r * length
        m_hemi = density * 2.0 / 3.0 * np.pi * r ** 3
        m = m_cyl + 2.0 * m_hemi
        ixx_cyl = m_cyl * (3 * r * r + length * length) / 12.0
        izz_cyl = m_cyl * r * r / 2.0
        # Hemisphere: centroid 3r/8 from its flat face; about its own centroid the
        # transverse moment is (83/320) m r^2; its flat face sits at length/2.
        d = length / 2.0 + 3.0 * r / 8.0
        ixx_hemi = m_hemi * (83.0 / 320.0 * r * r + d * d)
        izz_hemi = m_hemi * 2.0 / 5.0 * r * r
        local = np.diag([ixx_cyl + 2 * ixx_hemi, ixx_cyl + 2 * ixx_hemi, izz_cyl + 2 * izz_hemi])
        rot, com = _z_to(p1 - p0), 0.5 * (p0 + p1)
    return MassProperties(float(m), com, rot @ local @ rot.T)


def combine(parts: list[MassProperties]) -> MassProperties:
    """Mass properties of rigidly joined parts (parallel-axis theorem)."""
    mass = sum(p.mass for p in parts)
    com = np.asarray(sum(p.mass * p.com for p in parts) / mass)
    inertia = np.zeros((3, 3))
    for p in parts:
        d = p.com - com
        inertia += p.inertia + p.mass * (d @ d * np.eye(3) - np.outer(d, d))
    return MassProperties(float(mass), com, inertia)


def bone_mass_properties(bone: Bone) -> MassProperties:
    """Mass properties of a bone in its own frame: explicit ``inertial`` values
    when given, else its shapes at ``density``, rescaled to ``mass`` if set."""
    if bone.inertial is not None:
        rot = quat_to_mat(bone.inertial.quat)
        inertia = rot @ np.diag(bone.inertial.inertia) @ rot.T
        return MassProperties(bone.inertial.mass, np.asarray(bone.inertial.com, float), inertia)
    total = combine([shape_mass_properties(s, bone.density) for s in bone.shapes])
    if bone.mass is None:
        return total
    scale = bone.mass / total.mass
    return MassProperties(bone.mass, total.com, total.inertia * scale)

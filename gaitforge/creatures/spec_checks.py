"""The vocabulary and limits of a creature description (:mod:`creatures.spec`):
the vector types, the names a field may take (shape kinds, joint types, sides,
roles, limbs, constraint kinds), the physically sensible ranges of sizes,
masses and densities, and the field checks that raise :class:`SpecError`
with the field path (``bones[3].joint.type``)."""
from __future__ import annotations

import math
from collections.abc import Iterable
from typing import cast

from gaitforge.errors import SpecError, brief

Vec3 = tuple[float, float, float]
Quat = tuple[float, float, float, float]


def vec3(values: Iterable) -> Vec3:
    """``tuple(float(x) for x in values)``, typed as a 3-vector (the length is
    not checked here: validation does that)."""
    return cast(Vec3, tuple(float(x) for x in values))


def quat4(values: Iterable) -> Quat:
    """``tuple(float(x) for x in values)``, typed as a quaternion (see :func:`vec3`)."""
    return cast(Quat, tuple(float(x) for x in values))

SHAPE_KINDS = ("box", "capsule", "ellipsoid", "sphere")
JOINT_TYPES = ("ball", "fixed", "free", "hinge", "planar", "slide")
SIDES = ("center", "left", "right")
ROLES = ("ankle", "elbow", "finger", "foot", "hand", "head", "hip", "knee", "knuckle",
         "neck", "pelvis", "shoulder", "spine", "tail", "toe", "trunk", "wrist")
LIMBS = ("front", "rear")
CONSTRAINT_KINDS = ("lock", "loop", "pin")
WATER_DENSITY = 1000.0  # kg/m^3

IDENTITY_QUAT: Quat = (1.0, 0.0, 0.0, 0.0)
ZERO3: Vec3 = (0.0, 0.0, 0.0)


# Physically sensible magnitudes: beyond them MuJoCo's arithmetic (and the
# eigenproblem) degenerates, so a document asking for them is refused.
SIZE = (1e-5, 1e4)      # [m] radii, half sizes
REACH = 1e4             # [m] largest |coordinate| of a position
MASS = (1e-9, 1e7)      # [kg]
DENSITY = (1e-6, 1e6)   # [kg/m^3]
INERTIA = (0.0, 1e9)    # [kg m^2] principal moments
STIFFNESS = (0.0, 1e10)  # [N m/rad, N/m] joint, coupling and closure springs (RH91 robots at L = 20: 2e9)
DAMPING = (0.0, 1e10)   # [N m s/rad, N s/m]
ARMATURE = (0.0, 1e6)   # [kg m^2, kg]
COEFFICIENT = 1e3       # largest |c| of a coupling spring's joint coefficient
FRICTION = (1e-4, 100.0)  # sliding friction coefficient
# [s] physics step: finer steps make a run take days (the same range as
# ``gaitforge.sim.physics.TIMESTEP_RANGE``, which a user's --timestep is held to).
TIMESTEP = (1e-5, 0.05)
# MuJoCo's compiler takes ~5 s for a 1000-body chain here and the dense modal
# eigensolver grows with the cube of the DOFs: larger creatures get a clear limit.
MAX_BONES = 1000
MAX_DOFS = 3000


def check_finite(path: str, value: float, *, positive: bool = False, nonneg: bool = False,
                 span: tuple[float, float] | None = None, reach: float | None = None) -> None:
    """Raise :class:`SpecError` at ``path`` unless ``value`` is a finite number
    (not a bool), positive / not negative, within ``span`` or within ±``reach``
    as asked."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise SpecError(path, f"must be a finite number, got {brief(value)}")
    if positive and value <= 0:
        raise SpecError(path, f"must be positive, got {brief(value)}")
    if nonneg and value < 0:
        raise SpecError(path, f"must not be negative, got {brief(value)}")
    if span is not None and not span[0] <= value <= span[1]:
        raise SpecError(path, f"must be from {span[0]:g} to {span[1]:g}, got {brief(value)}")
    if reach is not None and abs(value) > reach:
        raise SpecError(path, f"must be within ±{reach:g}, got {brief(value)}")


def check_vector(path: str, value, n: int, *, positive: bool = False, nonneg: bool = False,
                 span: tuple[float, float] | None = None, reach: float | None = None) -> None:
    """Raise :class:`SpecError` unless ``value`` is a tuple of ``n`` numbers,
    each passing :func:`check_finite` (its path ``path[i]``)."""
    if not isinstance(value, tuple) or len(value) != n:
        raise SpecError(path, f"must be a list of {n} numbers, got {brief(value)}")
    for i, v in enumerate(value):
        check_finite(f"{path}[{i}]", v, positive=positive, nonneg=nonneg, span=span, reach=reach)


def check_choice(path: str, value, choices: tuple[str, ...], what: str) -> None:
    """Raise :class:`SpecError` unless ``value`` is one of ``choices`` (a ``what``)."""
    if value not in choices:
        raise SpecError(path, f"unknown {what} {brief(value)} (choose from {', '.join(choices)})")


def check_unit_quat(path: str, q) -> None:
    """Raise :class:`SpecError` unless ``q`` is a unit quaternion (w, x, y, z) to 1e-6."""
    check_vector(path, q, 4)
    norm = math.sqrt(sum(c * c for c in q))
    if abs(norm - 1.0) > 1e-6:
        raise SpecError(path, f"must be a unit quaternion (w, x, y, z), got norm {norm:.6g}")


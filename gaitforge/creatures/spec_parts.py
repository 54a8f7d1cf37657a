"""The parts of a creature description (:mod:`creatures.spec`): a bone (its
shapes, explicit mass properties and joint), a ground contact point, an extra
constraint and a coupling spring. Each is a frozen dataclass whose
``validate(path)`` checks its own fields (:mod:`creatures.spec_checks`);
the whole creature's checks across parts are :class:`CreatureSpec`'s.
Conventions as in :mod:`creatures.spec` (SI units, quaternions w, x, y, z)."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from gaitforge.creatures.spec_checks import (
    ARMATURE,
    COEFFICIENT,
    CONSTRAINT_KINDS,
    DAMPING,
    INERTIA,
    STIFFNESS,
    DENSITY,
    IDENTITY_QUAT,
    JOINT_TYPES,
    LIMBS,
    MASS,
    REACH,
    ROLES,
    SHAPE_KINDS,
    SIDES,
    SIZE,
    WATER_DENSITY,
    ZERO3,
    Quat,
    Vec3,
    check_choice,
    check_finite,
    check_unit_quat,
    check_vector,
)
from gaitforge.errors import SpecError, brief


@dataclass(frozen=True)
class Shape:
    """One collision/visual primitive of a bone, in the bone frame.

    kind: ``capsule`` (``radius`` + ``fromto`` end points, m), ``box`` (``half_sizes``,
    m), ``sphere`` (``radius``), ``ellipsoid`` (``radii``). Boxes, spheres and
    ellipsoids are centred at ``pos`` and turned by ``quat`` (w, x, y, z).
    """

    kind: str
    radius: float | None = None
    fromto: tuple[float, ...] | None = None
    half_sizes: Vec3 | None = None
    radii: Vec3 | None = None
    pos: Vec3 = ZERO3
    quat: Quat = IDENTITY_QUAT
    contact: bool = True

    def validate(self, path: str) -> None:
        check_choice(f"{path}.kind", self.kind, SHAPE_KINDS, "shape kind")
        check_vector(f"{path}.pos", self.pos, 3, reach=REACH)
        check_unit_quat(f"{path}.quat", self.quat)
        need = {"capsule": ("radius", "fromto"), "sphere": ("radius",),
                "box": ("half_sizes",), "ellipsoid": ("radii",)}[self.kind]
        for name in ("radius", "fromto", "half_sizes", "radii"):
            value = getattr(self, name)
            if name in need and value is None:
                raise SpecError(f"{path}.{name}", f"is required for a {self.kind}")
            if name not in need and value is not None:
                raise SpecError(f"{path}.{name}", f"does not apply to a {self.kind}")
        if self.radius is not None:
            check_finite(f"{path}.radius", self.radius, positive=True, span=SIZE)
        if self.fromto is not None:
            check_vector(f"{path}.fromto", self.fromto, 6, reach=REACH)
            a, b = self.fromto[:3], self.fromto[3:]
            if math.dist(a, b) <= 0:
                raise SpecError(f"{path}.fromto", "end points must differ")
            if self.pos != ZERO3 or self.quat != IDENTITY_QUAT:
                raise SpecError(f"{path}.pos", "a capsule is placed by fromto alone")
        if self.half_sizes is not None:
            check_vector(f"{path}.half_sizes", self.half_sizes, 3, positive=True, span=SIZE)
        if self.radii is not None:
            check_vector(f"{path}.radii", self.radii, 3, positive=True, span=SIZE)


@dataclass(frozen=True)
class Inertial:
    """Explicit mass properties of a bone: mass [kg], centre of mass in the bone
    frame [m], principal moments about the centre of mass [kg m^2] along axes
    turned by ``quat`` from the bone frame."""

    mass: float
    com: Vec3 = ZERO3
    inertia: Vec3 = (0.0, 0.0, 0.0)
    quat: Quat = IDENTITY_QUAT

    def validate(self, path: str) -> None:
        check_finite(f"{path}.mass", self.mass, positive=True, span=MASS)
        check_vector(f"{path}.com", self.com, 3, reach=REACH)
        check_vector(f"{path}.inertia", self.inertia, 3, nonneg=True, span=INERTIA)
        check_unit_quat(f"{path}.quat", self.quat)
        a, b, c = self.inertia
        if a + b < c - 1e-12 or b + c < a - 1e-12 or a + c < b - 1e-12:
            raise SpecError(f"{path}.inertia", f"violates the triangle inequality: {brief(self.inertia)}")


@dataclass(frozen=True)
class Joint:
    """The joint that attaches a bone to its parent, at the bone frame origin.

    type: ``free`` (root only, 6 DOF), ``planar`` (root only: slide x, slide z,
    hinge y — the sagittal plane), ``hinge`` / ``slide`` (1 DOF about / along
    ``axis`` in the bone frame), ``ball`` (3 DOF), ``fixed`` (welded).
    stiffness: N m/rad (hinge), N/m (slide), one value or three per local axis
    x, y, z (ball; unequal values compile as three hinges). damping: N m s/rad or
    N s/m. rest: the spring's rest value relative to the placed pose (rad, m; a
    rotation vector for ball). range: (lo, hi) limits (rad or m; ball: (0, max angle)).
    """

    type: str = "hinge"
    axis: Vec3 = (0.0, 1.0, 0.0)
    stiffness: float | Vec3 = 0.0
    damping: float = 0.0
    rest: float | Vec3 = 0.0
    range: tuple[float, float] | None = None
    armature: float = 0.0

    @property
    def ndof(self) -> int:
        return {"free": 6, "planar": 3, "hinge": 1, "slide": 1, "ball": 3, "fixed": 0}[self.type]

    def validate(self, path: str) -> None:
        check_choice(f"{path}.type", self.type, JOINT_TYPES, "joint type")
        check_vector(f"{path}.axis", self.axis, 3)
        if math.hypot(*self.axis) < 1e-9:
            raise SpecError(f"{path}.axis", f"must be a nonzero vector, got {brief(self.axis)}")
        if self.type == "ball":
            if isinstance(self.stiffness, tuple):
                check_vector(f"{path}.stiffness", self.stiffness, 3, nonneg=True, span=STIFFNESS)
            else:
                check_finite(f"{path}.stiffness", self.stiffness, nonneg=True, span=STIFFNESS)
            if isinstance(self.rest, tuple):
                check_vector(f"{path}.rest", self.rest, 3)
            else:
                check_finite(f"{path}.rest", self.rest)
                if self.rest != 0:
                    raise SpecError(f"{path}.rest", "a ball joint's rest is a rotation vector of 3 numbers")
        else:
            if isinstance(self.stiffness, tuple):
                raise SpecError(f"{path}.stiffness",
                                f"one value per axis applies to ball joints only, got {brief(self.stiffness)}")
            check_finite(f"{path}.stiffness", self.stiffness, nonneg=True, span=STIFFNESS)
            if isinstance(self.rest, tuple):
                raise SpecError(f"{path}.rest", f"must be one number for a {self.type} joint, got {brief(self.rest)}")
            check_finite(f"{path}.rest", self.rest)
        check_finite(f"{path}.damping", self.damping, nonneg=True, span=DAMPING)
        check_finite(f"{path}.armature", self.armature, nonneg=True, span=ARMATURE)
        if self.range is not None:
            check_vector(f"{path}.range", self.range, 2)
            if self.range[0] >= self.range[1]:
                raise SpecError(f"{path}.range", f"lower limit must be below upper limit, got {brief(self.range)}")
            if self.type in ("free", "planar", "fixed"):
                raise SpecError(f"{path}.range", f"limits do not apply to a {self.type} joint")

    @property
    def stiffness3(self) -> Vec3:
        """Stiffness per local axis (ball joints), or the scalar three times."""
        s = self.stiffness
        return s if isinstance(s, tuple) else (float(s),) * 3


@dataclass(frozen=True)
class Bone:
    """A rigid body: its place in the tree, its shapes, mass and labels.

    Mass: ``inertial`` if given (exact values, e.g. from a paper's table);
    else ``mass`` [kg] spread over the shapes by volume; else ``density``
    [kg/m^3] (water by default).
    """

    name: str
    parent: str | None
    shapes: tuple[Shape, ...]
    joint: Joint = field(default_factory=Joint)
    pos: Vec3 = ZERO3
    quat: Quat = IDENTITY_QUAT
    density: float = WATER_DENSITY
    mass: float | None = None
    inertial: Inertial | None = None
    side: str = "center"
    role: str | None = None
    limb: str | None = None
    rgba: tuple[float, float, float, float] | None = None

    def validate(self, path: str) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError(f"{path}.name", f"must be a non-empty string, got {brief(self.name)}")
        check_vector(f"{path}.pos", self.pos, 3, reach=REACH)
        check_unit_quat(f"{path}.quat", self.quat)
        check_finite(f"{path}.density", self.density, positive=True, span=DENSITY)
        if self.mass is not None:
            check_finite(f"{path}.mass", self.mass, positive=True, span=MASS)
        if self.inertial is not None:
            self.inertial.validate(f"{path}.inertial")
            point = sorted(self.inertial.inertia)[1] <= 0  # a point mass (or a rod: one zero moment is fine)
            if point and (self.parent is None or not any(self.inertial.com)):
                raise SpecError(f"{path}.inertial.inertia",
                                f"two or more principal moments are zero, got {brief(self.inertial.inertia)}: a "
                                "point mass has no inertia to turn " + ("as the root" if self.parent is None else
                                                                        "at its joint (give it a com away from it)"))
        if not self.shapes and self.inertial is None:
            raise SpecError(f"{path}.shapes", "a bone needs at least one shape (or explicit inertial)")
        for i, s in enumerate(self.shapes):
            s.validate(f"{path}.shapes[{i}]")
        if self.inertial is None and self.mass is None:

            mass = self.density * sum(shape_volume(s) for s in self.shapes)
            if not MASS[0] <= mass <= MASS[1]:
                raise SpecError(f"{path}.density", f"makes the bone weigh {mass:.3g} kg (density × the shapes' "
                                                   f"volume), outside {MASS[0]:g} … {MASS[1]:g} kg")
        self.joint.validate(f"{path}.joint")
        check_choice(f"{path}.side", self.side, SIDES, "side")
        if self.role is not None:
            check_choice(f"{path}.role", self.role, ROLES, "role")
        if self.limb is not None:
            check_choice(f"{path}.limb", self.limb, LIMBS, "limb")
        if self.rgba is not None:
            check_vector(f"{path}.rgba", self.rgba, 4, nonneg=True)
        if self.parent is None and self.joint.type not in ("free", "planar", "fixed"):
            raise SpecError(f"{path}.joint.type",
                            f"the root bone needs a free, planar or fixed joint, got {brief(self.joint.type)}")
        if self.parent is not None and self.joint.type in ("free", "planar"):
            raise SpecError(f"{path}.joint.type", f"only the root bone may have a {self.joint.type} joint")


@dataclass(frozen=True)
class ContactPoint:
    """A named point of a bone [m, bone frame] that touches the ground (a foot sole,
    a knuckle). Compiled as a MuJoCo site."""

    name: str
    bone: str
    pos: Vec3 = ZERO3

    def validate(self, path: str) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError(f"{path}.name", f"must be a non-empty string, got {brief(self.name)}")
        check_vector(f"{path}.pos", self.pos, 3, reach=REACH)


@dataclass(frozen=True)
class Constraint:
    """An extra bilateral constraint (Kry09 §3.1), beyond the tree's joints.

    kind ``loop``: ``point`` of ``bone`` (bone frame) coincides with the same
    world point on ``other``; with ``axis`` (bone frame) the closure is a hinge
    (5 rows) and ``stiffness`` [N m/rad] springs it, else a ball (3 rows).
    kind ``lock``: the orientation of ``bone`` is fixed in the world (3 rows).
    kind ``pin``: ``point`` of ``bone`` is fixed in the world (3 rows).
    ``simulate``: also enforce it in MuJoCo (an equality constraint);
    otherwise it only shapes the modal analysis.
    """

    name: str
    kind: str
    bone: str
    other: str | None = None
    point: Vec3 = ZERO3
    axis: Vec3 | None = None
    stiffness: float = 0.0
    simulate: bool = False

    def validate(self, path: str) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError(f"{path}.name", f"must be a non-empty string, got {brief(self.name)}")
        check_choice(f"{path}.kind", self.kind, CONSTRAINT_KINDS, "constraint kind")
        check_vector(f"{path}.point", self.point, 3, reach=REACH)
        check_finite(f"{path}.stiffness", self.stiffness, nonneg=True, span=STIFFNESS)
        if self.kind == "loop" and self.other is None:
            raise SpecError(f"{path}.other", "a loop constraint needs the other bone")
        if self.kind != "loop" and self.other is not None:
            raise SpecError(f"{path}.other",
                            f"a {self.kind} constraint ties a bone to the world, not to {brief(self.other)}")
        if self.axis is not None:
            check_vector(f"{path}.axis", self.axis, 3)
            if self.kind != "loop":
                raise SpecError(f"{path}.axis", "an axis applies to loop constraints only")
        if self.stiffness and self.axis is None:
            raise SpecError(f"{path}.stiffness", "a spring needs the closure axis")


@dataclass(frozen=True)
class CouplingSpring:
    """A spring on a linear combination of joint coordinates:
    energy ½ k (Σ cᵢ qᵢ − rest)². Compiled as a MuJoCo fixed tendon.
    Used e.g. for the closing hinge of a planar ring, whose angle is minus the
    sum of the others."""

    name: str
    joints: tuple[tuple[str, float], ...]
    stiffness: float
    rest: float = 0.0

    def validate(self, path: str) -> None:
        if not self.joints:
            raise SpecError(f"{path}.joints", "needs at least one joint")
        for i, (_, c) in enumerate(self.joints):
            check_finite(f"{path}.joints[{i}]", c, reach=COEFFICIENT)
        check_finite(f"{path}.stiffness", self.stiffness, nonneg=True, span=STIFFNESS)
        check_finite(f"{path}.rest", self.rest)


def shape_volume(s: Shape) -> float:
    """Volume [m³] of one primitive (a capsule: its cylinder and two half spheres)."""
    if s.kind == "sphere":
        assert s.radius is not None  # validated shapes carry their kind's sizes
        return 4.0 / 3.0 * np.pi * s.radius ** 3
    if s.kind == "ellipsoid":
        assert s.radii is not None
        return 4.0 / 3.0 * np.pi * float(np.prod(s.radii))
    if s.kind == "box":
        assert s.half_sizes is not None
        return 8.0 * float(np.prod(s.half_sizes))
    assert s.fromto is not None and s.radius is not None
    length = float(np.linalg.norm(np.subtract(s.fromto[3:], s.fromto[:3])))
    r = s.radius
    return np.pi * r * r * length + 4.0 / 3.0 * np.pi * r ** 3

"""The creature description: a frozen, validated tree of rigid bones and elastic joints.

Conventions: SI units (m, kg, s), z up, x forward, y left, angles in radians,
quaternions ordered w, x, y, z. A bone's frame sits at its joint; ``pos`` and
``quat`` place that frame in the parent bone's frame (the world for the root).
The pose the bones are placed in is the *rest pose*: every joint spring pulls
toward it (plus the joint's optional ``rest`` offset).

Validation happens on construction and raises :class:`SpecError` with the
field path (``bones[3].joint.type``) so that file loaders only need to add the
file name.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
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
# MuJoCo's compiler takes ~5 s for a 1000-body chain here and the dense modal
# eigensolver grows with the cube of the DOFs: larger creatures get a clear limit.
MAX_BONES = 1000


def _finite(path: str, value: float, *, positive: bool = False, nonneg: bool = False,
            span: tuple[float, float] | None = None, reach: float | None = None) -> None:
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


def _vector(path: str, value, n: int, *, positive: bool = False, nonneg: bool = False,
            span: tuple[float, float] | None = None, reach: float | None = None) -> None:
    if not isinstance(value, tuple) or len(value) != n:
        raise SpecError(path, f"must be a list of {n} numbers, got {brief(value)}")
    for i, v in enumerate(value):
        _finite(f"{path}[{i}]", v, positive=positive, nonneg=nonneg, span=span, reach=reach)


def _choice(path: str, value, choices: tuple[str, ...], what: str) -> None:
    if value not in choices:
        raise SpecError(path, f"unknown {what} {brief(value)} (choose from {', '.join(choices)})")


def _unit_quat(path: str, q) -> None:
    _vector(path, q, 4)
    norm = math.sqrt(sum(c * c for c in q))
    if abs(norm - 1.0) > 1e-6:
        raise SpecError(path, f"must be a unit quaternion (w, x, y, z), got norm {norm:.6g}")


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
        _choice(f"{path}.kind", self.kind, SHAPE_KINDS, "shape kind")
        _vector(f"{path}.pos", self.pos, 3, reach=REACH)
        _unit_quat(f"{path}.quat", self.quat)
        need = {"capsule": ("radius", "fromto"), "sphere": ("radius",),
                "box": ("half_sizes",), "ellipsoid": ("radii",)}[self.kind]
        for name in ("radius", "fromto", "half_sizes", "radii"):
            value = getattr(self, name)
            if name in need and value is None:
                raise SpecError(f"{path}.{name}", f"is required for a {self.kind}")
            if name not in need and value is not None:
                raise SpecError(f"{path}.{name}", f"does not apply to a {self.kind}")
        if self.radius is not None:
            _finite(f"{path}.radius", self.radius, positive=True, span=SIZE)
        if self.fromto is not None:
            _vector(f"{path}.fromto", self.fromto, 6, reach=REACH)
            a, b = self.fromto[:3], self.fromto[3:]
            if math.dist(a, b) <= 0:
                raise SpecError(f"{path}.fromto", "end points must differ")
            if self.pos != ZERO3 or self.quat != IDENTITY_QUAT:
                raise SpecError(f"{path}.pos", "a capsule is placed by fromto alone")
        if self.half_sizes is not None:
            _vector(f"{path}.half_sizes", self.half_sizes, 3, positive=True, span=SIZE)
        if self.radii is not None:
            _vector(f"{path}.radii", self.radii, 3, positive=True, span=SIZE)


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
        _finite(f"{path}.mass", self.mass, positive=True, span=MASS)
        _vector(f"{path}.com", self.com, 3, reach=REACH)
        _vector(f"{path}.inertia", self.inertia, 3, nonneg=True)
        _unit_quat(f"{path}.quat", self.quat)
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
        _choice(f"{path}.type", self.type, JOINT_TYPES, "joint type")
        _vector(f"{path}.axis", self.axis, 3)
        if math.hypot(*self.axis) < 1e-9:
            raise SpecError(f"{path}.axis", f"must be a nonzero vector, got {brief(self.axis)}")
        if self.type == "ball":
            if isinstance(self.stiffness, tuple):
                _vector(f"{path}.stiffness", self.stiffness, 3, nonneg=True)
            else:
                _finite(f"{path}.stiffness", self.stiffness, nonneg=True)
            if isinstance(self.rest, tuple):
                _vector(f"{path}.rest", self.rest, 3)
            else:
                _finite(f"{path}.rest", self.rest)
                if self.rest != 0:
                    raise SpecError(f"{path}.rest", "a ball joint's rest is a rotation vector of 3 numbers")
        else:
            if isinstance(self.stiffness, tuple):
                raise SpecError(f"{path}.stiffness",
                                f"one value per axis applies to ball joints only, got {brief(self.stiffness)}")
            _finite(f"{path}.stiffness", self.stiffness, nonneg=True)
            if isinstance(self.rest, tuple):
                raise SpecError(f"{path}.rest", f"must be one number for a {self.type} joint, got {brief(self.rest)}")
            _finite(f"{path}.rest", self.rest)
        _finite(f"{path}.damping", self.damping, nonneg=True)
        _finite(f"{path}.armature", self.armature, nonneg=True)
        if self.range is not None:
            _vector(f"{path}.range", self.range, 2)
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
        _vector(f"{path}.pos", self.pos, 3, reach=REACH)
        _unit_quat(f"{path}.quat", self.quat)
        _finite(f"{path}.density", self.density, positive=True, span=DENSITY)
        if self.mass is not None:
            _finite(f"{path}.mass", self.mass, positive=True, span=MASS)
        if self.inertial is not None:
            self.inertial.validate(f"{path}.inertial")
        if not self.shapes and self.inertial is None:
            raise SpecError(f"{path}.shapes", "a bone needs at least one shape (or explicit inertial)")
        for i, s in enumerate(self.shapes):
            s.validate(f"{path}.shapes[{i}]")
        self.joint.validate(f"{path}.joint")
        _choice(f"{path}.side", self.side, SIDES, "side")
        if self.role is not None:
            _choice(f"{path}.role", self.role, ROLES, "role")
        if self.limb is not None:
            _choice(f"{path}.limb", self.limb, LIMBS, "limb")
        if self.rgba is not None:
            _vector(f"{path}.rgba", self.rgba, 4, nonneg=True)
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
        _vector(f"{path}.pos", self.pos, 3, reach=REACH)


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
        _choice(f"{path}.kind", self.kind, CONSTRAINT_KINDS, "constraint kind")
        _vector(f"{path}.point", self.point, 3)
        _finite(f"{path}.stiffness", self.stiffness, nonneg=True)
        if self.kind == "loop" and self.other is None:
            raise SpecError(f"{path}.other", "a loop constraint needs the other bone")
        if self.kind != "loop" and self.other is not None:
            raise SpecError(f"{path}.other",
                            f"a {self.kind} constraint ties a bone to the world, not to {brief(self.other)}")
        if self.axis is not None:
            _vector(f"{path}.axis", self.axis, 3)
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
            _finite(f"{path}.joints[{i}]", c)
        _finite(f"{path}.stiffness", self.stiffness, nonneg=True)
        _finite(f"{path}.rest", self.rest)


@dataclass(frozen=True)
class CreatureSpec:
    """A whole creature. ``bones[0]`` is the root; parents come before children.

    friction: sliding friction coefficient against the ground.
    ground_clearance: after compiling, the root is lifted or lowered so the
    lowest point of the rest pose sits this high above the ground [m]
    (``None`` keeps the root where ``bones[0].pos`` puts it).
    contact_pairs: collide the contact shapes with the ground through one
    explicit MuJoCo geom pair each instead of collision filtering. The
    contacts are the same; MuJoCo skips its broad phase, which is a sizeable
    share of a step for creatures with a few contact shapes (the RH91 robots).
    """

    name: str
    bones: tuple[Bone, ...]
    contacts: tuple[ContactPoint, ...] = ()
    constraints: tuple[Constraint, ...] = ()
    springs: tuple[CouplingSpring, ...] = ()
    description: str = ""
    friction: float = 1.0
    ground_clearance: float | None = 0.0
    timestep: float = 0.002
    contact_pairs: bool = False

    def __post_init__(self) -> None:
        self.validate()

    def bone(self, name: str) -> Bone:
        for b in self.bones:
            if b.name == name:
                return b
        raise KeyError(name)

    @property
    def bone_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.bones)

    def validate(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise SpecError("name", f"must be a non-empty string, got {brief(self.name)}")
        _finite("friction", self.friction, positive=True)
        _finite("timestep", self.timestep, positive=True)
        if not isinstance(self.contact_pairs, bool):
            raise SpecError("contact_pairs", f"must be true or false, got {brief(self.contact_pairs)}")
        if self.ground_clearance is not None:
            _finite("ground_clearance", self.ground_clearance)
        if not self.bones:
            raise SpecError("bones", "a creature needs at least one bone")
        if len(self.bones) > MAX_BONES:
            raise SpecError("bones", f"at most {MAX_BONES} bones are supported, got {len(self.bones)}")
        seen: dict[str, int] = {}
        for i, b in enumerate(self.bones):
            path = f"bones[{i}]"
            b.validate(path)
            if b.name in seen:
                raise SpecError(f"{path}.name", f"duplicate bone name {brief(b.name)} (also bones[{seen[b.name]}])")
            seen[b.name] = i
        roots = [i for i, b in enumerate(self.bones) if b.parent is None]
        if roots != [0]:
            where = f"bones[{roots[1] if len(roots) > 1 and roots[0] == 0 else roots[0]}]" if roots else "bones"
            raise SpecError(f"{where}.parent",
                            "exactly one root bone (parent: null) is allowed, and it must come first")
        names = set(seen)
        for i, b in enumerate(self.bones[1:], start=1):
            if b.parent not in names:
                raise SpecError(f"bones[{i}].parent", f"unknown parent bone {brief(b.parent)}")
        # Cycles: every chain of parents must reach the root. Bones already
        # known to reach it end a walk, so the check is linear in the bones.
        parent = {b.name: b.parent for b in self.bones}
        rooted: set[str] = set()
        for i, b in enumerate(self.bones):
            chain: list[str] = []
            on_chain: set[str] = set()
            node: str | None = b.name
            while node is not None and node not in rooted:
                if node in on_chain:
                    raise SpecError(f"bones[{i}].parent", f"cycle in the bone tree: {' -> '.join(chain + [node])}")
                chain.append(node)
                on_chain.add(node)
                node = parent[node]
            rooted.update(chain)
        order = {n: i for i, n in enumerate(seen)}
        for i, b in enumerate(self.bones[1:], start=1):
            if b.parent is not None and order[b.parent] > i:  # (parents checked above: never None here)
                raise SpecError(f"bones[{i}].parent", f"parent {brief(b.parent)} must come before its child")
        self._validate_refs(names, seen)

    def _validate_refs(self, names: set[str], seen: dict[str, int]) -> None:
        def bone_ref(path: str, name) -> None:
            if name not in names:
                raise SpecError(path, f"unknown bone {brief(name)}")

        cnames: set[str] = set()
        for i, c in enumerate(self.contacts):
            c.validate(f"contacts[{i}]")
            bone_ref(f"contacts[{i}].bone", c.bone)
            if c.name in cnames:
                raise SpecError(f"contacts[{i}].name", f"duplicate contact point name {brief(c.name)}")
            cnames.add(c.name)
        knames: set[str] = set()
        for i, con in enumerate(self.constraints):
            con.validate(f"constraints[{i}]")
            bone_ref(f"constraints[{i}].bone", con.bone)
            if con.other is not None:
                bone_ref(f"constraints[{i}].other", con.other)
                if con.other == con.bone:
                    raise SpecError(f"constraints[{i}].other",
                                    f"a loop needs two different bones, got {brief(con.other)} twice")
            if con.name in knames:
                raise SpecError(f"constraints[{i}].name", f"duplicate constraint name {brief(con.name)}")
            knames.add(con.name)
        hinge_like = {b.name for b in self.bones if b.joint.type in ("hinge", "slide")}
        for i, s in enumerate(self.springs):
            s.validate(f"springs[{i}]")
            for j, (jn, _) in enumerate(s.joints):
                if jn not in hinge_like:
                    raise SpecError(f"springs[{i}].joints[{j}]",
                                    f"unknown hinge or slide joint {brief(jn)} (joints are named after their bone)")

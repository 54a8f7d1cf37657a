"""The creature description: a frozen, validated tree of rigid bones and elastic joints.

Conventions: SI units (m, kg, s), z up, x forward, y left, angles in radians,
quaternions ordered w, x, y, z. A bone's frame sits at its joint; ``pos`` and
``quat`` place that frame in the parent bone's frame (the world for the root).
The pose the bones are placed in is the *rest pose*: every joint spring pulls
toward it (plus the joint's optional ``rest`` offset).

Validation happens on construction and raises :class:`SpecError` with the
field path (``bones[3].joint.type``) so that file loaders only need to add the
file name.

Modules: this one holds :class:`CreatureSpec` (the whole creature and the
checks across its parts); the parts (:class:`Bone`, :class:`Shape`,
:class:`Joint`, ...) are in :mod:`creatures.spec_parts`, the vocabulary,
ranges and field checks in :mod:`creatures.spec_checks` (all re-exported here).
"""
from __future__ import annotations

from dataclasses import dataclass

from gaitforge.creatures.spec_checks import (
    CONSTRAINT_KINDS,
    DENSITY,
    FRICTION,
    IDENTITY_QUAT,
    JOINT_TYPES,
    LIMBS,
    MASS,
    MAX_BONES,
    MAX_DOFS,
    REACH,
    ROLES,
    SHAPE_KINDS,
    SIDES,
    SIZE,
    TIMESTEP,
    WATER_DENSITY,
    ZERO3,
    Quat,
    Vec3,
    check_finite,
    quat4,
    vec3,
)
from gaitforge.creatures.spec_parts import Bone, Constraint, ContactPoint, CouplingSpring, Inertial, Joint, Shape
from gaitforge.errors import SpecError, brief

__all__ = ["CONSTRAINT_KINDS", "DENSITY", "FRICTION", "IDENTITY_QUAT", "JOINT_TYPES", "LIMBS", "MASS", "MAX_BONES",
           "MAX_DOFS", "REACH", "ROLES", "SHAPE_KINDS", "SIDES", "SIZE", "TIMESTEP", "WATER_DENSITY", "ZERO3", "Bone",
           "Constraint", "ContactPoint", "CouplingSpring", "CreatureSpec", "Inertial", "Joint", "Quat", "Shape",
           "SpecError", "Vec3", "quat4", "vec3"]


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
        check_finite("friction", self.friction, positive=True, span=FRICTION)
        check_finite("timestep", self.timestep, positive=True, span=TIMESTEP)
        if not isinstance(self.contact_pairs, bool):
            raise SpecError("contact_pairs", f"must be true or false, got {brief(self.contact_pairs)}")
        if self.ground_clearance is not None:
            check_finite("ground_clearance", self.ground_clearance)
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
        dofs = sum(b.joint.ndof for b in self.bones)
        if dofs > MAX_DOFS:
            raise SpecError("bones", f"the joints have {dofs} degrees of freedom; at most {MAX_DOFS} are supported")
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

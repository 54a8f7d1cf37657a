"""Creatures: the validated description, its compilation to MuJoCo, the
runtime :class:`Character`, and the built-in menagerie."""
from gaitforge.creatures.character import BodyLabel, Character, JointDofs
from gaitforge.creatures.registry import build as build_builtin, names as builtin_names
from gaitforge.creatures.serialize import spec_from_dict, spec_to_dict
from gaitforge.creatures.spec import (
    Bone, Constraint, ContactPoint, CouplingSpring, CreatureSpec, Inertial, Joint, Shape,
)

__all__ = ["BodyLabel", "Bone", "Character", "Constraint", "ContactPoint", "CouplingSpring",
           "CreatureSpec", "Inertial", "Joint", "JointDofs", "Shape", "build_builtin",
           "builtin_names", "spec_from_dict", "spec_to_dict"]

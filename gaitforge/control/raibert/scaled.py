"""Dynamic scaling of a creature and its controller by a length factor L
(Raibert & Hodgins 1991, Table 1; exponents in ``scaling.EXPONENTS``).

Geometric similarity with gravity unchanged: lengths × L, masses × L³,
moments of inertia × L⁵, torsional springs × L⁴ and dampers × L^4.5, linear
springs × L² and dampers × L^2.5, times × √L. Scaling a ``CreatureSpec``,
the MuJoCo contact parameters that carry units, and the controller's gains
(each gains field names its quantity in ``metadata["quantity"]``) gives a
creature that hops L times as high, √L times as fast, at 1/√L the cadence.
"""
from __future__ import annotations

import dataclasses
import math
from typing import cast

import mujoco

from gaitforge.control.raibert.kangaroo import KangarooGains, KangarooHop
from gaitforge.control.raibert.scaling import factor, scale_gains  # noqa: F401 (re-exported)
from gaitforge.creatures.builders.raibert import raibert_kangaroo
from gaitforge.creatures.character import Character
from gaitforge.creatures.contacts import scale_contact_lengths
from gaitforge.creatures.spec import Bone, CreatureSpec, Joint, Shape
from gaitforge.errors import GaitforgeError


def _vec(v, s: float):
    return None if v is None else tuple(float(x) * s for x in v)


def _shape(shape: Shape, L: float) -> Shape:
    return dataclasses.replace(
        shape, radius=None if shape.radius is None else shape.radius * L, fromto=_vec(shape.fromto, L),
        half_sizes=_vec(shape.half_sizes, L), radii=_vec(shape.radii, L), pos=_vec(shape.pos, L))


def _joint(joint: Joint, L: float) -> Joint:
    linear = joint.type == "slide"
    k = factor("stiffness" if linear else "torsional_stiffness", L)
    b = factor("damping" if linear else "torsional_damping", L)
    stiffness = _vec(joint.stiffness, k) if isinstance(joint.stiffness, tuple) else joint.stiffness * k
    return dataclasses.replace(
        joint, stiffness=stiffness, damping=joint.damping * b,
        rest=cast(float, joint.rest) * L if linear else joint.rest,  # (a slide rest is a length)
        range=_vec(joint.range, L) if linear else joint.range,
        armature=joint.armature * factor("mass" if linear else "inertia", L))


def _bone(bone: Bone, L: float) -> Bone:
    inertial = None if bone.inertial is None else dataclasses.replace(
        bone.inertial, mass=bone.inertial.mass * factor("mass", L), com=_vec(bone.inertial.com, L),
        inertia=_vec(bone.inertial.inertia, factor("inertia", L)))
    return dataclasses.replace(
        bone, shapes=tuple(_shape(s, L) for s in bone.shapes), joint=_joint(bone.joint, L),
        pos=_vec(bone.pos, L), mass=None if bone.mass is None else bone.mass * factor("mass", L),
        inertial=inertial)


def scale_spec(spec: CreatureSpec, L: float) -> CreatureSpec:
    """``spec`` scaled by length factor ``L`` (> 0) with Table 1: geometry,
    masses (explicit or from unchanged densities), inertias, joint springs,
    dampers, armatures, slide rests and limits, contact points, constraints,
    coupling springs, ground clearance and the physics timestep."""
    if not (isinstance(L, (int, float)) and math.isfinite(L) and L > 0):
        raise GaitforgeError(f"scale factor L must be a positive number, got {L!r}")
    kinds = {b.name: b.joint.type for b in spec.bones}
    springs = []
    for s in spec.springs:
        linear = {kinds[j] == "slide" for j, _ in s.joints}
        if len(linear) > 1:
            raise GaitforgeError(f"cannot scale coupling spring {s.name!r}: it mixes hinge and slide joints")
        lin = linear.pop()
        springs.append(dataclasses.replace(
            s, stiffness=s.stiffness * factor("stiffness" if lin else "torsional_stiffness", L),
            rest=s.rest * L if lin else s.rest))
    return dataclasses.replace(
        spec, name=f"{spec.name}_x{L:g}", bones=tuple(_bone(b, L) for b in spec.bones),
        contacts=tuple(dataclasses.replace(c, pos=_vec(c.pos, L)) for c in spec.contacts),
        constraints=tuple(dataclasses.replace(c, point=_vec(c.point, L),
                                              stiffness=c.stiffness * factor("torsional_stiffness", L))
                          for c in spec.constraints),
        springs=tuple(springs),
        ground_clearance=None if spec.ground_clearance is None else spec.ground_clearance * L,
        timestep=spec.timestep * factor("time", L))


def scale_model_contacts(model: mujoco.MjModel, L: float) -> None:
    """Scale, in place, the MuJoCo contact parameters that carry units: the
    solref time constants (× √L), the solimp transition width, margins and
    gaps, and the torsional and rolling friction lengths (× L)."""
    scale_contact_lengths(model, L, factor("time", L))


def scaled_kangaroo(L: float, gains: KangarooGains | None = None) -> tuple[Character, KangarooGains]:
    """The RH91 kangaroo and its hop gains, both scaled by ``L``."""
    character = Character.from_spec(scale_spec(raibert_kangaroo(), L))
    scale_model_contacts(character.model, L)
    return character, scale_gains(gains or KangarooGains(), L)


def scaled_hop(L: float, speed: float, gains: KangarooGains | None = None) -> tuple[Character, KangarooHop]:
    """The kangaroo scaled by ``L`` with its controller, asked to hop at the
    scaled speed ``speed`` × √L (``speed`` [m/s] is the unscaled one)."""
    character, g = scaled_kangaroo(L, gains)
    return character, KangarooHop(character, speed * factor("velocity", L), g)

"""Ad-hoc creatures and shared checks for the modal tests (test_modal_*.py)."""
from __future__ import annotations

import math

import numpy as np
import scipy.linalg

from gaitforge.creatures import Bone, ContactPoint, CouplingSpring, CreatureSpec, Inertial, Joint
from gaitforge.creatures.builders.kit import box, capsule, quat_axis_angle, sphere

G = 9.81


def pendulum(k: float = 0.0, mass: float = 2.0, length: float = 0.5, inertia=(0.01, 0.02, 0.03)) -> CreatureSpec:
    """A bob hanging ``length`` below a hinge about y on a base welded to the world.
    Inertia about the hinge: inertia[1] + mass length²."""
    base = Bone("base", None, (box((0.05, 0.05, 0.05)),), Joint("fixed"), pos=(0, 0, 2.0))
    bob = Bone("bob", "base", (), Joint("hinge", axis=(0, 1, 0), stiffness=k),
               inertial=Inertial(mass, com=(0, 0, -length), inertia=inertia))
    return CreatureSpec("pendulum", (base, bob), ground_clearance=None)


def blob() -> CreatureSpec:
    """One free box, 0.2 × 0.1 × 0.06 m, 1.2 kg."""
    return CreatureSpec("blob", (Bone("body", None, (box((0.1, 0.05, 0.03)),), Joint("free"), pos=(0, 0, 1)),),
                        ground_clearance=None)


def dumbbell(k: float = 2.0, m1=1.0, J1=0.02, d1=0.3, m2=0.5, J2=0.004, d2=0.1) -> CreatureSpec:
    """Two free-floating bodies joined by a hinge spring about y; the centres
    of mass lie on the x axis, ``d1`` behind and ``d2`` ahead of the hinge;
    J: centroidal inertia about y [kg m²]."""
    a = Bone("a", None, (), Joint("free"), pos=(0, 0, 1),
             inertial=Inertial(m1, com=(-d1, 0, 0), inertia=(J1, J1, J1)))
    b = Bone("b", "a", (), Joint("hinge", axis=(0, 1, 0), stiffness=k),
             inertial=Inertial(m2, com=(d2, 0, 0), inertia=(J2, J2, J2)))
    return CreatureSpec("dumbbell", (a, b), ground_clearance=None)


def zoo(root: str = "free") -> CreatureSpec:
    """Every joint kind: ball, gimbal (unequal ball stiffness, with rest),
    oblique hinge with rest and armature, slide, weld, a coupling spring,
    a turned root; contact sites on the hand and foot."""
    turn = quat_axis_angle((0, 0, 1), 0.3)
    bones = (
        Bone("trunk", None, (box((0.2, 0.08, 0.05)),), Joint(root), pos=(0, 0, 0.6), quat=turn, role="trunk"),
        Bone("neck", "trunk", (capsule((0, 0, 0), (0.1, 0, 0.05), 0.03),),
             Joint("ball", stiffness=2.0), pos=(0.2, 0, 0.03), role="neck"),
        Bone("head", "neck", (sphere(0.06, pos=(0.05, 0, 0)),),
             Joint("hinge", axis=(0, 1, 0), stiffness=1.5), pos=(0.1, 0, 0.05), role="head"),
        Bone("tail", "trunk", (capsule((0, 0, 0), (-0.2, 0, 0), 0.02),),
             Joint("ball", stiffness=(1.0, 2.0, 3.0), rest=(0.1, -0.2, 0.05)), pos=(-0.2, 0, 0), role="tail"),
        Bone("arm", "trunk", (capsule((0, 0, 0), (0, 0, -0.15), 0.025),),
             Joint("hinge", axis=(0.3, 0.8, 0.2), stiffness=4.0, rest=0.2, armature=0.001),
             pos=(0.15, 0.1, 0), side="left", role="shoulder"),
        Bone("forearm", "arm", (capsule((0, 0, 0), (0, 0, -0.12), 0.02),),
             Joint("slide", axis=(0, 0, 1), stiffness=60.0), pos=(0, 0, -0.15), side="left", role="elbow"),
        Bone("hand", "forearm", (box((0.03, 0.02, 0.01), pos=(0, 0, -0.01)),), Joint("fixed"),
             pos=(0, 0, -0.12), quat=quat_axis_angle((1, 0, 0), 0.4), side="left", role="hand"),
        Bone("leg", "trunk", (capsule((0, 0, 0), (0, 0, -0.2), 0.025),),
             Joint("hinge", axis=(0, 1, 0), stiffness=5.0), pos=(-0.15, -0.1, 0), side="right", role="hip"),
        Bone("shin", "leg", (capsule((0, 0, 0), (0.02, 0, -0.2), 0.02),),
             Joint("hinge", axis=(1, 0, 0), stiffness=3.0), pos=(0, 0, -0.2), side="right", role="knee"),
    )
    contacts = (ContactPoint("hand_tip", "hand", (0.0, 0.0, -0.02)), ContactPoint("foot", "shin", (0.02, 0, -0.2)),
                ContactPoint("foot_b", "shin", (0.0, 0, -0.2)))
    springs = (CouplingSpring("arm_leg", (("arm", 1.0), ("leg", -0.5)), 2.5),)
    return CreatureSpec(f"zoo_{root}", bones, contacts=contacts, springs=springs, ground_clearance=None)


def quadruped(right_knee_axis=(0.0, 1.0, 0.0)) -> CreatureSpec:
    """A left/right symmetric creature: hip roll (x) and pitch (y), knee (y;
    the right knee's axis may be given as −y), shoulders as ball joints, a
    tail about z and a neck about y. ``right_knee_axis`` (0, −1, 0) tests sign
    handling in the mirror map."""
    bones = [Bone("trunk", None, (box((0.25, 0.1, 0.06)),), Joint("free"), pos=(0, 0, 0.5), role="trunk"),
             Bone("neck", "trunk", (capsule((0, 0, 0), (0.12, 0, 0.08), 0.03),),
                  Joint("hinge", axis=(0, 1, 0), stiffness=6.0), pos=(0.25, 0, 0.03), role="neck"),
             Bone("tail", "trunk", (capsule((0, 0, 0), (-0.2, 0, 0.05), 0.015),),
                  Joint("hinge", axis=(0, 0, 1), stiffness=0.7), pos=(-0.25, 0, 0.03), role="tail")]
    for side, s in (("left", 1.0), ("right", -1.0)):
        knee = (0.0, 1.0, 0.0) if side == "left" else right_knee_axis
        bones += [
            Bone(f"{side}_hip", "trunk", (sphere(0.03),), Joint("hinge", axis=(1, 0, 0), stiffness=9.0),
                 pos=(-0.2, s * 0.1, -0.04), side=side, role="hip", limb="rear"),
            Bone(f"{side}_thigh", f"{side}_hip", (capsule((0, 0, 0), (0.03, 0, -0.18), 0.025),),
                 Joint("hinge", axis=(0, 1, 0), stiffness=7.0), pos=(0, 0, -0.02), side=side, role="knee",
                 limb="rear"),
            Bone(f"{side}_shin", f"{side}_thigh", (capsule((0, 0, 0), (-0.03, 0, -0.18), 0.02),),
                 Joint("hinge", axis=knee, stiffness=4.0), pos=(0.03, 0, -0.18), side=side, role="ankle",
                 limb="rear"),
            Bone(f"{side}_arm", "trunk", (capsule((0, 0, 0), (0, s * 0.02, -0.2), 0.025),),
                 Joint("ball", stiffness=5.0), pos=(0.2, s * 0.1, -0.04), side=side, role="shoulder",
                 limb="front"),
        ]
    contacts = tuple(ContactPoint(f"{side}_{part}", f"{side}_{part}", pos)
                     for side in ("left", "right") for part, pos in (("shin", (-0.03, 0, -0.18)),))
    return CreatureSpec("quadruped", tuple(bones), contacts=contacts, ground_clearance=None)


def frequency_groups(freq: np.ndarray, rtol: float = 1e-6) -> list[np.ndarray]:
    """Indices of modes grouped by (nearly) equal frequency."""
    groups, start = [], 0
    for i in range(1, len(freq) + 1):
        if i == len(freq) or abs(freq[i] - freq[i - 1]) > rtol * max(abs(freq[i]), 1e-12):
            groups.append(np.arange(start, i))
            start = i
    return groups


def max_subspace_angle(A: np.ndarray, B: np.ndarray) -> float:
    """Largest principal angle [rad] between span(A) and span(B)."""
    if A.shape[1] == 0 and B.shape[1] == 0:
        return 0.0
    return float(np.max(scipy.linalg.subspace_angles(A, B)))


def pendulum_frequency(k: float, mgd: float, inertia: float) -> float:
    """f [Hz] of a 1-DOF rotor: stiffness k + m g d over the inertia about the pivot."""
    return math.sqrt((k + mgd) / inertia) / (2.0 * math.pi)


def character_named(name: str):
    """A built-in creature, or one of dm_control's MJCF models (``dog.xml``,
    ``humanoid_CMU.xml``; the test is skipped without dm_control)."""
    import os
    import warnings

    import pytest

    from gaitforge.io.creature_files import load_character
    if not name.endswith(".xml"):
        return load_character(name)
    dm_control = pytest.importorskip("dm_control")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_character(os.path.join(os.path.dirname(dm_control.__file__), "suite", name))

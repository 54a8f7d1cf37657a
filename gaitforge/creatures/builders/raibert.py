"""The three creatures of Raibert & Hodgins 1991 (*Animation of Dynamic Legged
Locomotion*, SIGGRAPH), with the mass properties of their Table 3.

``TABLE3`` holds the table's numbers (masses [kg], link lengths [m] proximal
joint to distal joint, mass centres [m] from the proximal joint, diagonal
moments of inertia [kg m²] about the mass centre, and hip / head / tail
offsets [m] from the trunk mass centre). Every bone gets them through an
explicit :class:`Inertial`; shapes only serve contact and looks.

All three collide with the ground through explicit geom pairs
(``contact_pairs``): the same contacts, bit-identical runs, and 10-20 % less
time per physics step because MuJoCo skips its broad phase. The biped steps
at 1/300 s (three steps per 10 ms control tick): 60 s runs of every gait
every 0.25 m/s across its range hold their speed within 0.5 % at that step,
as at 2 ms (a 5 ms step loses the together-style gallop at 1.25 m/s).

Robots (rest pose: trunk level, legs hanging straight down, x forward):

- each leg is an ``upper_leg`` (the housing, ``role="hip"``) hung from the
  trunk at the hip, and a ``lower_leg`` (``role="foot"``) that telescopes along
  the leg axis on a sprung slide joint. The slide coordinate is the leg's change
  of length (positive = longer); the spring is relaxed at the table's total
  length, upper + lower link length (0.83 m biped, 0.81 m quadruped), and a
  sphere foot ends the leg exactly at that length (contact point at its tip).
- biped hips are ball joints (the paper's robot has ball-joint hips): 3 DOFs,
  nv = 6 + 2 × (3 + 1) = 14. Quadruped hips are gimbals: roll and pitch
  springs plus a stiff twist about the leg axis, compiled as three hinges
  (a 2-DOF joint would need an untabled gimbal-ring body): nv = 6 + 4 × 4 = 22.
  The quadruped legs' moment about their own axis is 0 in the table, so the
  hips carry a small armature (motor rotor inertia) to keep the twist DOF's
  inertia finite; body inertias stay the table's.
- leg springs come from Table 2's stance durations of the animated runs:
  k = m π² / T², m the mass one stance leg carries (biped run: all of it,
  T = 0.18 s; quadruped trot: half of it, T = 0.09 s), with 10 % of critical
  damping. Hip springs stand in for the hip servos (Eq. 5); 200 N m/rad
  because, measured over 2 s of MuJoCo after a 0.3 m/s sideways shove, the
  standing quadruped folds at 30 N m/rad, is marginal at 50, holds from 100 up.

Kangaroo (planar: root slides x, z and pitches about y; hinges about y):
trunk, thigh, shin, foot, tail1..3 and head: nv = 3 + 7 = 10. Each link's bone
frame has its +x axis along the link, from its proximal joint to the distal
one. The table gives one moment, about the axis normal to the sagittal plane:
it goes on y. The two out-of-plane moments never act (no joint turns about x
or z) but must form a valid tensor: each link is taken axisymmetric about its
own axis (the paper's links are cone frustums), so I_z = I_y and I_x = I_y / 10
(two "small" values would break the triangle inequality I_x + I_z >= I_y).
The head's mass centre, printed ".04, .04", is read as 0.04 m along the head
and 0.04 m above it. The offsets are [x z] in the trunk frame; the tail's is
printed "[.2 0]" but the tail leaves the rump, so it is read as 0.2 m behind
the mass centre (x = -0.2). The rest pose stands on the flat foot (toe and
heel contact points) with the whole-body mass centre over it. Springs: the
ankle is the energy store, k = M π² ℓ² / T² (M all mass, ℓ the foot length,
T = 0.11 s stance); each tail joint gives the tail beyond it the hopping
frequency 1 / 0.35 s (the paper tuned the tail to oscillate with the hop).
"""
from __future__ import annotations

import math
from types import MappingProxyType
from typing import NamedTuple

import numpy as np

from gaitforge.creatures.builders import kit
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Inertial, Joint


class Link(NamedTuple):
    """One row of Table 3: mass [kg]; diagonal moments [kg m²] about the mass
    centre, (Ixx, Iyy, Izz) for the 3D robots (z along the leg), a single
    sagittal moment for the kangaroo; length [m] proximal to distal joint; mass
    centre [m] from the proximal joint (the head's: along, above)."""

    mass: float
    inertia: tuple[float, ...]
    length: float | None = None
    mass_center: tuple[float, ...] | None = None


class Table3Creature(NamedTuple):
    links: MappingProxyType  # name -> Link
    offsets: MappingProxyType  # name -> (x, y, z) robots, (x, z) kangaroo [m] from trunk mass centre


TABLE3 = MappingProxyType({
    "biped": Table3Creature(MappingProxyType({
        "trunk": Link(23.1, (0.17, 0.17, 0.30)),
        "upper_leg": Link(1.4, (0.018, 0.017, 0.0014), 0.20, (0.095,)),
        "lower_leg": Link(0.64, (0.02, 0.02, 0.00018), 0.63, (0.22,)),
    }), MappingProxyType({"hip": (0.0, 0.072, 0.0)})),  # left hip; right is y = -0.072
    "quadruped": Table3Creature(MappingProxyType({
        "trunk": Link(10.0, (0.54, 2.35, 2.39)),
        "upper_leg": Link(1.5, (0.043, 0.043, 0.0), 0.41, (0.2,)),
        "lower_leg": Link(1.0, (0.0035, 0.0035, 0.0), 0.4, (0.2,)),
    }), MappingProxyType({"hip": (0.39, 0.12, 0.0)})),  # front left; signs give the others
    "kangaroo": Table3Creature(MappingProxyType({
        "trunk": Link(3.67, (0.034,)),
        "thigh": Link(1.62, (0.0039,), 0.13, (0.064,)),
        "shin": Link(0.60, (0.0033,), 0.26, (0.105,)),
        "foot": Link(0.14, (0.00038,), 0.174, (0.082,)),
        "tail1": Link(0.24, (0.00058,), 0.166, (0.079,)),
        "tail2": Link(0.14, (0.00033,), 0.166, (0.071,)),
        "tail3": Link(0.069, (0.00016,), 0.166, (0.076,)),
        "head": Link(0.33, (0.00046,), 0.13, (0.04, 0.04)),
    }), MappingProxyType({"hip": (-0.11, 0.0), "head": (0.21, 0.0),
                          "tail": (-0.2, 0.0)})),  # tail printed [.2 0]: see module docstring
})

# Table 2 (animated runs) [s]: stance durations and the kangaroo's stride.
BIPED_STANCE, QUADRUPED_TROT_STANCE, KANGAROO_STANCE, KANGAROO_STRIDE = 0.18, 0.09, 0.11, 0.35
LEG_DAMPING_RATIO = 0.1  # of critical, leg and tail springs
LEG_RANGE = (-0.20, 0.10)  # m: telescope stroke about the table length (shorten to clear the ground)
HIP_STIFFNESS, HIP_TWIST_STIFFNESS = 200.0, 20.0  # N m/rad (twist: quadruped gimbal only)
HIP_DAMPING, HIP_ARMATURE = 5.0, 1e-3  # N m s/rad, kg m²
FOOT_RADIUS = 0.025  # m, robot sphere feet
# Kangaroo rest pose: world pitch of each link's +x axis [rad] (about +y, so
# positive points it down): thigh forward-down, shin back-down, foot flat.
KANGAROO_POSE = MappingProxyType({"trunk": -0.30, "thigh": 0.90, "shin": 1.90, "foot": 0.0,
                                  "tail1": 2.95, "tail2": 2.80, "tail3": 2.65, "head": 0.45})
KANGAROO_SERVOS = MappingProxyType({  # (stiffness N m/rad, damping N m s/rad) of the joint servos
    "thigh": (40.0, 0.5), "shin": (40.0, 0.5), "head": (3.0, 0.03)})
KANGAROO_FOOT_RADIUS = 0.016  # m


def _sprung_leg_joint(stiffness: float, sprung_mass: float) -> Joint:
    damping = 2.0 * LEG_DAMPING_RATIO * math.sqrt(stiffness * sprung_mass)
    return Joint("slide", axis=(0.0, 0.0, -1.0), stiffness=stiffness, damping=damping, range=LEG_RANGE)


def _robot_leg(table: Table3Creature, prefix: str, hip, side: str, limb: str,
               hip_joint: Joint, leg_joint: Joint, radius: float) -> tuple[list[Bone], ContactPoint]:
    """Upper leg (hip housing) + telescoping lower leg with a sphere foot."""
    up, low = table.links["upper_leg"], table.links["lower_leg"]
    r = FOOT_RADIUS
    upper = Bone(f"{prefix}_upper_leg", "trunk", (kit.capsule((0, 0, 0), (0, 0, -up.length), radius),),
                 hip_joint, pos=kit.vec(hip), side=side, role="hip", limb=limb,
                 inertial=Inertial(up.mass, (0.0, 0.0, -up.mass_center[0]), up.inertia))
    lower = Bone(f"{prefix}_lower_leg", upper.name,
                 (kit.capsule((0, 0, 0), (0, 0, -(low.length - r)), 0.4 * radius),
                  kit.sphere(r, (0, 0, -(low.length - r)))),
                 leg_joint, pos=(0.0, 0.0, -up.length), side=side, role="foot", limb=limb,
                 inertial=Inertial(low.mass, (0.0, 0.0, -low.mass_center[0]), low.inertia))
    return [upper, lower], ContactPoint(f"{prefix}_foot", lower.name, (0.0, 0.0, -low.length))


def _total_mass(table: Table3Creature, legs: int) -> float:
    links = table.links
    return links["trunk"].mass + legs * (links["upper_leg"].mass + links["lower_leg"].mass)


def raibert_biped() -> CreatureSpec:
    """The biped robot: 23.1 kg trunk, ball hips, telescoping sprung legs (nv = 14)."""
    t = TABLE3["biped"]
    m = _total_mass(t, 2)
    k = m * math.pi ** 2 / BIPED_STANCE ** 2  # one leg carries everything in a run
    trunk = t.links["trunk"]
    # A box with the trunk's own inertia ratios (0.28 x 0.28 x 0.10 m).
    half = np.sqrt(6.0 / trunk.mass * (np.sum(trunk.inertia) - 2.0 * np.asarray(trunk.inertia))) / 2.0
    bones = [Bone("trunk", None, (kit.box(half),), Joint("free"), role="trunk",
                  inertial=Inertial(trunk.mass, (0.0, 0.0, 0.0), trunk.inertia))]
    contacts = []
    for side, sy in (("left", 1.0), ("right", -1.0)):
        hip = np.multiply(t.offsets["hip"], (1.0, sy, 1.0))
        leg, foot = _robot_leg(t, side, hip, side, "rear",
                               Joint("ball", stiffness=HIP_STIFFNESS, damping=HIP_DAMPING, armature=HIP_ARMATURE),
                               _sprung_leg_joint(k, m), 0.03)
        bones += leg
        contacts.append(foot)
    return CreatureSpec(name="raibert_biped", contact_pairs=True, timestep=0.01 / 3, bones=tuple(bones),
                        contacts=tuple(contacts),
                        description="Biped robot with ball hips and telescoping sprung legs "
                                    "(Raibert & Hodgins 1991, Table 3)")


def raibert_quadruped() -> CreatureSpec:
    """The quadruped robot: 10 kg trunk, gimbal hips, telescoping sprung legs (nv = 22)."""
    t = TABLE3["quadruped"]
    m = _total_mass(t, 4)
    k = 0.5 * m * math.pi ** 2 / QUADRUPED_TROT_STANCE ** 2  # a trot pair shares the load
    trunk = t.links["trunk"]
    hx, hy, _ = t.offsets["hip"]
    bones = [Bone("trunk", None, (kit.box((hx + 0.08, hy - 0.035, 0.07)),), Joint("free"), role="trunk",
                  inertial=Inertial(trunk.mass, (0.0, 0.0, 0.0), trunk.inertia))]
    contacts = []
    # Gimbal: roll (x) and pitch (y) servos, a stiff twist (z, the leg axis).
    hip_joint = Joint("ball", stiffness=(HIP_STIFFNESS, HIP_STIFFNESS, HIP_TWIST_STIFFNESS),
                      damping=HIP_DAMPING, armature=HIP_ARMATURE)
    for limb, sx in (("front", 1.0), ("rear", -1.0)):
        for side, sy in (("left", 1.0), ("right", -1.0)):
            hip = np.multiply(t.offsets["hip"], (sx, sy, 1.0))
            leg, foot = _robot_leg(t, f"{limb}_{side}", hip, side, limb, hip_joint,
                                   _sprung_leg_joint(k, 0.5 * m), 0.035)
            bones += leg
            contacts.append(foot)
    return CreatureSpec(name="raibert_quadruped", contact_pairs=True, bones=tuple(bones), contacts=tuple(contacts),
                        description="Quadruped robot with gimbal hips and telescoping sprung legs "
                                    "(Raibert & Hodgins 1991, Table 3)")


def _planar_inertial(link: Link) -> Inertial:
    """Table mass and sagittal moment; link along the bone's +x (see module docstring)."""
    i_y = link.inertia[0]
    mc = link.mass_center or (0.0,)
    com = (mc[0], 0.0, mc[1] if len(mc) > 1 else 0.0)
    return Inertial(link.mass, com, (0.1 * i_y, i_y, i_y))


def _xz(angle: float) -> np.ndarray:
    """Unit vector (x, z) of a link pitched ``angle`` [rad] about +y."""
    return np.array([math.cos(angle), -math.sin(angle)])


def kangaroo_tail_moments() -> tuple[float, float, float]:
    """Moment of inertia [kg m²] of the rest-pose tail beyond each tail joint,
    about that joint's axis (y), from Table 3 and ``KANGAROO_POSE``."""
    links = TABLE3["kangaroo"].links
    names = ("tail1", "tail2", "tail3")
    joints = [np.zeros(2)]
    for n in names[:-1]:
        joints.append(joints[-1] + links[n].length * _xz(KANGAROO_POSE[n]))
    coms = [j + links[n].mass_center[0] * _xz(KANGAROO_POSE[n]) for j, n in zip(joints, names)]
    return kit.vec(float(sum(links[n].inertia[0] + links[n].mass * np.sum((c - joints[i]) ** 2)
                           for n, c in zip(names[i:], coms[i:]))) for i in range(3))


def kangaroo_ankle_stiffness() -> float:
    """Ankle spring [N m/rad]: a vertical leg stiffness M π² / T² acting through the foot lever."""
    links = TABLE3["kangaroo"].links
    total = sum(link.mass for link in links.values())
    return total * math.pi ** 2 / KANGAROO_STANCE ** 2 * links["foot"].length ** 2


def raibert_kangaroo() -> CreatureSpec:
    """The planar one-legged kangaroo with a three-link tail and a head (nv = 10)."""
    t = TABLE3["kangaroo"]
    L, pose, r = t.links, KANGAROO_POSE, KANGAROO_FOOT_RADIUS
    omega = 2.0 * math.pi / KANGAROO_STRIDE

    def hinge(k: float, c: float) -> Joint:
        return Joint("hinge", axis=(0.0, 1.0, 0.0), stiffness=k, damping=c)

    def bone(name, parent, offset, shapes, joint, role) -> Bone:
        quat = kit.quat_axis_angle((0, 1, 0), pose[name] - pose[parent])
        return Bone(name, parent, tuple(shapes), joint, pos=(offset[0], 0.0, offset[1]), quat=quat,
                    role=role, limb="rear" if role in ("hip", "knee", "foot") else None,
                    inertial=_planar_inertial(L[name]))

    k_ankle = kangaroo_ankle_stiffness()
    lever_inertia = sum(link.mass for link in L.values()) * L["foot"].length ** 2
    tail_k = [i * omega ** 2 for i in kangaroo_tail_moments()]
    bones = [
        Bone("trunk", None, (kit.ellipsoid((0.2, 0.07, 0.08)),), Joint("planar"),
             quat=kit.quat_axis_angle((0, 1, 0), pose["trunk"]), role="trunk",
             inertial=_planar_inertial(L["trunk"])),
        bone("thigh", "trunk", t.offsets["hip"], [kit.capsule((0, 0, 0), (L["thigh"].length, 0, 0), 0.045)],
             hinge(*KANGAROO_SERVOS["thigh"]), "hip"),
        bone("shin", "thigh", (L["thigh"].length, 0.0), [kit.capsule((0, 0, 0), (L["shin"].length, 0, 0), 0.013)],
             hinge(*KANGAROO_SERVOS["shin"]), "knee"),
        bone("foot", "shin", (L["shin"].length, 0.0), [kit.capsule((0, 0, 0), (L["foot"].length - r, 0, 0), r)],
             hinge(k_ankle, 2.0 * LEG_DAMPING_RATIO * math.sqrt(k_ankle * lever_inertia)), "foot"),
    ]
    parent, offset = "trunk", t.offsets["tail"]
    for i, (name, radius) in enumerate(zip(("tail1", "tail2", "tail3"), (0.03, 0.022, 0.014))):
        damping = 2.0 * LEG_DAMPING_RATIO * tail_k[i] / omega  # 2 ζ sqrt(k I) with I = k / ω²
        bones.append(bone(name, parent, offset, [kit.capsule((0, 0, 0), (L[name].length, 0, 0), radius)],
                          hinge(tail_k[i], damping), "tail"))
        parent, offset = name, (L[name].length, 0.0)
    bones.append(bone("head", "trunk", t.offsets["head"],
                      [kit.ellipsoid((0.075, 0.04, 0.045), (0.06, 0.0, 0.02)),
                       kit.ellipsoid((0.02, 0.008, 0.04), (0.01, 0.02, 0.065), contact=False),   # ears
                       kit.ellipsoid((0.02, 0.008, 0.04), (0.01, -0.02, 0.065), contact=False)],
                      hinge(*KANGAROO_SERVOS["head"]), "head"))
    toe, heel = (L["foot"].length - r, 0.0, -r), (0.0, 0.0, -r)
    return CreatureSpec(name="kangaroo", contact_pairs=True, bones=tuple(bones),
                        contacts=(ContactPoint("foot", "foot", toe), ContactPoint("heel", "foot", heel)),
                        description="Planar one-legged kangaroo with a three-link tail "
                                    "(Raibert & Hodgins 1991, Table 3)")

"""A 30 kg dog with 80 DOFs, after the dog of Kry et al. 2009 (Fig. 1 and 3).

Skeleton (rest pose standing square, x forward, y left, z up):

- ``chest`` (root, free joint, 6): front rib cage, withers and shoulder blades;
- ``spine1``..``spine4`` then ``pelvis``: five ball joints down the back (15);
- ``neck1``..``neck3`` and ``head`` (skull, muzzle, floppy ears): four balls (12);
- ``tail1``..``tail5``: five balls (15), the tail hanging in a curve;
- each front leg: ``upperarm`` (ball, shoulder), ``forearm`` (hinge, elbow),
  ``metacarpus`` (hinge, wrist), ``paw`` (ball); each hind leg: ``thigh``
  (ball, hip), ``shin`` (hinge, stifle), ``metatarsus`` (hinge, hock), ``paw``
  (ball): 8 DOFs a leg (32). Total nv = 6 + 15 + 12 + 15 + 32 = 80.

Every bone frame is parallel to the world in the rest pose, so hinges turn
about +y (pitch) on both sides. Right legs are the left legs reflected through
the x-z plane: points go through ``kit.mirror_y``, shape rotations through the
matching quaternion reflection; a hinge axis (a pseudovector) keeps its y
component, so equal angles on both sides mean a mirror-symmetric pose.

Proportions follow a Labrador-sized dog: withers 0.60 m above the ground, chest
reaching down to the elbows (0.28 m) while the loin is tucked up (0.38 m),
elbows behind the shoulders, stifles forward of the hips, hocks behind them.
Bone masses are set per bone (31.4 kg in all: 17.8 kg trunk and pelvis,
4.0 kg neck and head, 0.33 kg tail, 1.72 kg per front leg, 2.6 kg per hind leg).

Stiffness. Kry09 Fig. 3 gives the dog 20 N m/rad per joint with the spine
five times stiffer (100 N m/rad). At 31 kg that pattern cannot hold the
stance: measured with ``_stand_report`` below (2 s of MuJoCo from the rest
pose), the dog collapses (the chest drops TODO). The gravity torques of the rest
pose, with each paw carrying its static share of the weight, reach TODO.
So each joint gets ``max(Kry09 value, |τ_g| / 0.03 rad)`` rounded up, i.e.
the paper's pattern where gravity asks for little (tail, paws) and a value that
grows with the load elsewhere, such that no joint sags by more than about
0.03 rad under its static load: see ``STIFFNESS``.
Damping is TODO.
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.creatures.builders import kit
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Joint, Shape

# N m/rad per bone role; spine values apply to spine1..4 and the pelvis joint.
STIFFNESS = {"spine": 100.0, "pelvis": 100.0, "neck": 20.0, "head": 20.0, "tail": 20.0,
             "shoulder": 20.0, "elbow": 20.0, "wrist": 20.0, "hip": 20.0, "knee": 20.0,
             "ankle": 20.0, "foot": 20.0}
DAMPING_RATIO = 0.05  # s: damping [N m s/rad] = DAMPING_RATIO * stiffness

_GROUND = 0.0


def _mirror_quat(q) -> tuple[float, float, float, float]:
    """The rotation (w, x, y, z) reflected through the x-z plane (S R S, S = diag(1, -1, 1))."""
    return (float(q[0]), -float(q[1]), float(q[2]), -float(q[3]))


def _pitch(direction) -> tuple[float, float, float, float]:
    """Quaternion turning +z onto ``direction`` (in the x-z plane) about +y."""
    d = np.asarray(direction, float)
    return kit.quat_axis_angle((0, 1, 0), math.atan2(d[0], d[2]))


class _Part:
    """Shapes of one bone, written with world rest-pose points [m] and stored
    relative to the bone's joint ``origin``; ``mirror`` reflects y."""

    def __init__(self, origin, mirror: bool = False):
        self.mirror = mirror
        self.origin = np.asarray(self._m(origin))
        self.shapes: list[Shape] = []

    def _m(self, p):
        return kit.mirror_y(p) if self.mirror else kit.vec(p)

    def _local(self, p):
        return np.asarray(self._m(p)) - self.origin

    def cap(self, p0, p1, r, contact=True):
        self.shapes.append(kit.capsule(self._local(p0), self._local(p1), r, contact=contact))

    def ell(self, center, radii, quat=(1.0, 0.0, 0.0, 0.0), contact=True):
        q = _mirror_quat(quat) if self.mirror else quat
        self.shapes.append(kit.ellipsoid(radii, self._local(center), q, contact=contact))

    def limb_ell(self, p0, p1, r_side, r_front, contact=True):
        """An ellipsoid spanning segment p0-p1 (in the x-z plane), r_side wide in y."""
        p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
        half = 0.5 * float(np.linalg.norm(p1 - p0))
        self.ell(0.5 * (p0 + p1), (r_front, r_side, half), _pitch(p1 - p0), contact)


def _joint(kind: str, role: str) -> Joint:
    k = STIFFNESS[role]
    axis = (0.0, 1.0, 0.0)
    return Joint(kind, axis=axis, stiffness=k, damping=DAMPING_RATIO * k)


def _bone(name, parent, part: _Part, parent_origin, kind, role, mass, side="center", limb=None):
    pos = kit.vec(part.origin - np.asarray(parent_origin, float))
    return Bone(name, parent, tuple(part.shapes), _joint(kind, role), pos=pos, mass=mass,
                side=side, role=role, limb=limb)


def _trunk() -> list[Bone]:
    chest = _Part((0.22, 0.0, 0.50))
    chest.ell((0.21, 0.0, 0.42), (0.17, 0.13, 0.14))                    # rib cage, brisket at 0.28 m
    chest.cap((0.08, 0.0, 0.54), (0.30, 0.0, 0.555), 0.045)              # withers, top at 0.60 m
    for y in (0.095, -0.095):                                           # shoulder blades
        chest.ell((0.29, y, 0.49), (0.05, 0.03, 0.095), kit.quat_axis_angle((0, 1, 0), -0.45), contact=False)
    chest.ell((0.35, 0.0, 0.40), (0.05, 0.10, 0.08), contact=False)     # point of the chest
    bones = [Bone("chest", None, tuple(chest.shapes), Joint("free"), pos=kit.vec(chest.origin),
                  mass=8.0, role="trunk")]
    # (joint x, belly depth radius, half width, mass): the loin narrows and tucks up.
    segments = [(0.10, 0.125, 0.12, 2.6), (0.02, 0.095, 0.11, 2.0), (-0.06, 0.08, 0.10, 1.6),
                (-0.14, 0.075, 0.10, 1.6)]
    prev, prev_origin = "chest", chest.origin
    for i, (x, rz, ry, mass) in enumerate(segments, start=1):
        seg = _Part((x, 0.0, 0.50))
        seg.ell((x - 0.04, 0.0, 0.535 - rz), (0.065, ry, rz))
        seg.cap((x, 0.0, 0.52), (x - 0.08, 0.0, 0.52), 0.035)
        bones.append(_bone(f"spine{i}", prev, seg, prev_origin, "ball", "spine", mass))
        prev, prev_origin = f"spine{i}", seg.origin
    pelvis = _Part((-0.22, 0.0, 0.50))
    pelvis.cap((-0.22, 0.0, 0.515), (-0.37, 0.0, 0.47), 0.045)           # croup, sloping back
    pelvis.ell((-0.29, 0.0, 0.44), (0.10, 0.115, 0.085))                # hindquarters
    bones.append(_bone("pelvis", prev, pelvis, prev_origin, "ball", "pelvis", 2.6))
    return bones


def _neck_head() -> list[Bone]:
    bones, prev, prev_origin = [], "chest", np.array([0.22, 0.0, 0.50])
    joints = [(0.34, 0.52), (0.41, 0.60), (0.46, 0.68), (0.50, 0.755)]
    for i, ((x0, z0), (x1, z1), r, mass) in enumerate(
            zip(joints[:-1], joints[1:], (0.065, 0.058, 0.05), (0.8, 0.7, 0.6)), start=1):
        seg = _Part((x0, 0.0, z0))
        seg.cap((x0, 0.0, z0 - 0.02), (x1, 0.0, z1 - 0.01), r)
        bones.append(_bone(f"neck{i}", prev, seg, prev_origin, "ball", "neck", mass))
        prev, prev_origin = f"neck{i}", seg.origin
    x, z = joints[-1]
    head = _Part((x, 0.0, z))
    head.ell((x + 0.04, 0.0, z + 0.01), (0.09, 0.065, 0.07))            # skull
    head.cap((x + 0.10, 0.0, z - 0.015), (x + 0.20, 0.0, z - 0.04), 0.035)  # muzzle
    head.ell((x + 0.225, 0.0, z - 0.035), (0.018, 0.022, 0.016), contact=False)  # nose
    for y, roll in ((0.065, 0.25), (-0.065, -0.25)):                    # ears hanging down the cheeks
        head.ell((x + 0.01, y, z - 0.03), (0.035, 0.01, 0.06), kit.quat_axis_angle((1, 0, 0), roll),
                 contact=False)
    bones.append(_bone("head", prev, head, prev_origin, "ball", "head", 1.9))
    return bones


def _tail() -> list[Bone]:
    bones, prev, prev_origin = [], "pelvis", np.array([-0.22, 0.0, 0.50])
    p = np.array([-0.37, 0.0, 0.48])
    for i, (deg, r, mass) in enumerate(zip((-20, -32, -44, -56, -68), (0.024, 0.021, 0.018, 0.015, 0.012),
                                           (0.10, 0.08, 0.06, 0.05, 0.04)), start=1):
        end = p + 0.07 * np.array([-math.cos(math.radians(deg)), 0.0, math.sin(math.radians(deg))])
        seg = _Part(p)
        seg.cap(p, end, r)
        bones.append(_bone(f"tail{i}", prev, seg, prev_origin, "ball", "tail", mass))
        prev, prev_origin, p = f"tail{i}", seg.origin, end
    return bones


# Leg joint positions of the left legs in the rest pose (x, y, z) [m], top to paw.
_FRONT = ((0.34, 0.095, 0.43), (0.26, 0.10, 0.29), (0.27, 0.10, 0.11), (0.29, 0.10, 0.04))
_REAR = ((-0.30, 0.09, 0.48), (-0.22, 0.10, 0.31), (-0.36, 0.10, 0.15), (-0.34, 0.10, 0.04))
_PAW_RADII = (0.045, 0.032, 0.025)


def _leg(limb: str, side: str, parent: str, parent_origin) -> tuple[list[Bone], ContactPoint]:
    front = limb == "front"
    mirror = side == "right"
    top, mid, low, toe = (np.array(p) for p in (_FRONT if front else _REAR))
    names = ("upperarm", "forearm", "metacarpus", "paw") if front else ("thigh", "shin", "metatarsus", "paw")
    roles = ("shoulder", "elbow", "wrist", "foot") if front else ("hip", "knee", "ankle", "foot")
    masses = (1.0, 0.45, 0.15, 0.12) if front else (1.6, 0.7, 0.18, 0.12)
    a = _Part(top, mirror)
    a.limb_ell(top, mid, 0.05, 0.055 if front else 0.075)               # upper arm / thigh muscles
    b = _Part(mid, mirror)
    b.cap(mid, low, 0.03 if front else 0.028)
    if front:
        b.cap(mid, mid + (-0.035, 0.0, 0.02), 0.025, contact=False)     # point of the elbow
    else:
        b.limb_ell(mid, mid + 0.55 * (low - mid), 0.04, 0.05)           # calf muscles
    c = _Part(low, mirror)
    c.cap(low, toe, 0.02)
    if not front:
        c.cap(low, low + (-0.035, 0.0, 0.015), 0.018, contact=False)    # point of the hock
    paw_center = toe + (0.02, 0.0, _PAW_RADII[2] - toe[2])
    d = _Part(toe, mirror)
    d.ell(paw_center, _PAW_RADII)
    parts = (a, b, c, d)
    kinds = ("ball", "hinge", "hinge", "ball")
    bones, prev, prev_origin = [], parent, parent_origin
    for name, part, kind, role, mass in zip(names, parts, kinds, roles, masses):
        full = f"{limb}_{side}_{name}"
        bones.append(_bone(full, prev, part, prev_origin, kind, role, mass, side=side, limb=limb))
        prev, prev_origin = full, part.origin
    sole = np.asarray(d._m(paw_center - (0.0, 0.0, _PAW_RADII[2]))) - d.origin
    return bones, ContactPoint(f"{limb}_{side}_foot", prev, kit.vec(sole))


def dog() -> CreatureSpec:
    """The dog: 43 bones, nv = 80, 31.4 kg, withers 0.60 m; paws on the ground."""
    bones = _trunk()
    bones += _neck_head()
    bones += _tail()
    contacts = []
    for limb, parent in (("front", "chest"), ("rear", "pelvis")):
        origin = next(b for b in bones if b.name == parent)
        origin_w = np.array([0.22, 0.0, 0.50]) if parent == "chest" else np.array([-0.22, 0.0, 0.50])
        del origin
        for side in ("left", "right"):
            leg, contact = _leg(limb, side, parent, origin_w)
            bones += leg
            contacts.append(contact)
    return CreatureSpec(name="dog", bones=tuple(bones), contacts=tuple(contacts),
                        description="30 kg dog with 80 DOFs: spine, neck, head, tail, four legs (Kry09 Fig. 1)",
                        ground_clearance=0.0)

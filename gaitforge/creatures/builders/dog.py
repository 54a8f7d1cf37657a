"""A 31 kg dog with 80 DOFs, after the dog of Kry et al. 2009 (Fig. 1 and 3).

Skeleton, 31 bones (x forward, y left, z up; rest pose standing square):

- ``chest`` (root, free joint: 6 DOFs): front rib cage, withers, shoulder blades;
- ``spine1``..``spine4`` and ``pelvis``: five ball joints down the back (15);
- ``neck1``..``neck3`` and ``head`` (skull, muzzle, nose, hanging ears): four balls (12);
- ``tail1``..``tail5``: five balls (15), the tail hanging in a curve;
- per front leg ``upperarm`` (ball, shoulder), ``forearm`` (hinge, elbow),
  ``metacarpus`` (hinge, wrist), ``paw`` (ball); per hind leg ``thigh`` (ball,
  hip), ``shin`` (hinge, stifle), ``metatarsus`` (hinge, hock), ``paw`` (ball):
  8 DOFs a leg (32). In all nv = 6 + 15 + 12 + 15 + 32 = 80.

Every bone frame is parallel to the world in the rest pose, so all hinges turn
about +y. Right legs are the left legs reflected through the x-z plane: points
go through ``kit.mirror_y`` and shape rotations through the matching quaternion
reflection; a hinge axis is a pseudovector and keeps its y component, so equal
hinge angles on both sides give a mirror-symmetric pose (for a ball joint, the
rotation vector (rx, ry, rz) on the left mirrors to (-rx, ry, -rz) on the right).

Proportions are those of a Labrador-sized dog: withers 0.60 m above the ground,
a deep chest reaching the elbows (brisket 0.28 m) and a tucked-up loin (0.38 m),
elbows behind the shoulders, stifles ahead of the hips, hocks behind them, the
front pasterns sloping forward. Masses are given per bone (31.37 kg in all:
18.4 kg chest, back and pelvis, 4.0 kg neck and head, 0.33 kg tail, 1.72 kg
per front leg, 2.6 kg per hind leg), which puts 61 % of the weight on the front
paws, as in real dogs.

Stiffness. Kry09 Fig. 3 gives the dog 20 N m/rad per joint with the spine five
times stiffer. We keep that pattern (spine and pelvis joints ×5, every other
joint ×1) and scale it uniformly by ``STIFFNESS_SCALE``: a uniform scale keeps
the generalized eigenvectors of (K, M), i.e. the paper's mode shapes, and only
multiplies every frequency by its square root. Measured on this model (2 s of
MuJoCo from the rest pose, damping as below; chest height, rest 0.500 m):

=====  ==========  ==========================  ==================================
scale  legs/spine  chest height after 2 s      largest joint deviation after 2 s
=====  ==========  ==========================  ==================================
1      20 / 100    0.211 m (collapsed, -58 %)  0.54 rad (shoulders)
2      40 / 200    0.206 m (collapsed, -59 %)  0.48 rad (shoulders)
3      60 / 300    0.476 m (-4.8 %)            0.105 rad (neck1)
5      100 / 500   0.482 m (-3.7 %)            0.059 rad (stifles)
8      160 / 800   0.486 m (-2.9 %)            0.038 rad (stifles)
10     200 / 1000  0.487 m (-2.6 %)            0.030 rad (stifles; neck1 0.029)
=====  ==========  ==========================  ==================================

At the paper's values the legs buckle: the zig-zag of a leg under the load of
its paw (60 to 94 N) holds only from 60 N m/rad on (scale 3), although the
static joint torques of the rest pose are small (at most 10 N m in the back,
5.8 N m at the neck base, 5.3 N m at the stifles, 4.6 N m at the elbows, with
each paw carrying its lever-rule share of the weight). Scale 10 is the
smallest round scale at which no joint strays more than about 0.03 rad; the
chest then tilts by 1.2 degrees, and 8.6 mm (1.7 %) of its 13 mm drop is the
front paws sinking into MuJoCo's soft ground contact, not the joints.

Damping is stiffness-proportional, ``DAMPING_TIME`` × stiffness (Rayleigh
damping: a mode of angular frequency ω gets the damping ratio 0.01 s · ω / 2,
0.16 at 5 Hz); the stand settles (all joint speeds below 0.01 rad/s) within
1.4 s and stays put (measured over 10 s).
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.creatures.builders import kit
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Joint, Shape

KRY09_STIFFNESS = 20.0  # N m/rad, every joint of the dog (Kry09 Fig. 3)
KRY09_SPINE_FACTOR = 5.0  # the spine is five times stiffer (Kry09 Fig. 3)
STIFFNESS_SCALE = 10.0  # applied to the whole pattern so the dog stands (see above)
DAMPING_TIME = 0.01  # s: joint damping [N m s/rad] = DAMPING_TIME * stiffness [N m/rad]
SPINE_ROLES = ("spine", "pelvis")  # roles whose joints get the spine factor

_CHEST = (0.22, 0.0, 0.50)  # chest joint (root frame) in the rest pose [m]
_PELVIS = (-0.18, 0.0, 0.50)  # lumbosacral joint [m]
# Joint positions of the left legs in the rest pose (x, y, z) [m], hip/shoulder to paw.
_FRONT = ((0.34, 0.095, 0.43), (0.26, 0.10, 0.29), (0.27, 0.10, 0.11), (0.29, 0.10, 0.04))
_REAR = ((-0.26, 0.09, 0.48), (-0.18, 0.10, 0.31), (-0.32, 0.10, 0.15), (-0.30, 0.10, 0.04))
_PAW_RADII = (0.045, 0.032, 0.025)  # m; the paw ellipsoid's bottom is the ground (z = 0)


def _mirror_quat(q) -> tuple[float, float, float, float]:
    """Rotation (w, x, y, z) reflected through the x-z plane (S R S, S = diag(1, -1, 1))."""
    return (float(q[0]), -float(q[1]), float(q[2]), -float(q[3]))


class _Part:
    """Shapes of one bone, written with world rest-pose points [m] of the left
    side and stored relative to the bone's joint ``origin``; ``mirror`` builds
    the right-side twin."""

    def __init__(self, origin, mirror: bool = False):
        self.mirror = mirror
        self.origin = np.asarray(self._m(origin))
        self.shapes: list[Shape] = []

    def _m(self, p):
        return kit.mirror_y(p) if self.mirror else kit.vec(p)

    def local(self, p) -> np.ndarray:
        return np.asarray(self._m(p)) - self.origin

    def cap(self, p0, p1, r, contact=True):
        self.shapes.append(kit.capsule(self.local(p0), self.local(p1), r, contact=contact))

    def ell(self, center, radii, quat=(1.0, 0.0, 0.0, 0.0), contact=True):
        q = _mirror_quat(quat) if self.mirror else quat
        self.shapes.append(kit.ellipsoid(radii, self.local(center), q, contact=contact))

    def limb_ell(self, p0, p1, r_side, r_front):
        """Ellipsoid spanning segment p0-p1 (in an x-z plane), ``r_side`` wide in y."""
        p0, p1 = np.asarray(p0, float), np.asarray(p1, float)
        d = p1 - p0
        turn = kit.quat_axis_angle((0, 1, 0), math.atan2(d[0], d[2]))  # +z onto d
        self.ell(0.5 * (p0 + p1), (r_front, r_side, 0.5 * float(np.linalg.norm(d))), turn)


class _Joints:
    """Makes every joint from the Kry09 pattern, scaled, with proportional damping."""

    def __init__(self, scale: float, damping_time: float):
        self.scale, self.damping_time = scale, damping_time

    def __call__(self, kind: str, role: str) -> Joint:
        k = KRY09_STIFFNESS * self.scale * (KRY09_SPINE_FACTOR if role in SPINE_ROLES else 1.0)
        return Joint(kind, axis=(0.0, 1.0, 0.0), stiffness=k, damping=self.damping_time * k)


def _bone(joints, name, parent, part: _Part, parent_origin, kind, role, mass, side="center", limb=None):
    pos = kit.vec(part.origin - np.asarray(parent_origin, float))
    return Bone(name, parent, tuple(part.shapes), joints(kind, role), pos=pos, mass=mass,
                side=side, role=role, limb=limb)


def _trunk(joints) -> list[Bone]:
    chest = _Part(_CHEST)
    chest.ell((0.21, 0.0, 0.42), (0.17, 0.13, 0.14))                    # rib cage, brisket at 0.28 m
    chest.ell((0.21, 0.0, 0.53), (0.13, 0.065, 0.07))                   # withers, top at 0.60 m
    for y in (0.08, -0.08):                                             # shoulder blades
        chest.ell((0.28, y, 0.48), (0.045, 0.025, 0.09), kit.quat_axis_angle((0, 1, 0), -0.45), contact=False)
    chest.ell((0.35, 0.0, 0.40), (0.05, 0.10, 0.08), contact=False)     # point of the chest
    bones = [Bone("chest", None, tuple(chest.shapes), Joint("free"), pos=kit.vec(_CHEST), mass=8.0, role="trunk")]
    # (joint x, belly depth radius, half width, mass) [m, kg]: the loin narrows and tucks up.
    segments = ((0.10, 0.125, 0.12, 2.6), (0.03, 0.10, 0.11, 2.0), (-0.04, 0.08, 0.10, 1.6),
                (-0.11, 0.075, 0.10, 1.6))
    prev, prev_origin = "chest", chest.origin
    for i, (x, rz, ry, mass) in enumerate(segments, start=1):
        seg = _Part((x, 0.0, 0.50))
        seg.ell((x - 0.035, 0.0, 0.535 - rz), (0.07, ry, rz))
        seg.cap((x, 0.0, 0.52), (x - 0.07, 0.0, 0.52), 0.035)           # back muscles along the spine
        bones.append(_bone(joints, f"spine{i}", prev, seg, prev_origin, "ball", "spine", mass))
        prev, prev_origin = f"spine{i}", seg.origin
    pelvis = _Part(_PELVIS)
    pelvis.cap((-0.18, 0.0, 0.515), (-0.33, 0.0, 0.47), 0.045)           # croup, sloping back
    pelvis.ell((-0.25, 0.0, 0.44), (0.10, 0.115, 0.085))                # hindquarters
    bones.append(_bone(joints, "pelvis", prev, pelvis, prev_origin, "ball", "pelvis", 2.6))
    return bones


def _neck_head(joints) -> list[Bone]:
    bones, prev, prev_origin = [], "chest", np.asarray(_CHEST)
    points = ((0.32, 0.50), (0.385, 0.565), (0.435, 0.625), (0.475, 0.68))  # (x, z) of the neck joints
    for i, ((x0, z0), (x1, z1), r, mass) in enumerate(
            zip(points[:-1], points[1:], (0.07, 0.06, 0.052), (0.8, 0.7, 0.6)), start=1):
        seg = _Part((x0, 0.0, z0))
        seg.cap((x0 - 0.01, 0.0, z0 - 0.03), (x1, 0.0, z1 - 0.015), r)
        bones.append(_bone(joints, f"neck{i}", prev, seg, prev_origin, "ball", "neck", mass))
        prev, prev_origin = f"neck{i}", seg.origin
    x, z = points[-1]
    head = _Part((x, 0.0, z))
    head.ell((x + 0.04, 0.0, z + 0.01), (0.095, 0.07, 0.075))           # skull
    head.cap((x + 0.10, 0.0, z - 0.015), (x + 0.21, 0.0, z - 0.04), 0.04)   # muzzle
    head.ell((x + 0.245, 0.0, z - 0.035), (0.018, 0.024, 0.018), contact=False)  # nose
    for y, roll in ((0.065, 0.25), (-0.065, -0.25)):                    # ears hanging by the cheeks
        head.ell((x + 0.01, y, z - 0.03), (0.035, 0.01, 0.06), kit.quat_axis_angle((1, 0, 0), roll),
                 contact=False)
    bones.append(_bone(joints, "head", prev, head, prev_origin, "ball", "head", 1.9))
    return bones


def _tail(joints) -> list[Bone]:
    bones, prev, prev_origin = [], "pelvis", np.asarray(_PELVIS)
    p = np.array([-0.33, 0.0, 0.48])
    # Each 7 cm segment points further down: (slope below horizontal [deg], radius [m], mass [kg]).
    for i, (deg, r, mass) in enumerate(zip((20, 32, 44, 56, 68), (0.024, 0.021, 0.018, 0.015, 0.012),
                                           (0.10, 0.08, 0.06, 0.05, 0.04)), start=1):
        end = p + 0.07 * np.array([-math.cos(math.radians(deg)), 0.0, -math.sin(math.radians(deg))])
        seg = _Part(p)
        seg.cap(p, end, r)
        bones.append(_bone(joints, f"tail{i}", prev, seg, prev_origin, "ball", "tail", mass))
        prev, prev_origin, p = f"tail{i}", seg.origin, end
    return bones


def _leg(joints, limb: str, side: str) -> tuple[list[Bone], ContactPoint]:
    """One leg (4 bones, 8 DOFs) and its paw's contact point; the right leg
    runs the same code as the left with every point mirrored."""
    front = limb == "front"
    top, mid, low, toe = (np.array(p) for p in (_FRONT if front else _REAR))
    names = ("upperarm", "forearm", "metacarpus", "paw") if front else ("thigh", "shin", "metatarsus", "paw")
    roles = ("shoulder", "elbow", "wrist", "foot") if front else ("hip", "knee", "ankle", "foot")
    masses = (1.0, 0.45, 0.15, 0.12) if front else (1.6, 0.7, 0.18, 0.12)
    mirror = side == "right"
    upper, lower, cannon, paw = (_Part(p, mirror) for p in (top, mid, low, toe))
    if front:
        upper.limb_ell(top, mid, 0.045, 0.055)                          # upper-arm muscles
        lower.cap(mid, low, 0.03)
        lower.cap(mid, mid + (-0.035, 0.0, 0.02), 0.025, contact=False)  # point of the elbow
    else:
        upper.limb_ell(top + (-0.02, 0.0, 0.03), mid, 0.06, 0.08)       # thigh muscles
        lower.cap(mid, low, 0.028)
        lower.limb_ell(mid, mid + 0.55 * (low - mid), 0.04, 0.05)       # calf muscles
    cannon.cap(low, toe, 0.02)
    if not front:
        cannon.cap(low, low + (-0.035, 0.0, 0.015), 0.018, contact=False)  # point of the hock
    pad = toe + (0.02, 0.0, _PAW_RADII[2] - toe[2])                     # paw centre, touching z = 0
    paw.ell(pad, _PAW_RADII)
    bones, prev = [], "chest" if front else "pelvis"
    prev_origin = np.asarray(_CHEST if front else _PELVIS)
    for name, part, kind, role, mass in zip(names, (upper, lower, cannon, paw), ("ball", "hinge", "hinge", "ball"),
                                            roles, masses):
        full = f"{limb}_{side}_{name}"
        bones.append(_bone(joints, full, prev, part, prev_origin, kind, role, mass, side=side, limb=limb))
        prev, prev_origin = full, part.origin
    sole = paw.local(pad - (0.0, 0.0, _PAW_RADII[2]))
    return bones, ContactPoint(f"{limb}_{side}_foot", prev, kit.vec(sole))


def dog(stiffness_scale: float = STIFFNESS_SCALE, damping_time: float = DAMPING_TIME) -> CreatureSpec:
    """The dog (31 bones, nv = 80, 31.37 kg, withers 0.60 m), paws on the ground.

    stiffness_scale: factor on the Kry09 pattern (20 N m/rad, spine ×5);
    1.0 gives the paper's values, under which this 31 kg dog cannot stand.
    damping_time [s]: joint damping = damping_time × joint stiffness.
    """
    joints = _Joints(stiffness_scale, damping_time)
    bones = _trunk(joints) + _neck_head(joints) + _tail(joints)
    contacts = []
    for limb in ("front", "rear"):
        for side in ("left", "right"):
            leg, contact = _leg(joints, limb, side)
            bones += leg
            contacts.append(contact)
    return CreatureSpec(
        name="dog", bones=tuple(bones), contacts=tuple(contacts), ground_clearance=0.0,
        description="31 kg dog, 80 DOFs: spine, neck, head, tail, four legs (Kry09 Fig. 1)")

"""A 47-DOF human (Kry et al. 2009, Fig. 3) in three rest poses: Kry's T-pose
with the arms out, a relaxed standing pose with the arms hanging (the posture
its walks and runs hang their arms in) and a bent-knee, bent-elbow pose for running.

Skeleton (nv = 47 with the free root): pelvis (free, 6), lumbar, thorax and
chest (ball, 3 each), neck (ball, 3), head (nod hinge, 1); per side a clavicle
(shrug hinge, 1), upper arm (ball, 3), forearm (elbow hinge, 1), hand (wrist
hinge, 1), thigh (ball, 3), shin (knee hinge, 1), foot (ball ankle, 3) and toe
(hinge, 1). 1.75 m tall in the T-pose, 70 kg, segment masses after de Leva's
(1996) adjustment of Zatsiorsky's table (head + neck 6.9 %, trunk with the
clavicles 43.5 %, thigh 14.2 %, shank 4.3 %, upper arm 2.7 %, forearm 1.6 %,
hand 0.6 %, foot with toes 1.4 %).

Both poses come from the same body-part code: every bone's geometry is written
once in a neutral pose (arms hanging, legs straight, all bone frames aligned
with the world), and a :class:`_Pose` only turns the bones (``Bone.quat``).
Right limbs are the left ones reflected through the sagittal plane: points
with ``kit.mirror_y``, rotations and hinge axes as axial vectors
(``(x, y, z) -> (-x, y, -z)``), so a positive knee or elbow angle flexes
either side.

Hinge sign conventions (positive = flexion): knee about +y, elbow about -y
(forearm forward), wrist toward the palm, toe upward, head nods forward,
clavicle raises the shoulder.

Labels: a bone's ``role`` names the joint it hangs from (``hip`` for the thigh,
``knee`` for the shin, ``elbow`` for the forearm, ``shoulder`` for clavicle and
upper arm), except end segments, named for what they are (``hand``, ``foot``,
``toe``): Kry's heuristics read knee and elbow angles and move hands and feet.

Stiffness (``STIFFNESS_SCALE``). Kry09 Fig. 3 gives 100 N m/rad per joint and
ten times that in the spine, and Kry09 §5.1 scales a creature's stiffness
uniformly until it carries its own weight; a uniform scale keeps the pattern's
mode shapes (frequencies grow by its square root). A standing 70 kg human is an
inverted pendulum: lean about the ankles costs m g h ≈ 68 kg · 9.81 m/s² ·
0.92 m ≈ 610 N m per radian, more than two 100 N m/rad ankles return, and the
knees, hips and spine add their own give in series. Measured with
``mujoco.mj_step`` from the rest pose (2 ms steps, ``implicitfast``, 10 s;
"falls" = pelvis below 90 % of its rest height): at Kry's values (scale 1)
the running pose falls after 0.23 s and the T-pose after 2.7 s; at scale 5
after 3.1 s and 3.8 s; scale 6 stands, but the running pose settles 2.8° off
its rest tilt with the ankles 3.3° off. Scale 10 (limbs 1000, spine
10 000 N m/rad), 1.7 times the smallest scale that stood: after 2 s the pelvis
is 0.13 % (T-pose) and 0.56 % (running) below its rest height, tilted 0.31°
and 0.29°, and no joint is more than 0.90° (clavicle, carrying the
outstretched arm) and 1.56° (knee) from rest.

Damping is stiffness-proportional, ``DAMPING_TIME`` · k: every joint relaxes
with the same 50 ms time constant, and the slow sway of the whole body dies
out (every speed below 0.01 rad/s or m/s) after 1.9 s (T-pose) and 2.7 s
(running pose). Damping is also what keeps the 2 ms step stable: a toe
(2.1·10⁻⁴ kg m² about its hinge) on a 1000 N m/rad spring rings at 345 Hz,
beyond what an explicit step can follow, but MuJoCo integrates joint damping
implicitly; with no damping at all the simulation diverges within 0.07 s.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from gaitforge.creatures.builders.kit import box, capsule, ellipsoid, mirror_y, quat_axis_angle, vec
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Joint, Shape

HEIGHT = 1.75  # m, top of the head in the T-pose
MASS = 70.0  # kg

# Segment masses [kg] (de Leva 1996, male, 70 kg). The chest takes the remainder
# so that the total is exactly MASS.
_SEGMENT_MASS = {"pelvis": 7.82, "lumbar": 5.72, "thorax": 5.71, "neck": 0.80, "head": 4.06,
                 "clavicle": 0.50, "upper_arm": 1.90, "forearm": 1.13, "hand": 0.43,
                 "thigh": 9.91, "shin": 3.03, "foot": 0.80, "toe": 0.16}
_PER_SIDE = ("clavicle", "upper_arm", "forearm", "hand", "thigh", "shin", "foot", "toe")
_SEGMENT_MASS["chest"] = MASS - sum(m * (2.0 if k in _PER_SIDE else 1.0)
                                    for k, m in _SEGMENT_MASS.items())  # 10.17 kg

# Joint stiffness [N m/rad]: Kry09's pattern (100, spine x10) scaled uniformly
# so that the human holds its own weight; damping [N m s/rad] = DAMPING_TIME [s]
# times stiffness (module docstring).
KRY_STIFFNESS, KRY_SPINE_FACTOR = 100.0, 10.0
STIFFNESS_SCALE = 10.0
DAMPING_TIME = 0.05
_SPINE = ("lumbar", "thorax", "chest")


def joint_stiffness(kind: str, scale: float = STIFFNESS_SCALE) -> float:
    """Stiffness [N m/rad] of the joint a bone of ``kind`` (``"thigh"``,
    ``"lumbar"``, ...) hangs from: Kry09's value times ``scale``."""
    return scale * KRY_STIFFNESS * (KRY_SPINE_FACTOR if kind in _SPINE else 1.0)


# Neutral geometry [m]: joint centres relative to the parent's joint, world axes,
# arms hanging and legs straight. Soles at z = 0, top of the head at HEIGHT.
_ANKLE_Z, _SHIN, _THIGH, _HIP_Y = 0.08, 0.43, 0.42, 0.09
_HIP_Z = _ANKLE_Z + _SHIN + _THIGH  # 0.93
_UPPER_ARM, _FOREARM = 0.29, 0.24
_Y = (0.0, 1.0, 0.0)


def _qmul(a, b) -> tuple[float, float, float, float]:
    """Hamilton product of quaternions (w, x, y, z): the rotation b, then a."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    q = np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                  w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])
    return tuple(float(c) for c in q / np.linalg.norm(q))  # type: ignore[return-value]


def _pitch(angle: float):
    """Rotation about +y [rad]: positive tips +z toward +x (a forward lean)."""
    return quat_axis_angle(_Y, angle)


def _mirror_axial(v) -> tuple[float, float, float]:
    """Reflect a rotation axis through the x-z plane (an axial vector)."""
    return (-float(v[0]), float(v[1]), -float(v[2]))


def _mirror_quat(q) -> tuple[float, float, float, float]:
    """Reflect a rotation (w, x, y, z) through the x-z plane."""
    return (float(q[0]),) + _mirror_axial(q[1:])  # type: ignore[return-value]


def _mirror_shape(s: Shape) -> Shape:
    """Reflect a shape (in its bone frame) through the x-z plane."""
    if s.kind == "capsule":
        assert s.fromto is not None  # validated capsules have end points
        return replace(s, fromto=mirror_y(s.fromto[:3]) + mirror_y(s.fromto[3:]))
    return replace(s, pos=mirror_y(s.pos), quat=_mirror_quat(s.quat))


def _mirror_bone(b: Bone) -> Bone:
    """The right-side twin of a left bone."""
    joint = b.joint if b.joint.type != "hinge" else replace(b.joint, axis=_mirror_axial(b.joint.axis))
    parent = b.parent.replace("left_", "right_") if b.parent else None
    return replace(b, name=b.name.replace("left_", "right_"), parent=parent, pos=mirror_y(b.pos),
                   quat=_mirror_quat(b.quat), shapes=tuple(_mirror_shape(s) for s in b.shapes),
                   joint=joint, side="right")


@dataclass(frozen=True)
class _Pose:
    """A rest pose as joint turns [rad] from the neutral pose.

    lean: forward pitch of pelvis, lumbar, thorax, chest (each relative to its
    parent). thigh / shin: absolute sagittal angles of the leg segments (thigh
    forward, shin backward); the ankle takes up the rest so the feet stay flat.
    arm_abduction / arm_pitch: the upper arm's absolute turn out to the side and
    back; elbow: flexion. The head is turned back to upright.
    """

    lean: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)
    thigh: float = 0.0
    shin: float = 0.0
    arm_abduction: float = 0.0
    arm_pitch: float = 0.0
    elbow: float = 0.0


T_POSE = _Pose(arm_abduction=math.pi / 2)
# Standing relaxed, the pose walks and runs are analysed in: legs straight, upper
# arms hanging 10° out from the sides (the hands clear the thighs) and elbows
# bent 15°, the way a standing person's arms fall (issue 28 item 2).
RELAXED_POSE = _Pose(arm_abduction=math.radians(10), elbow=math.radians(15))
# Trunk 10° forward, hips flexed 26° (thigh 20° + pelvis 6°), knees 40°, ankles
# 20° dorsiflexed, upper arms 10° back and 10° out, elbows 90°.
RUN_POSE = _Pose(lean=(math.radians(6), 0.0, math.radians(2), math.radians(2)),
                 thigh=math.radians(20), shin=math.radians(20),
                 arm_abduction=math.radians(10), arm_pitch=math.radians(10), elbow=math.radians(90))


def _joint(kind: str, scale: float, joint_type: str = "ball", axis=_Y) -> Joint:
    k = joint_stiffness(kind, scale)
    return Joint(joint_type, axis=vec(axis), stiffness=k, damping=DAMPING_TIME * k)


def _bone(kind: str, parent: str | None, shapes, joint: Joint, pos, quat=(1.0, 0.0, 0.0, 0.0), *,
          name: str | None = None, role: str, side: str = "center", limb: str | None = None) -> Bone:
    return Bone(name or kind, parent, tuple(shapes), joint, pos=vec(pos), quat=tuple(quat),
                mass=_SEGMENT_MASS[kind], side=side, role=role, limb=limb)


def _axial_skeleton(pose: _Pose, scale: float) -> list[Bone]:
    """Pelvis, three spine segments, neck and head."""
    lp, ll, lt, lc = pose.lean
    total = sum(pose.lean)
    return [
        _bone("pelvis", None, [ellipsoid((0.10, 0.16, 0.10), (0.0, 0.0, 0.04))], Joint("free"),
              (0.0, 0.0, _HIP_Z), _pitch(lp), role="pelvis"),
        _bone("lumbar", "pelvis", [ellipsoid((0.09, 0.135, 0.11), (0.0, 0.0, 0.065))],
              _joint("lumbar", scale), (0.0, 0.0, 0.10), _pitch(ll), role="spine"),
        _bone("thorax", "lumbar", [ellipsoid((0.095, 0.145, 0.11), (0.0, 0.0, 0.06))],
              _joint("thorax", scale), (0.0, 0.0, 0.13), _pitch(lt), role="spine"),
        _bone("chest", "thorax", [ellipsoid((0.11, 0.17, 0.14), (0.0, 0.0, 0.08))], _joint("chest", scale),
              (0.0, 0.0, 0.12), _pitch(lc), role="trunk"),
        _bone("neck", "chest", [capsule((0.0, 0.0, 0.0), (0.0, 0.0, 0.08), 0.05)], _joint("neck", scale),
              (0.0, 0.0, 0.20), _pitch(-total / 2), role="neck"),
        _bone("head", "neck", [ellipsoid((0.10, 0.08, 0.11), (0.01, 0.0, 0.07))],
              _joint("head", scale, "hinge", _Y), (0.0, 0.0, 0.09), _pitch(-total / 2), role="head"),
    ]


def _left_arm(pose: _Pose, scale: float) -> list[Bone]:
    """Clavicle, upper arm, forearm and hand of the left side."""
    chest_pitch = sum(pose.lean)
    # The upper arm's absolute turn, expressed relative to the leaning chest.
    shoulder = _qmul(_pitch(-chest_pitch),
                     _qmul(_pitch(pose.arm_pitch), quat_axis_angle((1, 0, 0), pose.arm_abduction)))
    arm = dict(side="left", limb="front")
    return [
        _bone("clavicle", "chest", [capsule((0, 0, 0), (0.0, 0.15, 0.01), 0.04)],
              _joint("clavicle", scale, "hinge", (1, 0, 0)), (0.0, 0.02, 0.16),
              name="left_clavicle", role="shoulder", **arm),
        _bone("upper_arm", "left_clavicle", [capsule((0, 0, 0), (0, 0, -_UPPER_ARM), 0.045)],
              _joint("upper_arm", scale), (0.0, 0.16, 0.0), shoulder,
              name="left_upper_arm", role="shoulder", **arm),
        _bone("forearm", "left_upper_arm", [capsule((0, 0, 0), (0, 0, -_FOREARM), 0.037)],
              _joint("forearm", scale, "hinge", (0, -1, 0)), (0, 0, -_UPPER_ARM),
              quat_axis_angle((0, -1, 0), pose.elbow), name="left_forearm", role="elbow", **arm),
        # Palm toward the body (-y) when the arm hangs; flexion turns it that way.
        _bone("hand", "left_forearm", [ellipsoid((0.045, 0.02, 0.085), (0.0, 0.0, -0.085))],
              _joint("hand", scale, "hinge", (-1, 0, 0)), (0, 0, -_FOREARM),
              name="left_hand", role="hand", **arm),
    ]


def _left_leg(pose: _Pose, scale: float) -> list[Bone]:
    """Thigh, shin, foot and toe of the left side; the sole stays level."""
    leg = dict(side="left", limb="rear")
    foot_half = (0.10, 0.045, 0.035)
    return [
        _bone("thigh", "pelvis", [capsule((0, 0, 0), (0, 0, -_THIGH), 0.075)], _joint("thigh", scale),
              (0.0, _HIP_Y, 0.0), _pitch(-pose.thigh - pose.lean[0]),
              name="left_thigh", role="hip", **leg),
        _bone("shin", "left_thigh", [capsule((0, 0, 0), (0, 0, -_SHIN), 0.05)],
              _joint("shin", scale, "hinge", _Y), (0, 0, -_THIGH), _pitch(pose.thigh + pose.shin),
              name="left_shin", role="knee", **leg),
        _bone("foot", "left_shin", [box(foot_half, (0.05, 0.0, -_ANKLE_Z + foot_half[2]))],
              _joint("foot", scale), (0, 0, -_SHIN), _pitch(-pose.shin),
              name="left_foot", role="foot", **leg),
        _bone("toe", "left_foot", [box((0.03, 0.045, 0.02), (0.03, 0.0, 0.0))],
              _joint("toe", scale, "hinge", (0, -1, 0)), (0.15, 0.0, -_ANKLE_Z + 0.02),
              name="left_toe", role="toe", **leg),
    ]


def _contacts() -> tuple[ContactPoint, ...]:
    """Sole centre, heel and toe tip of each foot, on the ground plane."""
    out = []
    for side in ("left", "right"):
        out += [ContactPoint(f"{side}_foot", f"{side}_foot", (0.05, 0.0, -_ANKLE_Z)),
                ContactPoint(f"{side}_heel", f"{side}_foot", (-0.05, 0.0, -_ANKLE_Z)),
                ContactPoint(f"{side}_toe", f"{side}_toe", (0.06, 0.0, -0.02))]
    return tuple(out)


def _build(name: str, pose: _Pose, scale: float, description: str) -> CreatureSpec:
    bones = _axial_skeleton(pose, scale)
    arm_l, leg_l = _left_arm(pose, scale), _left_leg(pose, scale)
    bones += arm_l + [_mirror_bone(b) for b in arm_l] + leg_l + [_mirror_bone(b) for b in leg_l]
    return CreatureSpec(name=name, bones=tuple(bones), contacts=_contacts(), description=description,
                        ground_clearance=0.0)


def human(*, stiffness_scale: float = STIFFNESS_SCALE) -> CreatureSpec:
    """The 47-DOF human standing in a T-pose (arms along ±y, palms down, legs
    straight). ``stiffness_scale`` multiplies Kry09's 100 / 1000 N m/rad."""
    return _build("human", T_POSE, stiffness_scale, "47-DOF human, 70 kg, 1.75 m, T-pose (Kry09 Fig. 3)")


def human_relaxed(*, stiffness_scale: float = STIFFNESS_SCALE) -> CreatureSpec:
    """The same human standing relaxed: legs straight as in the T-pose, arms
    hanging 10° out from the sides, elbows bent 15° (:data:`RELAXED_POSE`).
    The human's posture in the registry: its walks and runs hang their arms
    so (:mod:`gaitforge.motion.arms`)."""
    return _build("human_relaxed", RELAXED_POSE, stiffness_scale,
                  "47-DOF human, 70 kg, standing relaxed, arms hanging")


def human_run(*, stiffness_scale: float = STIFFNESS_SCALE) -> CreatureSpec:
    """The same human in a running rest pose: knees bent 40°, hips flexed 26°,
    elbows at 90°, trunk leaning 10° forward, soles flat on the ground."""
    return _build("human_run", RUN_POSE, stiffness_scale,
                  "47-DOF human, 70 kg, running rest pose (Kry09 Fig. 3)")

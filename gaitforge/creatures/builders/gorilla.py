"""A knuckle-walking gorilla after Wang 2011 (UBC MSc thesis, built on Coros et
al. 2011), ch. 3.2 and 3.5.1.

What the thesis fixes and this model keeps:
- 21 links, 157 kg, shoulder height 1.10 m and hip height 0.70 m in the
  natural quadrupedal stance (ch. 3.5.1);
- a 3-link spine (pelvis, a middle link joining the two leg frames, chest);
- 4 links per arm, the last one a flat box of curled fingers that meets the
  ground with its knuckles (ch. 3.3.3); 4 links per leg with plantigrade feet
  whose soles lie flat on the ground;
- arms longer than legs and shoulders wider than hips (ch. 3.2), so the trunk
  pitches up from the hips to the shoulders;
- uniform density, so every link's mass is proportional to its volume, and
  solid cuboid links whose inertias are the cuboid formulas of ch. 4.1.4.

Where the thesis is silent (its Figure 3.12 survives only as a caption) the
choices are ours: the remaining two links are a neck and a head; spine, neck,
shoulders and hips are ball joints, every other joint a hinge about y
(flexion); the dimensions below are plausible adult-gorilla proportions
(upper arm 0.44 m, forearm 0.42 m, hand 0.20 m, thigh 0.34 m, shank 0.34 m,
foot 0.28 m with toes, shoulder width 0.54 m, hip width 0.26 m). The common
density that makes the boxes weigh 157 kg is ≈ 940 kg/m³ (boxes overfill the
rounded body a little, so it sits just under water's). Measured mass shares:
trunk (pelvis+spine+chest) 56 %, neck+head 6 %, each arm 9 %, each leg 10 %.

Labels: a bone's ``role`` is the joint at its origin for the proximal links
(shoulder, elbow, hip, knee, spine ...); the links that touch the ground carry
the role their contact point is named after (``knuckle`` for the curled
fingers, ``foot`` for the sole), and the metacarpals and toes are ``hand`` and
``toe``. Left and right come from one function, mirrored with ``kit.mirror_y``;
hinge axes are mirrored as axial vectors, so a positive angle bends both sides
the same way.

Joint springs (all pull toward the rest pose). Stiffness scales with the
load a joint carries: the static gravity torques in the rest pose, solved by
MuJoCo with the creature held by its four ground contacts, are at most about
130 N m (spine and hips), 60 N m (shoulders, elbows, knees) and a few N m at
the hands and feet. The values below keep every joint within a few degrees of
rest. Measured with ``mujoco.mj_step`` from the rest pose (dt 2 ms, 2 s):
trunk (pelvis and chest) height drops by 0.3 % and 0.7 %, trunk tilt changes
by under 1°, no contact point slides more than 2 mm. Damping is
``DAMPING_TIME`` times the stiffness, which settles the stance within about
0.5 s; the lightest links (fingers, toes) get soft enough springs that the
explicit spring force stays stable at the 2 ms step (ω·dt < 1 about their joints).
"""
from __future__ import annotations

import math

import numpy as np

from gaitforge.creatures.builders.kit import box, mirror_y, quat_axis_angle, vec
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Joint, Shape

TOTAL_MASS = 157.0  # kg, Wang 2011 ch. 3.5.1
SHOULDER_HEIGHT = 1.10  # m, shoulder joints above the ground in the rest stance
HIP_HEIGHT = 0.70  # m, hip joints above the ground in the rest stance
SHOULDER_HALF_WIDTH = 0.27  # m
HIP_HALF_WIDTH = 0.13  # m
TRUNK_RUN = 0.62  # m, forward distance from the hip line to the shoulder line

# Joint stiffness [N m/rad] per joint, chosen from the gravity load (module docstring).
STIFFNESS = {"spine": 4000.0, "chest": 4000.0, "neck": 800.0, "head": 300.0,
             "shoulder": 3000.0, "elbow": 3000.0, "wrist": 1500.0, "knuckle": 150.0,
             "hip": 4000.0, "knee": 3000.0, "ankle": 1500.0, "toe": 60.0}
DAMPING_TIME = 0.02  # s: damping [N m s/rad] = DAMPING_TIME * stiffness

_Y = (0.0, 1.0, 0.0)  # flexion axis


def _side_point(p, side: str) -> np.ndarray:
    """A point designed for the left side, placed on ``side``."""
    return np.asarray(p if side == "left" else mirror_y(p), float)


def _side_axis(a, side: str) -> tuple[float, float, float]:
    """A rotation axis designed for the left side, placed on ``side``: an axial
    vector reflects as −mirror_y(a), so positive angles mean the same motion."""
    return vec(a) if side == "left" else vec(-np.asarray(mirror_y(a)))


def _x_to(d: np.ndarray) -> tuple[float, float, float, float]:
    """Quaternion (w, x, y, z) of the shortest turn taking +x onto ``d``."""
    d = d / np.linalg.norm(d)
    axis = np.cross((1.0, 0.0, 0.0), d)
    s = float(np.linalg.norm(axis))
    if s < 1e-12:
        return (1.0, 0.0, 0.0, 0.0)
    return quat_axis_angle(axis, math.atan2(s, float(d[0])))


def _bar(p, q, half_y: float, half_t: float, origin) -> Shape:
    """A box from world point ``p`` to ``q`` [m] (long axis), ``2*half_y`` wide
    across y and ``2*half_t`` thick, in the frame of a bone whose joint is at
    world point ``origin``. The long axis is taken with a forward x component
    so that a mirrored bar is the mirror image of the original."""
    p, q, origin = (np.asarray(v, float) for v in (p, q, origin))
    d = q - p
    if d[0] < 0:
        d = -d
    return box((np.linalg.norm(d) / 2, half_y, half_t), pos=(p + q) / 2 - origin, quat=_x_to(d))


def _slab(lo, hi, origin) -> Shape:
    """An axis-aligned box between world corners ``lo`` and ``hi`` [m]."""
    lo, hi, origin = (np.asarray(v, float) for v in (lo, hi, origin))
    return box((hi - lo) / 2, pos=(hi + lo) / 2 - origin)


def _hinge(key: str, side: str = "left") -> Joint:
    k = STIFFNESS[key]
    return Joint("hinge", axis=_side_axis(_Y, side), stiffness=k, damping=DAMPING_TIME * k)


def _ball(key: str) -> Joint:
    k = STIFFNESS[key]
    return Joint("ball", stiffness=k, damping=DAMPING_TIME * k)


def _trunk(density: float) -> tuple[list[Bone], dict[str, np.ndarray]]:
    """Pelvis (root), spine, chest, neck, head. Returns the bones and the world
    positions [m] of their joints (pelvis: the midpoint of the hip joints)."""
    hip_c = np.array([0.0, 0.0, HIP_HEIGHT])
    sho_c = np.array([TRUNK_RUN, 0.0, SHOULDER_HEIGHT])
    u = (sho_c - hip_c) / np.linalg.norm(sho_c - hip_c)  # along the trunk
    n = np.array([-u[2], 0.0, u[0]])  # dorsal normal in the sagittal plane
    L = float(np.linalg.norm(sho_c - hip_c))

    def at(s: float, up: float = 0.0) -> np.ndarray:
        return hip_c + s * L * u + up * n

    pos = {"pelvis": hip_c, "spine": at(0.30, 0.02), "chest": at(0.58, 0.02),
           "neck": at(1.06, 0.10)}
    pos["head"] = pos["neck"] + (0.10, 0.0, 0.05)
    bones = [
        Bone("pelvis", None, (_bar(at(-0.12, 0.04), at(0.30, 0.04), 0.15, 0.12, pos["pelvis"]),),
             Joint("free"), pos=vec(pos["pelvis"]), density=density, role="pelvis"),
        Bone("spine", "pelvis", (_bar(at(0.30, 0.02), at(0.58, 0.02), 0.19, 0.16, pos["spine"]),),
             _ball("spine"), pos=vec(pos["spine"] - pos["pelvis"]), density=density, role="spine"),
        # The chest reaches past the shoulder line: the big shoulder hump.
        Bone("chest", "spine", (_bar(at(0.58, 0.02), at(1.10, 0.02), 0.24, 0.19, pos["chest"]),),
             _ball("chest"), pos=vec(pos["chest"] - pos["spine"]), density=density, role="trunk"),
        Bone("neck", "chest", (_bar(pos["neck"], pos["head"], 0.08, 0.07, pos["neck"]),),
             _ball("neck"), pos=vec(pos["neck"] - pos["chest"]), density=density, role="neck"),
        # Head box: deep from brow to crest, muzzle forward of the joint.
        Bone("head", "neck", (box((0.11, 0.095, 0.12), pos=(0.09, 0.0, 0.02)),),
             _hinge("head"), pos=vec(pos["head"] - pos["neck"]), density=density, role="head"),
    ]
    return bones, pos


def _arm(side: str, chest_pos: np.ndarray, density: float) -> list[Bone]:
    """Upper arm, forearm, hand (metacarpals, vertical) and the curled fingers,
    a flat box lying on its back on the ground behind the knuckles."""
    S = _side_point((TRUNK_RUN, SHOULDER_HALF_WIDTH, SHOULDER_HEIGHT), side)
    E = _side_point((TRUNK_RUN - 0.02, SHOULDER_HALF_WIDTH + 0.04, 0.66), side)
    W = _side_point((TRUNK_RUN, SHOULDER_HALF_WIDTH + 0.06, 0.245), side)
    K = _side_point((TRUNK_RUN + 0.02, SHOULDER_HALF_WIDTH + 0.07, 0.045), side)
    fingers = _slab(_side_point((K[0] - 0.10, 0.0, 0.0), "left") + (0, K[1] - 0.055, 0),
                    (K[0] + 0.02, K[1] + 0.055, 0.045), K)
    lab = dict(side=side, limb="front", density=density)
    return [
        Bone(f"upper_arm_{side}", "chest", (_bar(S, E, 0.07, 0.075, S),), _ball("shoulder"),
             pos=vec(S - chest_pos), role="shoulder", **lab),
        Bone(f"forearm_{side}", f"upper_arm_{side}", (_bar(E, W, 0.06, 0.065, E),),
             _hinge("elbow", side), pos=vec(E - S), role="elbow", **lab),
        Bone(f"hand_{side}", f"forearm_{side}", (_bar(W, K, 0.055, 0.035, W),),
             _hinge("wrist", side), pos=vec(W - E), role="hand", **lab),
        Bone(f"fingers_{side}", f"hand_{side}", (fingers,), _hinge("knuckle", side),
             pos=vec(K - W), role="knuckle", **lab),
    ]


def _leg(side: str, pelvis_pos: np.ndarray, density: float) -> list[Bone]:
    """Thigh, shank (knee flexed forward), a flat plantigrade foot and the toes."""
    H = _side_point((0.0, HIP_HALF_WIDTH, HIP_HEIGHT), side)
    N = _side_point((0.15, HIP_HALF_WIDTH + 0.04, 0.40), side)
    A = _side_point((0.06, HIP_HALF_WIDTH + 0.03, 0.075), side)
    T = _side_point((0.21, HIP_HALF_WIDTH + 0.04, 0.025), side)
    y0, y1 = sorted((A[1] - 0.06, A[1] + 0.06))
    foot = _slab((A[0] - 0.06, y0, 0.0), (T[0], y1, 0.07), A)
    y0, y1 = sorted((T[1] - 0.055, T[1] + 0.055))
    toes = _slab((T[0], y0, 0.0), (T[0] + 0.07, y1, 0.03), T)
    lab = dict(side=side, limb="rear", density=density)
    return [
        Bone(f"thigh_{side}", "pelvis", (_bar(H, N, 0.085, 0.09, H),), _ball("hip"),
             pos=vec(H - pelvis_pos), role="hip", **lab),
        Bone(f"shank_{side}", f"thigh_{side}", (_bar(N, A, 0.06, 0.06, N),), _hinge("knee", side),
             pos=vec(N - H), role="knee", **lab),
        Bone(f"foot_{side}", f"shank_{side}", (foot,), _hinge("ankle", side),
             pos=vec(A - N), role="foot", **lab),
        Bone(f"toes_{side}", f"foot_{side}", (toes,), _hinge("toe", side),
             pos=vec(T - A), role="toe", **lab),
    ]

"""A knuckle-walking gorilla after Wang 2011 (UBC MSc thesis, which adapts the
quadruped framework of Coros et al. 2011), ch. 3.2, 3.3.3, 3.5.1 and 4.1.4.

Taken from the thesis:
- 21 links, 157 kg, shoulder height 1.10 m and hip height 0.70 m in the natural
  quadrupedal stance (ch. 3.5.1);
- a spine of 3 links: pelvis, a middle link joining the rear and front leg
  frames, chest (ch. 3.5.1);
- 4 links per arm, the last a flat box of curled fingers that carries the
  weight on its knuckles (ch. 3.3.3, 3.5.1); 4 links per leg whose feet are
  plantigrade, the whole sole on the ground (ch. 3.2, 3.5.1);
- arms longer than legs and shoulders wider than hips, so the trunk pitches up
  from the hips to the shoulders (ch. 3.2);
- one uniform density, so each link weighs in proportion to its volume, and
  solid-cuboid inertias (ch. 4.1.4): every link is a box.

Our choices where the thesis is silent (Figure 3.12 survives only as its
caption): the two links left over are a neck and a head; the spine joints,
neck, shoulders and hips are ball joints, every other joint a flexion hinge
about y. Proportions are plausible for an adult male gorilla: upper arm 0.44 m,
forearm 0.42 m, hand 0.20 m, curled fingers 0.12 m; thigh 0.34 m, shank
0.34 m, foot with toes 0.28 m; shoulder joints 0.54 m apart, hip joints 0.26 m;
trunk pitched 33° (hip line to shoulder line). Measured on the built model: the
density that makes the boxes weigh 157 kg is 842 kg/m³ (boxes overfill a
rounded body); mass shares trunk 55.4 %, neck and head 6.9 %, each arm 9.6 %,
each leg 9.2 %; centre of mass 0.39 m ahead of the hips, inside the feet and
knuckles' support polygon.

Labels: proximal links take the role of the joint at their origin (spine,
shoulder, elbow, hip, knee, ...); the links that touch the ground take the
name of their contact points (``knuckle`` for the curled fingers, ``foot`` for
the sole); the metacarpals are ``hand``, the toes ``toe``. The right side is
the left side's code run through ``kit.mirror_y``; hinge axes reflect as axial
vectors, so a positive angle bends both sides the same way.

Joint springs pull toward the rest pose. Their stiffness (``STIFFNESS``) is
set in proportion to the static load each joint carries, measured after 2 s of
``mj_step`` from rest (dt 2 ms) as the spring torque holding the settled pose:
chest 23 N m, hips 23, neck 19, knees 17, shoulders 9.4, elbows 8.5, ankles
5.7, wrists 5.0, knuckles 2.2 (the lumbar joint and toes carry < 0.2 N m). No
joint then deflects more than 3.4° (neck; limbs at most 2.1°), the pelvis and
chest sink 0.33 % and 0.57 %, the trunk turns under 0.5°, and no contact point
slides more than 1.0 cm (MuJoCo's soft-contact creep). Margin: all stiffnesses
×0.5 still stand (pelvis −0.8 %), ×0.25 sag 3.8 %, ×0.2 collapse (−21 %), so
the chosen values are 4× the weakest that keeps the stance within a few %.
Damping is ``DAMPING_TIME`` × stiffness: joint speeds fall from 1.2 rad/s at
0.1 s to 0.03 rad/s at 0.5 s. The light fingers and toes get soft springs so
that the explicit spring force stays well inside the stability limit at the
2 ms step (largest ω·dt = 0.52, toes, with ω = √(k / M_ii)).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from gaitforge.creatures.builders.kit import box, mirror_y, quat_axis_angle, vec
from gaitforge.creatures.spec_parts import shape_volume
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Joint, Shape

TOTAL_MASS = 157.0  # kg, Wang 2011 ch. 3.5.1
SHOULDER_HEIGHT = 1.10  # m, shoulder joints above the ground in the rest stance
HIP_HEIGHT = 0.70  # m, hip joints above the ground in the rest stance
SHOULDER_HALF_WIDTH = 0.27  # m
HIP_HALF_WIDTH = 0.13  # m
TRUNK_RUN = 0.62  # m, forward distance from the hip line to the shoulder line
KNUCKLE_HEIGHT = 0.045  # m: knuckle joint above the ground = thickness of the finger box
ANKLE_HEIGHT = 0.075  # m: ankle joint above the sole
TOE_HEIGHT = 0.025  # m: toe joint above the sole

# Joint stiffness [N m/rad] per joint, chosen from the gravity load (module docstring).
STIFFNESS = {"spine": 1600.0, "chest": 1600.0, "neck": 320.0, "head": 120.0,
             "shoulder": 1200.0, "elbow": 1200.0, "wrist": 600.0, "knuckle": 60.0,
             "hip": 1600.0, "knee": 1200.0, "ankle": 600.0, "toe": 24.0}
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

    pos = {"pelvis": hip_c, "spine": at(0.28), "chest": at(0.56), "neck": at(1.0, 0.08)}
    pos["head"] = pos["neck"] + (0.13, 0.0, -0.01)
    bones = [
        Bone("pelvis", None, (_bar(at(-0.10, 0.03), at(0.28, 0.0), 0.14, 0.11, pos["pelvis"]),),
             Joint("free"), pos=vec(pos["pelvis"]), density=density, role="pelvis"),
        Bone("spine", "pelvis", (_bar(at(0.28, -0.01), at(0.56, -0.03), 0.18, 0.16, pos["spine"]),),
             _ball("spine"), pos=vec(pos["spine"] - pos["pelvis"]), density=density, role="spine"),
        # The chest reaches past the shoulder line: the big shoulder hump.
        Bone("chest", "spine", (_bar(at(0.56, -0.03), at(1.06, -0.03), 0.21, 0.2, pos["chest"]),),
             _ball("chest"), pos=vec(pos["chest"] - pos["spine"]), density=density, role="trunk"),
        Bone("neck", "chest", (_bar(pos["neck"], pos["head"], 0.08, 0.07, pos["neck"]),),
             _ball("neck"), pos=vec(pos["neck"] - pos["chest"]), density=density, role="neck"),
        # Head box: deep from brow to crest, muzzle forward of the joint.
        Bone("head", "neck", (box((0.11, 0.095, 0.12), pos=(0.08, 0.0, 0.03)),),
             _hinge("head"), pos=vec(pos["head"] - pos["neck"]), density=density, role="head"),
    ]
    return bones, pos


def _arm(side: str, chest_pos: np.ndarray, density: float) -> list[Bone]:
    """Upper arm, forearm, hand (metacarpals, vertical) and the curled fingers,
    a flat box lying on its back on the ground behind the knuckles."""
    S = _side_point((TRUNK_RUN, SHOULDER_HALF_WIDTH, SHOULDER_HEIGHT), side)
    E = _side_point((TRUNK_RUN - 0.02, SHOULDER_HALF_WIDTH + 0.04, 0.66), side)
    W = _side_point((TRUNK_RUN, SHOULDER_HALF_WIDTH + 0.06, 0.245), side)
    K = _side_point((TRUNK_RUN + 0.02, SHOULDER_HALF_WIDTH + 0.07, KNUCKLE_HEIGHT), side)
    y0, y1 = sorted((K[1] - 0.055, K[1] + 0.055))
    # Curled under toward the palm, so the box points back from the knuckles.
    fingers = _slab((K[0] - 0.10, y0, 0.0), (K[0] + 0.02, y1, KNUCKLE_HEIGHT), K)
    lab: dict[str, Any] = dict(side=side, limb="front", density=density)
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
    A = _side_point((0.06, HIP_HALF_WIDTH + 0.03, ANKLE_HEIGHT), side)
    T = _side_point((0.21, HIP_HALF_WIDTH + 0.04, TOE_HEIGHT), side)
    y0, y1 = sorted((A[1] - 0.06, A[1] + 0.06))
    foot = _slab((A[0] - 0.06, y0, 0.0), (T[0], y1, 0.07), A)
    y0, y1 = sorted((T[1] - 0.055, T[1] + 0.055))
    toes = _slab((T[0], y0, 0.0), (T[0] + 0.07, y1, 0.03), T)
    lab: dict[str, Any] = dict(side=side, limb="rear", density=density)
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


def _bones(density: float) -> list[Bone]:
    trunk, pos = _trunk(density)
    bones = trunk
    for side in ("left", "right"):
        bones += _arm(side, pos["chest"], density)
    for side in ("left", "right"):
        bones += _leg(side, pos["pelvis"], density)
    return bones


def _contacts() -> tuple[ContactPoint, ...]:
    """Ground contact points [m, bone frame]: knuckles under the knuckle joint,
    the sole's centre, heel and toe tip of each foot."""
    out = []
    for side in ("left", "right"):
        out.append(ContactPoint(f"front_{side}_knuckle", f"fingers_{side}", (0.0, 0.0, -KNUCKLE_HEIGHT)))
    for side in ("left", "right"):
        out.append(ContactPoint(f"rear_{side}_foot", f"foot_{side}", (0.045, 0.0, -ANKLE_HEIGHT)))
    for side in ("left", "right"):
        out.append(ContactPoint(f"rear_{side}_heel", f"foot_{side}", (-0.06, 0.0, -ANKLE_HEIGHT)))
        out.append(ContactPoint(f"rear_{side}_toe", f"toes_{side}", (0.07, 0.0, -TOE_HEIGHT)))
    return tuple(out)


def gorilla() -> CreatureSpec:
    """The 21-link, 157 kg knuckle-walking gorilla in its quadrupedal rest
    stance (see the module docstring for sources, choices and measurements)."""
    volume = sum(shape_volume(s) for b in _bones(1.0) for s in b.shapes)  # m^3
    density = TOTAL_MASS / volume  # kg/m^3, uniform as in Wang 2011 ch. 4.1.4
    return CreatureSpec(
        name="gorilla",
        description="Knuckle-walking gorilla, 21 links, 157 kg (Wang 2011 ch. 3.5.1)",
        bones=tuple(_bones(density)),
        contacts=_contacts(),
        ground_clearance=0.0,
    )

"""The quadruped as two leg frames and four limbs (Wang 2011 §3.1.2), found
from a character's body labels, and the analytic limb inverse kinematics.

A limb is a chain of bodies of one ``limb`` (front/rear) and ``side``: a
ball joint at the shoulder or hip, a hinge at the elbow or knee, then distal
hinges (wrist and knuckles, ankle and toes, or the dog's metapodials and
paws). The IK reaches the first distal joint (wrist, ankle, hock) with the
two proximal links and holds each distal link at a set world orientation:
2-link IK for the reach, and the 3-link (or longer) limb made determinate by
the orientation of its distal links. The elbow/knee angle has two solutions;
the one nearest the previous pose is chosen, so the limb never flips.

The leg frame of a limb is the body its chain hangs from (shoulders: the
chest; hips: the pelvis).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import mujoco
import numpy as np

from gaitforge.control.skills import quat as Q
from gaitforge.control.skills.gaitgraph import LIMBS
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError

HINGE, BALL = int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_BALL)
FLEXION = np.array([0.0, 1.0, 0.0])  # the flexion axis of a limb's ball joints (builders' convention)


@dataclass(frozen=True)
class Limb:
    """One limb. bodies: ids from the ball-jointed root link down (≥ 3);
    frame: the leg-frame body it hangs from; site: its ground contact site;
    qpos / dofs: addresses of its joints in qpos / qvel (ball first);
    hip (3,): the ball joint's position in the frame body [m]; thigh (3,),
    shank (3,): the knee joint in the root link, the distal joint in the
    knee link [m]; knee_axis (3,) in the knee link; end_to_site (3,) [m]:
    site minus distal joint in the world at rest; axes: the flexion axis
    of each link below the root (its hinge axis, or y for a ball joint,
    which is then driven as a hinge); balls: which of those are balls."""

    name: str
    bodies: tuple[int, ...]
    frame: int
    site: int
    qpos: tuple[int, ...]
    dofs: tuple[int, ...]
    hip: np.ndarray
    thigh: np.ndarray
    shank: np.ndarray
    knee_axis: np.ndarray
    end_to_site: np.ndarray
    axes: tuple[np.ndarray, ...] = ()
    balls: tuple[bool, ...] = ()

    @property
    def reach(self) -> float:
        """Longest hip-to-distal-joint distance [m]."""
        return float(np.linalg.norm(self.thigh) + np.linalg.norm(self.shank))


def find_limbs(character: Character) -> dict[str, Limb]:
    """The four limbs of a quadruped character, keyed by ``LIMBS`` names.
    Raises GaitforgeError naming what is missing when the labels do not
    describe a quadruped with a ball-jointed root and ≥ 3 links per limb."""
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    mujoco.mj_kinematics(m, d)
    out = {}
    for name in LIMBS:
        limb, side = name.split("_")
        bodies = [b for b in range(1, m.nbody)
                  if character.labels[m.body(b).name].limb == limb and character.labels[m.body(b).name].side == side]
        bodies.sort(key=lambda b: _depth(m, b))
        if len(bodies) < 3:
            raise GaitforgeError(f"{character.name}: limb {name} has {len(bodies)} links; the skills controller "
                                 "needs a ball-jointed root link, a hinge and a distal link")
        for k, b in enumerate(bodies):
            kind = int(m.jnt_type[m.body_jntadr[b]]) if m.body_jntnum[b] == 1 else -1
            if kind not in ((BALL,) if k == 0 else (BALL, HINGE)):
                raise GaitforgeError(f"{character.name}: body {m.body(b).name} of limb {name} needs one "
                                     f"{'ball' if k == 0 else 'hinge or ball'} joint")
        sites = [s for s in range(m.nsite) if m.site_bodyid[s] in bodies
                 and m.site(s).name.endswith(("_foot", "_knuckle"))]
        if not sites:
            raise GaitforgeError(f"{character.name}: limb {name} has no contact site named *_foot or *_knuckle")
        site = sites[0]
        j = [int(m.body_jntadr[b]) for b in bodies]
        # A ball below the root link is driven as a flexion hinge about y.
        axes = tuple(m.jnt_axis[k].copy() if int(m.jnt_type[k]) == HINGE else FLEXION for k in j[1:])
        balls = tuple(int(m.jnt_type[k]) == BALL for k in j[1:])
        out[name] = Limb(
            name, tuple(bodies), int(m.body_parentid[bodies[0]]), site,
            tuple(int(m.jnt_qposadr[k]) for k in j), tuple(int(m.jnt_dofadr[k]) for k in j),
            m.body_pos[bodies[0]].copy(), m.body_pos[bodies[1]].copy(), m.body_pos[bodies[2]].copy(),
            axes[0], d.site_xpos[site] - d.xpos[bodies[2]], axes, balls)
    return out


def _depth(m: mujoco.MjModel, b: int) -> int:
    n = 0
    while b:
        b, n = int(m.body_parentid[b]), n + 1
    return n


def spine_path(character: Character, front: int, rear: int) -> tuple[list[int], bool]:
    """The bodies on the path between the two leg-frame bodies, from the
    ancestor frame's child down to the other frame (each with one ball
    joint: the spine), and whether the front frame is the ancestor."""
    m = character.model

    def chain(b: int) -> list[int]:
        out = []
        while b:
            out.append(b)
            b = int(m.body_parentid[b])
        return out

    cf, cr = chain(front), chain(rear)
    if front in cr:
        path, front_first = cr[:cr.index(front)], True
    elif rear in cf:
        path, front_first = cf[:cf.index(rear)], False
    else:
        raise GaitforgeError(f"{character.name}: the leg frames are not on one chain of bodies")
    path = path[::-1]
    if not all(m.body_jntnum[b] == 1 and int(m.jnt_type[m.body_jntadr[b]]) == BALL for b in path):
        raise GaitforgeError(f"{character.name}: the spine between the leg frames needs one ball joint per link")
    return path, front_first


@functools.lru_cache(maxsize=None)
def _knee_constants(thigh: tuple, shank: tuple, axis: tuple) -> tuple[float, float, float]:
    """(|a|² + |b|² + 2C, ρ, ψ) of a limb: with the knee turned by θ the hip
    to distal-joint distance squared is that constant + 2ρ cos(θ − ψ)."""
    a, b, k = np.array(thigh), np.array(shank), np.array(axis)
    b_par = np.dot(b, k) * k
    b_perp = b - b_par
    C, A, B = float(a @ b_par), float(a @ b_perp), float(a @ np.cross(k, b_perp))
    return float(a @ a + b @ b + 2.0 * C), math.hypot(A, B), math.atan2(B, A)


def knee_angle(limb: Limb, length: float, previous: float) -> float:
    """Knee (elbow) hinge angle [rad] putting the distal joint ``length`` [m]
    from the hip, of the two solutions the one nearest ``previous``; the
    length is clamped to what the limb reaches."""
    base, rho, psi = _knee_constants(tuple(limb.thigh), tuple(limb.shank), tuple(limb.knee_axis))
    c = (length * length - base) / (2.0 * rho)
    c = min(1.0, max(-1.0, c))
    best, gap = 0.0, math.inf
    for s in (1.0, -1.0):
        q = psi + s * math.acos(c)
        q = (q - previous + math.pi) % (2 * math.pi) - math.pi + previous  # the copy nearest previous
        if abs(q - previous) < gap:
            best, gap = q, abs(q - previous)
    return best


def distal_point(limb: Limb, knee: float) -> np.ndarray:
    """The distal joint in the root link's frame [m] for a knee angle [rad]."""
    return limb.thigh + Q.rotate(Q.from_axis_angle(limb.knee_axis, knee), limb.shank)


def solve(limb: Limb, target: np.ndarray, previous_knee: float) -> tuple[np.ndarray, float]:
    """(ball quaternion (4,), knee angle [rad]) placing the distal joint at
    ``target`` (3,) [m], given in the leg-frame body's frame. The ball turns
    the bent limb by the smallest rotation onto the target direction (no
    twist about the limb's axis). Link frames are assumed to have the
    identity orientation in their parent at zero joint angles."""
    v = target - limb.hip
    knee = knee_angle(limb, math.sqrt(float(v @ v)), previous_knee)
    return Q.between(distal_point(limb, knee), v), knee


def hold_orientation(parent_world: np.ndarray, axis: np.ndarray, desired_world: np.ndarray) -> float:
    """Hinge angle [rad] about ``axis`` (child frame) that best turns a child
    link, whose parent has world orientation ``parent_world``, to
    ``desired_world``: the error rotation's component along the axis."""
    err = Q.mul(Q.conj(parent_world), desired_world)
    return float(Q.to_rotvec(err) @ axis)

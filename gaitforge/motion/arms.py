"""Free limbs swing opposite the legs (issue 28 item 2).

A limb that carries no foot (a human's arm) plays no part in a gait's
footfalls, yet the whole-body modes a gait is made of move it as much as
they move the legs: the T-pose human's hands rose 0.3–0.5 m above its
shoulders. In normal walking the arms hang and swing about the shoulder,
each with the leg of the other side (forward as that leg goes forward), by
about three quarters of the hip's sagittal range (~30° against ~40°:
Winter 2009; Perry & Burnfield 2010).

:func:`swing_free_limbs` does that in the body-relative poses, frame by
frame: every joint of a *free limb* is put back at its value in the gait's
*posture* (:func:`posture_qpos`: the human's arms hanging at its sides for
the walk, elbows bent for the run, though its modes are those of Kry's
T-pose), and the limb's shoulder
(its ball joint labelled ``shoulder`` nearest the hand) is turned about its
parent's lateral (y) axis by ``gain`` times the other side's hip flexion
(its spread about the clip's mean). A free limb is the bodies of one (limb,
side) label group with a body labelled ``hand`` and none labelled ``foot``;
it is moved only if its hand hangs in the posture (lower than its shoulder
by over half their distance), so an arm held out, whose swing about y would
twist it about its own length, is left to the modes.

Why a posture and not a modal analysis about the relaxed pose: the modes of
the human standing with its arms hanging (measured with
``benchmarks/natural_motion.py`` on that pose before this module) walked at
1.3 m/s with a 96° ankle range and 48° of head pitch, and its run at 3 m/s
turned the head 3.65 turns; the T-pose's modes walk and run as
docs/validation/natural_motion.md measures, and the arms, which take no part
in the footfalls, are put in the posture and swung by the rule above.
Creatures whose every limb is a leg are not touched.

The holding's modal IK then moves every mode to hold the feet, the arms'
share too: in the human walk at 1.3 m/s that took the shoulder's swing
from the rule's 26° to 78°. :func:`still_limbs` zeroes the swinging
shoulders' rows of the modes the IK moves, so it leaves the swing as the
rule made it; a gait asks for it with ``GaitSpec.still_arms``. Masking
the whole arm instead (elbow, wrist and clavicle too) left the IK too
little: the walk at 1.3 m/s then skated 0.024 (the checks allow 0.02) and
the run's head rolled through 133°.
"""
from __future__ import annotations

import dataclasses
import weakref
from typing import NamedTuple

import mujoco
import numpy as np

__all__ = ["FreeLimb", "arms_of", "flung_hands", "free_limbs", "hip_flexion", "posture_qpos",
           "still_limbs", "swing_dofs", "swing_free_limbs", "swing_phase"]

_POSTURES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # character → {posture: qpos}
_STILL: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()      # basis → {posture: masked basis}


class FreeLimb(NamedTuple):
    """One free limb: ``bodies`` (its body ids), ``shoulder`` (the body whose
    ball joint swings), ``hand`` (body id) and ``hip`` (the thigh of the leg
    on the other side, whose flexion it follows)."""

    bodies: tuple[int, ...]
    shoulder: int
    hand: int
    hip: int


def _groups(character) -> dict[tuple, list[int]]:
    out: dict[tuple, list[int]] = {}
    for name, lab in character.labels.items():
        if lab.limb is not None:
            out.setdefault((lab.limb, lab.side), []).append(character.body_id(name))
    return out


def _ball_joint(model: mujoco.MjModel, b: int) -> int | None:
    for j in range(int(model.body_jntadr[b]), int(model.body_jntadr[b] + model.body_jntnum[b])):
        if int(model.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL:
            return j
    return None


def _qmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton products (..., 4) of quaternions a and b (w, x, y, z)."""
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def _qinv(q: np.ndarray) -> np.ndarray:
    return np.asarray(q, float) * [1.0, -1.0, -1.0, -1.0]


def _posture_of(character, spec) -> np.ndarray:
    """``character``'s rest pose (nq,) with each joint turned so that its
    body sits as in ``spec`` (the same skeleton in another pose, bodies
    matched by name): a ball joint by the turn between the two bodies'
    placements, a hinge by that turn's angle about its axis; the root and
    bodies ``spec`` lacks keep their rest."""
    from gaitforge.creatures.character import Character

    m, other = character.model, Character.from_spec(spec).model
    q = np.array(character.rest_qpos, float)
    for b in range(2, m.nbody):
        name = m.body(b).name
        try:
            turn = _qmul(_qinv(m.body_quat[b]), np.asarray(other.body(name).quat, float))
        except KeyError:
            continue
        for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b])):
            a, kind = int(m.jnt_qposadr[j]), int(m.jnt_type[j])
            if kind == mujoco.mjtJoint.mjJNT_BALL:
                q[a:a + 4] = _qmul(turn, q[a:a + 4])
            elif kind == mujoco.mjtJoint.mjJNT_HINGE:
                q[a] += 2.0 * np.arctan2(float(np.dot(turn[1:], m.jnt_axis[j])), float(turn[0]))
    return q


def posture_qpos(character, posture: str | None) -> np.ndarray:
    """The pose (nq,) of ``character`` in ``posture`` (a name of
    :attr:`gaitforge.creatures.registry.Entry.postures`: the human's
    "relaxed", arms hanging, and "running", elbows bent); the rest pose for
    None, a creature that is not built in or a posture it lacks.
    Read-only, computed once per character and posture."""
    from gaitforge.creatures import registry

    known = _POSTURES.setdefault(character, {})
    q = known.get(posture)
    if q is None:
        spec = registry.posture(character.name, posture) \
            if posture is not None and character.name in registry.names() else None
        q = character.rest_qpos.copy() if spec is None else _posture_of(character, spec)
        q.flags.writeable = False
        known[posture] = q
    return q


def free_limbs(character, posture: str | None = None) -> tuple[FreeLimb, ...]:
    """The free limbs of ``character`` that hang in ``posture``
    (:func:`posture_qpos`; module docstring), each paired with the hip of
    the other side's leg."""
    m = character.model
    role = {character.body_id(n): lab.role for n, lab in character.labels.items()}
    groups = _groups(character)
    hips = {side: next(b for b in bodies if role[b] == "hip")
            for (_, side), bodies in groups.items()
            if any(role[b] == "foot" for b in bodies) and any(role[b] == "hip" for b in bodies)}
    xpos, _ = character.body_frames(posture_qpos(character, posture)[None])
    out = []
    for (_, side), bodies in sorted(groups.items(), key=lambda kv: str(kv[0])):
        hands = [b for b in bodies if role[b] == "hand"]
        if not hands or any(role[b] == "foot" for b in bodies):
            continue
        other = [s for s in hips if s != side and side != "center" and s != "center"]
        shoulders = [b for b in bodies if role[b] == "shoulder" and _ball_joint(m, b) is not None]
        if len(other) != 1 or not shoulders:
            continue
        shoulder = max(shoulders)          # children come after parents: the one nearest the hand
        drop = xpos[0, shoulder] - xpos[0, hands[0]]
        if drop[2] <= 0.5 * np.linalg.norm(drop):
            continue                       # not hanging (a T-pose arm)
        out.append(FreeLimb(tuple(sorted(bodies)), shoulder, hands[0], hips[other[0]]))
    return tuple(out)


def hip_flexion(character, qpos: np.ndarray, hip: int) -> np.ndarray:
    """Sagittal angle (T,) [rad] of body ``hip`` against its parent in poses
    ``qpos`` (T, nq): the parent-frame y component of the rotation vector of
    its turn from the rest pose (negative: the thigh forward)."""
    from gaitforge.motion.naturalness import _sagittal

    parent = int(character.model.body_parentid[hip])
    _, xmat = character.body_frames(np.atleast_2d(qpos))
    _, rest = character.body_frames(character.rest_qpos[None])
    return _sagittal(xmat, rest[0], hip, parent)


def swing_free_limbs(character, qpos: np.ndarray, gain: float, posture: str | None = None) -> np.ndarray:
    """Poses (T, nq) with each hanging free limb in the posture and its
    shoulder swung about its parent's lateral axis by ``gain`` times the
    other side's hip flexion about its clip mean (module docstring);
    ``posture``: :func:`posture_qpos`'s; ``qpos`` (T, nq) is not changed;
    ``gain`` 0 returns a copy."""
    qpos = np.array(qpos, float, copy=True)
    if gain == 0.0:
        return qpos
    m = character.model
    pose = posture_qpos(character, posture)
    for limb in free_limbs(character, posture):
        for b in limb.bodies:
            for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b])):
                a = int(m.jnt_qposadr[j])
                n = 4 if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL else 1
                qpos[:, a:a + n] = pose[a:a + n]
        hip = hip_flexion(character, qpos, limb.hip)
        theta = gain * (hip - hip.mean())                                     # (T,) [rad]
        swing = np.zeros((len(qpos), 4))
        swing[:, 0], swing[:, 2] = np.cos(0.5 * theta), np.sin(0.5 * theta)  # about the parent's y
        body = np.asarray(m.body_quat[limb.shoulder], float)
        inv = body * [1.0, -1.0, -1.0, -1.0]
        a = int(m.jnt_qposadr[_ball_joint(m, limb.shoulder)])
        local = _qmul(_qmul(inv[None], swing), body[None])                   # the swing in the joint's frame
        qpos[:, a:a + 4] = _qmul(local, pose[a:a + 4][None])
    return qpos



def swing_dofs(character, posture: str | None = None) -> np.ndarray:
    """The DOF indices (k,) of the swinging shoulder joints of the free limbs
    hanging in ``posture`` (empty: none)."""
    m = character.model
    out = [range(int(m.body_dofadr[b]), int(m.body_dofadr[b] + m.body_dofnum[b]))
           for b in (limb.shoulder for limb in free_limbs(character, posture))]
    return np.array(sorted(d for r in out for d in r), int)


def still_limbs(character, basis, posture: str | None = None):
    """``basis`` with its shapes zero in the swinging shoulders' DOFs of
    the free limbs hanging in ``posture`` (:func:`swing_dofs`): what a
    holding's modal IK moves when it must leave the arms' swing as the rule
    made it (``basis`` itself where there are none). The elbows, wrists and
    clavicles stay the IK's (the walk's elbow then flexes through 6-17°)."""
    dofs = swing_dofs(character, posture)
    if not len(dofs):
        return basis
    known = _STILL.setdefault(basis, {})       # one masked basis per basis and posture (holdings cache by it)
    if posture not in known:
        shapes = np.array(basis.shapes)
        shapes[dofs] = 0.0
        shapes.flags.writeable = False
        known[posture] = dataclasses.replace(basis, shapes=shapes)
    return known[posture]


def arms_of(character, basis, recipe, qpos: np.ndarray):
    """Poses ``qpos`` (T, nq) with the free limbs in ``recipe.posture``
    swung by ``recipe.arm_swing`` (:func:`swing_free_limbs`) and the basis
    the holding moves (:func:`still_limbs` of ``basis`` when
    ``recipe.still_arms``)."""
    q = swing_free_limbs(character, qpos, recipe.arm_swing, recipe.posture) if recipe.arm_swing else qpos
    return q, (still_limbs(character, basis, recipe.posture) if recipe.still_arms else basis)


def flung_hands(character, qpos: np.ndarray) -> list[str]:
    """The hands of ``character``'s free limbs (hanging in its posture or
    not) that rise above their shoulder in some frame of ``qpos`` (T, nq):
    the check that no mode flings a limb that takes no part in the gait
    (empty: every hand stays below its shoulder)."""
    from gaitforge.motion.naturalness import hand_heights

    return [name for name, h in hand_heights(character, qpos).items() if np.max(h) > 0.0]


def swing_phase(character, qpos: np.ndarray, posture: str | None = None) -> dict[str, float]:
    """Side → the phase [°] of each free limb's sagittal shoulder swing
    against its own side's hip flexion in poses ``qpos`` (T, nq), at the
    hip's strongest frequency (the stride's), angles from ``posture``:
    ±180° when the arm swings with the other leg, 0° with its own."""
    from gaitforge.motion.naturalness import _sagittal

    m = character.model
    _, xmat = character.body_frames(np.atleast_2d(qpos))
    _, rest = character.body_frames(posture_qpos(character, posture)[None])
    out = {}
    for limb in free_limbs(character, posture):
        side = character.labels[m.body(limb.shoulder).name].side
        hips = [character.body_id(n) for n in character.bodies_labeled(role="hip")
                if character.labels[n].side == side]
        if not hips:
            continue
        own = hips[0]
        a = _sagittal(xmat, rest[0], limb.shoulder, int(m.body_parentid[limb.shoulder]))
        h = _sagittal(xmat, rest[0], own, int(m.body_parentid[own]))
        fa, fh = np.fft.rfft(a - a.mean()), np.fft.rfft(h - h.mean())
        k = int(np.argmax(np.abs(fh[1:]))) + 1
        out[side] = float(np.degrees(np.angle(fa[k] / fh[k])))
    return out

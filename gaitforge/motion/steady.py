"""Steady trunk and head (issue 28 item 1), in the spirit of Kry09's stable-head
constraint (§5: the head's orientation locked while the body moves).

An animal looks where it goes: its head keeps its orientation while the
body bobs, rolls and yaws under it, and a walking human's chest counter-
rotates against the pelvis. The elastic modes a gait is made of turn the
whole chain, so the head nods and yaws with them (the dog's walk: 73°
pitch, 72° yaw, 5th–95th percentile). Here, in every frame, the joints of
the bodies labelled with a chain's ``joint_roles`` are turned by damped
least squares on the rotational Jacobian until the held body (labelled ``held_role``) has its rest orientation again,
turned by the clip's mean heading. All frames take their steps together,
as arrays, with the chain's kinematics and Jacobian composed here as
MuJoCo composes them (tests/test_steady_batch.py holds them to MuJoCo's
``mj_kinematics``, ``mj_jacBody`` and ``mj_integratePos``, frame by frame:
the same poses to 1e-12, 4–6 times faster). Only bodies between the trunk and the
held body move, and none of them carries a foot, so the stance feet stay
where the holding put them; the centre of mass moves by the head's and
upper body's share (a few millimetres).

What is held is data: :data:`TRUNK_CHAIN` holds the trunk by the spine's
joints (the human's chest; a creature whose trunk is its root body, the
dog, has no such joints and is left alone), :data:`HEAD_CHAIN` the head by
the neck's. The pipeline holds :data:`STEADY_CHAINS` in the body-relative
poses before the grounding (poses → steady → ground → hold).

The holding then keeps them (:func:`kept_chains`): its modal IK, which
moves the whole body to hold the feet and the centre of mass, used to turn
spine, neck and root again (the dog's walk at Fr 0.45: head pitch and yaw
82° and 76° after the holding, 0° before it; the human walk at Fr 0.1:
pelvis rotation 77°, 11° before). In every frame its mode shapes are
changed in the chain's joints so that no mode turns the held body
(``pin_stance_feet(keep=)``: to first order, at the frame's pose), and,
where the trunk is steadied, in the root's rotation so that no mode turns
the root's heading (elastic modes carry no angular momentum, so every
correction of a leg used to yaw the root the other way). The holding keeps
only what was steadied: a ramp steadies and keeps the head alone. The feet hang off neither chain, so what the IK does
for them is the same motion of the legs; the head, the chest and the
root's heading stay as the steadied poses have them (within 1–5° over the
gait-speed table).
"""
from __future__ import annotations

from typing import NamedTuple

import mujoco
import numpy as np

__all__ = ["HEAD_CHAIN", "STEADY_CHAINS", "TRUNK_CHAIN", "SteadyChain", "chain_dofs", "kept_chains",
           "steady"]

_BALL, _SLIDE, _HINGE = mujoco.mjtJoint.mjJNT_BALL, mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_HINGE
DAMPING = 1e-3      # [rad²] damped least squares: λ in (JᵀJ + λI)⁻¹Jᵀ
ITERATIONS = 4      # Gauss–Newton steps per frame (the error is ~1e-4 rad after 3 at a gait's angles)
MAX_STEP = 0.3      # [rad] largest joint-space step of one iteration: a chain that cannot reach its
                    # target (a neck of hinges) is turned towards it, never flung (at most 1.2 rad)


class SteadyChain(NamedTuple):
    """Hold the body labelled ``held_role`` at its rest orientation (turned
    by the clip's mean heading) by turning the joints of its ancestors (and
    its own) labelled with one of ``joint_roles``."""

    held_role: str
    joint_roles: tuple[str, ...]


TRUNK_CHAIN = SteadyChain("trunk", ("spine", "trunk"))
HEAD_CHAIN = SteadyChain("head", ("neck", "head"))
# Both are held before the grounding, so that the grounding and the holding see (and smooth) the
# centre of mass of the steadied body; the holding's modal IK then turns the spine and neck again,
# by less. Turning the head back once more after the holding held it within 0.1°, but moved the
# centre of mass off the holding's flight arcs (a 31 kg dog's head weighs 4 kg), and keeping the
# centre of mass by moving the body let the feet skate past the flight tests' 0.05. On the
# human's walk at Fr 0.25 (docs/validation/natural_motion.md): the chest held upright after the
# holding too moved half the body's mass off the path the holding had smoothed (5.6 g of stance
# force, 2.0 g unheld); the chest's neck and clavicles held as IK targets through the holding kept
# it within 0.3° but let the feet skate 0.03-0.06 (the checks allow 0.02). Held before the
# grounding only, the walk meets every check (2.1 g, skate 0.001), its trunk's heading and sway
# 13° and 11° (8° and 66° before).
STEADY_CHAINS: tuple[SteadyChain, ...] = (TRUNK_CHAIN, HEAD_CHAIN)


def chain_dofs(character, chain: SteadyChain) -> tuple[int | None, np.ndarray]:
    """The held body's id and the DOF indices (k,) of the ball and hinge
    joints of the bodies from it up towards the root whose role is one of
    the chain's ``joint_roles`` (stopping at the first that is not); (None,
    empty) where the creature has no such body or no such joints."""
    m = character.model
    held = character.bodies_labeled(role=chain.held_role)
    if not held:
        return None, np.zeros(0, int)
    b = character.body_id(held[0])
    dofs: list[int] = []
    while b > 0 and character.labels[m.body(b).name].role in chain.joint_roles:
        dofs += _turning_dofs(m, b)
        b = int(m.body_parentid[b])
    held_id = character.body_id(held[0])
    return (held_id, np.array(sorted(dofs), int)) if dofs else (None, np.zeros(0, int))


def _turning_dofs(m: mujoco.MjModel, b: int) -> list[int]:
    """The DOF indices of body b's ball and hinge joints, in joint order."""
    dofs: list[int] = []
    for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b])):
        kind = int(m.jnt_type[j])
        if kind in (_BALL, _HINGE):
            dofs += range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + (3 if kind == _BALL else 1))
    return dofs


def _rz(yaw: float) -> np.ndarray:
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def steady(character, qpos: np.ndarray, chains: tuple[SteadyChain, ...] = STEADY_CHAINS) -> np.ndarray:
    """Poses (T, nq) with each chain's held body turned back to its rest
    orientation, yawed by the clip's mean heading of that body (module
    docstring); ``qpos`` (T, nq) is not changed.

    Every frame takes the same few damped Gauss–Newton steps, so the frames
    go through them together, as arrays (:func:`_chain_frames`); each keeps
    the best pose it met."""
    qpos = np.array(qpos, float, copy=True)
    m = character.model
    rest_frames = character.body_frames(character.rest_qpos[None])[1][0]
    for chain in chains:
        b, dofs = chain_dofs(character, chain)
        if b is None:
            held = character.bodies_labeled(role=chain.held_role)
            if held and character.body_id(held[0]) == character.body_id(character.bodies[0]):
                qpos = _steady_root(character, qpos, rest_frames)
            continue
        links = _chain_links(m, b, dofs)
        xpos, xmat = character.body_frames(qpos, b + 1)
        parent = int(m.body_parentid[links[0][0]])             # the chain's joints do not move it
        R0 = xmat[:, b] @ rest_frames[b].T
        heading = float(np.mean(np.unwrap(np.arctan2(R0[:, 1, 0], R0[:, 0, 0]))))
        target = _rz(heading) @ rest_frames[b]
        best, best_err = qpos.copy(), np.full(len(qpos), np.inf)
        for it in range(ITERATIONS + 1):
            _, held_frame, _, J = _chain_frames(m, links, xpos[:, parent], xmat[:, parent], qpos)
            e = _log_batch(target @ np.swapaxes(held_frame, 1, 2))      # (T, 3) world-frame error
            err = np.sqrt(np.einsum("ti,ti->t", e, e))
            better = err < best_err                                     # the best pose met is kept
            best[better], best_err[better] = qpos[better], err[better]
            if it == ITERATIONS:
                break
            if J.shape[2] >= 3:
                A = J @ np.swapaxes(J, 1, 2) + DAMPING * np.eye(3)
                step = np.einsum("tij,ti->tj", J, np.linalg.solve(A, e[..., None])[..., 0])
            else:
                A = np.swapaxes(J, 1, 2) @ J + DAMPING * np.eye(J.shape[2])
                step = np.linalg.solve(A, np.einsum("tij,ti->tj", J, e)[..., None])[..., 0]
            norm = np.sqrt(np.einsum("tk,tk->t", step, step))
            step *= np.where(norm > MAX_STEP, MAX_STEP / np.where(norm > 0, norm, 1.0), 1.0)[:, None]
            qpos = _integrate(m, links, qpos, step)
        qpos = best
    return qpos


Link = tuple[int, list[tuple[int, int, int]]]


def _chain_links(m: mujoco.MjModel, tip: int, dofs: np.ndarray) -> list[Link]:
    """The bodies from the first one that owns one of ``dofs`` (balls and
    hinges on the path from body ``tip`` to the root) down to ``tip``, each
    as (body id, its joints as (joint id, qpos address, column of the
    joint's first DOF in the Jacobian, or −1 for a joint not in ``dofs``));
    columns follow ``dofs``'s order."""
    column = {int(d): i for i, d in enumerate(dofs)}
    owners = {int(m.dof_bodyid[d]) for d in dofs}
    bodies = []
    b = tip
    while owners:                                      # a jointless body on the way is part of the chain
        bodies.append(b)
        owners.discard(b)
        b = int(m.body_parentid[b])
    return [(b, [(j, int(m.jnt_qposadr[j]), column.get(int(m.jnt_dofadr[j]), -1))
                 for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b]))])
            for b in reversed(bodies)]


def _chain_frames(m: mujoco.MjModel, links: list[Link], parent_pos: np.ndarray, parent_rot: np.ndarray,
                  qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tip body's world position (T, 3) [m] and orientation (T, 3, 3) at
    poses qpos (T, nq), and the Jacobians (T, 3, k) of its origin's velocity
    and of its angular velocity over the chain's k DOFs, from the world frame
    of the chain's parent (positions (T, 3), orientations (T, 3, 3)).
    Composed body by body as ``mj_kinematics`` does: the body's fixed offset,
    then each joint about its anchor. A hinge's rotational column is its
    axis in the world; a ball's three are the axes of the frame just after
    it (where ``mj_integratePos`` turns it; ``mj_jacBody`` takes the body's
    frame, the same when the ball is its body's last joint, as in every
    built-in creature); a translational column is that axis × (origin −
    joint anchor)."""
    T = len(qpos)
    k = 1 + max(c + (2 if int(m.jnt_type[j]) == _BALL else 0) for _, joints in links for j, _, c in joints)
    axes, anchors = np.zeros((T, 3, k)), np.zeros((T, 3, k))
    p, R = parent_pos, parent_rot
    for b, joints in links:
        p = p + R @ m.body_pos[b]
        R = R @ _quat_to_mat(m.body_quat[b][None])[0]
        for j, a, c in joints:
            kind = int(m.jnt_type[j])
            if kind == _SLIDE:
                p = p + (R @ m.jnt_axis[j]) * (qpos[:, a] - m.qpos0[a])[:, None]
                continue
            anchor = p + R @ m.jnt_pos[j]
            if kind == _BALL:
                quat = qpos[:, a:a + 4]
                R = R @ _quat_to_mat(quat / np.linalg.norm(quat, axis=1, keepdims=True))
                if c >= 0:
                    axes[:, :, c:c + 3], anchors[:, :, c:c + 3] = R, anchor[:, :, None]
            elif kind == _HINGE:
                if c >= 0:
                    axes[:, :, c], anchors[:, :, c] = R @ m.jnt_axis[j], anchor
                R = R @ _axis_angle_to_mat(m.jnt_axis[j], qpos[:, a] - m.qpos0[a])
            else:
                raise ValueError(f"steady: joint {j} is free, inside a chain")  # a free joint roots its tree
            p = anchor - R @ m.jnt_pos[j]
    lever = p[:, :, None] - anchors
    return p, R, np.cross(axes, lever, axis=1), axes


def _integrate(m: mujoco.MjModel, links: list[Link], qpos: np.ndarray, step: np.ndarray) -> np.ndarray:
    """qpos (T, nq) moved by the chain's DOF step (T, k), as ``mj_integratePos``
    with a unit time: a hinge adds its step; a ball's (normalized)
    quaternion is turned by its step as a rotation vector in its own frame."""
    out = qpos.copy()
    for _, joints in links:
        for j, a, c in joints:
            if c < 0:
                continue
            if int(m.jnt_type[j]) == _BALL:
                q = out[:, a:a + 4] / np.linalg.norm(out[:, a:a + 4], axis=1, keepdims=True)
                out[:, a:a + 4] = _quat_mul(q, _rotvec_to_quat(step[:, c:c + 3]))
            else:
                out[:, a] += step[:, c]
    return out


def _quat_to_mat(q: np.ndarray) -> np.ndarray:
    """Rotation matrices (T, 3, 3) of unit quaternions q (T, 4) (w, x, y, z)."""
    w, x, y, z = q.T
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                     2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                     2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], axis=1).reshape(-1, 3, 3)


def _axis_angle_to_mat(axis: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Rotations (T, 3, 3) by angle (T,) [rad] about the unit axis (3,) (Rodrigues)."""
    K = np.array([[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]])
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3) + s * K + (1.0 - c) * (K @ K)


def _rotvec_to_quat(v: np.ndarray) -> np.ndarray:
    """Unit quaternions (T, 4) of rotation vectors v (T, 3) [rad]."""
    angle = np.sqrt(np.einsum("ti,ti->t", v, v))
    scale = np.where(angle > 0, np.sin(0.5 * angle) / np.where(angle > 0, angle, 1.0), 0.5)
    return np.column_stack([np.cos(0.5 * angle), v * scale[:, None]])


def _quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Products a b (T, 4) of quaternions a, b (T, 4)."""
    aw, ax, ay, az = a.T
    bw, bx, by, bz = b.T
    return np.column_stack([aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw])


def _mat_to_quat(R: np.ndarray) -> np.ndarray:
    """Unit quaternions (T, 4) of rotation matrices R (T, 3, 3), as MuJoCo's
    ``mju_mat2Quat`` picks them (the same case, so the same sign)."""
    m = R.reshape(-1, 9)
    trace = m[:, 0] + m[:, 4] + m[:, 8]
    case = np.select([trace > 0, (m[:, 0] > m[:, 4]) & (m[:, 0] > m[:, 8]), m[:, 4] > m[:, 8]], [0, 1, 2], 3)
    big = 0.5 * np.sqrt(np.maximum(np.choose(case, [1 + trace, 1 + m[:, 0] - m[:, 4] - m[:, 8],
                                                    1 - m[:, 0] + m[:, 4] - m[:, 8],
                                                    1 - m[:, 0] - m[:, 4] + m[:, 8]]), 1e-300))
    a, b, c = m[:, 7] - m[:, 5], m[:, 2] - m[:, 6], m[:, 3] - m[:, 1]        # 4w·(x, y, z)
    d, e, f = m[:, 1] + m[:, 3], m[:, 2] + m[:, 6], m[:, 5] + m[:, 7]        # 4xy, 4xz, 4yz
    q = np.empty((len(m), 4))
    for k, row in enumerate(((big, a, b, c), (a, big, d, e), (b, d, big, f), (c, e, f, big))):
        pick = case == k
        q[pick] = np.stack([v if i == k else 0.25 * v / big for i, v in enumerate(row)], axis=1)[pick]
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def _log_batch(R: np.ndarray) -> np.ndarray:
    """Rotation vectors (T, 3) [rad] of rotation matrices R (T, 3, 3), as
    MuJoCo's ``mju_mat2Quat`` then ``mju_quat2Vel`` give them."""
    q = _mat_to_quat(R)
    sin_half = np.sqrt(np.einsum("ti,ti->t", q[:, 1:], q[:, 1:]))
    angle = 2.0 * np.arctan2(sin_half, q[:, 0])
    angle = np.where(angle > np.pi, angle - 2.0 * np.pi, angle)
    return q[:, 1:] * np.where(sin_half > 0, angle / np.where(sin_half > 0, sin_half, 1.0), 0.0)[:, None]


def root_rotation_dofs(character) -> np.ndarray:
    """The DOF indices (3,) of the root body's rotation (a free root's last
    three, a ball root's); empty for a root that cannot turn freely."""
    m = character.model
    root = character.body_id(character.bodies[0])
    for j in range(int(m.body_jntadr[root]), int(m.body_jntadr[root] + m.body_jntnum[root])):
        if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_FREE:
            return np.arange(int(m.jnt_dofadr[j]) + 3, int(m.jnt_dofadr[j]) + 6)
        if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL:
            return np.arange(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + 3)
    return np.zeros(0, int)


KeptBody = tuple[int, np.ndarray, tuple[int, ...]]


def kept_chains(character, chains: tuple[SteadyChain, ...] = STEADY_CHAINS) -> list[KeptBody]:
    """What the holding's modal IK keeps from turning
    (``pin_stance_feet(keep=)``) of poses steadied by ``chains``, as (body
    id, DOF indices, world axes) triples: where a chain holds the trunk
    (:data:`TRUNK_CHAIN`'s ``held_role``), the root body's heading (its turn
    about world z) by the root's own rotation; then each chain's held body,
    about every axis, by the chain's joints (:func:`chain_dofs`), in chain
    order.

    The root's heading goes with the trunk: :func:`steady` turns it where
    the trunk is the root, and a ramp that steadies the head only
    (:mod:`gaitforge.motion.ramp`) keeps the head only (its human's run,
    held with the root's heading kept as well, reached 5.1 g at the root
    and 4.2 g at the centre of mass, against 3.6 g and 2.2 g)."""
    out: list[KeptBody] = []
    dofs = root_rotation_dofs(character)
    if len(dofs) and any(c.held_role == TRUNK_CHAIN.held_role for c in chains):
        out.append((character.body_id(character.bodies[0]), dofs, (2,)))
    for chain in chains:
        b, dofs = chain_dofs(character, chain)
        if b is not None:
            out.append((b, dofs, (0, 1, 2)))
    return out


ROOT_ITERATIONS = 3   # Gauss–Newton steps per frame that put the pelvis back after the root turned


def _steady_root(character, qpos: np.ndarray, rest_frames: np.ndarray) -> np.ndarray:
    """Poses (T, nq) whose root body (a free root that is the held trunk)
    keeps the clip's mean heading: in each frame the root turns about world
    z, about its origin, by its heading's difference from the mean (its
    pitch and roll stay), each child body joined by a ball keeps the world
    orientation it had, and the body labelled ``pelvis`` below it gets its
    world position and orientation back from the joints between them (the
    spine bends sideways where the trunk no longer yaws). Unchanged where
    the root has no free joint.

    Only the heading: the trunk held level as well (pitch and roll) took
    the dog's trunk sway from 19–67° to 5–33° over the gait-speed table,
    but its pace at Fr 2 then missed its speed by 33 % (20.7 g of stance
    force)."""
    m = character.model
    root = character.body_id(character.bodies[0])
    j0 = int(m.body_jntadr[root])
    if m.body_jntnum[root] < 1 or int(m.jnt_type[j0]) != mujoco.mjtJoint.mjJNT_FREE:
        return qpos
    qa = int(m.jnt_qposadr[j0])
    xpos, xmat = character.body_frames(qpos)
    R0 = xmat[:, root] @ rest_frames[root].T
    yaw = np.arctan2(R0[:, 1, 0], R0[:, 0, 0])
    heading = float(np.mean(np.unwrap(yaw)))
    c, s = np.cos(heading - yaw), np.sin(heading - yaw)
    turn = np.zeros((len(qpos), 3, 3))
    turn[:, 0, 0], turn[:, 0, 1], turn[:, 1, 0], turn[:, 1, 1], turn[:, 2, 2] = c, -s, s, c, 1.0
    target = turn @ xmat[:, root]                                    # (T, 3, 3): the root turned about z
    out = np.array(qpos, float, copy=True)
    out[:, qa + 3:qa + 7] = _mat_to_quat(_quat_to_mat(m.body_quat[root][None])[0].T @ target)
    for child in (int(x) for x in np.flatnonzero(m.body_parentid == root)):
        j = int(m.body_jntadr[child])
        if m.body_jntnum[child] == 1 and int(m.jnt_type[j]) == _BALL:   # keeps its world orientation
            rel = _quat_to_mat(m.body_quat[child][None])[0]
            a = int(m.jnt_qposadr[j])
            out[:, a:a + 4] = _mat_to_quat(np.swapaxes(target @ rel, 1, 2) @ xmat[:, child])
    pelvis = character.bodies_labeled(role="pelvis")
    p = character.body_id(pelvis[0]) if pelvis else -1
    dofs: list[int] = []
    b = p
    while b > root:
        dofs += _turning_dofs(m, b)
        b = int(m.body_parentid[b])
    if p <= root or not dofs:
        return out
    links = _chain_links(m, p, np.array(sorted(dofs), int))
    keep_pos, keep_rot = xpos[:, p], xmat[:, p]
    parent = int(m.body_parentid[links[0][0]])
    base_pos, base_rot = (x[:, parent] for x in character.body_frames(out, parent + 1))  # the root turned
    for _ in range(ROOT_ITERATIONS):
        pos, rot, Jp, Jr = _chain_frames(m, links, base_pos, base_rot, out)
        e = np.concatenate([keep_pos - pos, _log_batch(keep_rot @ np.swapaxes(rot, 1, 2))], axis=1)
        J = np.concatenate([Jp, Jr], axis=1)                            # (T, 6, k)
        x = np.linalg.solve(J @ np.swapaxes(J, 1, 2) + DAMPING * np.eye(6), e[..., None])[..., 0]
        out = _integrate(m, links, out, np.einsum("tij,ti->tj", J, x))
    return out

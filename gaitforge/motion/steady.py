"""Steady trunk and head (issue 28 item 1), in the spirit of Kry09's stable-head
constraint (§5: the head's orientation locked while the body moves).

An animal looks where it goes: its head keeps its orientation while the
body bobs, rolls and yaws under it, and a walking human's chest counter-
rotates against the pelvis. The elastic modes a gait is made of turn the
whole chain, so the head nods and yaws with them (the dog's walk: 73°
pitch, 72° yaw, 5th–95th percentile). Here, frame by frame, the joints of
the bodies labelled with a chain's ``joint_roles`` are turned by damped
least squares on the rotational Jacobian (MuJoCo's ``mj_jacBody``) until
the held body (labelled ``held_role``) has its rest orientation again,
turned by the clip's mean heading. Only bodies between the trunk and the
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
        for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b])):
            if int(m.jnt_type[j]) in (mujoco.mjtJoint.mjJNT_BALL, mujoco.mjtJoint.mjJNT_HINGE):
                n = 3 if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL else 1
                dofs += range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + n)
        b = int(m.body_parentid[b])
    held_id = character.body_id(held[0])
    return (held_id, np.array(sorted(dofs), int)) if dofs else (None, np.zeros(0, int))


def _log(R: np.ndarray) -> np.ndarray:
    """The rotation vector (3,) [rad] of a rotation matrix R (3, 3)."""
    q = np.empty(4)
    mujoco.mju_mat2Quat(q, R.reshape(-1))
    v = np.empty(3)
    mujoco.mju_quat2Vel(v, q, 1.0)
    return v


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
                qpos = _steady_root(character, qpos, mujoco.MjData(m), rest_frames)
            continue
        links = _chain_links(m, b, dofs)
        base = links[0][0]
        _, xmat = character.body_frames(qpos, b + 1)
        parent = xmat[:, int(m.body_parentid[base])]          # the chain's joints do not move it
        R0 = xmat[:, b] @ rest_frames[b].T
        heading = float(np.mean(np.unwrap(np.arctan2(R0[:, 1, 0], R0[:, 0, 0]))))
        target = _rz(heading) @ rest_frames[b]
        best, best_err = qpos.copy(), np.full(len(qpos), np.inf)
        for it in range(ITERATIONS + 1):
            held_frame, J = _chain_frames(m, links, parent, qpos)
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


def _chain_links(m: mujoco.MjModel, held: int, dofs: np.ndarray) -> list[Link]:
    """The chain's bodies from its base to the held body, each as (body id,
    its joints as (joint id, qpos address, column of the chain's first DOF
    in the Jacobian)); columns follow ``dofs``'s order."""
    column = {int(d): i for i, d in enumerate(dofs)}
    owners = {int(m.dof_bodyid[d]) for d in dofs}     # all on the path from the held body to the root
    bodies = []
    b = held
    while owners:                                      # a jointless body on the way is part of the chain
        bodies.append(b)
        owners.discard(b)
        b = int(m.body_parentid[b])
    links = []
    for b in reversed(bodies):
        joints = [(j, int(m.jnt_qposadr[j]), column[int(m.jnt_dofadr[j])])
                  for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b]))
                  if int(m.jnt_dofadr[j]) in column]
        links.append((b, joints))
    return links


def _chain_frames(m: mujoco.MjModel, links: list[Link], parent: np.ndarray,
                  qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The held body's world orientation (T, 3, 3) at poses qpos (T, nq) and
    the rotational Jacobian (T, 3, k) of the chain's k DOFs, from the world
    orientation of the chain's parent (T, 3, 3); composed body by body as
    MuJoCo does (``mj_kinematics``: the body's fixed rotation, then each
    joint's). A hinge's column is its axis in the world; a ball's three are
    the axes of the frame just after it (where ``mj_integratePos`` turns
    it; MuJoCo's ``mj_jacBody`` takes the body's frame, the same when the
    ball is the body's last joint, as in every built-in creature)."""
    T = len(qpos)
    k = 1 + max(c + (2 if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL else 0)
                for _, joints in links for j, _, c in joints)
    J = np.empty((T, 3, k))
    R = parent
    for b, joints in links:
        R = R @ _quat_to_mat(m.body_quat[b][None])[0]
        for j, a, c in joints:
            if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL:
                quat = qpos[:, a:a + 4]
                R = R @ _quat_to_mat(quat / np.linalg.norm(quat, axis=1, keepdims=True))
                J[:, :, c:c + 3] = R
            else:
                axis = m.jnt_axis[j]
                J[:, :, c] = R @ axis
                R = R @ _axis_angle_to_mat(axis, qpos[:, a] - m.qpos0[a])
    return R, J


def _integrate(m: mujoco.MjModel, links: list[Link], qpos: np.ndarray, step: np.ndarray) -> np.ndarray:
    """qpos (T, nq) moved by the chain's DOF step (T, k), as ``mj_integratePos``
    with a unit time: a hinge adds its step; a ball's (normalized)
    quaternion is turned by its step as a rotation vector in its own frame."""
    out = qpos.copy()
    for _, joints in links:
        for j, a, c in joints:
            if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL:
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


def _log_batch(R: np.ndarray) -> np.ndarray:
    """Rotation vectors (T, 3) [rad], angles in [0, π], of rotation matrices R (T, 3, 3):
    the quaternion by the largest of its four components (Shepperd), then its angle and axis."""
    m00, m11, m22 = R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]
    cand = np.stack([1 + m00 + m11 + m22, 1 + m00 - m11 - m22, 1 - m00 + m11 - m22, 1 - m00 - m11 + m22], axis=1)
    k = np.argmax(cand, axis=1)
    s = np.sqrt(np.maximum(cand[np.arange(len(R)), k], 1e-300))     # 4 |q_k|
    d10, d01 = R[:, 1, 0], R[:, 0, 1]
    d21, d12 = R[:, 2, 1], R[:, 1, 2]
    d02, d20 = R[:, 0, 2], R[:, 2, 0]
    q = np.empty((len(R), 4))
    for i, row in enumerate(([s * s, d21 - d12, d02 - d20, d10 - d01],
                             [d21 - d12, s * s, d01 + d10, d02 + d20],
                             [d02 - d20, d01 + d10, s * s, d12 + d21],
                             [d10 - d01, d02 + d20, d12 + d21, s * s])):
        pick = k == i
        q[pick] = np.stack(row, axis=1)[pick] / (2.0 * s[pick, None])
    q *= np.where(q[:, 0] < 0, -1.0, 1.0)[:, None]                   # w ≥ 0: the short way round
    sin_half = np.sqrt(np.einsum("ti,ti->t", q[:, 1:], q[:, 1:]))
    angle = 2.0 * np.arctan2(sin_half, q[:, 0])
    return q[:, 1:] * np.where(sin_half > 0, angle / np.where(sin_half > 0, sin_half, 1.0), 2.0)[:, None]


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


def _steady_root(character, qpos: np.ndarray, d, rest_frames: np.ndarray) -> np.ndarray:
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
    _, xmat = character.body_frames(qpos, root + 1)
    R0 = xmat[:, root] @ rest_frames[root].T
    heading = float(np.mean(np.unwrap(np.arctan2(R0[:, 1, 0], R0[:, 0, 0]))))
    flat = np.empty(9)
    mujoco.mju_quat2Mat(flat, m.body_quat[root])
    parent_frame = flat.reshape(3, 3)
    quat = np.empty(4)
    balls: list[tuple[int, int, np.ndarray]] = []
    for c in (int(x) for x in np.flatnonzero(m.body_parentid == root)):
        j = int(m.body_jntadr[c])
        if m.body_jntnum[c] == 1 and int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL:
            own = np.empty(9)
            mujoco.mju_quat2Mat(own, m.body_quat[c])
            balls.append((c, int(m.jnt_qposadr[j]), own.reshape(3, 3)))
    pelvis = character.bodies_labeled(role="pelvis")
    p = character.body_id(pelvis[0]) if pelvis else -1
    chain: list[int] = []
    b = p
    while b > root:
        for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b])):
            if int(m.jnt_type[j]) in (mujoco.mjtJoint.mjJNT_BALL, mujoco.mjtJoint.mjJNT_HINGE):
                n = 3 if int(m.jnt_type[j]) == mujoco.mjtJoint.mjJNT_BALL else 1
                chain += range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + n)
        b = int(m.body_parentid[b])
    dofs = np.array(sorted(chain), int)
    out = np.array(qpos, float, copy=True)
    jacp, jacr = np.zeros((3, m.nv)), np.zeros((3, m.nv))
    dv = np.zeros(m.nv)
    for t in range(len(out)):
        d.qpos[:] = out[t]
        mujoco.mj_kinematics(m, d)
        world = {c: d.xmat[c].reshape(3, 3).copy() for c, _, _ in balls}
        keep_pos = d.xpos[p].copy() if p > root else None
        keep_rot = d.xmat[p].reshape(3, 3).copy() if p > root else None
        R = d.xmat[root].reshape(3, 3) @ rest_frames[root].T
        target = _rz(heading - float(np.arctan2(R[1, 0], R[0, 0]))) @ d.xmat[root].reshape(3, 3)
        mujoco.mju_mat2Quat(quat, (parent_frame.T @ target).reshape(-1))
        d.qpos[qa + 3:qa + 7] = quat
        for c, a, rel in balls:
            q = np.empty(4)
            mujoco.mju_mat2Quat(q, ((target @ rel).T @ world[c]).reshape(-1))
            d.qpos[a:a + 4] = q
        if keep_pos is not None and len(dofs):
            for _ in range(ROOT_ITERATIONS):
                mujoco.mj_kinematics(m, d)
                mujoco.mj_comPos(m, d)
                e = np.r_[keep_pos - d.xpos[p], _log(keep_rot @ d.xmat[p].reshape(3, 3).T)]
                mujoco.mj_jacBody(m, d, jacp, jacr, p)
                J = np.vstack([jacp[:, dofs], jacr[:, dofs]])
                dv[:] = 0.0
                dv[dofs] = J.T @ np.linalg.solve(J @ J.T + DAMPING * np.eye(6), e)
                mujoco.mj_integratePos(m, d.qpos, dv, 1.0)
        out[t] = d.qpos
    return out

"""The batched steadying (motion.steady: every frame's Gauss–Newton steps
as arrays, its own chain kinematics and Jacobians) against a frame-by-frame
reference that asks MuJoCo for everything (``mj_kinematics``,
``mj_jacBody``, ``mj_integratePos``, ``mju_mat2Quat``): the same poses, to
rounding, for every built-in creature with a steadied chain and both
imported models (hinge necks, ball heads, three hinges per body, a trunk
that is the root)."""
import mujoco
import numpy as np
import pytest
from modal_specs import character_named

from gaitforge.motion import steady as batched
from gaitforge.motion.steady import DAMPING, ITERATIONS, MAX_STEP, ROOT_ITERATIONS, STEADY_CHAINS, chain_dofs

NAMES = ["dog", "human", "human_run", "gorilla", "dog.xml", "humanoid_CMU.xml"]


def _rz(yaw):
    c, s = np.cos(yaw), np.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _log(R: np.ndarray) -> np.ndarray:
    """The rotation vector (3,) [rad] of a rotation matrix R (3, 3)."""
    q = np.empty(4)
    mujoco.mju_mat2Quat(q, R.reshape(-1))
    v = np.empty(3)
    mujoco.mju_quat2Vel(v, q, 1.0)
    return v


def reference(character, qpos, chains=STEADY_CHAINS):
    """``steady`` frame by frame, each Gauss–Newton step from MuJoCo's own
    kinematics, Jacobian and integration (how motion.steady did it before it
    was batched)."""
    qpos = np.array(qpos, float, copy=True)
    m = character.model
    d = mujoco.MjData(m)
    rest_frames = character.body_frames(character.rest_qpos[None])[1][0]
    jacr = np.zeros((3, m.nv))
    dv = np.zeros(m.nv)
    for chain in chains:
        b, dofs = chain_dofs(character, chain)
        if b is None:
            held = character.bodies_labeled(role=chain.held_role)
            if held and character.body_id(held[0]) == character.body_id(character.bodies[0]):
                qpos = _reference_root(character, qpos, d, rest_frames)
            continue
        rest = rest_frames[b]
        _, xmat = character.body_frames(qpos, b + 1)
        R0 = xmat[:, b] @ rest.T
        heading = float(np.mean(np.unwrap(np.arctan2(R0[:, 1, 0], R0[:, 0, 0]))))
        target = _rz(heading) @ rest
        eye = DAMPING * np.eye(len(dofs))
        for t in range(len(qpos)):
            d.qpos[:] = qpos[t]
            best, best_err = qpos[t].copy(), np.inf
            for it in range(ITERATIONS + 1):
                mujoco.mj_kinematics(m, d)
                mujoco.mj_comPos(m, d)
                e = _log(target @ d.xmat[b].reshape(3, 3).T)          # world-frame error
                if np.linalg.norm(e) < best_err:                       # the best pose met is kept
                    best, best_err = d.qpos.copy(), float(np.linalg.norm(e))
                if it == ITERATIONS:
                    break
                mujoco.mj_jacBody(m, d, None, jacr, b)
                J = jacr[:, dofs]
                step = J.T @ np.linalg.solve(J @ J.T + DAMPING * np.eye(3), e) if len(dofs) >= 3 \
                    else np.linalg.solve(J.T @ J + eye, J.T @ e)
                norm = float(np.linalg.norm(step))
                dv[:] = 0.0
                dv[dofs] = step * min(1.0, MAX_STEP / norm) if norm > 0 else step
                mujoco.mj_integratePos(m, d.qpos, dv, 1.0)
            qpos[t] = best
    return qpos




def _reference_root(character, qpos, d, rest_frames):
    """``steady``'s root turn (motion.steady._steady_root) frame by frame, with MuJoCo's own
    kinematics, Jacobian and integration for the pelvis."""
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


def _swaying(c, frames=120, seed=0):
    """Poses (frames, nq): every DOF of ``c`` swinging by up to 0.35 rad about the rest pose (seeded)."""
    m = c.model
    rng = np.random.default_rng(seed)
    wave = rng.uniform(0, 0.35, m.nv) * np.sin(np.linspace(0, 2 * np.pi, frames)[:, None] + rng.uniform(0, 6.3, m.nv))
    q = np.tile(c.rest_qpos, (frames, 1))
    for t in range(frames):
        mujoco.mj_integratePos(m, q[t], wave[t], 1.0)
    return q


@pytest.mark.parametrize("name", NAMES)
def test_batched_steadying_matches_the_frame_by_frame_reference(name):
    c = character_named(name)
    q = _swaying(c)
    ref = reference(c, q)
    got = batched.steady(c, q)
    assert np.abs(ref - q).max() > 0.05          # it did turn something
    assert np.abs(got - ref).max() < 1e-12


def test_quaternions_and_rotation_vectors_match_mujoco():
    rng = np.random.default_rng(1)
    q = rng.normal(size=(5000, 4))
    q[:50] = [1, 0, 0, 0]                                            # no turn
    q[50:100, 0] = 0.0                                               # half turns
    q[100:150, 1:] = 1e-8 * rng.normal(size=(50, 3))                 # tiny turns
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    R = np.empty((len(q), 9))
    for i in range(len(q)):
        mujoco.mju_quat2Mat(R[i], q[i])
    R = R.reshape(-1, 3, 3)
    want = np.empty((len(q), 4))
    for i in range(len(q)):
        mujoco.mju_mat2Quat(want[i], R[i].reshape(-1))
    assert np.abs(batched._mat_to_quat(R) - want).max() < 1e-14      # the same sign as MuJoCo's
    assert np.abs(batched._log_batch(R) - np.array([_log(r) for r in R])).max() < 1e-12

"""Forward kinematics of many poses at once.

Clip analysis needs body frames for every frame of a clip: foot and
contact-point positions, centres of mass. MuJoCo's ``mj_kinematics`` does
one pose per call, so a clip of T frames costs T calls from Python (about
12 µs each for the dog, most of it the call and the copying). :func:`body_frames`
runs the same recursion down the kinematic tree for all T poses in one
compiled loop (numba, :mod:`gaitforge.jit`): each body's frame is
its parent's frame times its fixed offset (``body_pos``, ``body_quat``),
then its joints in order — a slide moves the body along its axis by
q − q0, a hinge turns it about its axis through the joint's anchor by
q − q0, a ball turns it by its (normalized) quaternion about the anchor,
and a free joint sets the frame from qpos outright — as MuJoCo does
(``engine_core_smooth.c``). Results agree with ``mj_kinematics`` to
rounding (tests/test_kinematics.py compares every built-in creature and the
imported models at random poses).

Models with mocap bodies are left to ``mj_kinematics`` (:func:`supported`).
Quaternions are (w, x, y, z).
"""
from __future__ import annotations

import math
import weakref

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError

__all__ = ["body_frames", "supported"]

_TREES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_KERNEL = None


def supported(model: mujoco.MjModel) -> bool:
    """Whether :func:`body_frames` handles ``model`` (no mocap bodies)."""
    return int(model.nmocap) == 0


def _tree(model: mujoco.MjModel) -> tuple:
    """The model arrays the kernel reads (built once per model)."""
    tree = _TREES.get(model)
    if tree is None:
        c = np.ascontiguousarray
        tree = _TREES[model] = (
            c(model.body_parentid, np.int64), c(model.body_jntadr, np.int64), c(model.body_jntnum, np.int64),
            c(model.jnt_type, np.int64), c(model.jnt_qposadr, np.int64), c(model.jnt_pos, float),
            c(model.jnt_axis, float), c(model.qpos0, float), c(model.body_pos, float), c(model.body_quat, float))
    return tree


def _compile():
    """The compiled kernel (numba is imported and the kernel loaded only when first needed)."""
    from gaitforge.jit import kernel

    @kernel
    def rotate(w, x, y, z, v0, v1, v2):
        # v + 2w (u × v) + 2 u × (u × v), u = (x, y, z): the unit quaternion's rotation of v
        c0 = y * v2 - z * v1
        c1 = z * v0 - x * v2
        c2 = x * v1 - y * v0
        return (v0 + 2.0 * (w * c0 + y * c2 - z * c1),
                v1 + 2.0 * (w * c1 + z * c0 - x * c2),
                v2 + 2.0 * (w * c2 + x * c1 - y * c0))

    @kernel
    def multiply(aw, ax, ay, az, bw, bx, by, bz):
        return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
                aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)

    @kernel
    def frames(qpos, nbody, parent, jntadr, jntnum, jtype, qadr, jpos, jaxis, qpos0, bpos, bquat, xpos, xquat, xmat):
        for t in range(qpos.shape[0]):
            xpos[t, 0, 0] = xpos[t, 0, 1] = xpos[t, 0, 2] = 0.0
            xquat[t, 0, 0] = 1.0
            xquat[t, 0, 1] = xquat[t, 0, 2] = xquat[t, 0, 3] = 0.0
            for k in range(9):
                xmat[t, 0, k] = 1.0 if k % 4 == 0 else 0.0
            for b in range(1, nbody):
                j0, nj = jntadr[b], jntnum[b]
                if nj == 1 and jtype[j0] == 0:   # free joint: the frame is in qpos
                    a = qadr[j0]
                    px, py, pz = qpos[t, a], qpos[t, a + 1], qpos[t, a + 2]
                    w, x, y, z = qpos[t, a + 3], qpos[t, a + 4], qpos[t, a + 5], qpos[t, a + 6]
                else:
                    p = parent[b]
                    pw, pqx, pqy, pqz = xquat[t, p, 0], xquat[t, p, 1], xquat[t, p, 2], xquat[t, p, 3]
                    ox, oy, oz = rotate(pw, pqx, pqy, pqz, bpos[b, 0], bpos[b, 1], bpos[b, 2])
                    px, py, pz = xpos[t, p, 0] + ox, xpos[t, p, 1] + oy, xpos[t, p, 2] + oz
                    w, x, y, z = multiply(pw, pqx, pqy, pqz, bquat[b, 0], bquat[b, 1], bquat[b, 2], bquat[b, 3])
                    for j in range(j0, j0 + nj):
                        a = qadr[j]
                        kind = jtype[j]
                        ax, ay, az = rotate(w, x, y, z, jpos[j, 0], jpos[j, 1], jpos[j, 2])
                        ax, ay, az = ax + px, ay + py, az + pz            # the joint's anchor in the world
                        if kind == 2:                                      # slide
                            dx, dy, dz = rotate(w, x, y, z, jaxis[j, 0], jaxis[j, 1], jaxis[j, 2])
                            s = qpos[t, a] - qpos0[a]
                            px, py, pz = px + s * dx, py + s * dy, pz + s * dz
                            continue
                        if kind == 3:                                      # hinge
                            half = 0.5 * (qpos[t, a] - qpos0[a])
                            sn = math.sin(half)
                            lw, lx, ly, lz = math.cos(half), sn * jaxis[j, 0], sn * jaxis[j, 1], sn * jaxis[j, 2]
                        else:                                              # ball
                            lw, lx, ly, lz = qpos[t, a], qpos[t, a + 1], qpos[t, a + 2], qpos[t, a + 3]
                            n = math.sqrt(lw * lw + lx * lx + ly * ly + lz * lz)
                            lw, lx, ly, lz = lw / n, lx / n, ly / n, lz / n
                        w, x, y, z = multiply(w, x, y, z, lw, lx, ly, lz)
                        vx, vy, vz = rotate(w, x, y, z, jpos[j, 0], jpos[j, 1], jpos[j, 2])
                        px, py, pz = ax - vx, ay - vy, az - vz              # turned about the anchor
                n = math.sqrt(w * w + x * x + y * y + z * z)
                w, x, y, z = w / n, x / n, y / n, z / n
                xquat[t, b, 0], xquat[t, b, 1], xquat[t, b, 2], xquat[t, b, 3] = w, x, y, z
                xpos[t, b, 0], xpos[t, b, 1], xpos[t, b, 2] = px, py, pz
                xmat[t, b, 0] = 1.0 - 2.0 * (y * y + z * z)
                xmat[t, b, 1] = 2.0 * (x * y - w * z)
                xmat[t, b, 2] = 2.0 * (x * z + w * y)
                xmat[t, b, 3] = 2.0 * (x * y + w * z)
                xmat[t, b, 4] = 1.0 - 2.0 * (x * x + z * z)
                xmat[t, b, 5] = 2.0 * (y * z - w * x)
                xmat[t, b, 6] = 2.0 * (x * z - w * y)
                xmat[t, b, 7] = 2.0 * (y * z + w * x)
                xmat[t, b, 8] = 1.0 - 2.0 * (x * x + y * y)

    return frames


def body_frames(model: mujoco.MjModel, qpos: np.ndarray, nbody: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """World frames of bodies 0 … nbody − 1 (default all; a body's ancestors
    have lower ids, so any prefix is closed) at poses qpos (T, nq):
    positions (T, nbody, 3) [m] and rotation matrices (T, nbody, 3, 3),
    as MuJoCo's ``xpos`` and ``xmat`` after ``mj_kinematics``. The model
    must be :func:`supported`."""
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = _compile()
    q = np.ascontiguousarray(qpos, dtype=float)
    nb = int(model.nbody) if nbody is None else int(nbody)
    if q.ndim != 2 or q.shape[1] != model.nq or not 1 <= nb <= model.nbody:  # the kernel does not bound-check
        raise GaitforgeError(f"body frames: qpos must have shape (frames, {model.nq}) and nbody be 1 to "
                             f"{model.nbody}, got {q.shape} and {nb}")
    xpos = np.empty((len(q), nb, 3))
    xquat = np.empty((len(q), nb, 4))
    xmat = np.empty((len(q), nb, 9))
    _KERNEL(q, nb, *_tree(model), xpos, xquat, xmat)
    return xpos, xmat.reshape(len(q), nb, 3, 3)

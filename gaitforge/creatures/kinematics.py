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

import weakref

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError

__all__ = ["body_frames", "supported"]

_TREES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


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


def body_frames(model: mujoco.MjModel, qpos: np.ndarray, nbody: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """World frames of bodies 0 … nbody − 1 (default all; a body's ancestors
    have lower ids, so any prefix is closed) at poses qpos (T, nq):
    positions (T, nbody, 3) [m] and rotation matrices (T, nbody, 3, 3),
    as MuJoCo's ``xpos`` and ``xmat`` after ``mj_kinematics``. The model
    must be :func:`supported`."""
    from gaitforge.creatures.kinematics_kernel import frames  # numba loads on first use
    q = np.ascontiguousarray(qpos, dtype=float)
    nb = int(model.nbody) if nbody is None else int(nbody)
    if q.ndim != 2 or q.shape[1] != model.nq or not 1 <= nb <= model.nbody:  # the kernel does not bound-check
        raise GaitforgeError(f"body frames: qpos must have shape (frames, {model.nq}) and nbody be 1 to "
                             f"{model.nbody}, got {q.shape} and {nb}")
    xpos = np.empty((len(q), nb, 3))
    xquat = np.empty((len(q), nb, 4))
    xmat = np.empty((len(q), nb, 9))
    frames(q, nb, *_tree(model), xpos, xquat, xmat)
    return xpos, xmat.reshape(len(q), nb, 3, 3)

"""What the kangaroo controller sets up once per run on its model copy: the
tail springs tuned to the hop period and the body's pitch inertia (used to
read the whole-body pitch rate from the angular momentum)."""
from __future__ import annotations

import math

import mujoco
import numpy as np
import scipy.linalg

from gaitforge.creatures.character import Character
from gaitforge.creatures.spec import vec3


def tune_tail(model: mujoco.MjModel, data: mujoco.MjData, character: Character, period: float,
              damping_ratio: float) -> tuple[float, float, float]:
    """Scale the three tail springs (``tail1``..``tail3``) of ``model`` by one
    factor so the tail's first mode with the trunk held has ``period`` [s];
    set their damping to ``damping_ratio`` of critical (per joint, own mass).
    Returns the new stiffnesses [N m/rad]. Runs ``mj_forward`` on ``data``."""
    names = ("tail1", "tail2", "tail3")
    jid = [character.joints[n].mj_joints[0] for n in names]
    dof = [character.joints[n].dof.start for n in names]
    M = np.zeros((model.nv, model.nv))
    mujoco.mj_forward(model, data)
    mujoco.mj_fullM(model, data, M)
    Mt = M[np.ix_(dof, dof)]
    k = np.array([float(model.jnt_stiffness[j]) for j in jid])
    scale = (2.0 * math.pi / period) ** 2 / scipy.linalg.eigh(np.diag(k), Mt, eigvals_only=True)[0]
    for j, i, kk, mm in zip(jid, dof, k * scale, np.diag(Mt)):
        model.jnt_stiffness[j] = kk
        model.dof_damping[i] = 2.0 * damping_ratio * math.sqrt(kk * mm)
    return vec3(k * scale)


def pitch_inertia(model: mujoco.MjModel, data: mujoco.MjData, trunk: int) -> float:
    """Whole-body moment of inertia [kg m²] about the mass centre (the subtree
    COM of body ``trunk``), y axis, in the pose ``data`` holds (kinematics and
    COM computed)."""
    c = data.subtree_com[trunk]
    total = 0.0
    for b in range(1, model.nbody):
        R = data.ximat[b].reshape(3, 3)
        r = data.xipos[b] - c
        total += float((R @ np.diag(model.body_inertia[b]) @ R.T)[1, 1]) + model.body_mass[b] * (r[0] ** 2 + r[2] ** 2)
    return total

"""The closed loop of a modal controller linearized about a state: the
Jacobian of one control period's map, by central finite differences through
MuJoCo, and its eigenvalues.

The map F takes the state x = (qpos, qvel) at the start of a period of
``steps`` physics steps — the controller's ``compute`` then ``mj_step``,
each step, its tick counter set so the period starts with a feedback
update — to the state at its end. States are compared in MuJoCo's tangent
space (``mj_integratePos`` / ``mj_differentiatePos``: a free joint's or ball
joint's orientation as a rotation vector), so A = ∂F/∂x is (2 nv, 2 nv).
Every evaluation starts from a copy of the same ``MjData`` (the solver's
warm start included), so the differences see the state alone.

A discrete map is stable where every eigenvalue of A has |λ| < 1 (a
continuous closed loop's eigenvalues s = ln λ / T in the left half plane,
T the period). Symmetries of the scene give |λ| = 1 exactly: moving the
standing creature along the ground or turning it about the vertical changes
nothing, so those directions neither grow nor decay.
"""
from __future__ import annotations

import copy

import mujoco
import numpy as np


def settle(character, controller, seconds: float) -> tuple[mujoco.MjModel, mujoco.MjData]:
    """A copy of ``character``'s model prepared by ``controller`` and the
    state after ``seconds`` [s] of it from the rest pose: a state to
    linearize the loop about."""
    m = copy.deepcopy(character.model)
    controller.prepare_model(m)
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    mujoco.mj_forward(m, d)
    controller.reset(m, d)
    for _ in range(int(round(seconds / m.opt.timestep))):
        controller.compute(m, d)
        mujoco.mj_step(m, d)
    return m, d


def period_map(model: mujoco.MjModel, start: mujoco.MjData, controller, steps: int, dx: np.ndarray) -> np.ndarray:
    """F(x + dx) − F(x)'s tangent-space image is built from this: the state
    (2 nv,) reached after ``steps`` physics steps from ``start`` moved by
    ``dx`` (2 nv,) in the tangent space, as a tangent vector from ``start``'s
    own state."""
    nv = model.nv
    d = mujoco.MjData(model)
    mujoco.mj_copyData(d, model, start)
    mujoco.mj_integratePos(model, d.qpos, dx[:nv], 1.0)
    d.qvel[:] += dx[nv:]
    mujoco.mj_forward(model, d)
    controller._tick = 0
    for _ in range(steps):
        controller.compute(model, d)
        mujoco.mj_step(model, d)
    out = np.empty(2 * nv)
    mujoco.mj_differentiatePos(model, out[:nv], 1.0, start.qpos, d.qpos)
    out[nv:] = d.qvel - start.qvel
    return out


def period_jacobian(model: mujoco.MjModel, start: mujoco.MjData, controller, steps: int,
                    eps: float = 1e-6) -> np.ndarray:
    """A (2 nv, 2 nv): the period map's Jacobian at ``start``'s state by
    central differences of step ``eps`` (module docstring)."""
    n = 2 * model.nv
    A = np.empty((n, n))
    dx = np.zeros(n)
    for j in range(n):
        dx[j] = eps
        plus = period_map(model, start, controller, steps, dx)
        dx[j] = -eps
        minus = period_map(model, start, controller, steps, dx)
        dx[j] = 0.0
        A[:, j] = (plus - minus) / (2.0 * eps)
    return A


def spectral_radius(A: np.ndarray, *, neutral: int = 0) -> float:
    """The largest |λ| of ``A`` after leaving out the ``neutral`` eigenvalues
    closest to 1 (the scene's symmetries, module docstring)."""
    lam = np.linalg.eigvals(A)
    if neutral:
        keep = np.argsort(np.abs(lam - 1.0), kind="stable")[neutral:]
        lam = lam[keep]
    return float(np.max(np.abs(lam)))

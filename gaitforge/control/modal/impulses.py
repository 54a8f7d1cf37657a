"""Modal impulses and initial conditions of physically simulated modal
control (Nunes et al. 2012, surveyed in Kry 2012 §4.5).

An impulse of size s (kg^½ m/s) along elastic mode uᵢ (nv,) is a joint
torque impulse: the generalized impulse J = M(q) uᵢ s with the free joint's
rows set to zero, which the controller spreads over a short window W as the
torque J / W on the joints (``ModalController``; limited like every joint
torque, :mod:`.drive`). Free in the air it changes the modal velocity of
mode i by about s (the shapes are mass normalized: at the rest pose M uᵢ
already has no free rows, so the root's momentum is not what J changes);
nothing writes the state, so momentum changes through contacts only. A
:class:`~gaitforge.motion.recipe.ModalImpulse` fires once per gait cycle
of period P = 1/f (f the recipe's lowest term frequency) at the times
(k + at) P, k = 0, 1, …, on the first step at or after each. Its size
follows the controller's amplitude fade-in.

An initial condition (:class:`~gaitforge.motion.recipe.ModalStart`) moves
the start state: q ← q ⊕ Σ uᵢ oᵢ (``mj_integratePos``, so ball and free
joints stay unit quaternions) and q̇ ← q̇ + Σ uᵢ vᵢ.
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.motion.recipe import GaitRecipe

_EPS = 1e-9  # s: a tick this close before an impulse time counts as at it (ticks are sums of float steps)


class ModalKicks:
    """Impulses and initial conditions of ``recipe`` on ``basis`` (a
    :class:`ModalBasis`): U (nv, n) the impulses' shapes, size (n,), at (n,)
    cycle fractions, period [s]; U0 (nv, s) the initial conditions' shapes
    with offset (s,) and velocity (s,); free (f,) the free joints' dofs,
    where an impulse puts nothing."""

    def __init__(self, basis, recipe: GaitRecipe, free=()):
        self.free = np.asarray(free, int)
        shapes = np.asarray(basis.shapes, float)
        imp, start = recipe.impulses, recipe.initial
        self.U = np.ascontiguousarray(shapes[:, [i.mode for i in imp]])
        self.size = np.array([i.size for i in imp], float)
        self.at = np.array([i.at for i in imp], float)
        f = recipe.base_frequency
        self.period = 1.0 / f if f > 0 else math.inf
        self.U0 = np.ascontiguousarray(shapes[:, [s.mode for s in start]])
        self.offset = np.array([s.offset for s in start], float)
        self.velocity = np.array([s.velocity for s in start], float)
        self.reset()

    def reset(self) -> None:
        """Forget the impulses already given (a new rollout starts at t = 0)."""
        self._fired = np.zeros(len(self.size), int)  # impulses given so far, per entry
        self.next = float(np.min(self.at)) * self.period if len(self.size) else math.inf

    def start(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        """Apply the initial conditions to ``data`` (qpos, qvel) in place."""
        if not len(self.offset):
            return
        mujoco.mj_integratePos(model, data.qpos, self.U0 @ self.offset, 1.0)
        data.qvel[:] += self.U0 @ self.velocity

    def due(self, t: float) -> np.ndarray:
        """How many instants (k + at) P of each impulse lie at or before t [s] (n,)."""
        return np.floor((t + _EPS) / self.period - self.at).astype(int) + 1

    def fire(self, model: mujoco.MjModel, data: mujoco.MjData, t: float, envelope: float) -> np.ndarray | None:
        """The generalized impulse J (nv,) [N m s, kg m²/s] of the impulses due
        at t [s] (scaled by ``envelope``): M(q) Σ uᵢ sᵢ with the free joints'
        rows zero (M of the last step), or None when none is due."""
        n = self.due(t)
        fire = n > self._fired
        self._fired = n
        self.next = float(np.min((n + self.at) * self.period))
        if not fire.any():
            return None
        dv = self.U[:, fire] @ (self.size[fire] * envelope)
        J = np.empty_like(dv)
        mujoco.mj_mulM(model, data, J, dv)
        J[self.free] = 0.0
        return J

"""Standing balance with modal displacements (Kry 2012 §4.6).

A linear feedback on the centre of mass (CoM): its horizontal offset e [m]
from where it stood at rest relative to the support (the mean contact point
of the feet touching the ground), and its horizontal velocity v [m/s],
command a CoM shift

    d = −(k_p e + k_d v)                       (2,) [m], at most ``reach``,

made by posture offsets along a few vibration modes: modal coordinates
a = B⁺ d, with B (2, n) the horizontal CoM displacement per unit modal
coordinate of each chosen mode, and the joint springs' reference set to
θ0 + Σ uᵢ aᵢ (``ModalPlan.set_references``). Nothing else acts: the springs'
pull goes through the modal joint drive (torque and speed limits,
``control.modal.drive``), the root is never pushed and the state is never
written after the start.

The modes are those of the creature standing: computed with every foot
pinned to the ground (a foot with several contact points, a sole, is also
kept from turning), so that a spring reference moved along uᵢ moves the
standing body by uᵢ at equilibrium (uᵢ lies in the constraints' null space
and K uᵢ = λ M uᵢ) and the CoM by J_com uᵢ — its effect, read from the CoM
Jacobian. Of the ``candidates`` lowest modes, those with the largest
horizontal effect are chosen (``count`` of them, each direction x and y
getting its best modes in turn), not hand-picked.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.recipe import GaitRecipe, GaitTerm


@dataclass(frozen=True)
class BalanceModes:
    """The modes a balance controller moves.

    basis: the standing modal basis (feet pinned); effect (k, 2) [m per unit
    modal coordinate] the horizontal CoM displacement J_com uᵢ of each of
    the k candidate modes (world x, y at rest); chosen (n,) indices into the
    basis' elastic modes; B (2, n) their effects; B_pinv (n, 2) its
    pseudo-inverse (minimum-norm modal coordinates for a CoM shift)."""

    basis: Any
    effect: np.ndarray
    chosen: tuple[int, ...]
    B: np.ndarray
    B_pinv: np.ndarray


def stance_constraints(character) -> list[str]:
    """The constraints of the standing analysis: ``pin:FOOT`` for every foot
    the runner tracks (``sim.runner.foot_bodies``) and ``lock:FOOT`` for a
    foot carrying more than one contact point (a sole)."""
    from gaitforge.sim.runner import foot_bodies

    m = character.model
    feet = foot_bodies(character)
    if not feet:
        raise GaitforgeError(f"balance: {character.name} has no feet (contact points named *_foot or *_knuckle)")
    out = []
    for body in dict.fromkeys(feet.values()):
        sites = sum(1 for s in character.contacts.values() if _below(m, int(m.site_bodyid[s]), body))
        name = m.body(body).name
        out.append(f"pin:{name}")
        if sites > 1:
            out.append(f"lock:{name}")
    return out


def _below(m: mujoco.MjModel, b: int, ancestor: int) -> bool:
    while b > 0:
        if b == ancestor:
            return True
        b = int(m.body_parentid[b])
    return False


def com_effect(character, shapes: np.ndarray) -> np.ndarray:
    """Horizontal CoM displacement (k, 2) [m] per unit of each column of
    ``shapes`` (nv, k) at the rest pose: J_com uᵢ (world x, y)."""
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    mujoco.mj_forward(m, d)
    J = np.zeros((3, m.nv))
    mujoco.mj_jacSubtreeCom(m, d, J, 1)
    return (J[:2] @ shapes).T


def choose_modes(effect: np.ndarray, count: int) -> tuple[int, ...]:
    """``count`` indices of the rows of ``effect`` (k, 2): x and y take turns
    picking the remaining mode with the largest |effect| along them."""
    if count < 2 or count > len(effect):
        raise GaitforgeError(f"balance: need 2 ≤ modes ≤ {len(effect)}, got {count}")
    chosen: list[int] = []
    for turn in range(count):
        axis = turn % 2
        order = np.argsort(-np.abs(effect[:, axis]), kind="stable")
        chosen.append(int(next(i for i in order if i not in chosen)))
    return tuple(sorted(chosen))


def balance_modes(character, *, count: int = 4, candidates: int = 12) -> BalanceModes:
    """The standing basis of ``character`` (``candidates`` lowest elastic
    modes, feet pinned: :func:`stance_constraints`) and the ``count`` modes
    that move the CoM most (:func:`choose_modes`)."""
    from gaitforge.modal import compute_modes

    basis = compute_modes(character, count=candidates, constraints=stance_constraints(character))
    effect = com_effect(character, basis.shapes)
    chosen = choose_modes(effect, count)
    B = effect[list(chosen)].T
    if np.linalg.matrix_rank(B, tol=1e-9 * max(1e-300, float(np.abs(B).max()))) < 2:
        raise GaitforgeError(f"balance: no modes of {character.name} move its centre of mass both ways")
    return BalanceModes(basis, effect, chosen, B, np.linalg.pinv(B))


@dataclass(frozen=True)
class BalanceGains:
    """kp (dimensionless): CoM shift commanded per metre of CoM offset; kd
    [s]: per m/s of CoM velocity; reach [m]: the largest CoM shift commanded
    (the feedback saturates there); every [s]: how often the feedback is
    updated (the drive runs every physics step). kp = kd = 0: no feedback,
    the springs hold the rest pose."""

    kp: float = 1.0
    kd: float = 1.0
    reach: float = 0.1
    every: float = 0.002

    @property
    def active(self) -> bool:
        return self.kp != 0.0 or self.kd != 0.0


OFF = BalanceGains(0.0, 0.0)


def _posture_recipe(character, chosen: tuple[int, ...]) -> GaitRecipe:
    """A recipe of still terms (no amplitude, no offset) on the chosen modes:
    what ``ModalPlan`` needs to address them."""
    return GaitRecipe(f"{character.name}_stand", character.name,
                      tuple(GaitTerm(i, 0.0, 0.0, 0.0) for i in chosen))


class BalanceController:
    """Standing balance by modal displacements (module docstring); a
    ``sim.Controller`` run under the creature's modal physics
    (``control.modal.physics``) with its joint drive.

    ``target`` (2,) [m]: the CoM's offset from the support centre at rest
    (what the feedback holds); after a run ``peaks`` holds the drive's
    peaks and ``work`` [J] its absolute work, as ``ModalController``'s."""

    def __init__(self, character, modes: BalanceModes, gains: BalanceGains = BalanceGains(), *,
                 physics=None, timestep: float | None = None):
        from gaitforge.control.modal.controller import ModalPlan
        from gaitforge.control.modal.drive import JointDrive
        from gaitforge.control.modal.physics import limits, physics_for
        from gaitforge.sim.runner import foot_bodies

        for name in ("kp", "kd", "reach", "every"):
            v = getattr(gains, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
                raise GaitforgeError(f"balance: gain {name} must be a finite number ≥ 0, got {v!r}")
        self.modes, self.gains = modes, gains
        self.plan = ModalPlan(character, modes.basis, _posture_recipe(character, modes.chosen))
        self.physics = (physics if physics is not None else physics_for(character)).with_timestep(timestep)
        self.limits = limits(character, self.physics)
        self.control_dt = self.physics.timestep
        self.period = math.inf
        self.drive = JointDrive(character, self.plan, self.limits.torque, self.limits.speed)
        self.work = 0.0
        m = character.model
        feet = list(dict.fromkeys(foot_bodies(character).values()))
        # Contact sites of each foot (the foot's body and bodies below it): the support points.
        self._sites = [np.array([s for s in character.contacts.values() if _below(m, int(m.site_bodyid[s]), f)], int)
                       for f in feet]
        self._foot_of_body = {b: i for i, f in enumerate(feet) for b in range(1, m.nbody) if _below(m, b, f)}
        self._every = max(1, int(round(gains.every / self.control_dt)))
        self._coords = np.zeros(len(modes.chosen))
        d = mujoco.MjData(m)
        d.qpos[:] = character.rest_qpos
        mujoco.mj_forward(m, d)
        self.target = d.subtree_com[1, :2] - self._support(d, np.ones(len(feet), bool))  # (2,) [m] rest offset

    @property
    def state(self) -> str:
        return "balance"

    def prepare_model(self, model: mujoco.MjModel) -> None:
        self.physics.apply(model)

    def _support(self, data: mujoco.MjData, touching: np.ndarray) -> np.ndarray:
        """Mean contact point (2,) [m] of the feet in ``touching`` (F,) bool."""
        pts = [data.site_xpos[s, :2].mean(axis=0) for s, t in zip(self._sites, touching) if t]
        return np.mean(pts, axis=0)

    def _touching(self, model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
        out = np.zeros(len(self._sites), bool)
        body = model.geom_bodyid
        for i in range(data.ncon):
            b1, b2 = int(body[data.contact.geom1[i]]), int(body[data.contact.geom2[i]])
            other = b2 if b1 == 0 else b1 if b2 == 0 else -1
            f = self._foot_of_body.get(other)
            if f is not None:
                out[f] = True
        return out

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.work = 0.0
        self.drive.reset()
        self._tick = 0
        self._coords[:] = 0.0
        self._last_support: np.ndarray | None = None
        data.qfrc_applied[:] = 0.0
        self.plan.set_references(model, self._coords)

    def feedback(self, model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
        """The modal coordinates (n,) the feedback asks for in this state."""
        g = self.gains
        touching = self._touching(model, data)
        if touching.any():
            self._last_support = self._support(data, touching)
        if self._last_support is None or not g.active:
            return np.zeros_like(self._coords)
        com = data.subtree_com[1, :2]
        vel = data.subtree_linvel[1, :2]
        e = com - self._last_support - self.target
        shift = -(g.kp * e + g.kd * vel)
        size = float(np.hypot(*shift))
        if size > g.reach:
            shift *= g.reach / size
        return self.modes.B_pinv @ shift

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        if self._tick % self._every == 0 and self.gains.active:
            mujoco.mj_subtreeVel(model, data)
            self._coords = self.feedback(model, data)
            self.plan.set_references(model, self._coords)
        self._tick += 1
        self.work += abs(self.drive.step(model, data, None)) * self.control_dt

    @property
    def peaks(self) -> dict[str, float]:
        """As ``ModalController.peaks``: the drive's peak torque [N m], speed
        [rad/s], demand [N m] and the steps limited."""
        from gaitforge.control.modal.drive import CLIPPED_STEPS, OVER_SPEED_STEPS, PEAK_DEMAND, PEAK_SPEED, \
            PEAK_TORQUE

        s = self.drive.stats
        return {"torque": float(s[PEAK_TORQUE]), "speed": float(s[PEAK_SPEED]), "demand": float(s[PEAK_DEMAND]),
                "clipped_steps": float(s[CLIPPED_STEPS]), "over_speed_steps": float(s[OVER_SPEED_STEPS])}

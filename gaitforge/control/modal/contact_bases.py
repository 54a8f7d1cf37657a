"""Contact-aware modal bases (Kry 2012 §3.5).

Ground contact is unilateral, so a single modal analysis cannot hold it: the
modes of a creature in the air are not the modes of the same creature with a
foot on the ground. Here each contact state — the set of feet touching the
ground — gets its own basis, computed with those feet pinned (a bilateral
``pin`` constraint at each foot's sole), and the simulated modal controller
drives the basis of the state it measures.

A recipe names modes of the air basis. In a stance basis, each of them is
replaced by the stance mode most like it: the largest overlap |uᵢᵀ M vⱼ|
in the mass metric (M the joint-space mass matrix at rest; both bases are
mass normalized, so the overlap is a cosine), distinct modes matched greedily
from the best overlap down. The stance mode is turned to point the same way
(positive overlap) and scaled so that it moves the joints (the root
excluded) as far as the air mode does, so the recipe's amplitudes keep
their meaning and the reference does not jump in size when the basis
changes.

At most ``max_pinned`` feet are pinned (default half the feet: one for a
biped, a stance pair for a quadruped). A state with more feet down (a
biped's double support, a quadruped standing on three or four) keeps the
shapes in use: pinning every foot down gives modes that keep every foot
down, and a creature driven by them never leaves the ground (measured: the
dog's bound then stands still).

When the measured state changes, the shapes blend linearly from the ones in
use to the new state's over ``blend`` seconds, so the spring references
stay continuous; a change during a blend starts a new blend from where the
shapes are.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Iterable

import mujoco
import numpy as np

from gaitforge.control.modal.controller import ModalController, ModalPlan, modal_coordinates
from gaitforge.errors import GaitforgeError

BLEND = 0.04  # s: a basis change completes within this long


@dataclass(frozen=True)
class StanceShapes:
    """The recipe's shapes in one contact state: feet (names of the feet
    pinned, sorted; empty: in the air); plan: a :class:`ModalPlan` whose
    terms drive the matched modes; matched (n,) the stance mode index each
    term drives (the term's own mode in the air); overlap (n,) |uᵀ M v| of
    each term's air mode with its match (1 in the air)."""

    feet: tuple[str, ...]
    plan: ModalPlan
    matched: np.ndarray
    overlap: np.ndarray


def _joint_rows(character) -> np.ndarray:
    """dof indices (d,) of the driven joints (all but a free root)."""
    m = character.model
    free = [np.arange(m.jnt_dofadr[j], m.jnt_dofadr[j] + 6) for j in range(m.njnt)
            if int(m.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_FREE)]
    root = set(np.concatenate(free).tolist()) if free else set()
    return np.array([i for i in range(m.nv) if i not in root], int)


def match_modes(air: np.ndarray, stance: np.ndarray, mass: np.ndarray, rows: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Match each air shape to a distinct stance shape.

    air (nv, n) the recipe's distinct air modes; stance (nv, k) the stance
    basis (k ≥ n); mass (nv, nv) M; rows the joint dofs whose displacement
    sets the scale. Returns (index (n,) of the matched stance mode,
    overlap (n,) |aᵢᵀ M sⱼ|, shapes (nv, n) the matched stance modes turned
    to a positive overlap and scaled to the air modes' joint norms)."""
    n, k = air.shape[1], stance.shape[1]
    if k < n:
        raise GaitforgeError(f"the stance basis has {k} modes, the recipe needs {n}")
    cos = air.T @ mass @ stance  # (n, k)
    score = np.abs(cos)
    index = np.full(n, -1)
    free_cols = np.ones(k, bool)
    for _ in range(n):  # the best remaining (term, mode) pair first
        masked = np.where(free_cols[None, :] & (index[:, None] < 0), score, -1.0)
        i, j = np.unravel_index(int(np.argmax(masked)), masked.shape)
        index[i], free_cols[j] = int(j), False
    shapes = np.empty_like(air)
    for term, col in enumerate(index):
        v = stance[:, col] * math.copysign(1.0, cos[term, col])
        norm = float(np.linalg.norm(v[rows]))
        shapes[:, term] = v * (float(np.linalg.norm(air[rows, term])) / norm if norm > 0 else 0.0)
    return index, score[np.arange(n), index], shapes


class ContactBases:
    """The recipe's shapes in every contact state, computed on first use.

    character, basis (the recipe's air basis, a ``ModalBasis``) and recipe
    (a ``GaitRecipe``); feet: the names of the bodies whose ground contact
    sets the state (default: the bodies labelled ``foot``); pool: how many
    stance modes each match is chosen from (default: twice the recipe's
    highest mode + 1, at least 8); max_pinned: the most feet a stance basis
    pins (default half the feet, at least one); cache: a dict that keeps
    the stance bases (``ModalBasis``, by feet) across instances for the same
    creature, recipe constraints and stiffness (an optimizer's candidates)."""

    def __init__(self, character, basis, recipe, feet: Iterable[str] | None = None, pool: int | None = None,
                 max_pinned: int | None = None, cache: dict | None = None):
        feet = tuple(character.bodies_labeled(role="foot") if feet is None else feet)
        if not feet:
            raise GaitforgeError(f"{character.name} has no bodies labelled foot: contact bases need feet")
        for f in feet:
            character.body_id(f)  # an unknown name is a clear error here
        if basis.mass_matrix is None:
            raise GaitforgeError("contact bases need the basis' mass matrix (a basis from compute_modes)")
        self.character, self.basis, self.recipe, self.feet = character, basis, recipe, feet
        self.max_pinned = max(1, len(feet) // 2) if max_pinned is None else int(max_pinned)
        if not 0 <= self.max_pinned <= len(feet):
            raise GaitforgeError(f"max_pinned must be from 0 to {len(feet)} feet, got {max_pinned!r}")
        self.modes = sorted(set(recipe.modes))
        self.pool = pool if pool is not None else max(8, 2 * (max(self.modes) + 1))
        self.rows = _joint_rows(character)
        self._stance = cache if cache is not None else {}
        self._cache: dict[tuple[str, ...], StanceShapes] = {}
        n = len(recipe.terms)
        self._cache[()] = StanceShapes((), ModalPlan(character, basis, recipe), np.array(recipe.modes), np.ones(n))
        # A foot is down when it or a body below it (a toe) touches the ground.
        model = character.model
        self.foot_of_body = np.full(model.nbody, -1)
        for i, f in enumerate(feet):
            self.foot_of_body[character.body_id(f)] = i
        for b in range(1, model.nbody):  # parents come before their children in MuJoCo's order
            if self.foot_of_body[b] < 0:
                self.foot_of_body[b] = self.foot_of_body[model.body_parentid[b]]

    def shapes(self, feet: tuple[str, ...]) -> StanceShapes:
        """The :class:`StanceShapes` with ``feet`` (sorted names) pinned."""
        if feet not in self._cache:
            self._cache[feet] = self._compute(feet)
        return self._cache[feet]

    def _compute(self, feet: tuple[str, ...]) -> StanceShapes:
        from gaitforge.modal import compute_modes

        constraints = (*self.recipe.constraints, *(f"pin:{f}" for f in feet))
        air = self.basis.shapes[:, self.modes]
        key = (feet, self.pool)
        if key not in self._stance:
            self._stance[key] = compute_modes(self.character, count=self.pool, constraints=constraints,
                                              stiffness_scale=self.recipe.stiffness_scale)
        stance = self._stance[key]
        index, overlap, matched = match_modes(air, stance.shapes, self.basis.mass_matrix, self.rows)
        # A basis whose column for each of the recipe's modes is its matched stance shape, so the
        # recipe's terms (mode indices of the air basis) drive them unchanged.
        shapes = self.basis.shapes.copy()
        shapes[:, self.modes] = matched
        plan = ModalPlan(self.character, replace(self.basis, shapes=shapes), self.recipe)
        col = {m: i for i, m in enumerate(self.modes)}
        per_term = np.array([col[t.mode] for t in self.recipe.terms])
        return StanceShapes(feet, plan, index[per_term], overlap[per_term])

    def state(self, model: mujoco.MjModel, data: mujoco.MjData) -> tuple[str, ...]:
        """The feet (sorted names) touching the ground (the world body) now."""
        n = data.ncon
        if n == 0:
            return ()
        b1 = model.geom_bodyid[data.contact.geom1[:n]]
        b2 = model.geom_bodyid[data.contact.geom2[:n]]
        down = np.concatenate([self.foot_of_body[b1[b2 == 0]], self.foot_of_body[b2[b1 == 0]]])
        down = np.unique(down[down >= 0])
        return tuple(sorted(self.feet[i] for i in down))

    def precompute(self, states: Iterable[tuple[str, ...]] | None = None) -> None:
        """Compute the shapes of ``states`` now (default: every single foot
        and every set of them up to ``max_pinned``), so that a run does not
        pause to."""
        if states is None:
            states = [tuple(sorted(c)) for r in range(1, self.max_pinned + 1) for c in combinations(self.feet, r)]
        for s in states:
            self.shapes(tuple(sorted(s)))


@dataclass(frozen=True)
class BasesReport:
    """How a run used its contact bases: switches (basis changes), seconds
    [s] driving each state's shapes (state → s), and the smallest overlap
    of a recipe mode with its stance match among the states used."""

    switches: int
    seconds: dict
    least_overlap: float

    def __str__(self) -> str:
        shares = ", ".join(f"{k} {v:.1f} s" for k, v in sorted(self.seconds.items(), key=lambda kv: -kv[1]))
        return (f"contact bases: {self.switches} switches; shapes driven: {shares}; least overlap of a "
                f"recipe mode with its stance match {self.least_overlap:.2f}")


class ContactAwareController(ModalController):
    """A :class:`ModalController` whose mode shapes follow the contact state
    (:class:`ContactBases`), blended over ``blend`` [s] at each change; a
    state with more feet down than the bases pin keeps the shapes in use.
    ``switches`` counts the changes of the last rollout; ``time_in`` the
    seconds spent driving each state's shapes."""

    def __init__(self, bases: ContactBases, *, ramp: float = 0.0, physics=None, timestep: float | None = None,
                 blend: float = BLEND):
        super().__init__(bases.shapes(()).plan, ramp=ramp, physics=physics, timestep=timestep)
        if not (math.isfinite(blend) and blend >= 0):
            raise GaitforgeError(f"blend must be a non-negative number of seconds, got {blend!r}")
        self.bases, self.blend = bases, float(blend)

    @property
    def state(self) -> str:
        return "+".join(self._feet) if getattr(self, "_feet", ()) else "air"

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        air = self.bases.shapes(()).plan
        self._feet: tuple[str, ...] = ()
        self._from_U, self._to_U = air.U.copy(), air.U
        self._from_ball, self._to_ball = air.U_ball.copy(), air.U_ball
        self._blend_start = -math.inf
        self.switches = 0
        self.time_in: dict[str, float] = {}
        super().reset(model, data)
        self._fast = self._single = False  # the shapes change: always the general path

    @property
    def report(self) -> BasesReport:
        """The last rollout's :class:`BasesReport`."""
        used = [self.bases.shapes(tuple(k.split("+"))) if k != "air" else self.bases.shapes(())
                for k in self.time_in]
        least = min((float(s.overlap.min()) for s in used), default=1.0)
        return BasesReport(self.switches, dict(self.time_in), least)

    def _shapes_now(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        w = 1.0 if self.blend <= 0 else min(1.0, (t - self._blend_start) / self.blend)
        if w >= 1.0:
            return self._to_U, self._to_ball
        return (1.0 - w) * self._from_U + w * self._to_U, (1.0 - w) * self._from_ball + w * self._to_ball

    def _switch(self, feet: tuple[str, ...], t: float) -> None:
        self._from_U, self._from_ball = self._shapes_now(t)
        plan = self.bases.shapes(feet).plan
        self._to_U, self._to_ball = plan.U, plan.U_ball
        self._blend_start, self._feet = t, feet
        self.switches += 1

    def _apply(self, model: mujoco.MjModel, t: float) -> np.ndarray:
        p = self.plan
        U, U_ball = self._shapes_now(t)
        c = self._coords
        modal_coordinates(p.alpha, p.omega, p.gamma, p.beta, self._envelope(t), t, c)
        p.set_displacement(model, U @ c, U_ball @ c if len(p.ball_qpos) else None, self._quats)
        return c

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        feet = self.bases.state(model, data)
        key = self.state
        self.time_in[key] = self.time_in.get(key, 0.0) + self.control_dt
        if feet != self._feet and len(feet) <= self.bases.max_pinned:
            self._switch(feet, data.time)
        super().compute(model, data)


def contact_aware_controller(character, basis, recipe, *, ramp: float = 0.0, physics=None,
                             timestep: float | None = None, blend: float = BLEND,
                             feet: Iterable[str] | None = None, cache: dict | None = None
                             ) -> ContactAwareController:
    """A :class:`ContactAwareController` for ``recipe`` on ``character``
    (``basis``: the recipe's air basis), the shapes of every state it may
    switch to computed up front (``cache``: see :class:`ContactBases`)."""
    bases = ContactBases(character, basis, recipe, feet=feet, cache=cache)
    bases.precompute()
    return ContactAwareController(bases, ramp=ramp, physics=physics, timestep=timestep, blend=blend)

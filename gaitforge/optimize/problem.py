"""The shooting problem over modal controller parameters (Nunes et al. 2012,
surveyed in Kry 2012 §4.5): a parameter vector becomes a modal gait recipe,
which is simulated from rest for a fixed horizon and scored.

The parameter vector is laid out by a :class:`~gaitforge.optimize.layout.Layout`:
for k driven modes m_1..m_k at one frequency it is
``[α_1 .. α_k, γ_2 .. γ_k, P]`` — amplitudes α (modal coordinates,
kg^½ m), phases γ [rad] relative to the first mode (γ_1 = 0) and the period
P [s] shared by every term (f̃ = 1/P); a layout taken from a recipe adds
harmonic terms (a bounce at twice the stride frequency), modal impulses and
initial conditions.

A candidate that falls (root below a height, trunk tilted past an angle:
``upright``) stops there and scores as failed, graded by how long it stayed
up (``Score.survived``); so does one that breaks the creature's limits
(``strict_limits``: a joint over its speed limit, a contact sunk deeper
than half the thinnest touching geom's radius; ``control.modal.physics``).

Each candidate runs with its creature's modal physics
(``control.modal.physics``), at its step dt and, with ``halved`` (the
default), again at dt/2: the worse of the two scores counts (the shorter
travel, the larger cycle residual and cost), so a gait whose travel is an
artefact of the step cannot win.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.recipe import GaitRecipe
from gaitforge.optimize.layout import Layout
from gaitforge.constants import GRAVITY

OBJECTIVES = ("distance", "speed", "cost")


class Score(NamedTuple):
    """One simulated candidate: distance [m] CoM travel — signed, along the
    problem's heading when it has one, else horizontal — (0 when diverged);
    dx [m] signed travel along x; speed [m/s] distance over the horizon;
    work [J]; cost_of_transport work / (m g distance) (dimensionless, inf
    without forward travel); cycle_residual
    (dimensionless, inf when diverged); diverged: the report, or None;
    survived: for a fall, the share of the horizon it stayed up; barrier:
    how far the avoided modes went past their barrier
    (:func:`gaitforge.optimize.sketch.barrier_excess`, 0 inside it); slow:
    the share of the problem's ``min_travel`` it fell short of (0: it went
    at least that far)."""

    distance: float
    dx: float
    speed: float
    work: float
    cost_of_transport: float
    cycle_residual: float
    diverged: str | None
    survived: float | None = None
    barrier: float = 0.0
    slow: float = 0.0

    @property
    def failed(self) -> bool:
        return self.diverged is not None


class ModalProblem:
    """Picklable, deterministic evaluator of modal gaits of one creature.

    creature: a built-in creature name, a ``CreatureSpec``, or a picklable
    function of no arguments that returns the Character (e.g.
    ``functools.partial(load_character, path)`` for an MJCF, URDF or BVH
    file: each worker loads it itself); modes: elastic
    mode indices driven; seconds [s]: horizon; ramp [s]: amplitude fade-in;
    start_noise: standard deviation of a random start velocity along the
    driven modes (modal units per s; 0: start at rest; the candidate's seed
    draws it). The character and its modes are built on first use in each
    process (not pickled). heading [rad]: direction in the ground plane
    (0: +x, π: −x) along which travel counts (None: any direction).
    layout: a :class:`Layout` (e.g. ``Layout.from_recipe(start)``) instead
    of ``modes``; upright: (min_height [m], max_tilt [rad]) of the root
    body (height of the root, angle of its z axis from its rest direction)
    below / beyond which the creature has fallen (None: no check).
    timestep [s]: the physics step dt (None: the creature's modal physics');
    halved: also run at dt/2 and keep the worse score; strict_limits: a
    candidate over its joint-speed or penetration limit has failed;
    contact_bases: candidates drive each contact state's modes
    (``control.modal.contact_bases``; the stance bases computed once per
    process). avoid: elastic modes whose share of each candidate's motion
    is bounded (a sketch's, :mod:`gaitforge.optimize.sketch`), each to the
    coordinate that turns its most-turned joint by ``barrier`` [deg]; the
    excess is ``Score.barrier``, a constraint. min_travel [m]: the least
    travel over the horizon (0: none); the shortfall is ``Score.slow``, a
    constraint too.
    """

    def __init__(self, creature, *, modes: tuple[int, ...] = (0, 1), seconds: float = 5.0, ramp: float = 0.5,
                 start_noise: float = 0.0, name: str | None = None, heading: float | None = None,
                 layout: Layout | None = None, upright: tuple[float, float] | None = None,
                 timestep: float | None = None, halved: bool = True, strict_limits: bool = True,
                 contact_bases: bool = False, avoid: tuple[int, ...] = (), barrier: float = 5.0,
                 min_travel: float = 0.0):
        if heading is not None and not (isinstance(heading, (int, float)) and math.isfinite(heading)):
            raise GaitforgeError(f"heading must be a finite angle in radians or None, got {heading!r}")
        self.heading = None if heading is None else float(heading)
        if layout is None:
            if not modes or len(set(modes)) != len(modes) or any(int(m) < 0 for m in modes):
                raise GaitforgeError(f"modes must be distinct non-negative mode indices, got {modes!r}")
            layout = Layout.from_modes(modes)
        if upright is not None:
            h, tilt = tuple(upright) + (math.nan,) * (2 - len(upright)) if len(upright) <= 2 else (math.nan,) * 2
            if not (math.isfinite(h) and math.isfinite(tilt) and 0 < tilt <= math.pi):
                raise GaitforgeError(f"upright must be (min_height [m], max_tilt in (0, π] rad), got {upright!r}")
            upright = (float(h), float(tilt))
        self.layout, self.upright = layout, upright
        for label, v in (("seconds", seconds), ("ramp", ramp), ("start_noise", start_noise)):
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0) or (label == "seconds" and v <= 0):
                raise GaitforgeError(f"{label} must be a {'positive' if label == 'seconds' else 'non-negative'} "
                                     f"finite number, got {v!r}")
        if timestep is not None:
            from gaitforge.sim.physics import check_timestep

            check_timestep(timestep, timestep)
        self.timestep = None if timestep is None else float(timestep)
        self.halved, self.strict_limits, self.contact_bases = bool(halved), bool(strict_limits), bool(contact_bases)
        self._stance_cache: dict = {}
        self.creature = creature
        self.modes = tuple(dict.fromkeys(m for m, _, _ in layout.terms))  # the driven modes
        avoid = tuple(avoid)
        if any(isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 0 for m in avoid) \
                or len(set(avoid)) != len(avoid) or set(avoid) & set(self.modes):
            raise GaitforgeError(f"avoid must be distinct mode indices none of which is driven, got {avoid!r}")
        if not (isinstance(barrier, (int, float)) and math.isfinite(barrier) and 0 < barrier <= 90):
            raise GaitforgeError(f"barrier must be a joint rotation above 0 up to 90 degrees, got {barrier!r}")
        self.avoid, self.barrier = tuple(int(m) for m in avoid), float(barrier)
        if not (isinstance(min_travel, (int, float)) and math.isfinite(min_travel) and min_travel >= 0):
            raise GaitforgeError(f"min_travel must be a distance of 0 m or more, got {min_travel!r}")
        self.min_travel = float(min_travel)
        self._barrier_cache = None
        self.seconds, self.ramp, self.start_noise = float(seconds), float(ramp), float(start_noise)
        if callable(creature) and not isinstance(creature, str):  # a picklable factory of the Character
            self.creature_name = creature().name
        else:
            self.creature_name = creature if isinstance(creature, str) else creature.name
        self.name = name or f"{self.creature_name}_modal"
        self._cache = None

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_cache"] = None
        state["_stance_cache"] = {}
        state["_barrier_cache"] = None
        return state

    @property
    def size(self) -> int:
        """Length of the parameter vector."""
        return self.layout.size

    def setup(self):
        """(character, basis), built once per process."""
        if self._cache is None:
            from gaitforge.creatures import registry
            from gaitforge.creatures.character import Character
            from gaitforge.modal import compute_modes

            if callable(self.creature) and not isinstance(self.creature, str):
                character = self.creature()
            else:
                spec = registry.build(self.creature) if isinstance(self.creature, str) else self.creature
                character = Character.from_spec(spec)
            self._cache = (character, compute_modes(character, count=max(self.layout.modes) + 1))
        return self._cache

    def barrier_fit(self):
        """(shapes (nv, k), avoided columns (a,), bounds (a,)): the modes the
        motion is fitted by (every elastic mode up to the highest driven or
        avoided), which of them are avoided, and each one's largest
        coordinate; built once per process (the driven basis stays
        :meth:`setup`'s, so that a recipe replays exactly)."""
        if self._barrier_cache is None:
            from gaitforge.modal import compute_modes
            from gaitforge.motion.gait_features import joint_rotations

            character, basis = self.setup()
            count = max(self.modes + self.avoid) + 1
            fit = basis if basis.count >= count else compute_modes(character, count=count)
            shapes = np.asarray(fit.shapes, float)[:, :count]
            per_unit = joint_rotations(character, shapes[:, list(self.avoid)])
            self._barrier_cache = (shapes, np.array(self.avoid, int),
                                   math.radians(self.barrier) / np.maximum(per_unit, 1e-12))
        return self._barrier_cache

    def recipe(self, x: np.ndarray, description: str = "") -> GaitRecipe:
        """The :class:`GaitRecipe` of parameter vector ``x`` (see :class:`Layout`)."""
        return self.layout.recipe(x, self.name, self.creature_name, description)

    def vector(self, recipe: GaitRecipe) -> np.ndarray:
        """Inverse of :meth:`recipe` for a recipe of this problem's layout."""
        return self.layout.vector(recipe)

    def physics(self):
        """The :class:`~gaitforge.control.modal.physics.ModalPhysics` the
        candidates run with (at ``physics().timestep`` and, when ``halved``,
        at half of it)."""
        from gaitforge.control.modal.physics import physics_for

        return physics_for(self.creature_name, self.timestep)

    @property
    def timesteps(self) -> tuple[float, ...]:
        """The steps [s] every candidate runs at: dt, and dt/2 when ``halved``."""
        dt = self.physics().timestep
        return (dt, 0.5 * dt) if self.halved else (dt,)

    @property
    def steps(self) -> float:
        """Physics steps one candidate costs: its seconds at each of :attr:`timesteps`."""
        return sum(self.seconds / dt for dt in self.timesteps)

    def rollout(self, x: np.ndarray, seed: int = 0, timestep: float | None = None):
        """The :class:`ModalRollout` of candidate ``x`` at ``timestep`` [s]
        (default: the first of :attr:`timesteps`)."""
        from gaitforge.control.modal import run_recipe
        from gaitforge.control.modal.rollout import kicked_start

        character, basis = self.setup()
        initial = None
        if self.start_noise > 0:
            initial = kicked_start(character, basis, self.modes, self.start_noise, seed)
        return run_recipe(character, self.recipe(x), self.seconds, ramp=self.ramp, basis=basis, initial=initial,
                          upright=self.upright, physics=self.physics(),
                          timestep=self.timesteps[0] if timestep is None else timestep,
                          strict_limits=self.strict_limits,
                          contact_bases=self._stance_cache if self.contact_bases else False)

    def __call__(self, x: np.ndarray, seed: int = 0) -> Score:
        scores = []
        for dt in self.timesteps:
            s = self._score(x, seed, dt)
            if s.failed:  # a failure at either step is the candidate's (the earlier fall, graded)
                return s
            scores.append(s)
        return worse(scores)

    def _score(self, x: np.ndarray, seed: int, timestep: float) -> Score:
        from gaitforge.control.modal.measures import summarize

        try:
            r = self.rollout(x, seed, timestep)
        except GaitforgeError as exc:  # e.g. a non-positive period: a failed candidate
            return Score(0.0, 0.0, 0.0, 0.0, math.inf, math.inf, f"invalid candidate: {exc}")
        character, _ = self.setup()
        if r.fell or r.over_limit:
            return Score(0.0, 0.0, 0.0, 0.0, math.inf, math.inf, f"{r.divergence} at the {1000 * timestep:g} ms step",
                         min(1.0, r.divergence.time / self.seconds))
        s = summarize(r, character.mass)  # cycles of the stride, the recipe's lowest frequency
        excess = self._barrier_excess(character, r) if self.avoid and r.ok else 0.0
        if self.heading is None or not r.ok:
            return Score(s.distance, s.dx, s.speed, s.work, s.cost_of_transport, s.cycle_residual, s.diverged,
                         barrier=excess, slow=self._slow(s.distance))
        travel = float(r.displacement @ (math.cos(self.heading), math.sin(self.heading)))
        cot = s.work / (character.mass * GRAVITY * travel) if travel > 1e-9 else math.inf
        return Score(travel, s.dx, travel / self.seconds, s.work, cot, s.cycle_residual, None, barrier=excess,
                     slow=self._slow(travel))

    def _slow(self, travel: float) -> float:
        """The share of ``min_travel`` that ``travel`` [m] fell short of."""
        return max(0.0, 1.0 - travel / self.min_travel) if self.min_travel > 0 else 0.0

    def _barrier_excess(self, character, r) -> float:
        """How far the avoided modes went past their barrier in rollout ``r``, after the ramp."""
        from gaitforge.optimize.sketch import barrier_excess, mode_content

        shapes, cols, bounds = self.barrier_fit()
        late = r.clip.qpos[r.times >= self.ramp] if len(r.times) == len(r.clip.qpos) else r.clip.qpos
        return barrier_excess(mode_content(character, shapes, late)[:, cols], bounds)


def worse(scores: list[Score]) -> Score:
    """The worse of scores of one candidate at several steps (none failed):
    the shortest travel with its dx, speed and work, the largest cost of
    transport, cycle residual, barrier excess and shortfall."""
    low = min(scores, key=lambda s: s.distance)
    return low._replace(cost_of_transport=max(s.cost_of_transport for s in scores),
                        cycle_residual=max(s.cycle_residual for s in scores),
                        barrier=max(s.barrier for s in scores), slow=max(s.slow for s in scores))

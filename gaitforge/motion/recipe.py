"""Gait recipes: the few numbers of Kry09 Eq. 4 that make a kinematic gait.

A recipe lists terms, each one elastic mode i of a :class:`ModalBasis` driven
as α_i sin(2π f̃_i t + γ_i) + β_i (modal coordinates, mass-normalized units:
kg^½ m for a translation-dominated mode). It also says which modal analysis
its mode indices refer to (the creature, extra constraints, stiffness
scale), since the same index names a different shape in another basis.

Recipes are validated on construction (:class:`SpecError` naming the field
and value); :func:`check_basis` checks a recipe against the basis it is
about to drive. Files: ``gaitforge.io.recipe_files``.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

from gaitforge.errors import GaitforgeError, SpecError, brief
from gaitforge.modal import compute_modes
from gaitforge.motion.gaits import HoldingStrategy, default_holding


# Largest magnitudes a recipe may hold: far beyond any gait, small enough that what is made of them
# (positions, phases, joint angles) stays finite and meaningful.
MAX_SPEED = 50.0           # [m/s] speed
MAX_FREQUENCY = 1e4        # [Hz] term frequency
MAX_MODAL = 1e6            # amplitudes, offsets, impulse sizes, start offsets and velocities (modal units)
MAX_PHASE = 1e4            # [rad]
MAX_STIFFNESS_SCALE = 1e6  # as ``gaitforge modes --stiffness-scale``


def _real(path: str, value, *, nonneg: bool = False, positive: bool = False, reach: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise SpecError(path, f"must be a finite number, got {brief(value)}")
    if positive and value <= 0:
        raise SpecError(path, f"must be positive, got {brief(value)}")
    if nonneg and value < 0:
        raise SpecError(path, f"must not be negative, got {brief(value)}")
    if reach is not None and abs(float(value)) > reach:
        bound = f"at most {reach:g}" if nonneg or positive else f"within ±{reach:g}"
        raise SpecError(path, f"must be {bound}, got {brief(value)}")
    return float(value)


def _text(path: str, value, *, empty: bool = True) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        what = "a string" if empty else "a non-empty string"
        raise SpecError(path, f"must be {what}, got {brief(value)}")
    return value


@dataclass(frozen=True)
class GaitTerm:
    """One mode of a gait (a term of Kry09 Eq. 4 with the §4.3 posture offset).

    mode: 0-based index among the basis' elastic modes (rigid modes excluded);
    amplitude α and offset β: modal coordinates (mass-normalized units);
    phase γ [rad]; frequency f̃ [Hz], the gait's frequency (often the same for
    every term, or twice it for a head bob), not the mode's natural one; 0 with
    α = 0 gives a pure posture offset.
    """

    mode: int
    amplitude: float
    phase: float
    frequency: float
    offset: float = 0.0

    def __post_init__(self) -> None:
        _mode(self.mode)
        object.__setattr__(self, "mode", int(self.mode))
        object.__setattr__(self, "amplitude", _real("amplitude", self.amplitude, reach=MAX_MODAL))
        object.__setattr__(self, "phase", _real("phase", self.phase, reach=MAX_PHASE))
        object.__setattr__(self, "frequency", _real("frequency", self.frequency, nonneg=True, reach=MAX_FREQUENCY))
        object.__setattr__(self, "offset", _real("offset", self.offset, reach=MAX_MODAL))


@dataclass(frozen=True)
class ModalImpulse:
    """A modal impulse of physically simulated modal control (Nunes et al.
    2012, surveyed in Kry 2012 §4.5): once per gait cycle, at fraction ``at``
    ∈ [0, 1) of the cycle (the period of the recipe's lowest term
    frequency), the generalized velocity jumps by uᵢ · size, i.e. the modal
    velocity of elastic mode ``mode`` changes by ``size`` (kg^½ m/s).
    """

    mode: int
    size: float
    at: float = 0.0

    def __post_init__(self) -> None:
        _mode(self.mode)
        object.__setattr__(self, "mode", int(self.mode))
        object.__setattr__(self, "size", _real("size", self.size, reach=MAX_MODAL))
        at = _real("at", self.at, nonneg=True)
        if at >= 1.0:
            raise SpecError("at", f"must be a fraction of the cycle in [0, 1), got {brief(self.at)}")
        object.__setattr__(self, "at", at)


@dataclass(frozen=True)
class ModalStart:
    """Initial condition along one elastic mode (physically simulated modal
    control): the start pose is the rest pose displaced by uᵢ · offset
    (kg^½ m) and the start velocity is uᵢ · velocity (kg^½ m/s)."""

    mode: int
    offset: float = 0.0
    velocity: float = 0.0

    def __post_init__(self) -> None:
        _mode(self.mode)
        object.__setattr__(self, "mode", int(self.mode))
        object.__setattr__(self, "offset", _real("offset", self.offset, reach=MAX_MODAL))
        object.__setattr__(self, "velocity", _real("velocity", self.velocity, reach=MAX_MODAL))


def _holding(value, name: str) -> HoldingStrategy:
    if value is None:
        return default_holding(name)
    if isinstance(value, str) and value in HoldingStrategy._value2member_map_:
        return HoldingStrategy(value)
    valid = ", ".join(h.value for h in HoldingStrategy)
    raise SpecError("holding", f"must be one of {valid}, got {brief(value)}")


def _mode(value) -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise SpecError("mode", f"must be a non-negative integer (an elastic mode index), got {brief(value)}")


def _items(name: str, value, kind: type) -> tuple:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise SpecError(name, f"must be a sequence of {kind.__name__}, got {brief(value)}")
    items = tuple(value)
    for i, item in enumerate(items):
        if not isinstance(item, kind):
            raise SpecError(f"{name}[{i}]", f"must be a {kind.__name__}, got {brief(item)}")
    return items


@dataclass(frozen=True)
class GaitRecipe:
    """A kinematic gait: terms plus the modal analysis they refer to.

    name: what the gait is called; creature: the registry name or file the
    recipe is for; terms: :class:`GaitTerm` tuple (a list is converted);
    constraints: extra modal constraint strings (``"lock:head"``, see
    ``gaitforge.modal.parse_constraint``) the basis must be computed with;
    rest_pose: an alternative rest-pose creature (e.g. ``"human_run"``) or
    None; stiffness_scale: factor on every spring of that analysis; speed:
    prescribed forward speed [m/s] along +x, or None to derive progression
    from the stance feet; flight: whether the grounding may let the body fly
    where no foot is low (False for walks: the lowest point stays on the
    ground in every frame); description: free text; impulses:
    :class:`ModalImpulse` tuple and initial: :class:`ModalStart` tuple, used
    by physically simulated modal control only (kinematic synthesis ignores
    them); holding: the :class:`~gaitforge.motion.gaits.HoldingStrategy`
    (or its value, ``"stance"``, ``"paired"``, ``"loose"``) by which
    ``synthesize`` holds the stance feet; None (a recipe written before it
    was recorded): that of the gait the recipe is named after
    (:func:`~gaitforge.motion.gaits.default_holding`), fixed on construction,
    so that renaming the recipe later changes nothing. arm_swing (≥ 0,
    at most 2) and still_arms: the free limbs hang in the creature's
    posture named ``posture`` (None: the rest pose) and swing by arm_swing
    times the other side's hip flexion, and the holding's IK leaves them so (:mod:`gaitforge.motion.arms`;
    :class:`~gaitforge.motion.gaits.GaitSpec` has the values of each gait).
    """

    name: str
    creature: str
    terms: tuple[GaitTerm, ...]
    constraints: tuple[str, ...] = ()
    rest_pose: str | None = None
    stiffness_scale: float = 1.0
    speed: float | None = None
    description: str = ""
    flight: bool = True
    impulses: tuple[ModalImpulse, ...] = ()
    initial: tuple[ModalStart, ...] = ()
    holding: HoldingStrategy | None = None
    arm_swing: float = 0.0
    still_arms: bool = False
    posture: str | None = None

    def __post_init__(self) -> None:
        _text("name", self.name, empty=False)
        _text("creature", self.creature, empty=False)
        if isinstance(self.terms, (str, bytes)) or not hasattr(self.terms, "__iter__"):
            raise SpecError("terms", f"must be a sequence of GaitTerm, got {brief(self.terms)}")
        terms = tuple(self.terms)
        if not terms:
            raise SpecError("terms", "a recipe needs at least one term")
        for i, t in enumerate(terms):
            if not isinstance(t, GaitTerm):
                raise SpecError(f"terms[{i}]", f"must be a GaitTerm, got {brief(t)}")
        object.__setattr__(self, "terms", terms)
        if isinstance(self.constraints, str) or not hasattr(self.constraints, "__iter__"):
            raise SpecError("constraints", f"must be a list of constraint strings, got {brief(self.constraints)}")
        cons = tuple(self.constraints)
        for i, c in enumerate(cons):
            _text(f"constraints[{i}]", c, empty=False)
        object.__setattr__(self, "constraints", cons)
        if self.rest_pose is not None:
            _text("rest_pose", self.rest_pose, empty=False)
        object.__setattr__(self, "stiffness_scale", _real("stiffness_scale", self.stiffness_scale, positive=True,
                                                               reach=MAX_STIFFNESS_SCALE))
        if self.speed is not None:
            object.__setattr__(self, "speed", _real("speed", self.speed, reach=MAX_SPEED))
        _text("description", self.description)
        if not isinstance(self.flight, bool):
            raise SpecError("flight", f"must be true or false, got {brief(self.flight)}")
        object.__setattr__(self, "impulses", _items("impulses", self.impulses, ModalImpulse))
        object.__setattr__(self, "initial", _items("initial", self.initial, ModalStart))
        if self.impulses and not any(t.frequency > 0 for t in terms):
            raise SpecError("impulses", "need a term with a positive frequency (the cycle they repeat in)")
        object.__setattr__(self, "holding", _holding(self.holding, self.name))
        object.__setattr__(self, "arm_swing", _real("arm_swing", self.arm_swing, nonneg=True, reach=2.0))
        if not isinstance(self.still_arms, bool):
            raise SpecError("still_arms", f"must be true or false, got {brief(self.still_arms)}")
        if self.posture is not None:
            _text("posture", self.posture, empty=False)
        seen = [s.mode for s in self.initial]
        if len(set(seen)) != len(seen):
            raise SpecError("initial", f"names a mode more than once: {brief(seen)}")

    @property
    def modes(self) -> tuple[int, ...]:
        """The distinct mode indices the terms, impulses and initial conditions use, ascending."""
        return tuple(sorted({t.mode for t in self.terms} | {i.mode for i in self.impulses}
                            | {s.mode for s in self.initial}))

    @property
    def base_frequency(self) -> float:
        """The lowest positive term frequency [Hz] (the gait cycle impulses repeat in; 0 if none)."""
        return min((t.frequency for t in self.terms if t.frequency > 0), default=0.0)

    @property
    def max_frequency(self) -> float:
        """The highest term frequency f̃ [Hz]."""
        return max(t.frequency for t in self.terms)


def _same_scale(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)


def check_basis(recipe: GaitRecipe, basis, character=None) -> None:
    """Raise :class:`GaitforgeError` unless ``basis`` is the modal analysis
    ``recipe`` was written for: every mode index exists, the extra
    constraints (by their text) and the stiffness scale agree, and (given
    ``character``) the basis belongs to that character."""
    k = basis.count
    for mode in recipe.modes:
        if mode >= k:
            modes = "elastic mode was" if k == 1 else "elastic modes were"
            raise GaitforgeError(f"recipe {brief(recipe.name)} names mode {mode} but only {k} {modes} computed")
    if character is not None:
        if basis.shapes.shape[0] != character.nv or basis.character_name != character.name:
            raise GaitforgeError(f"the modal basis is of {brief(basis.character_name)} (nv = {basis.shapes.shape[0]}) "
                                 f"but the character is {brief(character.name)} (nv = {character.nv})")
    if not _same_scale(basis.stiffness_scale, recipe.stiffness_scale):
        raise GaitforgeError(f"recipe {brief(recipe.name)} needs modes computed with stiffness_scale "
                             f"{recipe.stiffness_scale:g}, the basis has {basis.stiffness_scale:g}")
    own = len(character.constraints) if character is not None else None
    if own is not None:
        extra = tuple(c.name for c in basis.constraints[own:])
        if extra != recipe.constraints:
            want = ", ".join(recipe.constraints) or "none"
            have = ", ".join(extra) or "none"
            raise GaitforgeError(f"recipe {brief(recipe.name)} needs modes computed with constraints ({want}), "
                                 f"the basis has ({have})")


def modes_for(character, recipe: GaitRecipe, count: int | None = None, **kwargs):
    """The :class:`ModalBasis` ``recipe`` refers to: ``compute_modes`` of
    ``character`` with the recipe's constraints and stiffness scale (count:
    elastic modes to keep, default just enough for the recipe's highest
    index; kwargs go to ``compute_modes``)."""
    need = max(recipe.modes) + 1
    return compute_modes(character, count=need if count is None else count, constraints=recipe.constraints,
                         stiffness_scale=recipe.stiffness_scale, **kwargs)

"""Parameter vectors of modal controllers (Nunes et al. 2012, surveyed in
Kry 2012 §4.5): which numbers of a modal gait the optimizer may change,
and how a vector x becomes a :class:`GaitRecipe` and back.

For k terms (mode mᵢ at ratio rᵢ of the base frequency f = 1/P: 1 for the
stride, 2 for a bounce harmonic), n impulse modes and s start modes::

    x = [α_1 .. α_k, γ_2 .. γ_k, at_1 .. at_n, size_1 .. size_n,
         o_1 .. o_s, v_1 .. v_s, P]

α amplitudes (kg^½ m), γ phases [rad] (γ_1 fixed: the time origin), at
impulse times (cycle fractions, taken modulo 1), size impulse sizes
(kg^½ m/s), o / v initial modal offsets (kg^½ m) and velocities
(kg^½ m/s), P the period [s] shared by every term (term frequency rᵢ/P).
Posture offsets β stay as the start recipe has them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.recipe import GaitRecipe, GaitTerm, ModalImpulse, ModalStart

TWO_PI = 2.0 * math.pi


@dataclass(frozen=True)
class Layout:
    """terms ((mode, ratio, offset β), …); phase0 [rad] the first term's
    fixed phase; impulses and initial: the modes given a per-cycle impulse
    and an initial condition."""

    terms: tuple[tuple[int, float, float], ...]
    phase0: float = 0.0
    impulses: tuple[int, ...] = ()
    initial: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        keys = [(m, r) for m, r, _ in self.terms]
        if not keys or len(set(keys)) != len(keys) or any(int(m) < 0 or not r >= 0 for m, r in keys):
            raise GaitforgeError(f"terms must be distinct (mode, ratio) pairs with non-negative modes and ratios, "
                                 f"got {keys!r}")
        for label, modes in (("impulse", self.impulses), ("initial", self.initial)):
            if len(set(modes)) != len(modes) or any(int(m) < 0 for m in modes):
                raise GaitforgeError(f"{label} modes must be distinct non-negative mode indices, got {modes!r}")
        if self.impulses and not any(r > 0 for _, r, _ in self.terms):
            raise GaitforgeError("impulses need a term with a positive frequency ratio (the cycle they repeat in)")

    @classmethod
    def from_modes(cls, modes) -> Layout:
        """Terms on ``modes`` at one frequency (the classic two-mode crawl)."""
        return cls(tuple((int(m), 1.0, 0.0) for m in modes))

    @classmethod
    def from_recipe(cls, recipe: GaitRecipe, *, impulses=(), initial=()) -> Layout:
        """The layout of ``recipe`` (its terms, impulses and initial
        conditions), plus impulses and initial conditions on further modes."""
        f = recipe.base_frequency
        if f <= 0:
            raise GaitforgeError(f"recipe {recipe.name!r} has no term with a positive frequency to optimize")
        imp = tuple(dict.fromkeys([i.mode for i in recipe.impulses] + [int(m) for m in impulses]))
        start = tuple(dict.fromkeys([s.mode for s in recipe.initial] + [int(m) for m in initial]))
        return cls(tuple((t.mode, t.frequency / f, t.offset) for t in recipe.terms), recipe.terms[0].phase, imp,
                   start)

    @property
    def modes(self) -> tuple[int, ...]:
        """Every mode the layout uses (terms first, in order, then the others)."""
        return tuple(dict.fromkeys([m for m, _, _ in self.terms] + list(self.impulses) + list(self.initial)))

    @property
    def size(self) -> int:
        k, n, s = len(self.terms), len(self.impulses), len(self.initial)
        return 2 * k + 2 * n + 2 * s

    def _split(self, x: np.ndarray):
        k, n, s = len(self.terms), len(self.impulses), len(self.initial)
        cuts = np.cumsum([k, k - 1, n, n, s, s])
        return np.split(x[:-1], cuts[:-1]) + [float(x[-1])]

    def recipe(self, x, name: str, creature: str, description: str = "") -> GaitRecipe:
        """The :class:`GaitRecipe` of vector ``x`` (size,)."""
        x = np.asarray(x, float)
        if x.shape != (self.size,) or not np.all(np.isfinite(x)):
            raise GaitforgeError(f"parameter vector must hold {self.size} finite numbers, got {x!r}")
        alpha, gamma, at, size, offset, velocity, period = self._split(x)
        if period <= 0:
            raise GaitforgeError(f"period must be positive, got {period!r}")
        phases = [self.phase0] + [float(g) for g in gamma]
        terms = tuple(GaitTerm(m, float(a), g, r / period, b) for (m, r, b), a, g in zip(self.terms, alpha, phases))
        imp = tuple(ModalImpulse(m, float(z), float(a) % 1.0) for m, a, z in zip(self.impulses, at, size))
        start = tuple(ModalStart(m, float(o), float(v)) for m, o, v in zip(self.initial, offset, velocity))
        return GaitRecipe(name, creature, terms, description=description, impulses=imp, initial=start)

    def vector(self, recipe: GaitRecipe) -> np.ndarray:
        """Inverse of :meth:`recipe` for a recipe of this layout. A recipe
        whose first phase differs from ``phase0`` is shifted in time to it
        (for a one-frequency gait only the phase differences matter)."""
        f = recipe.base_frequency
        have = {(t.mode, round(t.frequency / f, 9) if f > 0 else -1.0): t for t in recipe.terms}
        want = [(m, round(r, 9)) for m, r, _ in self.terms]
        imp = {i.mode: i for i in recipe.impulses}
        start = {s.mode: s for s in recipe.initial}
        if (sorted(have) != sorted(want) or not set(imp) <= set(self.impulses)
                or not set(start) <= set(self.initial)):
            raise GaitforgeError(f"recipe {recipe.name!r} must drive modes {[m for m, _, _ in self.terms]} at "
                                 f"frequency ratios {[r for _, r, _ in self.terms]} (impulses on at most "
                                 f"{list(self.impulses)}, initial conditions on at most {list(self.initial)})")
        terms = [have[key] for key in want]
        shift = terms[0].phase - self.phase0  # time shift Δ = shift / (2π f): term i's phase moves by rᵢ shift
        phases = [t.phase - r * shift for t, (_, r, _) in zip(terms[1:], self.terms[1:])]
        at = [((imp[m].at - shift / TWO_PI) % 1.0) if m in imp else 0.0 for m in self.impulses]
        return np.array([t.amplitude for t in terms] + phases + at
                        + [imp[m].size if m in imp else 0.0 for m in self.impulses]
                        + [start[m].offset if m in start else 0.0 for m in self.initial]
                        + [start[m].velocity if m in start else 0.0 for m in self.initial] + [1.0 / f])

    def bounds(self, x0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """scale, lower, upper (size,) of the scaled search space z = x / scale:
        amplitudes 0..4× the start's largest α, phases ±2π, impulse times
        −1..2 cycles (wrapped), impulse sizes and initial velocities ±4 α ω,
        initial offsets ±2 α, the period ½..2× the start's (α the start's
        largest amplitude, ω = 2π/P)."""
        x0 = np.asarray(x0, float)
        k, n, s = len(self.terms), len(self.impulses), len(self.initial)
        amp = max(float(np.max(np.abs(x0[:k]))), 1e-6)
        rate = amp * TWO_PI / x0[-1]
        scale = np.concatenate([np.full(k, amp), np.ones(k - 1), np.ones(n), np.full(n, rate), np.full(s, amp),
                                np.full(s, rate), [x0[-1]]])
        lower = np.concatenate([np.zeros(k), np.full(k - 1, -TWO_PI), np.full(n, -1.0), np.full(n, -4.0),
                                np.full(s, -2.0), np.full(s, -4.0), [0.5]])
        upper = np.concatenate([np.full(k, 4.0), np.full(k - 1, TWO_PI), np.full(n, 2.0), np.full(n, 4.0),
                                np.full(s, 2.0), np.full(s, 4.0), [2.0]])
        return scale, lower, upper

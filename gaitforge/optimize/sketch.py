"""Sketch-guided modal control (Kry 2012 §4.5, Fig. 6): a few lines that say
what a cycle should look like, from which the optimizer starts and which it
must respect.

A :class:`Sketch` names the creature, the phases of one cycle in order —
each ``air`` or ``ground``, with a rough duration [s] and the elastic modes
to favour in it — and the modes to avoid. It gives:

- the starting recipe (:meth:`Sketch.recipe`): every favoured mode driven
  once per cycle (f̃ = 1 / the cycles' summed durations), its sine peaking
  in the middle of its phase, with the amplitude that turns its most-turned
  joint by ``rotation`` [deg];
- the barrier (:meth:`Sketch.bounds`): each avoided mode's share of the
  simulated motion — its coordinate in a least-squares fit of the joints'
  displacement from rest by the basis' mode shapes
  (:func:`mode_content`) — may not exceed the coordinate that turns its
  most-turned joint by ``barrier`` [deg]. The optimizer treats the excess as
  a constraint next to the cycle residual (``Score.barrier``, the method of
  multipliers of :mod:`gaitforge.optimize.cmaes`).

The objective of a sketched optimization is energy per distance (``cost``),
with the average speed held to at least ``min_speed`` body lengths per
second (a constraint too: energy per distance alone is least for a creature
that shuffles a few centimetres).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion.recipe import GaitRecipe, GaitTerm

KINDS = ("air", "ground")
MAX_PHASES = 8


@dataclass(frozen=True)
class SketchPhase:
    """One phase of the cycle: kind (``air`` or ``ground``), duration [s],
    favour: elastic mode indices driven to peak in it."""

    kind: str
    duration: float
    favour: tuple[int, ...]


@dataclass(frozen=True)
class Sketch:
    """name; creature: built-in creature name; phases in cycle order; avoid:
    elastic modes whose share of the motion is bounded; rotation [deg]:
    the favoured modes' starting peak joint rotation; barrier [deg]: the
    avoided modes' bound, as a peak joint rotation; min_speed [body lengths
    per second]: the least average speed (a constraint; 0: none); upright:
    (height share, tilt [deg]) — a candidate whose root drops below that
    share of its rest height or tilts past that angle has fallen (None: no
    check, for a worm or a rolling loop)."""

    name: str
    creature: str
    phases: tuple[SketchPhase, ...]
    avoid: tuple[int, ...] = ()
    rotation: float = 15.0
    barrier: float = 5.0
    min_speed: float = 0.2
    upright: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if not 1 <= len(self.phases) <= MAX_PHASES:
            raise GaitforgeError(f"sketch {self.name}: 1 to {MAX_PHASES} phases, got {len(self.phases)}")
        favoured = [m for p in self.phases for m in p.favour]
        if not favoured:
            raise GaitforgeError(f"sketch {self.name}: no phase favours a mode")
        both = sorted(set(favoured) & set(self.avoid))
        if both:
            raise GaitforgeError(f"sketch {self.name}: mode {both[0]} is both favoured and avoided")

    @property
    def period(self) -> float:
        """One cycle [s]: the phases' durations summed."""
        return float(sum(p.duration for p in self.phases))

    @property
    def modes(self) -> tuple[int, ...]:
        """The favoured modes, in the order the phases name them (each once)."""
        return tuple(dict.fromkeys(m for p in self.phases for m in p.favour))

    def check_basis(self, basis) -> None:
        """Refuse mode indices the basis does not have."""
        top = max(self.modes + self.avoid)
        if top >= basis.count:
            raise GaitforgeError(f"sketch {self.name}: mode {top} asked, but the basis has modes 0 to "
                                 f"{basis.count - 1}")

    def recipe(self, character, basis) -> GaitRecipe:
        """The starting recipe (module docstring): each favoured mode at
        1/period, peaking mid-phase (a mode favoured in several phases peaks
        in the first), amplitude for a peak joint rotation of ``rotation``."""
        from gaitforge.motion.gait_features import joint_rotations

        self.check_basis(basis)
        omega = 2.0 * math.pi / self.period
        per_unit = joint_rotations(character, basis.shapes[:, list(self.modes)])
        peak: dict[int, float] = {}
        start = 0.0
        for p in self.phases:
            for m in p.favour:
                peak.setdefault(m, start + 0.5 * p.duration)
            start += p.duration
        terms = []
        for m, rot in zip(self.modes, per_unit):
            amplitude = math.radians(self.rotation) / max(float(rot), 1e-12)
            phase = (0.5 * math.pi - omega * peak[m]) % (2.0 * math.pi)  # sin(ω t + γ) = 1 at the phase's middle
            terms.append(GaitTerm(m, amplitude, phase, 1.0 / self.period))
        flies = any(p.kind == "air" for p in self.phases)
        return GaitRecipe(self.name, self.creature, tuple(terms), flight=flies,
                          description=f"sketch {self.name}: " + ", ".join(
                              f"{p.kind} {p.duration:g} s favouring {list(p.favour)}" for p in self.phases)
                          + (f"; avoiding {list(self.avoid)}" if self.avoid else ""))

    def min_travel(self, character, seconds: float) -> float:
        """The least travel [m] over ``seconds`` [s]: ``min_speed`` body
        lengths per second (``control.modal.physics.body_length``)."""
        from gaitforge.control.modal.physics import body_length

        return self.min_speed * body_length(character) * float(seconds)

    def fall_check(self, character) -> tuple[float, float] | None:
        """``ModalProblem``'s ``upright`` (min root height [m], max tilt
        [rad]) for ``character``, or None."""
        if self.upright is None:
            return None
        share, tilt = self.upright
        return share * float(character.rest_qpos[2]), math.radians(tilt)

    def bounds(self, character, basis) -> np.ndarray:
        """(a,) the largest coordinate of each avoided mode (module docstring)."""
        from gaitforge.motion.gait_features import joint_rotations

        if not self.avoid:
            return np.zeros(0)
        self.check_basis(basis)
        per_unit = joint_rotations(character, basis.shapes[:, list(self.avoid)])
        return math.radians(self.barrier) / np.maximum(per_unit, 1e-12)


def mode_content(character, shapes: np.ndarray, qpos: np.ndarray) -> np.ndarray:
    """The modal coordinates (T, k) of poses ``qpos`` (T, nq): the
    least-squares fit of each pose's joint displacement from rest (tangent
    space, the root's own DOFs left out) by the columns of ``shapes`` (nv, k)."""
    import mujoco

    m = character.model
    root = _root_dofs(m)
    keep = np.setdiff1d(np.arange(m.nv), root)
    fit = np.linalg.pinv(np.asarray(shapes, float)[keep])
    rest = np.array(character.rest_qpos, float)
    dq = np.empty((len(qpos), m.nv))
    for t, q in enumerate(qpos):
        mujoco.mj_differentiatePos(m, dq[t], 1.0, rest, np.asarray(q, float))
    return dq[:, keep] @ fit.T


def _root_dofs(m) -> np.ndarray:
    """The DOFs of the joints on the first body (they place the creature in the world)."""
    out: list[int] = []
    for j in range(m.njnt):
        if int(m.jnt_bodyid[j]) == 1:
            n = {0: 6, 1: 3}.get(int(m.jnt_type[j]), 1)
            out += range(int(m.jnt_dofadr[j]), int(m.jnt_dofadr[j]) + n)
    return np.array(out, int)


def barrier_excess(coords: np.ndarray, bounds: np.ndarray) -> float:
    """Σ over avoided modes of max(0, peak |coordinate| / bound − 1): 0 when
    every avoided mode stays inside its barrier. coords (T, a)."""
    if not len(bounds):
        return 0.0
    peak = np.abs(coords).max(axis=0)
    return float(np.maximum(0.0, peak / bounds - 1.0).sum())

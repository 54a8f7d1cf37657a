"""What the library knows about each gait, as data: one frozen
:class:`GaitSpec` per gait in the registry :data:`GAITS`.

A spec holds everything that differs between gaits — the footfall phase of
each foot per creature kind (cycles after the left hind foot, or the left
foot), the class :func:`~gaitforge.motion.metrics.classify_gait` must give
it, the duty factors and bounces the Kry09 heuristics try, the Froude-scaled
stride frequency f̂ = f·√(h/g), the duty factor law β(Fr) of gaits made at a
speed, the typical Froude number, the speed ranges measured per creature,
how the feet support the body (which also says whether it flies), and how
its clip's feet are held (:class:`HoldingStrategy`). Code reads these
fields; nothing in the library branches on a gait's name.

Sources: footfalls of a lateral-sequence walk and amble and a transverse
gallop; Froude numbers and transitions after Alexander 1984 (as summarised
by Wang 2011 ch. 2.1); speed ranges measured by ``benchmarks/gait_speeds.py``
(docs/gait_speeds.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import Enum
from types import MappingProxyType
from typing import Any, Mapping

from gaitforge.errors import UnknownNameError

__all__ = ["CreatureKind", "DutyLaw", "GAITS", "GaitSpec", "HoldingStrategy", "KINDS", "Support", "default_holding",
           "gaits_of_kind", "holding_strategy", "speed_gaits", "speed_ranges", "transitions", "typical_froudes"]



@dataclass(frozen=True)
class CreatureKind:
    """A kind of creature the gait heuristics know, as data: name; feet: the
    keys of its labelled feet (a biped's sides, a quadruped's (limb, side)
    pairs); by_limb: feet told apart by (limb, side), not by side alone;
    letters: the Kry09 heuristics that apply (A–C on every leg, F and G on
    front legs only)."""

    name: str
    feet: tuple
    by_limb: bool
    letters: str

    def key(self, limb, side: str):
        """The key of a foot on ``limb`` (front, rear or None) and ``side``."""
        return (limb, side) if self.by_limb else side


KINDS: Mapping[str, CreatureKind] = MappingProxyType({k.name: k for k in (
    CreatureKind("biped", ("left", "right"), by_limb=False, letters="ABC"),
    CreatureKind("quadruped", (("front", "left"), ("front", "right"), ("rear", "left"), ("rear", "right")),
                 by_limb=True, letters="ABCFG"),
)})


class Support(str, Enum):
    """How a gait's feet carry the body, and so what its footfall check asks.

    ``double``: never airborne, each foot down over half the stride (a walk);
    ``single``: never airborne, each foot down under half the stride (an
    amble, a running walk); ``flight``: a flight phase each stride, each foot
    down under half of it, driven with a bounce at twice the stride frequency;
    ``hop``: feet together, no check on duty factors or flight (jumps)."""

    DOUBLE = "double"
    SINGLE = "single"
    FLIGHT = "flight"
    HOP = "hop"


class HoldingStrategy(str, Enum):
    """How a grounded clip's stance feet are held by modal IK
    (:mod:`gaitforge.motion.holds` has one function per strategy).

    ``stance``: each foot down keeps where it landed; in a clip that flies
    smoothly, the stance rule's heights and the root are held as well.
    ``paired``: for gaits whose feet land in groups of one beat each (a trot's,
    pace's or bound's pairs, a run's single feet): root and centre of mass held
    in every frame, flights included, feet easing onto and off their anchors.
    ``loose``: as ``paired`` but with the root free, the centre of mass on its
    path smoothed again and more modes moving (the gallop, whose feet land
    one by one).
    ``smoothed``: a steady walk made at a speed, grounded on its planned
    stance sweep with the body smoothed along the whole clip and the feet
    held under it (:func:`gaitforge.motion.holding.held_walk`, as a speed
    ramp's walk); the recipes ``animate --speed`` makes of gaits that never
    fly record it, so that replaying one gives the same clip."""

    STANCE = "stance"
    PAIRED = "paired"
    LOOSE = "loose"
    SMOOTHED = "smoothed"


@dataclass(frozen=True)
class DutyLaw:
    """A duty factor falling with speed: β = clip(a + b·x, low, high), x the
    Froude number Fr, or ln Fr when ``of_log`` (a rule of thumb fitted to
    Alexander's surveys, not a law of nature)."""

    a: float
    b: float
    low: float
    high: float
    of_log: bool = False

    def __call__(self, froude: float) -> float:
        """β at Froude number ``froude`` (> 0 when ``of_log``)."""
        x = math.log(froude) if self.of_log else froude
        return float(min(max(self.a + self.b * x, self.low), self.high))


WALK_DUTY = DutyLaw(0.72, -0.3, 0.55, 0.75)                # 0.645 at Fr 0.25
FLIGHT_DUTY = DutyLaw(0.40, -0.06, 0.26, 0.46, of_log=True)  # 0.40 at Fr 1, 0.33 at Fr 3
SINGLE_DUTY = DutyLaw(0.5, -0.05, 0.4, 0.6, of_log=True)   # an amble: about half the stride


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType({k: (_frozen(v) if isinstance(v, Mapping) else v) for k, v in mapping.items()})


@dataclass(frozen=True)
class GaitSpec:
    """One gait, as data.

    name: the gait's name; footfalls: creature kind → foot key → footfall
    phase [cycles after the reference foot] (a biped's keys are sides, a
    quadruped's (limb, side) pairs); the kinds listed are those the gait
    exists for. gait_class: what ``classify_gait`` must call a clip of it
    (None: no class of its own, an amble). support: :class:`Support`.
    stride_frequency: f̂, the stride frequency per √(g/h) (h hip height [m]).
    duty_factors: the duty factors the heuristics try, best guess first;
    harmonics: how many harmonics of the foot profile they fit (walks and
    ambles 3, Kry09's fundamental otherwise). bounces: second-harmonic lift
    shares tried for a flight phase (empty: no bounce). duty_law: β(Fr) for
    a gait made at a speed. typical_froude: the Froude number a speed
    defaults to (None: no speed can be asked of it). speed_ranges: creature
    → (lowest, highest) speed [m/s] measured to meet every check.
    ramp_from: creature kind → the Froude number from which a speed ramp
    uses this gait (absent: not in that kind's ramps). holding: the
    :class:`HoldingStrategy` of its recipes; ramp_holding: the one its
    recipes are checked under inside a ramp. on_the_spot: feet together,
    features taken relative to the trunk, no forward swing, knees bent
    twice as far; jacks: add the jumping jack's limb swing. arm_swing:
    how far free limbs (a human's arms) swing per radian of the other
    side's hip flexion (:mod:`gaitforge.motion.arms`; 0: as the modes move
    them); still_arms: the holding's modal IK leaves those limbs where the
    swing put them; posture: the creature's posture they hang in
    (``registry.Entry.postures``; None: the rest pose).
    """

    name: str
    footfalls: Mapping[str, Mapping[Any, float]]
    gait_class: str | None
    support: Support
    stride_frequency: float
    duty_factors: tuple[float, ...] = (0.5,)
    harmonics: int = 1
    bounces: tuple[float, ...] = ()
    duty_law: DutyLaw = SINGLE_DUTY
    typical_froude: float | None = None
    speed_ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    ramp_from: Mapping[str, float] = field(default_factory=dict)
    holding: HoldingStrategy = HoldingStrategy.STANCE
    ramp_holding: HoldingStrategy = HoldingStrategy.STANCE
    on_the_spot: bool = False
    jacks: bool = False
    arm_swing: float = 0.0
    still_arms: bool = False
    posture: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "footfalls", _frozen(self.footfalls))
        object.__setattr__(self, "speed_ranges", _frozen(self.speed_ranges))
        object.__setattr__(self, "ramp_from", _frozen(self.ramp_from))

    @property
    def flies(self) -> bool:
        """Whether the gait has a flight phase each stride (duty factors below 0.5)."""
        return self.support is Support.FLIGHT

    @property
    def grounded(self) -> bool:
        """Whether a foot is always down (its recipes' ``flight`` is False)."""
        return self.support in (Support.DOUBLE, Support.SINGLE)

    @property
    def bounce_shares(self) -> tuple[float, ...]:
        """The bounces the heuristics try: :attr:`bounces`, or none (0.0)."""
        return self.bounces or (0.0,)


def _quadruped(fl: float, fr: float, rl: float, rr: float) -> dict:
    return {("front", "left"): fl, ("front", "right"): fr, ("rear", "left"): rl, ("rear", "right"): rr}


_ALTERNATE = {"left": 0.0, "right": 0.5}
_TOGETHER = {"left": 0.0, "right": 0.0}
# A flying gait's bounce shares of the fundamental lift, tried in order (the gallop's staggered
# feet need a deeper one): gait_features.bounce.
_BOUNCE = (0.5, 0.25)
# Shoulder swing per hip swing in normal walking: ~30° against ~40° (Winter 2009; Perry & Burnfield
# 2010); the run swings by the same share. Both gaits' holdings leave the shoulders still (masked from
# the modal IK: the walk's shoulder swing at 1.3 m/s went from 78° to 34°; docs/validation/natural_motion.md).
ARM_SWING = 0.75

GAITS: Mapping[str, GaitSpec] = MappingProxyType({s.name: s for s in (
    GaitSpec("walk", {"biped": _ALTERNATE, "quadruped": _quadruped(0.25, 0.75, 0.0, 0.5)}, "walk",
             Support.DOUBLE, 0.30, duty_factors=(0.7, 0.6), harmonics=3, duty_law=WALK_DUTY,
             typical_froude=0.25, speed_ranges={"dog": (0.67, 1.42), "human": (0.96, 2.03)},
             ramp_from={"biped": 0.0, "quadruped": 0.0}, arm_swing=ARM_SWING, still_arms=True,
             posture="relaxed"),
    GaitSpec("trot", {"quadruped": _quadruped(0.5, 0.0, 0.0, 0.5)}, "trot", Support.FLIGHT, 0.45,
             bounces=_BOUNCE, duty_law=FLIGHT_DUTY, typical_froude=1.0, speed_ranges={"dog": (1.49, 2.99)},
             ramp_from={"quadruped": 0.5}, holding=HoldingStrategy.PAIRED),
    GaitSpec("pace", {"quadruped": _quadruped(0.0, 0.5, 0.0, 0.5)}, "pace", Support.FLIGHT, 0.45,
             bounces=_BOUNCE, duty_law=FLIGHT_DUTY, typical_froude=1.0, speed_ranges={"dog": (1.49, 2.99)},
             holding=HoldingStrategy.PAIRED),
    GaitSpec("amble", {"quadruped": _quadruped(0.25, 0.75, 0.0, 0.5)}, None, Support.SINGLE, 0.40,
             duty_factors=(0.6,), harmonics=3, typical_froude=0.5),
    GaitSpec("bound", {"quadruped": _quadruped(0.5, 0.5, 0.0, 0.0)}, "bound", Support.FLIGHT, 0.50,
             bounces=_BOUNCE, duty_law=FLIGHT_DUTY, typical_froude=2.0, speed_ranges={"dog": (2.11, 3.66)},
             holding=HoldingStrategy.PAIRED),
    # With its pairs split by 0.1 cycle and held loose the dog's gallop meets every check at
    # Fr 2-5 (split by 0.15, every candidate at Fr 5 hit the 100° rotation cap near 4 m/s).
    GaitSpec("gallop", {"quadruped": _quadruped(0.5, 0.6, 0.0, 0.1)}, "gallop", Support.FLIGHT, 0.50,
             bounces=(1.5, 1.0), duty_law=FLIGHT_DUTY, typical_froude=3.0, speed_ranges={"dog": (2.99, 4.72)},
             ramp_from={"quadruped": 2.5}, holding=HoldingStrategy.LOOSE, ramp_holding=HoldingStrategy.LOOSE),
    GaitSpec("run", {"biped": _ALTERNATE}, "run", Support.FLIGHT, 0.45, bounces=_BOUNCE, duty_law=FLIGHT_DUTY,
             # top: Fr 1.75 (4.0 m/s); at Fr 2 (4.27 m/s) the run with hanging, swinging arms asks 4.3 g of
             # stance force, over the 4 g bound (the T-pose arms' 3.7 g met it)
             typical_froude=1.0, speed_ranges={"human": (2.14, 4.0)}, ramp_from={"biped": 0.5},
             holding=HoldingStrategy.PAIRED, arm_swing=ARM_SWING, still_arms=True,
             posture="running"),
    GaitSpec("jump", {"biped": _TOGETHER}, "hop", Support.HOP, 0.60, on_the_spot=True),
    GaitSpec("jumping_jacks", {"biped": _TOGETHER}, "hop", Support.HOP, 0.60, on_the_spot=True, jacks=True),
)})


def gaits_of_kind(kind: str) -> tuple[str, ...]:
    """The gaits with footfalls for creature ``kind`` (:data:`KINDS`), in registry order."""
    return tuple(name for name, spec in GAITS.items() if kind in spec.footfalls)


def speed_gaits() -> tuple[str, ...]:
    """The gaits a speed can be asked of (those with a typical Froude number), slowest first."""
    return tuple(sorted((n for n, s in GAITS.items() if s.typical_froude is not None),
                        key=lambda n: GAITS[n].typical_froude or 0.0))


def typical_froudes() -> dict[str, float]:
    """Speed gait → its typical Froude number (:func:`speed_gaits` order)."""
    return {n: float(GAITS[n].typical_froude or 0.0) for n in speed_gaits()}


def speed_ranges(creature: str) -> dict[str, tuple[float, float]]:
    """Gait → the (lowest, highest) speed [m/s] measured on ``creature`` (empty where none was)."""
    return {n: s.speed_ranges[creature] for n, s in GAITS.items() if creature in s.speed_ranges}


def transitions(kind: str) -> tuple[tuple[float, str], ...]:
    """The gaits a creature ``kind`` changes through as it speeds up, as
    (Froude number up to which it is used, gait) bands, the last up to
    infinity: quadrupeds walk → trot near Fr 0.5 and trot → gallop near 2.5,
    bipeds walk → run near 0.5 (Alexander 1984)."""
    starts = sorted((s.ramp_from[kind], n) for n, s in GAITS.items() if kind in s.ramp_from)
    return tuple((top, gait) for (_, gait), top in zip(starts, [s for s, _ in starts[1:]] + [math.inf]))


def holding_strategy(value: HoldingStrategy | str) -> HoldingStrategy:
    """The :class:`HoldingStrategy` ``value`` is or names; the error lists the valid ones."""
    try:
        return HoldingStrategy(value)
    except ValueError:
        valid = ", ".join(h.value for h in HoldingStrategy)
        raise UnknownNameError(f"unknown holding {value!r} (valid holdings: {valid})") from None


def default_holding(name: str) -> HoldingStrategy:
    """The holding of a recipe that names none: that of the gait it is
    called after, :attr:`HoldingStrategy.STANCE` for any other name."""
    spec = GAITS.get(name)
    return spec.holding if spec is not None else HoldingStrategy.STANCE

"""Stride plans by dynamic similarity (:mod:`gaitforge.motion.speed`).

Animals of different sizes move alike at equal Froude number Fr = V²/(g h)
(V speed [m/s], g = 9.81 m/s², h hip height [m]; Alexander 1984, as
summarised by Wang 2011 ch. 2.1). At equal Fr they take strides of equal
relative length, λ/h ≈ 2.3·Fr^0.3, so a speed fixes the stride length λ and
frequency f = V/λ (:func:`stride_plan`); the duty factor falls with speed
(:func:`duty_target`); gaits change at typical Froude numbers
(:data:`TRANSITIONS`, :func:`gait_for_froude`).
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion import gait_features as gfe
from gaitforge.motion.gait_patterns import FLYING
from gaitforge.naming import match

GRAVITY = 9.81          # [m/s²]
STRIDE_A, STRIDE_B = 2.3, 0.3   # Alexander: λ/h = A · Fr^B
# Supported speeds [m/s] of the kinematic gaits at speed, measured (not guessed) by
# benchmarks/gait_speeds.py (docs/gait_speeds.md): the lowest and highest speed asked that met
# every check (speed, λ/h, class, duty, skate, limits, the stance force where it counts), of three
# speeds tried per gait (four for the dog's gallop, Fr 2-5: with its pairs split by 0.1 cycle and held
# loose it meets every one; split by 0.15, every candidate at Fr 5 reached the 100° rotation cap near
# 4 m/s and stopped galloping). Gaits and creatures not listed met none or were not measured.
SPEED_RANGES: dict[str, dict[str, tuple[float, float]]] = {
    "dog": {"walk": (0.67, 1.42), "trot": (1.49, 2.99), "pace": (1.49, 2.99), "bound": (2.11, 3.66),
            "gallop": (2.99, 4.72)},
    "human": {"walk": (0.96, 2.03), "run": (2.14, 4.27)},
}
# Froude numbers a gait is made for: below, strides shrink to nothing (a speed of 1e-300 m/s divided
# 0 by 0); above, no animal moves (a cheetah's top speed is Froude ~100) and the amplitudes that reach
# such speeds turn joints round and round.
FROUDE_RANGE = (1e-3, 100.0)
# A Froude number typical of each gait (dog walk 0.25, trot 1, gallop 3; human walk 0.25, run 1).
DEFAULT_FROUDE = {"walk": 0.25, "amble": 0.5, "trot": 1.0, "pace": 1.0, "run": 1.0, "bound": 2.0, "gallop": 3.0}
SPEED_GAITS = tuple(DEFAULT_FROUDE)


class StridePlan(NamedTuple):
    """The stride a speed asks for: froude Fr, speed V [m/s], stride_length λ
    [m], frequency f [Hz], duty β (target), hip_height h [m]."""

    froude: float
    speed: float
    stride_length: float
    frequency: float
    duty: float
    hip_height: float


def duty_target(gait: str, froude: float) -> float:
    """Target duty factor β at Froude number ``froude``, falling with speed.
    Walks: 0.72 − 0.3·Fr within [0.55, 0.75] (0.645 at Fr 0.25); gaits with
    a flight phase: 0.40 − 0.06·ln Fr within [0.26, 0.46] (0.40 at Fr 1,
    0.33 at Fr 3). Other gaits (an amble): 0.5 − 0.05·ln Fr within [0.4, 0.6]."""
    if gait in FLYING:
        return float(np.clip(0.40 - 0.06 * math.log(froude), 0.26, 0.46))
    if gait == "walk":
        return float(np.clip(0.72 - 0.3 * froude, 0.55, 0.75))
    return float(np.clip(0.5 - 0.05 * math.log(froude), 0.4, 0.6))


def _speed_gait(gait: str) -> str:
    name = match(gait, DEFAULT_FROUDE) or gait
    if name not in DEFAULT_FROUDE:
        raise GaitforgeError(f"a speed can be asked of these gaits only: {', '.join(SPEED_GAITS)} (got {gait!r})")
    return name


# Froude numbers where animals change gait (Alexander 1984): quadrupeds walk → trot near 0.5 and
# trot → gallop near 2.5; humans walk → run near 0.5.
TRANSITIONS = {"quadruped": ((0.5, "walk"), (2.5, "trot"), (math.inf, "gallop")),
               "biped": ((0.5, "walk"), (math.inf, "run"))}


def check_froude(froude: float, h: float, speed: float | None = None) -> None:
    """Raise :class:`GaitforgeError` unless ``froude`` (of ``speed`` [m/s],
    if given, for hip height ``h`` [m]) is within :data:`FROUDE_RANGE`."""
    lo, hi = FROUDE_RANGE
    if math.isfinite(froude) and lo <= froude <= hi:
        return
    asked = f"speed {speed:.3g} m/s is Froude {froude:.3g}" if speed is not None else f"Froude {froude:.3g}"
    raise GaitforgeError(f"{asked} (V²/(g·h), hip height {h:.2f} m); gaits are made from Froude {lo:g} to {hi:g}: "
                         f"{math.sqrt(lo * GRAVITY * h):.2g} to {math.sqrt(hi * GRAVITY * h):.3g} m/s for this "
                         "creature")


def check_speed(character, speed: float | None = None, froude: float | None = None) -> None:
    """:func:`check_froude` for a ``speed`` [m/s] or ``froude`` asked of
    ``character`` (neither: nothing to check), before any modal analysis."""
    if speed is None and froude is None:
        return
    h = gfe.hip_height(character)
    fr = froude_of(character, speed, froude)
    check_froude(fr, h, None if froude is not None else speed)


def froude_of(character, speed: float | None = None, froude: float | None = None) -> float:
    """The Froude number of ``speed`` [m/s] for ``character`` (or ``froude``
    itself; neither: an error)."""
    if froude is not None:
        return float(froude)
    if speed is None:
        raise GaitforgeError("give a speed or a Froude number")
    return float(speed) ** 2 / (GRAVITY * gfe.hip_height(character))


def gait_for_froude(character, froude: float) -> str:
    """The gait ``character``'s kind uses at Froude number ``froude``
    (:data:`TRANSITIONS`)."""
    from gaitforge.motion.gait_patterns import creature_kind

    for top, gait in TRANSITIONS[creature_kind(character)]:
        if froude < top:
            return gait
    raise AssertionError("the last transition is at infinity")


def stride_plan(h: float, gait: str, *, speed: float | None = None, froude: float | None = None) -> StridePlan:
    """The stride for ``speed`` V [m/s] or ``froude`` Fr (one of them; neither:
    :data:`DEFAULT_FROUDE` of the gait) of a creature with hip height ``h``
    [m]: Fr = V²/(g h), λ = 2.3·Fr^0.3·h, f = V/λ, β = :func:`duty_target`."""
    gait = _speed_gait(gait)
    if speed is not None and froude is not None:
        raise GaitforgeError("give a speed or a Froude number, not both")
    for name, value in (("speed", speed), ("froude", froude)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not math.isfinite(value) or value <= 0):
            raise GaitforgeError(f"{name} must be a positive finite number, got {value!r}")
    if not (math.isfinite(h) and h > 0):
        raise GaitforgeError(f"hip height must be a positive number of metres, got {h!r}")
    if speed is None:
        fr = float(DEFAULT_FROUDE[gait] if froude is None else froude)
        v = math.sqrt(fr * GRAVITY * h)
    else:
        v = float(speed)
        fr = v * v / (GRAVITY * h)
    check_froude(fr, h, speed)
    lam = STRIDE_A * fr ** STRIDE_B * h
    return StridePlan(fr, v, lam, v / lam, duty_target(gait, fr), h)


def _lower_half_share(share: float) -> float:
    """Fraction of the cycle a bounced foot profile (fundamental plus
    :func:`gait_features.bounce` of ``share``) spends in the lower half of
    its excursion: the stance the grounding gives it."""
    theta = np.linspace(0.0, 2 * np.pi, 720, endpoint=False)
    g1 = 1.0 + 0.0j
    z = np.imag(g1 * np.exp(1j * theta) + gfe.bounce(g1, share) * np.exp(2j * theta))
    return float(np.mean(z <= z.min() + 0.5 * np.ptp(z)))


_SHARES = np.linspace(0.0, 2.0, 81)


@functools.lru_cache(maxsize=1)
def _lower_table() -> tuple[float, ...]:
    """:func:`_lower_half_share` over :data:`_SHARES` (computed once, when first needed)."""
    return tuple(_lower_half_share(float(s)) for s in _SHARES)


def bounce_for_duty(beta: float) -> float:
    """The bounce share whose profile is in the lower half of its excursion
    for a fraction ``beta`` of the cycle (the least share reaching it;
    clipped to what bounces up to 2 reach, 0 for β ≥ 0.5)."""
    reach = np.minimum.accumulate(np.array(_lower_table()))
    if beta >= reach[0]:
        return 0.0
    i = int(np.argmax(reach <= beta)) if np.any(reach <= beta) else len(reach) - 1
    if i == 0 or reach[i] > beta:
        return float(_SHARES[i])
    a, b = reach[i - 1], reach[i]
    return float(_SHARES[i - 1] + (_SHARES[i] - _SHARES[i - 1]) * (a - beta) / (a - b))

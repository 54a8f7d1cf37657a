"""Stride plans by dynamic similarity (:mod:`gaitforge.motion.speed`).

Animals of different sizes move alike at equal Froude number Fr = V²/(g h)
(V speed [m/s], g = 9.81 m/s², h hip height [m]; Alexander 1984, as
summarised by Wang 2011 ch. 2.1). At equal Fr they take strides of equal
relative length, λ/h ≈ 2.3·Fr^0.3, so a speed fixes the stride length λ and
frequency f = V/λ (:func:`stride_plan`); the duty factor falls with speed
(:func:`duty_target`); gaits change at typical Froude numbers
(:func:`~gaitforge.motion.gaits.transitions`, :func:`gait_for_froude`). What
differs between gaits is in :data:`~gaitforge.motion.gaits.GAITS`.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion import gait_features as gfe
from gaitforge.motion.gaits import GAITS, speed_gaits, transitions
from gaitforge.naming import match
from gaitforge.constants import GRAVITY

STRIDE_A, STRIDE_B = 2.3, 0.3   # Alexander: λ/h = A · Fr^B
# Froude numbers a gait is made for: below, strides shrink to nothing (a speed of 1e-300 m/s divided
# 0 by 0); above, no animal moves (a cheetah's top speed is Froude ~100) and the amplitudes that reach
# such speeds turn joints round and round.
FROUDE_RANGE = (1e-3, 100.0)


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
    """Target duty factor β at Froude number ``froude``, falling with speed:
    the gait's :attr:`~gaitforge.motion.gaits.GaitSpec.duty_law`. Walks:
    0.72 − 0.3·Fr within [0.55, 0.75] (0.645 at Fr 0.25); gaits with a
    flight phase: 0.40 − 0.06·ln Fr within [0.26, 0.46] (0.40 at Fr 1, 0.33
    at Fr 3); an amble: 0.5 − 0.05·ln Fr within [0.4, 0.6]."""
    return GAITS[gait].duty_law(froude)


def _speed_gait(gait: str) -> str:
    names = speed_gaits()
    name = match(gait, names) or gait
    if name not in names:
        raise GaitforgeError(f"a speed can be asked of these gaits only: {', '.join(names)} (got {gait!r})")
    return name


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


def speed_of(character, froude: float) -> float:
    """The speed [m/s] at Froude number ``froude`` for ``character``: the
    inverse of :func:`froude_of`, V = √(Fr g h) at its hip height h."""
    return math.sqrt(float(froude) * GRAVITY * gfe.hip_height(character))


def gait_for_froude(character, froude: float) -> str:
    """The gait ``character``'s kind uses at Froude number ``froude``
    (:func:`~gaitforge.motion.gaits.transitions`)."""
    from gaitforge.motion.gait_patterns import creature_kind

    for top, gait in transitions(creature_kind(character)):
        if froude < top:
            return gait
    raise AssertionError("the last transition is at infinity")


def stride_plan(h: float, gait: str, *, speed: float | None = None, froude: float | None = None) -> StridePlan:
    """The stride for ``speed`` V [m/s] or ``froude`` Fr (one of them; neither:
    the gait's typical Froude number) of a creature with hip height ``h``
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
        fr = float(GAITS[gait].typical_froude if froude is None else froude)  # type: ignore[arg-type]
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

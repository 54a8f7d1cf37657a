"""The footfall check of the Kry09 heuristics (:mod:`gaitforge.motion.heuristics`):
how far a grounded clip of a candidate recipe is from the gait it was made
for (:func:`footfall_error`: landing phases, gait class, duty factors, flight
and forward travel), and what gait class it shows (:func:`recipe_class`)."""
from __future__ import annotations

import math

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion import gait_features as gf
from gaitforge.motion.gaits import GAITS, HoldingStrategy, Support
from gaitforge.motion.metrics import PHASE_TOL
from gaitforge.motion.recipe import GaitRecipe

MIN_AIR = 0.05                   # share of the time a flying gait spends with no contact point down
CLEARANCE = 0.001                # [m] a contact point this high is off the ground
MIN_STRIDE = 0.1                 # flying gaits travel at least this stride length per hip height


def recipe_class(character, basis, recipe: GaitRecipe, strides: float = 4.0) -> str:
    """The gait class of a grounded clip of ``recipe`` ("unmeasurable" when a
    foot never lands twice)."""
    from gaitforge.motion.footfall import detect_footfalls
    from gaitforge.motion.metrics import classify_gait, gait_metrics
    from gaitforge.motion.synthesis import synthesize

    clip = synthesize(character, basis, recipe, strides / min(t.frequency for t in recipe.terms), 60.0)
    try:
        return classify_gait(gait_metrics(character, clip, detect_footfalls(character, clip)))
    except GaitforgeError:
        return "unmeasurable"


def footfall_error(character, basis, recipe: GaitRecipe, kind: str, gait: str, strides: float = 4.0,
                   pin: bool = False, holding: HoldingStrategy | str | None = None) -> float:
    """How far a grounded clip of ``recipe`` (``strides`` strides at 60
    frames/s; ``pin``: stance feet pinned; ``holding``: as ``synthesize``) is from ``gait`` of a ``kind``
    creature: the largest error of a
    foot's landing phase [cycles] beyond 0.7·PHASE_TOL (a margin inside the
    classifier's tolerance), 0.5 if ``classify_gait`` names another gait
    than the spec's ``gait_class``, plus by the gait's
    :class:`~gaitforge.motion.gaits.Support`: ``double`` (walks), how far the smallest duty factor
    falls short of 0.53 and the share of time in flight (detected, or with
    every contact point above the ground: the larger); ``single`` (ambles), how far the largest duty
    factor exceeds 0.47 and the share of time in flight; ``flight``, how far the largest duty factor exceeds
    0.47, how far the flight (the lesser of the detected one and the share
    of time with every contact point above :data:`CLEARANCE`) falls short of
    :data:`MIN_AIR`, and how far the forward travel per stride falls short
    of :data:`MIN_STRIDE` hip heights. 0 when it meets the gait, inf when a
    foot never lands twice."""
    from gaitforge.motion.footfall import detect_footfalls
    from gaitforge.motion.metrics import gait_metrics
    from gaitforge.motion.synthesis import synthesize

    f = min(t.frequency for t in recipe.terms)
    clip = synthesize(character, basis, recipe, strides / f, 60.0, pin_feet=pin, holding=holding)
    try:
        m = gait_metrics(character, clip, detect_footfalls(character, clip))
    except GaitforgeError:
        return math.inf
    return clip_error(character, clip, m, kind, gait)


def clip_error(character, clip, m, kind: str, gait: str) -> float:
    """:func:`footfall_error` of a grounded ``clip`` whose gait metrics are ``m``."""
    from gaitforge.motion.metrics import classify_gait

    spec = GAITS[gait]
    want = spec.footfalls[kind]
    gaps = [abs((m.phase[n] - want[gf.foot_key(kind, m.limbs[n], m.sides[n])] + 0.5) % 1.0 - 0.5) for n in m.feet]
    if any(math.isnan(g) for g in gaps):
        return math.inf
    wrong_class = spec.gait_class is not None and classify_gait(m) != spec.gait_class
    err = max(0.0, max(gaps) - 0.7 * PHASE_TOL) + 0.5 * wrong_class
    return _SUPPORT_ERRORS[spec.support](character, clip, m, err)


def _double_support_error(character, clip, m, err: float) -> float:
    """``err`` plus what a walk misses: any frame off the ground at all counts
    against it, and a foot down under 0.53 of the stride."""
    from gaitforge.motion.grounding import lowest_heights

    low = lowest_heights(character, clip.qpos)
    return err + (max(0.0, 0.53 - min(m.duty_factor.values())) + max(float(np.mean(low > 1e-9)), m.flight_fraction))


def _single_support_error(character, clip, m, err: float) -> float:
    """``err`` plus what an amble (a running walk) misses: each foot down less than half the time, never all up."""
    return err + (max(0.0, max(m.duty_factor.values()) - 0.47) + m.flight_fraction)


def _flight_error(character, clip, m, err: float) -> float:
    """``err`` plus what a gait with a flight phase misses: each foot down
    under 0.47 of the stride, every contact point off the ground for
    :data:`MIN_AIR` of the time, and forward travel of :data:`MIN_STRIDE` hip
    heights a stride."""
    from gaitforge.motion.grounding import lowest_heights
    from gaitforge.motion.metrics import root_positions

    air = float(np.mean(lowest_heights(character, clip.qpos) > CLEARANCE))
    err += max(0.0, max(m.duty_factor.values()) - 0.47) + max(0.0, MIN_AIR - min(air, m.flight_fraction))
    # forward (+x) travel per stride and hip height: a run on the spot, or backwards, is no run
    x = root_positions(character, clip.qpos[[0, -1]])[:, 0]
    forward = (x[1] - x[0]) / clip.duration / m.stride_frequency / m.hip_height
    err += max(0.0, MIN_STRIDE - forward)
    return err


_SUPPORT_ERRORS = {Support.DOUBLE: _double_support_error, Support.SINGLE: _single_support_error,
                   Support.FLIGHT: _flight_error, Support.HOP: lambda character, clip, m, err: err}

"""The footfall check of the Kry09 heuristics (:mod:`gaitforge.motion.heuristics`):
how far a grounded clip of a candidate recipe is from the gait it was made
for (:func:`footfall_error`: landing phases, gait class, duty factors, flight
and forward travel), and what gait class it shows (:func:`recipe_class`)."""
from __future__ import annotations

import math

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion import gait_features as gf
from gaitforge.motion.gait_patterns import CLASS, FLYING, FOOTFALLS
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
                   pin: bool = False, paired: bool | None = None) -> float:
    """How far a grounded clip of ``recipe`` (``strides`` strides at 60
    frames/s; ``pin``: stance feet pinned; ``paired``: as ``synthesize``) is from ``gait`` of a ``kind``
    creature: the largest error of a
    foot's landing phase [cycles] beyond 0.7·PHASE_TOL (a margin inside the
    classifier's tolerance), 0.5 if ``classify_gait`` names another gait
    than :data:`CLASS` says, plus for walks how far the smallest duty factor
    falls short of 0.53 and the share of time in flight (detected, or with
    every contact point above the ground: the larger); for gaits with
    a flight phase (:data:`FLYING`) how far the largest duty factor exceeds
    0.47, how far the flight (the lesser of the detected one and the share
    of time with every contact point above :data:`CLEARANCE`) falls short of
    :data:`MIN_AIR`, and how far the forward travel per stride falls short
    of :data:`MIN_STRIDE` hip heights. 0 when it meets the gait, inf when a
    foot never lands twice."""
    from gaitforge.motion.footfall import detect_footfalls
    from gaitforge.motion.metrics import gait_metrics
    from gaitforge.motion.synthesis import synthesize

    f = min(t.frequency for t in recipe.terms)
    clip = synthesize(character, basis, recipe, strides / f, 60.0, pin_feet=pin, paired=paired)
    try:
        m = gait_metrics(character, clip, detect_footfalls(character, clip))
    except GaitforgeError:
        return math.inf
    return clip_error(character, clip, m, kind, gait)


def clip_error(character, clip, m, kind: str, gait: str) -> float:
    """:func:`footfall_error` of a grounded ``clip`` whose gait metrics are ``m``."""
    from gaitforge.motion.grounding import lowest_heights
    from gaitforge.motion.metrics import classify_gait, root_positions

    want = FOOTFALLS[kind][gait]
    gaps = [abs((m.phase[n] - want[gf.foot_key(kind, m.limbs[n], m.sides[n])] + 0.5) % 1.0 - 0.5) for n in m.feet]
    if any(math.isnan(g) for g in gaps):
        return math.inf
    err = max(0.0, max(gaps) - 0.7 * PHASE_TOL) + 0.5 * (gait in CLASS and classify_gait(m) != CLASS[gait])
    low = lowest_heights(character, clip.qpos)
    air = float(np.mean(low > CLEARANCE))
    if gait == "walk":  # any frame off the ground at all counts against a walk
        err += max(0.0, 0.53 - min(m.duty_factor.values())) + max(float(np.mean(low > 1e-9)), m.flight_fraction)
    if gait == "amble":  # a running walk: each foot down less than half the time, never all up
        err += max(0.0, max(m.duty_factor.values()) - 0.47) + m.flight_fraction
    if gait in FLYING:
        err += max(0.0, max(m.duty_factor.values()) - 0.47) + max(0.0, MIN_AIR - min(air, m.flight_fraction))
        # forward (+x) travel per stride and hip height: a run on the spot, or backwards, is no run
        x = root_positions(character, clip.qpos[[0, -1]])[:, 0]
        forward = (x[1] - x[0]) / clip.duration / m.stride_frequency / m.hip_height
        err += max(0.0, MIN_STRIDE - forward)
    return err


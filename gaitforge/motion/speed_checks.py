"""The checks of a kinematic gait made for a speed
(:func:`gaitforge.motion.speed.suggest_at_speed`): what the clip ``animate``
shows makes of a :class:`~gaitforge.motion.stride.StridePlan`
(:func:`check_at_speed`: the gait's footfall check, speed within
:data:`SPEED_TOL`, λ/h within :data:`STRIDE_TOL` of Alexander's 2.3·Fr^0.3,
foot skate at most :data:`MAX_SKATE`, no joint driven past its limit, and
the stance force where the holding bounds it), what it misses
(:func:`misses`), and the speed of a grounded clip (:func:`grounded_speed`)
the amplitude search steps on.
"""
from __future__ import annotations

import math
import weakref
from typing import NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.motion import gait_features as gfe
from gaitforge.motion.footfall_check import clip_error
from gaitforge.motion.gaits import GAITS, HoldingStrategy, Support
from gaitforge.motion.grounding import STANCE_FORCE
from gaitforge.motion.holds import holding_of
from gaitforge.motion.poses import layout, modal_coordinates, poses
from gaitforge.motion.recipe import GaitRecipe
from gaitforge.motion.stride import STRIDE_A, STRIDE_B, StridePlan
from gaitforge.motion.synthesis import margin_frames, synthesize_at_speed

__all__ = ["FORCE_WEIGHT", "MAX_SKATE", "SAMPLES", "SPEED_TOL", "STRIDE_TOL", "SpeedCheck", "check_at_speed",
           "force_error", "grounded_speed", "limit_excess", "misses", "stance_force"]

SPEED_TOL = 0.10        # achieved speed within this share of the asked one
STRIDE_TOL = 0.25       # λ/h within this share of 2.3·Fr^0.3
MAX_SKATE = 0.02        # stance-foot slip per distance travelled
SAMPLES = 40            # frames per stride of the speed measurements
FORCE_WEIGHT = 0.02     # error per body weight of stance force above 0.9 × STANCE_FORCE


_TOLS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _contact_tol(character) -> float:
    """The grounding's default contact tolerance [m], computed once per character
    (it measures the creature's height, a sizeable share of a short clip's cost)."""
    from gaitforge.motion.grounding import default_contact_tol

    tol = _TOLS.get(character)
    if tol is None:
        tol = _TOLS[character] = default_contact_tol(character)
    return tol


def grounded_speed(character, basis, recipe: GaitRecipe, f: float, strides: int = 2,
                   holding: HoldingStrategy | str | None = None) -> float:
    """Forward speed [m/s] of the grounded clip (stance feet not pinned):
    root travel along +x over exactly ``strides`` periods 1/f, sampled at
    :data:`SAMPLES` frames per stride (``holding``: as ``synthesize``). The
    frames ``synthesize`` would ground, without its checks of the recipe
    (this runs a dozen times per candidate on recipes the search made)."""
    from gaitforge.motion.grounding import ground
    from gaitforge.motion.metrics import root_positions

    fps = SAMPLES * f
    n, pad = strides * SAMPLES + 1, margin_frames(recipe, fps)
    q = poses(character, basis, recipe, np.arange(-pad, n + pad) / fps)
    g = ground(character, q, fps, speed=recipe.speed, contact_tol=_contact_tol(character), flight=recipe.flight,
               stride=1.0 / recipe.base_frequency if holding_of(recipe, holding).stride_flights else None)
    x = root_positions(character, g.qpos[[pad, pad + n - 1]])[:, 0]
    return float((x[1] - x[0]) * f / strides)


def limit_excess(character, basis, recipe: GaitRecipe, samples: int = 64) -> float:
    """How far [rad, or m for slides] the Eq. 4 coordinates of limited hinges
    and slides go past their range over one stride, before the soft limits
    of :func:`~gaitforge.motion.synthesis.synthesize` pull them back (0: the
    recipe stays inside every limit). Ball-joint cones are not checked."""
    lay = layout(character)
    if not len(lay.lim_q):
        return 0.0
    t = np.arange(samples) / (samples * recipe.base_frequency)
    phi = basis.shapes[:, [x.mode for x in recipe.terms]]
    q = lay.integrate(basis.rest_qpos, modal_coordinates(recipe, t) @ phi.T)[:, lay.lim_q]
    return float(max(np.max(q - lay.lim_hi), np.max(lay.lim_lo - q), 0.0))


class SpeedCheck(NamedTuple):
    """How a recipe meets a :class:`StridePlan` on the clip ``animate`` shows:
    error (0: it meets everything), speed [m/s], froude, relative stride
    length λ/h, duty factors (per foot), gait class, foot skate, limit excess
    [rad], peak joint rotation [rad], footfall: the gait's footfall-check
    error alone (:func:`~gaitforge.motion.footfall_check.clip_error`: landing
    phases, class, duty factors, flight), force: the stance force
    (:func:`stance_force`, body weights) and force_counts: whether it counts
    (a flying clip held by a holding that bounds it, the paired or loose
    one, or a walk held by :func:`~gaitforge.motion.holding.held_walk`)."""

    error: float
    speed: float
    froude: float
    relative_stride_length: float
    duty: dict
    gait_class: str
    skate: float
    limit_excess: float
    rotation: float
    footfall: float = 0.0
    force: float = 0.0
    force_counts: bool = False


def check_at_speed(character, basis, recipe: GaitRecipe, plan: StridePlan, kind: str, gait: str, *,
                   pinned: bool = True, strides: float = 3.0,
                   holding: HoldingStrategy | str | None = None) -> SpeedCheck:
    """Measure ``recipe`` against ``plan`` on a grounded clip of ``strides``
    strides at 60 frames/s (``pinned``: stance feet pinned; ``holding``: as
    ``synthesize``; under a holding that bounds it the stance force counts) — see the module
    docstring for what counts."""
    from gaitforge.motion.footfall import detect_footfalls
    from gaitforge.motion.metrics import classify_gait, gait_metrics

    clip = synthesize_at_speed(character, basis, recipe, strides / plan.frequency, 60.0, pinned=pinned,
                               holding=holding)
    lim = limit_excess(character, basis, recipe)
    rot = gfe.peak_rotation(character, basis, recipe.terms)
    try:
        m = gait_metrics(character, clip, detect_footfalls(character, clip))
    except GaitforgeError:
        return SpeedCheck(math.inf, 0.0, 0.0, 0.0, {}, "unmeasurable", math.nan, lim, rot, math.inf)
    err = footfall = clip_error(character, clip, m, kind, gait)
    want_rel = STRIDE_A * plan.froude ** STRIDE_B
    skate = m.foot_skate if math.isfinite(m.foot_skate) else math.inf
    err += max(0.0, abs(m.speed / plan.speed - 1.0) - 0.8 * SPEED_TOL)
    err += max(0.0, abs(m.relative_stride_length / want_rel - 1.0) - 0.8 * STRIDE_TOL)
    err += max(0.0, skate - 0.75 * MAX_SKATE) + lim
    force = stance_force(character, clip)
    counts = (holding_of(recipe, holding).bounds_force and recipe.flight) or (pinned and not recipe.flight)
    if counts:  # a holding that keeps the force bounded (paired and loose holdings, held walks): it counts
        err += force_error(force)
    return SpeedCheck(err, m.speed, m.froude, m.relative_stride_length, dict(m.duty_factor), classify_gait(m),
                      skate, lim, rot, footfall, force, counts)


def force_error(force: float) -> float:
    """What a stance force [body weights] adds to a check's error (:data:`FORCE_WEIGHT`)."""
    return FORCE_WEIGHT * max(0.0, force - 0.9 * STANCE_FORCE)


def stance_force(character, clip) -> float:
    """The largest ground reaction per body weight, |a + g ẑ| / g, that the
    centre of mass's path in ``clip`` implies outside flight (a the
    frame-to-frame velocity change; frames whose acceleration is taken
    wholly in flight are left out: there it is gravity's)."""
    from gaitforge.motion.grounding import GRAVITY, centres_of_mass, lowest_heights

    c = centres_of_mass(character, clip.qpos)
    if len(c) < 3:
        return 0.0
    air = lowest_heights(character, clip.qpos) > 1e-9
    fly = air[:-2] & air[1:-1] & air[2:]
    a = np.diff(c, 2, axis=0) * clip.fps ** 2 + [0.0, 0.0, GRAVITY]
    f = np.linalg.norm(a, axis=1) / GRAVITY
    return float(f[~fly].max()) if (~fly).any() else 0.0


def misses(plan: StridePlan, check: SpeedCheck, gait: str) -> list[str]:
    """What ``check`` misses of the issue's targets for ``plan`` (empty: it
    meets them all): "speed" (not within :data:`SPEED_TOL`), "λ/h" (not
    within :data:`STRIDE_TOL` of 2.3·Fr^0.3), "class …" (another gait
    class), "skate" (above :data:`MAX_SKATE`), "joint limit", "force" (the
    stance force above 4 g where it counts: a paired or loose holding, a held walk), "duty" (a
    walk's duty factor at most 0.5, another gait's at least 0.5; a walk: :attr:`Support.DOUBLE`). Unlike
    ``check.error`` it has no safety margins: a landing phase just outside
    the suggestion's own stricter tolerance is no miss."""
    out = []
    if not abs(check.speed / plan.speed - 1) <= SPEED_TOL:
        out.append("speed")
    if not abs(check.relative_stride_length / (STRIDE_A * plan.froude ** STRIDE_B) - 1) <= STRIDE_TOL:
        out.append("λ/h")
    spec = GAITS[gait]
    if check.gait_class != (spec.gait_class if spec.gait_class is not None else gait):
        out.append(f"class {check.gait_class}")
    if not check.skate <= MAX_SKATE:
        out.append("skate")
    if check.limit_excess > 0:
        out.append("joint limit")
    if check.force_counts and not check.force <= STANCE_FORCE:
        out.append("force")
    duty = list(check.duty.values())
    if duty and (min(duty) <= 0.5 if spec.support is Support.DOUBLE else max(duty) >= 0.5):
        out.append("duty")
    return out

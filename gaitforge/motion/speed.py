"""Kinematic gaits at a chosen speed, by dynamic similarity (the stride
plan: :mod:`gaitforge.motion.stride`; the clip ``animate --speed`` shows,
walks held under a smoothed body: :mod:`gaitforge.motion.holding`).

Animals of different sizes move alike at equal Froude number Fr = V²/(g h)
(V speed [m/s], g = 9.81 m/s², h hip height [m]; Alexander 1984, as
summarised by Wang 2011 ch. 2.1). At equal Fr they take strides of equal
relative length, which Alexander fitted over many mammals as

    λ / h ≈ 2.3 · Fr^0.3                      (relative stride length)

so a speed fixes the stride length λ and the stride frequency f = V / λ
(:func:`stride_plan`). The duty factor β falls with speed: walks keep each
foot down more than half the stride, running gaits less (:func:`duty_target`,
a documented rule of thumb fitted to the same surveys, not a law of nature).

:func:`suggest_at_speed` turns the plan into a recipe: the Kry09 mode
fit of :mod:`gaitforge.motion.mode_selection` at frequency f, with the
forward swing the plan asks for (stance sweep λβ) and, for gaits with a
flight phase, the bounce whose dip gives duty factor β
(:func:`bounce_for_duty`). Its amplitude is then scaled until the grounded
clip travels at V: speed grows with amplitude, and a fixed number of
proportional steps σ ← σ·V/v keeps the result a smooth function of the modes
(no stopping rule that a last-bit difference could flip). Large strides
bring out what the linear mode features leave out: a leg swinging through
±25° lifts its foot by L(1 − cos 25°) at both ends of the stance, which
breaks a walk's double support. :func:`height_residual` measures that rise
and the fit is redone with it subtracted from the height targets (twice).
Each candidate is checked (:mod:`gaitforge.motion.speed_checks`) on the clip
``animate`` shows (grounded, stance
feet pinned): the footfall check of the gait
(:func:`~gaitforge.motion.footfall_check.clip_error`), speed within
:data:`SPEED_TOL`, λ/h within :data:`STRIDE_TOL` of Alexander's, foot skate
(mean horizontal speed of the feet in contact over the body's speed, i.e.
stance slip per metre travelled) at most :data:`MAX_SKATE`, and no joint
driven past its limit (:func:`limit_excess`).
"""
from __future__ import annotations

import dataclasses
import itertools
import math
import warnings
from typing import Iterator

import numpy as np

from gaitforge.errors import GaitforgeError, GaitforgeWarning, NotMetError
from gaitforge.modal import compute_modes
from gaitforge.modal.describe import describe_modes
from gaitforge.motion import gait_features as gfe
from gaitforge.motion.gait_patterns import check_gait
from gaitforge.motion.gaits import GAITS, HoldingStrategy
from gaitforge.motion.holding import held_walk
from gaitforge.motion.synthesis import synthesize_at_speed
from gaitforge.motion.mode_selection import fit_recipe, pool_size
from gaitforge.motion.poses import layout, modal_coordinates
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.motion.speed_checks import (FORCE_WEIGHT, MAX_SKATE, SAMPLES, SPEED_TOL, STRIDE_TOL, SpeedCheck,
                                           check_at_speed, force_error, grounded_speed, limit_excess, misses,
                                           stance_force)
from gaitforge.motion.stride import (GRAVITY, STRIDE_A, STRIDE_B, StridePlan, _speed_gait, bounce_for_duty,
                                     duty_target, froude_of, gait_for_froude, stride_plan)

__all__ = ["FORCE_WEIGHT", "GRAVITY", "MAX_SKATE", "SAMPLES", "SPEED_TOL",
           "STRIDE_A", "STRIDE_B", "STRIDE_TOL", "SpeedCheck", "StridePlan", "bounce_for_duty",
           "check_at_speed", "duty_target", "froude_of", "gait_for_froude", "grounded_speed", "height_residual",
           "limit_excess", "held_walk", "misses", "scaled", "stance_force", "stride_plan", "suggest_at_speed",
           "synthesize_at_speed"]

LIFTS = (0.08, 0.05, 0.12)     # foot lift per hip height the fit aims at, tried in order
STEPS = 4               # proportional amplitude steps towards the speed
CORRECTIONS = 2         # refits with the feet's non-linear height rise subtracted
FIRST_ROTATION = math.radians(30)   # the first amplitude tried: this peak joint rotation
MAX_ROTATION = math.radians(100)    # amplitudes are never scaled beyond this peak joint rotation
ERROR_MARGIN = 1e-3     # a later candidate replaces the best only if its error is lower by this
QUICK_REJECT = 0.5      # candidates whose unpinned clip misses by this much (another gait class) are not pinned


def scaled(recipe: GaitRecipe, sigma: float) -> GaitRecipe:
    """``recipe`` with every amplitude and offset multiplied by ``sigma``."""
    sigma = float(sigma)
    if not math.isfinite(sigma):
        raise GaitforgeError(f"scaled: the scale must be finite, got {sigma}")
    return dataclasses.replace(recipe, terms=tuple(_term(t, t.amplitude * sigma, t.offset * sigma)
                                                   for t in recipe.terms))


def _term(t: GaitTerm, amplitude: float, offset: float) -> GaitTerm:
    """``t`` with another amplitude and offset, both finite floats (products of a
    checked term's with a finite scale), without ``GaitTerm``'s validation,
    which costs more than the rest of a suggestion's bookkeeping."""
    if not (math.isfinite(amplitude) and math.isfinite(offset)):
        raise GaitforgeError(f"scaled: mode {t.mode}'s amplitude or offset overflows ({amplitude}, {offset})")
    new = object.__new__(GaitTerm)
    for f in dataclasses.fields(GaitTerm):  # every field copied, whatever GaitTerm gains later
        object.__setattr__(new, f.name, getattr(t, f.name))
    object.__setattr__(new, "amplitude", amplitude)
    object.__setattr__(new, "offset", offset)
    return new


def height_residual(character, basis, recipe: GaitRecipe, feats: dict, harmonics: int = 3,
                    samples: int = 64) -> np.ndarray:
    """(harmonics, feet) complex [m]: harmonics of each foot's height (feet in
    ``feats["keys"]`` order, as synthesized before grounding) that the fit's
    linear features (``feats["z"]``, :func:`gait_features.features`) miss:
    actual height − rest height − Σ coordinate · feature, as complex
    amplitudes R_k of Im(R_k e^{2πikft}) (the convention of the fit's targets)."""
    from gaitforge.motion.footfall import feet_of, foot_positions

    f = recipe.base_frequency
    t = np.arange(samples) / (samples * f)
    coords = modal_coordinates(recipe, t)                                 # (T, n)
    modes = [x.mode for x in recipe.terms]
    qpos = layout(character).integrate(basis.rest_qpos, coords @ basis.shapes[:, modes].T)
    by_key = {gfe.foot_key(feats["kind"], ft.limb, ft.side): ft for ft in feet_of(character)}
    feet = [by_key[k] for k in feats["keys"]]
    z = foot_positions(character, np.vstack([basis.rest_qpos[None], qpos]), feet)[..., 2]   # (1 + T, F)
    r = z[1:] - z[0] - coords @ feats["z"][modes]                       # (T, F)
    k = np.arange(1, harmonics + 1)[:, None]
    return 2j * (np.exp(-2j * np.pi * k * f * t[None, :]) @ r) / samples


def _solve_amplitude(character, basis, shape: GaitRecipe, plan: StridePlan, sigma: float,
                     holding: HoldingStrategy | str | None = None) -> tuple[float, float | None]:
    """The scale σ of ``shape`` at which the grounded clip moves at
    ``plan.speed``: :data:`STEPS` proportional steps from ``sigma``, never
    past :data:`MAX_ROTATION` of peak joint rotation. Returns σ and, when the
    steps stopped there because σ was held at that cap, the speed [m/s]
    measured at it (else None)."""
    cap = MAX_ROTATION / gfe.peak_rotation(character, basis, shape.terms)
    for _ in range(STEPS):
        v = grounded_speed(character, basis, scaled(shape, sigma), plan.frequency, holding=holding)
        if not v > 0.05 * plan.speed:  # backwards or on the spot: more amplitude will not help much
            return min(sigma * 2.0, cap), None
        step = min(sigma * plan.speed / v, cap)
        if step == sigma:  # held at the rotation cap: the next steps would measure the same clip again
            return sigma, v
        sigma = step
    return sigma, None


def _off_speed(check: SpeedCheck, plan: StridePlan) -> bool:
    """Whether the speed or the stride length of ``check`` adds to its error
    (:func:`check_at_speed`: outside 0.8 of :data:`SPEED_TOL` or of
    :data:`STRIDE_TOL`). Only then can a proportional step on the pinned clip
    lower the error; within both it would only perturb the other terms."""
    want = STRIDE_A * plan.froude ** STRIDE_B
    return (abs(check.speed / plan.speed - 1.0) > 0.8 * SPEED_TOL
            or abs(check.relative_stride_length / want - 1.0) > 0.8 * STRIDE_TOL)


HARMONICS = 5           # harmonics of a walk's foot profile (a flat stance needs more than Kry09's 3)


def _candidate(character, basis, descs, feats, gait, kind, plan, beta, bounce, lift, snap,
               holding: HoldingStrategy | str | None = None, defer: bool = False) -> GaitRecipe | None:
    """One recipe for the plan: fit, scale to the speed, refit with the
    height residual (:data:`CORRECTIONS` times), scale again. ``defer``:
    None instead when the first fit, at the rotation cap, still moves
    slower than the speed allows (:func:`_short_at_cap`): its refits are
    left for the case that no other candidate meets every target."""
    h, f = plan.hip_height, plan.frequency
    swing = 0.5 * plan.stride_length * plan.duty / h
    shape = fit_recipe(character, basis, descs, feats, gait, f, h, beta, swing, lift, None, bounce, snap,
                       harmonics=HARMONICS)
    sigma, at_cap = _solve_amplitude(character, basis, shape, plan,
                                     FIRST_ROTATION / gfe.peak_rotation(character, basis, shape.terms), holding)
    if defer and _short_at_cap(at_cap, plan):
        return None
    for _ in range(CORRECTIONS):
        shift = height_residual(character, basis, scaled(shape, sigma), feats, HARMONICS) / sigma
        shape = fit_recipe(character, basis, descs, feats, gait, f, h, beta, swing, lift, None, bounce, snap,
                           z_shift=shift, harmonics=HARMONICS)
        sigma, _ = _solve_amplitude(character, basis, shape, plan, sigma, holding)
    return scaled(shape, sigma)


def _short_at_cap(speed: float | None, plan: StridePlan) -> bool:
    """Whether a fit held at the rotation cap (``speed`` [m/s] measured
    there; None: not held) moves slower than :data:`SPEED_TOL` below the
    plan's speed. Over the 22 cases of the gait-speed table, only gallop
    candidates' first fits were so (2, 6, 8 and 9 of the 13, 17, 18 and 18
    tried at Fr 2, 3, 4 and 5), and refitted, none came closer than an error
    of 1.10 on its unpinned clip (the winners: 0 to 0.02; under 0.5 a
    candidate is checked pinned)."""
    return speed is not None and speed < (1.0 - SPEED_TOL) * plan.speed


def _checked(character, basis, recipe: GaitRecipe, plan: StridePlan, kind: str, gait: str, pinned: bool,
             holding: HoldingStrategy | str | None) -> tuple[GaitRecipe, SpeedCheck]:
    """A candidate and its :class:`SpeedCheck`: on the unpinned clip, then,
    unless that is another gait class already, ``pinned`` (walks: only
    pinned), with up to two proportional steps on the pinned clip where
    pinning changed the speed."""
    # pinning costs: only for candidates close already on the unpinned clip (walks are always held:
    # unheld, their stance ripple fails the check whatever the recipe, so they skip that check)
    walk = pinned and not recipe.flight
    check = check_at_speed(character, basis, recipe, plan, kind, gait, pinned=walk, holding=holding)
    # the unpinned clip is not held: its stance force says nothing of the pinned clip's
    if not (pinned and (walk or check.error - check.force_counts * force_error(check.force) < QUICK_REJECT)):
        return recipe, check
    if not walk:
        check = check_at_speed(character, basis, recipe, plan, kind, gait, pinned=True, holding=holding)
    for _ in range(2):  # pinning changed the speed: proportional steps on the pinned clip
        if not (check.error > 0 and check.speed > 0 and _off_speed(check, plan)):
            break
        if not check.footfall < QUICK_REJECT:  # another gait class on the clip shown: not worth a step
            break
        cap = MAX_ROTATION / check.rotation
        step = min(plan.speed / check.speed, cap)
        if abs(step - 1.0) <= 1e-9:  # at the rotation cap already: the same recipe (to the last bits)
            break
        again = scaled(recipe, step)
        second = check_at_speed(character, basis, again, plan, kind, gait, pinned=True, holding=holding)
        if not second.error < check.error - ERROR_MARGIN and second.speed > 0 \
                and (second.speed - plan.speed) * (check.speed - plan.speed) < 0:
            # past the speed (a held walk may speed up faster than its amplitude): a secant
            # step between the two
            step = 1.0 + (step - 1.0) * (plan.speed - check.speed) / (second.speed - check.speed)
            again = scaled(recipe, step)
            second = check_at_speed(character, basis, again, plan, kind, gait, pinned=True, holding=holding)
        if not second.error < check.error - ERROR_MARGIN:
            break
        recipe, check = again, second
    return recipe, check


def suggest_at_speed(character, gait: str, basis=None, *, speed: float | None = None, froude: float | None = None,
                     pinned: bool = True, strict: bool = False,
                     holding: HoldingStrategy | str | None = None) -> tuple[GaitRecipe, StridePlan, SpeedCheck]:
    """A recipe for ``gait`` at ``speed`` V [m/s] or Froude number ``froude``
    (neither: the gait's typical Froude number), its :class:`StridePlan`
    and its :class:`SpeedCheck` (module docstring).

    basis: the :class:`ModalBasis` to choose from (default: the lowest
    :func:`~gaitforge.motion.mode_selection.pool_size` elastic modes: 20,
    more where the feet have soles to keep level; of a larger basis only
    those are used). Candidates — the plan's duty factor (walks) or bounce
    (:func:`bounce_for_duty`, then the spec's ``bounces``),
    foot lifts :data:`LIFTS`, free then 90° phases — are checked in turn
    (:func:`check_at_speed` on the unpinned clip, then, unless that is
    another gait class already, ``pinned`` as ``animate`` shows them) and
    compared with a margin: the first that meets everything, else the first
    of the closest. A candidate whose first fit stalls at the rotation cap
    short of the speed (:func:`_short_at_cap`) is refitted and checked only
    if no other meets every target. (The quick check on the unpinned clip leaves its stance
    force out: nothing holds that clip, and a gallop's reaches 40–240 g
    there whatever the holding makes of it.) No choice depends on the signs of the modes or on
    last-bit differences. If none meets every target (:func:`misses`: the
    search's own margins aside) a warning names what the closest misses;
    ``strict`` raises :class:`NotMetError` instead.
    holding: the clips are grounded and held as ``synthesize(holding=)``
    does (None: the recipe's, which is the gait's
    :attr:`~gaitforge.motion.gaits.GaitSpec.holding`; a speed ramp, which
    grounds and holds its clip its own way, asks for the gait's
    ``ramp_holding``).
    """
    gait = _speed_gait(gait)
    spec = GAITS[gait]
    kind = check_gait(character, gait)
    if basis is None:
        basis = compute_modes(character, count=pool_size(character))
    descs = describe_modes(character, basis)[:pool_size(character)]
    feats = dict(gfe.features(character, basis, descs, kind, gait), _ranks={})  # ranks memoized over candidates
    plan = stride_plan(gfe.hip_height(character), gait, speed=speed, froude=froude)
    if spec.flies:
        first = bounce_for_duty(plan.duty)
        options = [(0.5, b) for b in dict.fromkeys((round(first, 3), *spec.bounces))]
    else:
        options = [(round(plan.duty, 3), 0.0)]
    best: tuple[float, GaitRecipe, SpeedCheck] | None = None

    def candidates() -> Iterator[GaitRecipe]:
        """The candidates in order; those set aside (:func:`_short_at_cap`) last, if still needed."""
        deferred = []
        for (beta, bounce), lift, snap in itertools.product(options, LIFTS, (False, True)):
            recipe = _candidate(character, basis, descs, feats, gait, kind, plan, beta, bounce, lift, snap,
                                holding, defer=True)
            if recipe is None:
                deferred.append((beta, bounce, lift, snap))
            else:
                yield recipe
        if best is None or misses(plan, best[2], gait):  # nothing meets every target: refit those too
            for beta, bounce, lift, snap in deferred:
                refit = _candidate(character, basis, descs, feats, gait, kind, plan, beta, bounce, lift, snap,
                                   holding)
                assert refit is not None  # only a deferring call sets a candidate aside
                yield refit

    for candidate in candidates():
        recipe, check = _checked(character, basis, candidate, plan, kind, gait, pinned, holding)
        if best is None or check.error < best[0] - ERROR_MARGIN:
            best = (check.error, recipe, check)
        if best[0] < ERROR_MARGIN:  # no later candidate can beat it by the margin (errors are ≥ 0)
            break
    assert best is not None
    err, recipe, check = best
    if pinned and not recipe.flight:  # held as synthesize_at_speed holds it, and replayed so
        recipe = dataclasses.replace(recipe, holding=HoldingStrategy.SMOOTHED)
    recipe = dataclasses.replace(recipe, description=(
        f"{gait} at {plan.speed:.3g} m/s (Froude {plan.froude:.3g}, h = {plan.hip_height:.2f} m): stride "
        f"{plan.stride_length:.3f} m at {plan.frequency:.3f} Hz (λ/h = 2.3·Fr^0.3 = "
        f"{plan.stride_length / plan.hip_height:.2f}), target duty factor {plan.duty:.2f}; Kry09 heuristics, "
        f"amplitude solved for the speed (peak joint rotation {math.degrees(check.rotation):.0f}°)"))
    missed = misses(plan, check, gait) if err > 0.0 else []
    if missed:  # within the targets but not the search's own margins (a landing phase) is no miss
        message = (f"{character.name}: no {gait} recipe meets {plan.speed:.3g} m/s (Froude {plan.froude:.3g}); "
                   f"the closest misses {', '.join(missed)}: "
                   f"it moves at {check.speed:.3g} m/s, λ/h {check.relative_stride_length:.2f} "
                   f"(want {plan.stride_length / plan.hip_height:.2f}), classified {check.gait_class}, "
                   f"skate {check.skate:.3f}, {math.degrees(check.limit_excess):.1f}° past a joint limit, "
                   f"footfall-check error {check.footfall:.3g} (landing phases, duty factors, flight)")
        if strict:
            raise NotMetError(message)
        warnings.warn(message, GaitforgeWarning, stacklevel=2)
    return recipe, plan, check

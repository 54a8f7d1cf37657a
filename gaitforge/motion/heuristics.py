"""Automatic mode selection for kinematic gaits (Kry09 §4.3, heuristics A–G).

Kry et al. pick a few low vibration modes by what they do to labelled parts
and give them phases in multiples of 90°. The features are those of
:func:`gaitforge.modal.describe.describe_modes`, per unit modal coordinate:

 A  alternating knee bends            D  synchronous knee bends
 B  alternating forward foot motion   E  synchronous vertical foot motion
 C  alternating vertical foot motion  F  bending of the front legs
                                      G  swinging of the front legs

(A–C for left/right half a cycle apart, D–E for left/right together; a knee
bend is turned into flexion by the bend the leg already has at rest).

A gait here is a footfall phase φ_f per foot (``GaitSpec.footfalls``, cycles after
the left hind foot) and a duty factor β (``GaitSpec.duty_factors``; the specs
are :data:`~gaitforge.motion.gaits.GAITS`). Each foot should
follow one profile, shifted by φ_f: during stance it moves backwards at a
steady speed on the ground, during swing it comes forward, lifted, with the
knee flexed. Harmonic k of that profile is a complex amplitude per foot,
G_k·exp(−2πikφ_f); a term α u sin(2πkf̃t + γ) with γ a multiple of 90° adds a
real (0°, 180°) or imaginary (±90°) multiple of the mode's displacement u. For
every harmonic and quadrature each heuristic nominates its best modes
(:func:`rank`: the feature's projection on the target over the feet it looks
at, times its agreement with the target over all feet, per unit elastic
energy), and a ridge least-squares fit (joint rotation as the penalty) sets
their amplitudes. The fit also keeps feet from moving sideways and soles
level (heel, ball and toe at one height). Walks use harmonics 1–3 so that
feet rest on the ground for most of the cycle; other gaits use the
fundamental, as in Kry09. Gaits with a flight phase (``GaitSpec.flies``) add a
bounce at twice the stride frequency (Kry09 §4.2 drives some modes at 2f̃):
a second harmonic of lift and knee flexion that extends the legs at every
stance (:func:`gait_features.bounce`), so that each foot is in the lower
half of its excursion for less than half the cycle and the grounding
(:mod:`gaitforge.motion.grounding`) lets the body fly in between. Twists and
jumping jacks are left out except for the jumping-jack gait, whose limbs
swing at half the bounce frequency.

Frequency: the stride frequency at a Froude-scaled value f̂ = f·√(h/g) per
gait (``GaitSpec.stride_frequency``, h the hip height), as dynamically similar
animals move at equal f̂ (the paper drives all its examples at 1–2 Hz).
Amplitude: the fit aims at a forward swing and a lift per foot (:data:`SIZES`,
fractions of h), then the recipe is scaled so that its largest joint
rotation is :data:`ROTATION` (22°). Contact is sensitive to millimetres,
so :func:`suggest` checks each candidate by footfall analysis of a grounded
clip (:func:`footfall_error`: phases, class, duty factors; walks without
flight; flying gaits with every contact point off the ground for a while
and forward travel) and tries the next size, bounce or duty factor when
the pattern is off.

Modules: this one holds :func:`suggest` (the search over candidates); the gait
data is :mod:`gaitforge.motion.gaits`, the creature-kind checks are in
:mod:`gaitforge.motion.gait_patterns`,
the ranking and fitting of modes into a candidate recipe in
:mod:`gaitforge.motion.mode_selection`, and the footfall check of a candidate
in :mod:`gaitforge.motion.footfall_check` (all re-exported here).
"""
from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import replace

from gaitforge.errors import GaitforgeWarning, NotMetError
from gaitforge.modal import compute_modes
from gaitforge.modal.describe import describe_modes
from gaitforge.motion import gait_features as gf
from gaitforge.motion.footfall_check import CLEARANCE, MIN_AIR, MIN_STRIDE, footfall_error, recipe_class
from gaitforge.motion.gait_patterns import check_gait, creature_kind, gaits_for
from gaitforge.motion.gaits import GAITS, HoldingStrategy, holding_strategy
from gaitforge.motion.mode_selection import KNEE, NOMINEES, RIDGE, SCORE_FLOOR, Pick, fit_recipe, rank
from gaitforge.motion.recipe import GaitRecipe
from gaitforge.naming import match
from gaitforge.constants import GRAVITY
from gaitforge.constants import MODE_POOL as POOL  # only the lowest elastic modes are candidates

__all__ = ["CLEARANCE", "ERROR_MARGIN", "GAITS",
           "KNEE", "MIN_AIR", "MIN_STRIDE", "NOMINEES", "POOL", "RIDGE", "ROTATION", "SCORE_FLOOR", "SIZES",
           "Pick", "check_gait", "creature_kind", "footfall_error", "gaits_for", "rank",
           "suggest"]

# Forward swing and lift of a foot per hip height the fit aims at, in the order tried.
SIZES = ((0.12, 0.1), (0.12, 0.07), (0.18, 0.1), (0.12, 0.05), (0.18, 0.07), (0.25, 0.1), (0.25, 0.07))
ROTATION = math.radians(22)      # every recipe is scaled so that its largest joint rotation is this
ERROR_MARGIN = 1e-3             # a candidate replaces the best so far only if its footfall error is this much lower


def suggest(character, gait: str, basis=None, *, rotation: float = ROTATION, pinned: bool = False,
            strict: bool = False, holding: HoldingStrategy | str | None = None) -> GaitRecipe:
    """A :class:`GaitRecipe` for ``gait`` on ``character`` (module docstring).

    basis: the :class:`ModalBasis` to choose from (default: the lowest
    :data:`POOL` elastic modes without extra constraints); the recipe takes
    its constraints and stiffness scale. rotation: the largest joint rotation
    [rad] the recipe reaches (modes hold their constraints to first order
    only, so constrained gaits keep them better at smaller amplitudes).
    The fit only approximates the foot
    profile, and ground contact is sensitive to millimetres, so recipes for
    a few duty factors, bounces and swing and lift sizes (the spec's
    ``duty_factors`` and ``bounces``, :data:`SIZES`, best guess first), each with free phases
    and then with phases in multiples of 90°, are checked by footfall
    analysis of a short grounded clip (:func:`footfall_error`) and compared
    by that error with a margin (:data:`ERROR_MARGIN`): the first that meets
    the gait, else the first of the closest, is returned. Nothing in this
    depends on the signs of the modes or on last-bit differences between
    machines (tests flip, rotate and perturb the modes).
    pinned: also check the candidates that pass with the stance feet pinned
    by modal IK (``synthesize(pin_feet=True)``, what ``animate`` shows), which
    can move a footfall. When no candidate meets the gait, the closest is
    returned with a warning that names what its footfalls make of it;
    ``strict`` raises :class:`NotMetError` instead. holding: the clips
    checked are grounded and held as ``synthesize(holding=)`` does (None:
    the gait's :attr:`~gaitforge.motion.gaits.GaitSpec.holding`, which the
    recipe records; a preset checks its own). Gaits: :data:`GAITS`.
    Raises :class:`GaitforgeError` for an unknown gait,
    one the creature's kind has no pattern for, or missing foot or knee labels.
    """
    gait = match(gait, GAITS) or gait  # jumping-jacks or jumping_jacks
    kind = check_gait(character, gait)
    spec = GAITS[gait]
    held = None if holding is None else holding_strategy(holding)
    if basis is None:
        basis = compute_modes(character, count=POOL)
    descs = describe_modes(character, basis)[:POOL]
    feats = gf.features(character, basis, descs, kind, gait, relative=spec.on_the_spot)
    h = gf.hip_height(character)
    f = spec.stride_frequency * math.sqrt(GRAVITY / h)
    best = None
    for beta, bounce, (swing, lift), snap in itertools.product(spec.duty_factors, spec.bounce_shares, SIZES,
                                                              (False, True)):
        recipe = fit_recipe(character, basis, descs, feats, gait, f, h, beta, swing, lift, rotation, bounce, snap)
        if held is not None:  # recorded, so that the clip shown is the clip checked
            recipe = replace(recipe, holding=held)
        err = footfall_error(character, basis, recipe, kind, gait)
        if err == 0.0 and pinned:
            err = footfall_error(character, basis, recipe, kind, gait, pin=True)
        # A later candidate must be better by a margin: a difference in the
        # last bits never changes the choice, and once one meets the gait
        # (error 0) none can beat it.
        if best is None or err < best[0] - ERROR_MARGIN:
            best = (err, recipe)
        if best[0] == 0.0:
            break
    assert best is not None  # (the product tried is never empty)
    err, recipe = best
    if err > 0.0:
        got = recipe_class(character, basis, recipe)
        message = (f"{character.name}: no recipe from {basis.count} modes passes the {gait} footfall check; "
                   f"the closest (error {err:.3g}) is classified {got}" +
                   (", a different gait" if spec.gait_class is not None and got != spec.gait_class else "") +
                   "; try more modes (--modes) or another gait")
        if strict:
            raise NotMetError(message)
        warnings.warn(message, GaitforgeWarning, stacklevel=2)
    return recipe


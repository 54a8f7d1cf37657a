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

A gait here is a footfall phase φ_f per foot (:data:`FOOTFALLS`, cycles after
the left hind foot) and a duty factor β (:data:`DUTY`). Each foot should
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
fundamental, as in Kry09. Gaits with a flight phase (:data:`FLYING`) add a
bounce at twice the stride frequency (Kry09 §4.2 drives some modes at 2f̃):
a second harmonic of lift and knee flexion that extends the legs at every
stance (:func:`gait_features.bounce`), so that each foot is in the lower
half of its excursion for less than half the cycle and the grounding
(:mod:`gaitforge.motion.grounding`) lets the body fly in between. Twists and
jumping jacks are left out except for the jumping-jack gait, whose limbs
swing at half the bounce frequency.

Frequency: the stride frequency at a Froude-scaled value f̂ = f·√(h/g) per
gait (:data:`STRIDE_FREQUENCY`, h the hip height), as dynamically similar
animals move at equal f̂ (the paper drives all its examples at 1–2 Hz).
Amplitude: the fit aims at a forward swing and a lift per foot (:data:`SIZES`,
fractions of h), then the recipe is scaled so that its largest joint
rotation is :data:`ROTATION` (22°). Contact is sensitive to millimetres,
so :func:`suggest` checks each candidate by footfall analysis of a grounded
clip (:func:`footfall_error`: phases, class, duty factors; walks without
flight; flying gaits with every contact point off the ground for a while
and forward travel) and tries the next size, bounce or duty factor when
the pattern is off.
"""
from __future__ import annotations

import itertools
import math
import warnings
from typing import Any, NamedTuple

import numpy as np

from gaitforge.naming import match
from gaitforge.errors import GaitforgeError, NotMetError, UnknownNameError
from gaitforge.modal import compute_modes
from gaitforge.modal.describe import SYMMETRIC, describe_modes
from gaitforge.motion import gait_features as gf
from gaitforge.motion.footfall import feet_of
from gaitforge.motion.metrics import PHASE_TOL
from gaitforge.motion.recipe import GaitRecipe, GaitTerm

_Q = ("front", "left"), ("front", "right"), ("rear", "left"), ("rear", "right")
FOOTFALLS: dict[str, dict[str, dict[Any, float]]] = {  # lateral-sequence walk and amble, transverse gallop
    "biped": {"walk": {"left": 0.0, "right": 0.5}, "run": {"left": 0.0, "right": 0.5},
              "jump": {"left": 0.0, "right": 0.0}, "jumping_jacks": {"left": 0.0, "right": 0.0}},
    "quadruped": {g: dict(zip(_Q, p)) for g, p in {
        "walk": (0.25, 0.75, 0.0, 0.5), "trot": (0.5, 0.0, 0.0, 0.5), "pace": (0.0, 0.5, 0.0, 0.5),
        "amble": (0.25, 0.75, 0.0, 0.5), "bound": (0.5, 0.5, 0.0, 0.0), "gallop": (0.5, 0.65, 0.0, 0.15)}.items()},
}
GAITS = {kind: tuple(table) for kind, table in FOOTFALLS.items()}
CLASS = {"walk": "walk", "trot": "trot", "pace": "pace", "bound": "bound", "gallop": "gallop", "run": "run",
         "jump": "hop", "jumping_jacks": "hop"}  # what classify_gait must call each gait (an amble: no class)
DUTY = {"walk": (0.7, 0.6), "amble": (0.6,)}  # duty factors tried; gaits not listed: 0.5, fundamental only
# Gaits with a flight phase add a bounce at twice the stride frequency of
# this size (share of the fundamental lift, tried in order; the gallop's
# staggered feet need a deeper one): see gait_features.bounce.
BOUNCE = {"trot": (0.5, 0.25), "pace": (0.5, 0.25), "bound": (0.5, 0.25), "gallop": (1.5, 1.0), "run": (0.5, 0.25)}
FLYING = tuple(BOUNCE)           # gaits with a flight phase: duty factors below 0.5
GROUNDED = ("walk", "amble")     # gaits that never fly: always a foot on the ground
STRIDE_FREQUENCY = {"walk": 0.30, "amble": 0.40, "trot": 0.45, "pace": 0.45, "run": 0.45,
                    "bound": 0.50, "gallop": 0.50, "jump": 0.60, "jumping_jacks": 0.60}
# Forward swing and lift of a foot per hip height the fit aims at, in the order tried.
SIZES = ((0.12, 0.1), (0.12, 0.07), (0.18, 0.1), (0.12, 0.05), (0.18, 0.07), (0.25, 0.1), (0.25, 0.07))
MIN_AIR = 0.05                   # share of the time a flying gait spends with no contact point down
CLEARANCE = 0.001                # [m] a contact point this high is off the ground
MIN_STRIDE = 0.1                 # flying gaits travel at least this stride length per hip height
ROTATION = math.radians(22)      # every recipe is scaled so that its largest joint rotation is this
KNEE = math.radians(15)          # knee flexion at mid-swing
POOL = 20                        # only the lowest elastic modes are candidates
NOMINEES = 5                     # each heuristic nominates its best few modes,
SCORE_FLOOR = 0.1                # those scoring at least this share of its best
ERROR_MARGIN = 1e-3             # a candidate replaces the best so far only if its footfall error is this much lower
RIDGE = 1.0                      # weight of joint rotation [rad²] against the targets' misfit
# Feet that land together must reach the ground together (z), feet stay in
# their lane (y: no sideways target, so any sideways motion is misfit).
_WEIGHTS = {"x": 1.0, "y": 1.0, "z": 4.0, "knee": 0.5, "sole": 4.0}
_EXCLUDED = ("twist", "jumping jack")


class Pick(NamedTuple):
    """A nominated mode: heuristic ``letter``, elastic ``mode`` index and
    ``score`` (see :func:`rank`)."""

    letter: str
    mode: int
    score: float


# ---------------------------------------------------------------- labels
def creature_kind(character, gait: str = "walk") -> str:
    """``"biped"`` (a left and a right foot) or ``"quadruped"`` (front/rear ×
    left/right); the error says which labels are missing."""
    try:
        feet = feet_of(character)
    except GaitforgeError:
        raise GaitforgeError(
            f"{character.name} has no feet: suggest({gait!r}) needs contact points named *_foot or bodies "
            "labelled role: foot; add them in the creature file or a labels override") from None
    keys = sorted((f.limb or "", f.side) for f in feet)
    if keys == sorted(_Q):
        return "quadruped"
    if len(feet) == 2 and {f.side for f in feet} == {"left", "right"}:
        return "biped"
    shown = ", ".join(f"{f.name} ({' '.join(x for x in (f.limb, f.side) if x)})" for f in feet)
    raise GaitforgeError(
        f"{character.name} has feet {shown}: suggest({gait!r}) needs a left and a right foot (biped) or "
        "front and rear, left and right feet (quadruped); label them with side and limb in the creature "
        "file or a labels override")


def check_gait(character, gait: str) -> str:
    """The creature kind, if :func:`suggest` has ``gait`` for it."""
    gait = match(gait, STRIDE_FREQUENCY) or gait
    if gait not in STRIDE_FREQUENCY:
        valid = "; ".join(f"{kind}s: {', '.join(g)}" for kind, g in GAITS.items())
        raise UnknownNameError(f"unknown gait {gait!r} (valid gaits for {valid})")
    kind = creature_kind(character, gait)
    if gait not in GAITS[kind]:
        raise UnknownNameError(f"{character.name} is a {kind}: no {gait!r} gait for it "
                               f"(valid gaits for {kind}s: {', '.join(GAITS[kind])})")
    return kind


def gaits_for(character) -> tuple[str, ...]:
    """The gaits :func:`suggest` can make for ``character``: its kind's
    (:data:`GAITS`) if it has the labelled feet and knees they need, else none."""
    try:
        kind = creature_kind(character)
    except GaitforgeError:
        return ()
    keys = {gf.foot_key(kind, f.limb, f.side) for f in feet_of(character)}
    return GAITS[kind] if keys <= set(gf.knees(character, kind)) else ()


# ---------------------------------------------------------------- targets
_LETTERS = {"A": ("knee", "legs"), "B": ("x", "legs"), "C": ("z", "legs"), "F": ("knee", "front"), "G": ("x", "front")}


def rank(features: dict, descs, letter: str, target: np.ndarray, wanted: str | None) -> list[Pick]:
    """Modes ranked by heuristic ``letter`` (A, B, C, F, G) for the complex
    per-foot ``target`` of its feature, best first (equal scores: lower mode
    first). Score: the size of the feature's complex projection on the
    target over the heuristic's feet (legs: rear or only legs; front), times
    the cosine between the feature over all feet and the target, taken in
    the direction of that projection (a mode moving other feet against the
    gait ranks low), divided by the mode frequency (equal elastic energy buys
    an amplitude ∝ 1/f). Flipping a mode's sign leaves its score unchanged,
    and a mode is scored once, whatever phase it will be driven at. Modes not
    of the ``wanted`` mirror class, twists and jumping jacks are skipped.
    """
    name, limbs = _LETTERS[letter]
    front = np.array([features["kind"] == "quadruped" and k[0] == "front" for k in features["keys"]])
    mask = front if limbs == "front" else ~front
    norm = float(np.linalg.norm(target[mask]))
    if norm < 1e-6 * max(float(np.abs(target).max()), 1e-300):
        return []
    out = []
    for i, d in enumerate(descs):
        if d.frequency <= 0 or any(w in d.name for w in _EXCLUDED) or (wanted and d.symmetry != wanted):
            continue
        u = features[name][i]
        proj = complex(u[mask] @ target[mask]) / norm
        agree = complex(u @ target) / max(float(np.linalg.norm(u) * np.linalg.norm(target)), 1e-300)
        if abs(proj) == 0.0:
            continue
        score = abs(proj) * max(0.0, (agree * proj.conjugate()).real / abs(proj)) / d.frequency
        if score > 0:
            out.append(Pick(letter, i, score))
    return sorted(out, key=lambda p: (-p.score, p.mode))


def _fit(features: dict, targets: dict, picks: list[Pick], rot: np.ndarray,
         directions: np.ndarray | None = None) -> np.ndarray:
    """Ridge least squares: complex coefficients (P,) of the picks that best
    meet ``targets`` (feature → (complex per-foot target, size)), each row
    weighted by _WEIGHTS / size, with RIDGE · Σ (rotation · |coefficient|)²
    added. Real and imaginary parts are the sine and cosine quadratures
    (features are real, so the two fits share one matrix)."""
    modes = [p.mode for p in picks]
    A = np.vstack([features[n][modes].T * _WEIGHTS[n] / size for n, (_, size) in targets.items()])
    b = np.concatenate([t * _WEIGHTS[n] / size for n, (t, size) in targets.items()])
    reg = math.sqrt(RIDGE) * np.diag(rot[modes])
    rhs = np.concatenate([b, np.zeros(len(picks))])
    if directions is not None:  # real coefficients along fixed complex directions (P,)
        Ad = np.vstack([A * directions, reg])
        coef, *_ = np.linalg.lstsq(np.vstack([Ad.real, Ad.imag]), np.concatenate([rhs.real, rhs.imag]), rcond=None)
        return coef * directions
    coef, *_ = np.linalg.lstsq(np.vstack([A, reg]), np.column_stack([rhs.real, rhs.imag]), rcond=None)
    return coef[:, 0] + 1j * coef[:, 1]


def _harmonic_terms(feats, descs, rot, targets, k: int, f: float, letters: str, wanted,
                    snap: bool) -> list[tuple[str, GaitTerm]]:
    """(letter, term) pairs of harmonic k: each heuristic nominates its best
    :data:`NOMINEES` modes scoring at least :data:`SCORE_FLOOR` of its best
    (a mode nominated twice keeps the letter it scores best for), all fitted
    together by :func:`_fit`; a complex coefficient c becomes the term
    |c| sin(2πkf t + arg c). ``snap``: phases in multiples of 90° as in
    Kry09 (arg c rounded, the sizes fitted again); a sign flip moves a phase
    by 180°, which keeps it a multiple of 90° and the rounding the same.
    Terms turning no joint by 1° or more are dropped.
    A mode's sign only shifts its phase by π: the motion is the same."""
    best: dict[int, Pick] = {}
    for letter in letters:
        ranked = rank(feats, descs, letter, targets[_LETTERS[letter][0]][0], wanted)
        for p in ranked[:NOMINEES]:
            if p.score >= SCORE_FLOOR * ranked[0].score and (p.mode not in best or p.score > best[p.mode].score):
                best[p.mode] = p
    if not best:
        return []
    picks = sorted(best.values(), key=lambda p: p.mode)
    coef = _fit(feats, targets, picks, rot)
    if snap:  # Kry09's phases: each mode at the multiple of 90° nearest its free phase, refitted
        coef = _fit(feats, targets, picks, rot, 1j ** np.round(np.angle(coef) / (0.5 * np.pi)))
    out = []
    for p, c in zip(picks, coef):
        if abs(c) * rot[p.mode] >= math.radians(1):
            name = {"A": "D", "C": "E"}.get(p.letter, p.letter) if wanted == SYMMETRIC else p.letter
            out.append((name, GaitTerm(p.mode, abs(complex(c)), math.atan2(c.imag, c.real) % (2 * np.pi), k * f)))
    return out


def _jack_terms(character, basis, feats, descs, f: float, taken) -> list[tuple[str, GaitTerm]]:
    """The jumping jack's limb terms at half the bounce frequency, 45° ahead
    (Kry09 Fig. 3): the symmetric out-of-plane mode spreading the feet most
    per unit energy (J), and the symmetric mode raising the hands most (H),
    signed so that the hands go up as the feet go apart; each sized to turn
    its largest joint by 25°."""
    side = np.array([1.0 if k == "left" else -1.0 for k in feats["keys"]])
    spread = feats["y"] @ side / len(side)
    lift = gf.hand_lift(character, basis, len(descs))
    out = []
    for letter, value, jack in (("J", spread, True), ("H", lift, False)):
        ok = [i for i, d in enumerate(descs) if d.symmetry == SYMMETRIC and i not in taken
              and (d.sagittal_share < 0.5) == jack and d.frequency > 0]
        if not ok:
            continue
        i = max(ok, key=lambda i: abs(value[i]) / descs[i].frequency)
        taken = (*taken, i)
        amp = math.radians(25) / max(float(gf.joint_rotations(character, basis.shapes[:, [i]])[0]), 1e-12)
        out.append((letter, GaitTerm(i, amp, (0.25 * np.pi + (np.pi if value[i] < 0 else 0.0)) % (2 * np.pi),
                                     0.5 * f)))
    return out


def suggest(character, gait: str, basis=None, *, rotation: float = ROTATION, pinned: bool = False,
            strict: bool = False) -> GaitRecipe:
    """A :class:`GaitRecipe` for ``gait`` on ``character`` (module docstring).

    basis: the :class:`ModalBasis` to choose from (default: the lowest
    :data:`POOL` elastic modes without extra constraints); the recipe takes
    its constraints and stiffness scale. rotation: the largest joint rotation
    [rad] the recipe reaches (modes hold their constraints to first order
    only, so constrained gaits keep them better at smaller amplitudes).
    The fit only approximates the foot
    profile, and ground contact is sensitive to millimetres, so recipes for
    a few duty factors, bounces and swing and lift sizes (:data:`DUTY`,
    :data:`BOUNCE`, :data:`SIZES`, best guess first), each with free phases
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
    ``strict`` raises :class:`NotMetError` instead. Gaits: :data:`GAITS`.
    Raises :class:`GaitforgeError` for an unknown gait,
    one the creature's kind has no pattern for, or missing foot or knee labels.
    """
    gait = match(gait, STRIDE_FREQUENCY) or gait  # jumping-jacks or jumping_jacks
    kind = check_gait(character, gait)
    if basis is None:
        basis = compute_modes(character, count=POOL)
    descs = describe_modes(character, basis)[:POOL]
    feats = gf.features(character, basis, descs, kind, gait, relative=gait in ("jump", "jumping_jacks"))
    h = gf.hip_height(character)
    f = STRIDE_FREQUENCY[gait] * math.sqrt(9.81 / h)
    best = None
    for beta, bounce, (swing, lift), snap in itertools.product(DUTY.get(gait, (0.5,)), BOUNCE.get(gait, (0.0,)),
                                                              SIZES, (False, True)):
        recipe = _recipe(character, basis, descs, feats, gait, f, h, beta, swing, lift, rotation, bounce, snap)
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
        got = _classified(character, basis, recipe)
        message = (f"{character.name}: no recipe from {basis.count} modes passes the {gait} footfall check; "
                   f"the closest (error {err:.3g}) is classified {got}" +
                   (", a different gait" if gait in CLASS and got != CLASS[gait] else "") +
                   "; try more modes (--modes) or another gait")
        if strict:
            raise NotMetError(message)
        warnings.warn(message, stacklevel=2)
    return recipe


def _classified(character, basis, recipe: GaitRecipe, strides: float = 4.0) -> str:
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
                   pin: bool = False) -> float:
    """How far a grounded clip of ``recipe`` (``strides`` strides at 60
    frames/s; ``pin``: stance feet pinned) is from ``gait`` of a ``kind``
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
    from gaitforge.motion.grounding import lowest_heights
    from gaitforge.motion.metrics import classify_gait, gait_metrics, root_positions
    from gaitforge.motion.synthesis import synthesize

    f = min(t.frequency for t in recipe.terms)
    clip = synthesize(character, basis, recipe, strides / f, 60.0, pin_feet=pin)
    try:
        m = gait_metrics(character, clip, detect_footfalls(character, clip))
    except GaitforgeError:
        return math.inf
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


def _recipe(character, basis, descs, feats, gait: str, f: float, h: float, beta: float, swing: float,
            lift: float, rotation: float, bounce: float = 0.0, snap: bool = False) -> GaitRecipe:
    """The recipe for duty factor ``beta``, forward swing ``swing``·h and
    lift ``lift``·h (f: stride frequency [Hz], h: hip height [m]): harmonic
    fits (walks and ambles: 1–3, else the fundamental), for ``bounce`` > 0
    the second harmonic of a bounce (:func:`gait_features.bounce`), the
    jumping jack's limbs, then every amplitude scaled to a peak joint
    rotation ``rotation``; ``snap``: phases in multiples of 90°
    (:func:`_harmonic_terms`)."""
    phi = np.array([FOOTFALLS[feats["kind"]][gait][key] for key in feats["keys"]])
    harmonics = 3 if gait in DUTY else 1
    G = gf.profiles(beta, harmonics)
    if bounce > 0:
        G = {n: np.r_[g, gf.bounce(g[0], bounce) if n in ("z", "knee") else 0.0] for n, g in G.items()}
    rot = gf.joint_rotations(character, basis.shapes[:, :len(descs)])
    jump = gait in ("jump", "jumping_jacks")
    sizes = {"x": swing * h, "y": swing * h, "z": lift * h, "knee": 2 * KNEE if jump else KNEE, "sole": lift * h}
    letters = "ABC" + ("FG" if feats["kind"] == "quadruped" else "")
    picked: list[tuple[str, GaitTerm]] = []
    for k in range(1, len(G["z"]) + 1):
        P = np.exp(-2j * np.pi * k * phi)
        if not jump and np.allclose(P, P[0]) and not bounce:
            continue  # every foot alike and a foot always down: grounding cancels it (it only moves the root)
        targets = {n: (sizes[n] * G[n][k - 1] * P * (n == "z" or n == "knee" or (n == "x" and not jump)), sizes[n])
                   for n in ("x", "y", "z", "knee")}
        targets["sole"] = (np.zeros(feats["sole"].shape[1]), sizes["sole"])
        picked += _harmonic_terms(feats, descs, rot, targets, k, f, letters, gf.mirror_class(feats["keys"], P), snap)
    if gait == "jumping_jacks":
        picked += _jack_terms(character, basis, feats, descs, f, tuple(t.mode for _, t in picked))
    if not picked:
        raise GaitforgeError(f"no mode of {character.name} moves its feet for a {gait}: try more modes")
    terms = [t for _, t in picked]
    scale = rotation / gf.peak_rotation(character, basis, terms)
    terms = [GaitTerm(t.mode, t.amplitude * scale, t.phase, t.frequency) for t in terms]
    own = len(character.constraints)
    used = ", ".join(f"{letter}: mode {t.mode} ({descs[t.mode].name})" for letter, t in picked)
    return GaitRecipe(
        name=gait, creature=character.name, terms=tuple(terms), flight=gait not in GROUNDED,
        constraints=tuple(c.name for c in basis.constraints[own:]), stiffness_scale=basis.stiffness_scale,
        description=f"{gait}, Kry09 heuristics; stride {f:.2f} Hz (f̂ = {STRIDE_FREQUENCY[gait]}, "
                    f"h = {h:.2f} m){f'; bounce {bounce:g} at {2 * f:.2f} Hz' if bounce else ''}; {used}")

"""Mode selection and fitting of the Kry09 heuristics
(:mod:`gaitforge.motion.heuristics`): each heuristic (A-G) ranks the modes
by what they do to the labelled feet and knees (:func:`rank`), a ridge
least-squares fit sets the nominated modes' amplitudes and phases per
harmonic, and :func:`fit_recipe` builds one candidate recipe (one duty
factor, bounce and swing and lift size) scaled to a peak joint rotation."""
from __future__ import annotations

import math
import weakref
from typing import NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.modal.describe import SYMMETRIC
from gaitforge.motion import gait_features as gf
from gaitforge.motion.gaits import GAITS, KINDS
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.constants import MODE_POOL as POOL  # the lowest elastic modes a gait mixes (Kry09)

KNEE = math.radians(15)          # knee flexion at mid-swing
NOMINEES = 5                     # each heuristic nominates its best few modes,
SCORE_FLOOR = 0.1                # those scoring at least this share of its best
RIDGE = 1.0                      # weight of joint rotation [rad²] against the targets' misfit
# Feet that land together must reach the ground together (z), feet stay in
# their lane (y: no sideways target, so any sideways motion is misfit).
_WEIGHTS = {"x": 1.0, "y": 1.0, "z": 4.0, "knee": 0.5, "sole": 4.0}
_EXCLUDED = ("twist", "jumping jack")
SEARCH = 40                      # how far up the spectrum :func:`pool_size` looks for the feet's pitch modes
_POOLS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def pool_size(character, count: int = POOL) -> int:
    """How many of the lowest elastic modes a gait at speed chooses from
    (and so how many to compute): ``count``, or more where the feet have
    soles. The fit keeps each sole level (heel, ball and toe at one height:
    ``_WEIGHTS["sole"]``), and while a leg swings through a long stride only
    a mode that pitches the foot against the shank can do that; a creature
    whose feet are stiff has those modes high in its spectrum (the human's
    at 51 Hz, modes 21 and 22 of 0–21), and without them the fit turns the
    feet with whatever low mode happens to move them (the human's arms-lift
    mode), undershoots the forward swing and reaches the speed only by
    scaling the whole motion past a natural size. So for feet with soles
    the pool reaches up to the lowest mode of each mirror class whose
    largest joint rotation is a foot's (role ``foot``), if there is one
    among the lowest :data:`SEARCH`. Feet with one contact point (the dog's
    paws) have no sole to keep level: their pool stays ``count``."""
    sizes = _POOLS.setdefault(character, {})
    if count not in sizes:
        sizes[count] = _pool_size(character, count)
    return sizes[count]


def _pool_size(character, count: int) -> int:
    from gaitforge.modal import compute_modes
    from gaitforge.modal.describe import describe_modes
    from gaitforge.motion.footfall import feet_of

    basis = compute_modes(character, count=max(SEARCH, count))
    if not gf.sole_levels(character, basis, 1).size:
        return count
    limbs = {(f.limb, f.side) for f in feet_of(character)}
    groups = [j.dof for j in character.joints.values() if j.kind in ("hinge", "ball", "gimbal")]
    feet = [j.dof for j in character.joints.values() if j.kind in ("hinge", "ball", "gimbal")
            and (lab := character.labels.get(j.body)) is not None and lab.role == "foot"
            and (lab.limb, lab.side) in limbs]
    if not feet:
        return count
    top, seen = count, set()
    for i, d in enumerate(describe_modes(character, basis)):
        s = basis.shapes[:, i]
        peak = max(float(np.linalg.norm(s[g])) for g in groups)
        if d.symmetry not in seen and max(float(np.linalg.norm(s[g])) for g in feet) >= peak:
            seen.add(d.symmetry)
            top = max(top, i + 1)
    return top


class Pick(NamedTuple):
    """A nominated mode: heuristic ``letter``, elastic ``mode`` index and
    ``score`` (see :func:`rank`)."""

    letter: str
    mode: int
    score: float


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
    memo = features.get("_ranks")  # a caller's memo for one features/descs pair (suggest_at_speed)
    if memo is not None:
        key = (letter, wanted, target.tobytes())
        if key not in memo:
            memo[key] = _rank(features, descs, letter, target, wanted)
        return list(memo[key])
    return _rank(features, descs, letter, target, wanted)


def _rank(features: dict, descs, letter: str, target: np.ndarray, wanted: str | None) -> list[Pick]:
    name, limbs = _LETTERS[letter]
    front = np.array([KINDS[features["kind"]].by_limb and k[0] == "front" for k in features["keys"]])
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


def fit_recipe(character, basis, descs, feats, gait: str, f: float, h: float, beta: float, swing: float,
               lift: float, rotation: float | None, bounce: float = 0.0, snap: bool = False,
               z_shift: np.ndarray | None = None, harmonics: int | None = None) -> GaitRecipe:
    """The recipe for duty factor ``beta``, forward swing ``swing``·h and
    lift ``lift``·h (f: stride frequency [Hz], h: hip height [m]): harmonic
    fits (the spec's harmonics: walks and ambles 1–3, else the fundamental), for ``bounce`` > 0
    the second harmonic of a bounce (:func:`gait_features.bounce`), the
    jumping jack's limbs, then every amplitude scaled to a peak joint
    rotation ``rotation`` (None: left as fitted); ``snap``: phases in
    multiples of 90° (:func:`_harmonic_terms`). ``z_shift`` (harmonics,
    feet) complex [m], feet in ``feats["keys"]`` order: subtracted from the
    vertical targets of each harmonic (the part of the feet's height the
    linear features miss, see :func:`gaitforge.motion.speed.height_residual`);
    ``harmonics``: how many a gait fitting several fits (default the spec's)."""
    spec = GAITS[gait]
    phi = np.array([spec.footfalls[feats["kind"]][key] for key in feats["keys"]])
    harmonics = (harmonics or spec.harmonics) if spec.harmonics > 1 else 1
    G = gf.profiles(beta, harmonics)
    if bounce > 0:
        G = {n: np.r_[g, gf.bounce(g[0], bounce) if n in ("z", "knee") else 0.0] for n, g in G.items()}
    rot = gf.joint_rotations(character, basis.shapes[:, :len(descs)])
    jump = spec.on_the_spot
    sizes = {"x": swing * h, "y": swing * h, "z": lift * h, "knee": 2 * KNEE if jump else KNEE, "sole": lift * h}
    letters = KINDS[feats["kind"]].letters
    picked: list[tuple[str, GaitTerm]] = []
    for k in range(1, len(G["z"]) + 1):
        P = np.exp(-2j * np.pi * k * phi)
        if not jump and np.allclose(P, P[0]) and not bounce:
            continue  # every foot alike and a foot always down: grounding cancels it (it only moves the root)
        targets = {n: (sizes[n] * G[n][k - 1] * P * (n == "z" or n == "knee" or (n == "x" and not jump)), sizes[n])
                   for n in ("x", "y", "z", "knee")}
        if z_shift is not None and k <= len(z_shift):
            targets["z"] = (targets["z"][0] - z_shift[k - 1], sizes["z"])
        targets["sole"] = (np.zeros(feats["sole"].shape[1]), sizes["sole"])
        picked += _harmonic_terms(feats, descs, rot, targets, k, f, letters, gf.mirror_class(feats["keys"], P), snap)
    if spec.jacks:
        picked += _jack_terms(character, basis, feats, descs, f, tuple(t.mode for _, t in picked))
    if not picked:
        raise GaitforgeError(f"no mode of {character.name} moves its feet for a {gait}: try more modes")
    terms = [t for _, t in picked]
    scale = 1.0 if rotation is None else rotation / gf.peak_rotation(character, basis, terms)
    terms = [GaitTerm(t.mode, t.amplitude * scale, t.phase, t.frequency) for t in terms]
    own = len(character.constraints)
    used = ", ".join(f"{letter}: mode {t.mode} ({descs[t.mode].name})" for letter, t in picked)
    return GaitRecipe(
        name=gait, creature=character.name, terms=tuple(terms), flight=not spec.grounded, holding=spec.holding,
        arm_swing=spec.arm_swing, still_arms=spec.still_arms, posture=spec.posture,
        constraints=tuple(c.name for c in basis.constraints[own:]), stiffness_scale=basis.stiffness_scale,
        description=f"{gait}, Kry09 heuristics; stride {f:.2f} Hz (f̂ = {spec.stride_frequency}, "
                    f"h = {h:.2f} m){f'; bounce {bounce:g} at {2 * f:.2f} Hz' if bounce else ''}; {used}")

"""Which kind a creature is for the Kry09 heuristics
(:mod:`gaitforge.motion.heuristics`): a biped or a quadruped, from its
labelled feet; and which gaits of :data:`~gaitforge.motion.gaits.GAITS`
:func:`~gaitforge.motion.heuristics.suggest` can make for it."""
from __future__ import annotations

from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.motion import gait_features as gf
from gaitforge.motion.footfall import feet_of
from gaitforge.motion.gaits import GAITS, KINDS, gaits_of_kind
from gaitforge.naming import match


def creature_kind(character, gait: str = "walk") -> str:
    """The :data:`~gaitforge.motion.gaits.KINDS` entry whose feet the
    creature's labelled feet are: ``"biped"`` (a left and a right foot) or
    ``"quadruped"`` (front/rear × left/right); the error says which labels
    are missing."""
    try:
        feet = feet_of(character)
    except GaitforgeError:
        raise GaitforgeError(
            f"{character.name} has no feet: suggest({gait!r}) needs contact points named *_foot or bodies "
            "labelled role: foot; add them in the creature file or a labels override") from None
    for kind in KINDS.values():
        if sorted((kind.key(f.limb or "", f.side) for f in feet), key=str) == sorted(kind.feet, key=str):
            return kind.name
    shown = ", ".join(f"{f.name} ({' '.join(x for x in (f.limb, f.side) if x)})" for f in feet)
    raise GaitforgeError(
        f"{character.name} has feet {shown}: suggest({gait!r}) needs a left and a right foot (biped) or "
        "front and rear, left and right feet (quadruped); label them with side and limb in the creature "
        "file or a labels override")


def check_gait(character, gait: str) -> str:
    """The creature kind, if :func:`suggest` has ``gait`` for it."""
    gait = match(gait, GAITS) or gait
    if gait not in GAITS:
        valid = "; ".join(f"{kind}s: {', '.join(gaits_of_kind(kind))}" for kind in KINDS)
        raise UnknownNameError(f"unknown gait {gait!r} (valid gaits for {valid})")
    kind = creature_kind(character, gait)
    if kind not in GAITS[gait].footfalls:
        raise UnknownNameError(f"{character.name} is a {kind}: no {gait!r} gait for it "
                               f"(valid gaits for {kind}s: {', '.join(gaits_of_kind(kind))})")
    return kind


def gaits_for(character) -> tuple[str, ...]:
    """The gaits :func:`suggest` can make for ``character``: its kind's
    (:func:`~gaitforge.motion.gaits.gaits_of_kind`) if it has the labelled
    feet and knees they need, else none."""
    try:
        kind = creature_kind(character)
    except GaitforgeError:
        return ()
    keys = {gf.foot_key(kind, f.limb, f.side) for f in feet_of(character)}
    return gaits_of_kind(kind) if keys <= set(gf.knees(character, kind)) else ()

"""Gait patterns of the Kry09 mode-selection heuristics
(:mod:`gaitforge.motion.heuristics`): the footfall phase of each foot per gait
and creature kind (:data:`FOOTFALLS`, cycles after the left hind foot), the
gait class each must be classified as, duty factors, bounces and Froude-scaled
stride frequencies; and which kind a creature is (biped or quadruped, from its
labelled feet) and which gaits :func:`~gaitforge.motion.heuristics.suggest`
can make for it."""
from __future__ import annotations

from typing import Any

from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.motion import gait_features as gf
from gaitforge.motion.footfall import feet_of
from gaitforge.naming import match

_Q = ("front", "left"), ("front", "right"), ("rear", "left"), ("rear", "right")
FOOTFALLS: dict[str, dict[str, dict[Any, float]]] = {  # lateral-sequence walk and amble, transverse gallop
    "biped": {"walk": {"left": 0.0, "right": 0.5}, "run": {"left": 0.0, "right": 0.5},
              "jump": {"left": 0.0, "right": 0.0}, "jumping_jacks": {"left": 0.0, "right": 0.0}},
    "quadruped": {g: dict(zip(_Q, p)) for g, p in {
        "walk": (0.25, 0.75, 0.0, 0.5), "trot": (0.5, 0.0, 0.0, 0.5), "pace": (0.0, 0.5, 0.0, 0.5),
        "amble": (0.25, 0.75, 0.0, 0.5), "bound": (0.5, 0.5, 0.0, 0.0), "gallop": (0.5, 0.6, 0.0, 0.1)}.items()},
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

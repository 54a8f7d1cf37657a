"""Body labels of imported skeletons: read from bone names, fixed by
overrides, and what they tell about the rest pose (which way the creature
faces: :func:`facing_yaw`; which bodies are its standing feet:
:func:`choose_feet`).

Pure functions (no files): ``io`` reads override files and model geometry and
calls these.

Side (``left`` / ``right``) comes from words such as ``left``, ``Left``,
``lft``, ``l`` / ``r`` tokens (``upper_leg_L``, ``hand.R``, ``LHipJoint``), a
glued one-letter prefix before a body-part word (CMU ``lfemur``, ``rtibia``)
or a quadrant code (``FL_calf``, ``RR_thigh``, ``LH_shank``). A body with no
side word takes its parent's side.

Role names the joint a bone hangs from (``hip`` for a thigh, ``knee`` for a
shin, ``elbow`` for a forearm, ``shoulder`` for a clavicle or upper arm), except
end segments, named for what they are (``foot``, ``toe``, ``hand``,
``finger``); the first matching rule of ``_ROLE_RULES`` wins, so ``forearm``
is an elbow before it is an arm. Dog-anatomy vertebra codes (``C_3``, ``L_2``,
``Ca_10``) are neck, spine and tail.

Limb (``front`` / ``rear``) is decided per limb chain (a sided body whose
parent is centred, with its sided descendants): explicit words (``front``,
``fore``, ``hind``, ``rear``, quadrant codes, a glued ``f`` / ``b`` / ``h``
as in the cheetah's ``fthigh``, ``bfoot``) first, then body-part words (arm
words front, leg words rear). Centred bodies take explicit words only. Where a side has exactly
two chains that names do not tell apart, the chain whose root sits further
forward or higher (larger x + z, gaitforge axes) is the front one: the
shoulders of a quadruped lie ahead of its hips, those of an upright biped
above them.
"""
from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np

from gaitforge.creatures.character import BodyLabel
from gaitforge.creatures.spec import LIMBS, ROLES, SIDES
from gaitforge.errors import SpecError, brief

# (role, keywords) in priority order; keywords match whole tokens, joined
# neighbouring tokens (``upper``+``arm``) and, if 5+ letters, parts of a token
# (``lowerneck``); short words match whole tokens only (``hips`` is no ``hip``).
_ROLE_RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("finger", ("finger", "fingers", "thumb", "pinky", "phalanx", "phalanges", "claw")),
    ("toe", ("toe", "toes", "toebase")),
    ("knuckle", ("knuckle", "knuckles")),
    ("foot", ("foot", "feet", "paw", "hoof", "sole", "heel", "pes")),
    ("hand", ("hand", "palm", "manus")),
    ("wrist", ("wrist", "carpal", "carpus", "metacarpal", "metacarpus")),
    ("ankle", ("ankle", "hock", "tarsal", "tarsus", "metatarsal", "metatarsus", "talus")),
    ("elbow", ("elbow", "forearm", "lowerarm", "radius", "ulna")),
    ("shoulder", ("shoulder", "humerus", "upperarm", "arm", "clavicle", "scapula", "collar")),
    ("hip", ("hip", "femur", "thigh", "upleg", "upperleg")),
    ("knee", ("knee", "shin", "shank", "tibia", "fibula", "calf", "lowerleg", "leg")),
    ("pelvis", ("pelvis", "hips", "sacrum", "root")),
    ("tail", ("tail", "caudal")),
    ("neck", ("neck", "lowerneck", "upperneck", "cervical")),
    ("head", ("head", "skull", "jaw", "mandible", "cranium", "snout", "beak")),
    ("spine", ("spine", "lumbar", "lowerback", "upperback", "back", "vertebra", "abdomen", "waist")),
    ("trunk", ("trunk", "torso", "thorax", "chest", "ribcage", "base")),
)
_KEYWORDS = tuple(k for _, words in _ROLE_RULES for k in words)
_ARM_WORDS = frozenset(w for r, ws in _ROLE_RULES if r in ("finger", "hand", "wrist", "elbow", "shoulder")
                       for w in ws if w not in ("phalanx", "phalanges", "claw"))
_LEG_WORDS = frozenset(w for r, ws in _ROLE_RULES if r in ("toe", "foot", "ankle", "hip", "knee") for w in ws
                       if w not in ("paw", "hoof", "sole", "heel", "pes"))
_SIDE_WORDS = {"left": "left", "l": "left", "lft": "left", "right": "right", "r": "right", "rgt": "right"}
_QUADRANTS = {"fl": ("front", "left"), "fr": ("front", "right"), "rl": ("rear", "left"),
              "rr": ("rear", "right"), "lf": ("front", "left"), "rf": ("front", "right"),
              "lh": ("rear", "left"), "rh": ("rear", "right"), "hl": ("rear", "left"),
              "hr": ("rear", "right")}
_FRONT_WORDS = ("front", "fore", "foreleg", "forelimb", "anterior")
_REAR_WORDS = ("rear", "hind", "hindleg", "hindlimb", "posterior")
_VERTEBRA = re.compile(r"^(c|t|th|l|s|ca|cd|co)[ _.\-]?\d+$", re.IGNORECASE)
_VERTEBRA_ROLES = {"c": "neck", "t": "spine", "th": "spine", "l": "spine", "s": "pelvis",
                   "ca": "tail", "cd": "tail", "co": "tail"}
_EXACT_ONLY = frozenset(("pinky",))
# Finger names that are fingers only on a hand (Mixamo ``LeftHandMiddle1``).
_HAND_DIGITS = frozenset(("index", "middle", "ring"))
FOOT_ROLES = ("foot", "toe", "hand", "finger", "knuckle")


def tokens(name: str) -> list[str]:
    """Lower-case words of a bone name: split at non-alphanumerics, camelCase
    humps and digit runs (``mixamorig:LeftUpLeg`` → mixamorig, left, up, leg)."""
    out = []
    for part in re.split(r"[^A-Za-z0-9]+", name):
        out += re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", part)
    return [t.lower() for t in out]


_GLUED = (("left", "side", "left"), ("right", "side", "right"), ("l", "side", "left"), ("r", "side", "right"),
          ("f", "limb", "front"), ("b", "limb", "rear"), ("h", "limb", "rear"))


def _glued(token: str) -> tuple[str, str, str] | None:
    """(``side`` or ``limb``, its value, the body-part word) for a one-letter
    or spelled-out prefix glued onto a body-part word: CMU ``lfemur``,
    ``leftfoot``, dm_control's cheetah ``bthigh`` / ``fshin`` (back, front)."""
    for prefix, kind, value in _GLUED:
        rest = token[len(prefix):]
        if token.startswith(prefix) and rest:
            hit = next((k for k in _KEYWORDS if len(k) >= 3 and rest.startswith(k)), None)
            if hit is not None:
                return kind, value, hit
    return None


def _words(name: str) -> tuple[set[str], str | None, str | None]:
    """(words, side, strong limb) of one bone name: its tokens, a body-part
    word split off a glued prefix, and neighbouring tokens joined (prefixed
    with a space: they match keywords whole, never in part)."""
    toks = tokens(name)
    words = set(toks) | {" " + a + b for a, b in zip(toks, toks[1:])}
    sides: set[str] = set()
    limbs: set[str] = set()
    for t in toks:
        if t in _SIDE_WORDS:
            sides.add(_SIDE_WORDS[t])
        elif t in _QUADRANTS:
            quadrant_limb, quadrant_side = _QUADRANTS[t]
            sides.add(quadrant_side)
            limbs.add(quadrant_limb)
        elif t not in _KEYWORDS and (g := _glued(t)) is not None:
            (sides if g[0] == "side" else limbs).add(g[1])
            words.add(g[2])
    for w in (w.strip() for w in words):
        if w in _FRONT_WORDS or w.startswith("fore") and w != "forearm":
            limbs.add("front")
        elif w in _REAR_WORDS or w.startswith("hind"):
            limbs.add("rear")
    side = sides.pop() if len(sides) == 1 else None
    limb = limbs.pop() if len(limbs) == 1 else None
    return words, side, limb


def role_of(name: str) -> str | None:
    """The role a bone name suggests, or None."""
    m = _VERTEBRA.match(name)
    if m:
        return _VERTEBRA_ROLES[m.group(1).lower()]
    words = _words(name)[0]
    whole = {w.strip() for w in words}
    if whole & _HAND_DIGITS and whole & {"hand", "finger", "fingers"}:
        return "finger"
    for role, keys in _ROLE_RULES:
        for k in keys:
            if k in whole or (len(k) >= 5 and k not in _EXACT_ONLY and any(k in w for w in words if w[0] != " ")):
                return role
    return None


def _weak_limb(name: str) -> str | None:
    words = {w.strip() for w in _words(name)[0]}
    front, rear = bool(words & _ARM_WORDS), bool(words & _LEG_WORDS)
    return "front" if front and not rear else "rear" if rear and not front else None


def infer_labels(body_names: Sequence[str], positions=None,
                 parents: Mapping[str, str | None] | None = None) -> dict[str, BodyLabel]:
    """Labels of bodies from their names (see the module notes).

    body_names: n names, parents before children. positions: (n, 3) rest
    positions [m, gaitforge axes: x forward, z up] of the bodies, or a mapping
    name → (3,); used only to tell front from rear. parents: name → parent
    name (None or a name not in ``body_names`` for the root); used to pass
    sides down and to find limb chains. Returns name → :class:`BodyLabel`.
    """
    names = list(body_names)
    parents = dict(parents or {})
    if positions is not None and not isinstance(positions, Mapping):
        positions = dict(zip(names, np.asarray(positions, float).reshape(len(names), 3)))
    side: dict[str, str] = {}
    strong: dict[str, str | None] = {}
    role: dict[str, str | None] = {}
    for n in names:
        _, s, lb = (set(), None, None) if _VERTEBRA.match(n) else _words(n)
        p = parents.get(n)
        side[n] = s or (side.get(p, "center") if p is not None else "center")
        strong[n] = lb
        role[n] = role_of(n)
    # Limb chains: a sided body with a centred (or no) parent starts one.
    chain_of: dict[str, str] = {}
    for n in names:
        p = parents.get(n)
        if side[n] == "center":
            continue
        chain_of[n] = chain_of[p] if p in chain_of and side.get(p) == side[n] else n
    chains: dict[str, list[str]] = {}
    for n, root in chain_of.items():
        chains.setdefault(root, []).append(n)
    limb_of, sure = {}, {}
    for root, members in chains.items():
        votes = [strong[m] for m in members if strong[m]]
        sure[root] = len(set(votes)) == 1
        if not votes:
            votes = [w for m in members if (w := _weak_limb(m))]
        counts = sorted(((votes.count(v), v) for v in set(votes)), reverse=True)
        # A clear majority decides (a stray leg word in an arm chain does not).
        limb_of[root] = counts[0][1] if counts and (len(counts) == 1 or counts[0][0] > counts[1][0]) else None
    if positions is not None:
        for s in ("left", "right"):
            roots = [r for r in chains if side[r] == s]
            if len(roots) == 2 and not any(sure[r] for r in roots) and len({limb_of[r] for r in roots}) < 2:
                key = {r: float(positions[r][0] + positions[r][2]) for r in roots}
                front = max(roots, key=key.__getitem__)
                for r in roots:
                    limb_of[r] = "front" if r == front else "rear"
    out = {}
    for n in names:
        # Midline bodies (a planar walker's legs) take explicit limb words only.
        limb = (strong[n] or limb_of.get(chain_of[n])) if n in chain_of else strong[n]
        out[n] = BodyLabel(side[n], role[n], limb)
    return out


def check_label_overrides(data, source: str | None = None) -> dict[str, dict[str, str | None]]:
    """Validate a parsed override document ``{labels: {body: {side, role, limb}}}``.

    Returns body → {field: value}; raises :class:`SpecError` naming ``source``,
    the field path and the value.
    """
    def fail(path: str, message: str):
        raise SpecError(path, message, source)

    if data is None:  # an empty file overrides nothing
        return {}
    if not isinstance(data, Mapping):
        fail("", f"must be a mapping with the key 'labels', got {type(data).__name__}")
    for key in data:
        if key != "labels":
            fail(str(key), f"unknown key {brief(key)} (valid keys: labels)")
    table = data.get("labels") or {}
    if not isinstance(table, Mapping):
        fail("labels", f"must map body names to labels, got {type(table).__name__}")
    choices = {"side": SIDES, "role": ROLES, "limb": LIMBS}
    out = {}
    for body, fields in table.items():
        if not isinstance(fields, Mapping):
            fail(f"labels.{body}", f"must be a mapping of side, role, limb, got {brief(fields)}")
        for field, value in fields.items():
            if field not in choices:
                fail(f"labels.{body}.{field}", f"unknown field {brief(field)} (valid fields: side, role, limb)")
            if value is None and field != "side":
                continue
            if value not in choices[field]:
                fail(f"labels.{body}.{field}",
                     f"unknown {field} {brief(value)} (choose from {', '.join(choices[field])})")
        out[str(body)] = dict(fields)
    return out


def apply_label_overrides(labels: Mapping[str, BodyLabel], overrides: Mapping[str, Mapping],
                          source: str | None = None) -> dict[str, BodyLabel]:
    """``labels`` with the fields given in ``overrides`` (from
    :func:`check_label_overrides`) replaced; a body not in ``labels`` raises."""
    out = dict(labels)
    for body, fields in overrides.items():
        if body not in out:
            close = difflib.get_close_matches(body, list(out), n=3, cutoff=0.8)
            hint = (f"valid bodies: {', '.join(out)}" if len(out) <= 12 else
                    f"did you mean {' or '.join(map(repr, close))}?" if close else f"{len(out)} bodies in the model")
            raise SpecError(f"labels.{body}", f"unknown body {brief(body)} ({hint})", source)
        lab = out[body]
        out[body] = BodyLabel(fields.get("side", lab.side), fields.get("role", lab.role),
                              fields.get("limb", lab.limb))
    return out


def choose_feet(labels: Mapping[str, BodyLabel], lowest: Mapping[str, float],
                parents: Mapping[str, str | None], tolerance: float) -> dict[str, str]:
    """Which bodies carry the foot contact points, and their names.

    Feet are grouped by (limb, side): bodies with a role in ``FOOT_ROLES``, or,
    for a limb chain without any, its deepest body. ``lowest`` gives each
    body's lowest rest point [m] (bodies without geoms are absent); a group is
    a foot if it reaches within ``tolerance`` [m] of the creature's lowest
    point, and its body that reaches lowest carries the point. Names:
    ``{limb}_{side}_foot`` when both front and rear limbs stand (quadrupeds),
    else ``{side}_foot`` (``foot`` for a centred one). Returns name → body.
    """
    if not lowest:
        return {}
    depth = {}
    for n in labels:
        p, d = parents.get(n), 0
        while p is not None and p in labels:
            p, d = parents.get(p), d + 1
        depth[n] = d
    groups: dict[tuple, list[str]] = {}
    for n, lab in labels.items():
        if lab.role in FOOT_ROLES and n in lowest:
            groups.setdefault((lab.limb, lab.side), []).append(n)
    for n, lab in labels.items():
        key = (lab.limb, lab.side)
        if lab.side != "center" and key not in groups:
            members = [m for m, ml in labels.items() if (ml.limb, ml.side) == key and m in lowest]
            if members:
                groups[key] = [max(members, key=depth.__getitem__)]
    floor = min(lowest.values())
    standing = {key: min(bodies, key=lowest.__getitem__) for key, bodies in groups.items()
                if min(lowest[b] for b in bodies) <= floor + tolerance}
    four = {"front", "rear"} <= {limb for limb, _ in standing}
    out = {}
    for (limb, side), body in sorted(standing.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        name = "foot" if side == "center" else f"{side}_foot"
        if four and limb is not None:
            name = f"{limb}_{name}"
        out[name if name not in out else f"{body}_foot"] = body
    return out


def facing_yaw(labels: Mapping[str, BodyLabel], positions: Mapping[str, Sequence[float]]) -> float:
    """The turn [rad] about +z that points the creature's left side (mean
    position of left-labelled bodies minus that of right-labelled ones) along
    +y, hence its front along +x; 0 when either side has no body."""
    left = [positions[n] for n, lab in labels.items() if lab.side == "left"]
    right = [positions[n] for n, lab in labels.items() if lab.side == "right"]
    if not left or not right:
        return 0.0
    d = np.mean(left, axis=0) - np.mean(right, axis=0)
    if math.hypot(d[0], d[1]) < 1e-9:
        return 0.0
    return math.remainder(math.pi / 2 - math.atan2(d[1], d[0]), 2 * math.pi)

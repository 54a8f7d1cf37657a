"""Constraints written on a command line, and bodies chosen by name or label.

Form: ``KIND:BODY[:OTHER][@X,Y,Z][~AX,AY,AZ]``

- ``pin:left_foot`` — the foot's contact point (the mean of its contact sites,
  else the bone origin) stays put in the world;
- ``lock:head`` — the head keeps its orientation;
- ``loop:left_hand:right_hand`` — the hands hold one shared point (by default
  midway between them at rest); ``~0,1,0`` makes the closure a hinge about
  that axis (first body's frame);
- ``@X,Y,Z`` places the point explicitly, in the first body's frame [m].

A body is its name, or a label ``role/side[/limb]`` in any order
(``foot/left``, ``foot/left/front``) that must match exactly one body.
"""
from __future__ import annotations

import math
import re

import numpy as np

from gaitforge.creatures.spec import CONSTRAINT_KINDS, LIMBS, ROLES, SIDES, Constraint, vec3
from gaitforge.errors import GaitforgeError, UnknownNameError

_FORM = "KIND:BODY[:OTHER][@X,Y,Z][~AX,AY,AZ]"
_PATTERN = re.compile(r"^(?P<kind>[^:@~]+):(?P<bodies>[^@~]+)(?:@(?P<point>[^~]*))?(?:~(?P<axis>.*))?$")
_BODY_COUNT = {"pin": 1, "lock": 1, "loop": 2}


def resolve_body(token: str, character) -> str:
    """The body name meant by ``token``: a body name, or a ``role/side[/limb]``
    label matching exactly one body. Errors list the valid bodies."""
    if token in character.labels:
        return token
    valid = ", ".join(character.bodies)
    if "/" not in token:
        character.body_id(token)  # raises UnknownNameError listing the bodies
    criteria: dict[str, str] = {}
    for part in token.split("/"):
        key = "role" if part in ROLES else "side" if part in SIDES else "limb" if part in LIMBS else None
        if key is None or key in criteria:
            raise UnknownNameError(f"unknown body {token!r} in {character.name}: a label is role/side[/limb], "
                                   f"e.g. foot/left/front (valid bodies: {valid})")
        criteria[key] = part
    matches = character.bodies_labeled(**criteria)
    if not matches:
        raise UnknownNameError(f"no body of {character.name} is labeled {token!r} (valid bodies: {valid})")
    if len(matches) > 1:
        raise UnknownNameError(f"label {token!r} matches several bodies of {character.name} "
                               f"({', '.join(matches)}); name one of them")
    return matches[0]


def _vector(text: str, what: str, value: str) -> tuple[float, float, float]:
    try:
        parts = tuple(float(v) for v in value.split(","))
    except ValueError:
        parts = ()
    if len(parts) != 3 or not all(math.isfinite(v) for v in parts):
        raise GaitforgeError(f"bad {what} {value!r} in constraint {text!r}: expected three numbers x,y,z")
    return parts  # type: ignore[return-value]


def _reference_point(character, body: str) -> np.ndarray:
    """A body's natural anchor in its own frame: the mean of its contact
    sites (a foot's sole), else the bone origin (its joint) [m]."""
    m = character.model
    bid = character.body_id(body)
    sites = np.flatnonzero(m.site_bodyid == bid)
    return m.site_pos[sites].mean(axis=0) if len(sites) else np.zeros(3)


def parse_constraint(text: str, character) -> "Constraint":
    """Parse the command-line form (module docstring) into a
    :class:`~gaitforge.creatures.spec.Constraint` named ``text``."""
    match = _PATTERN.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise GaitforgeError(f"bad constraint {text!r}: expected {_FORM}, "
                             "e.g. pin:left_foot, lock:head, loop:left_hand:right_hand")
    kind = match["kind"]
    if kind not in CONSTRAINT_KINDS:
        raise GaitforgeError(f"unknown constraint kind {kind!r} in {text!r} "
                             f"(choose from {', '.join(CONSTRAINT_KINDS)})")
    tokens = match["bodies"].split(":")
    if len(tokens) != _BODY_COUNT[kind]:
        need = "one body" if _BODY_COUNT[kind] == 1 else "two bodies"
        raise GaitforgeError(f"a {kind} constraint takes {need}, got {len(tokens)} in {text!r}")
    bodies = [resolve_body(t, character) for t in tokens]
    if len(bodies) == 2 and bodies[0] == bodies[1]:
        raise GaitforgeError(f"a loop needs two different bodies, got {bodies[0]!r} twice in {text!r}")
    if match["axis"] is not None and kind != "loop":
        raise GaitforgeError(f"an axis (~AX,AY,AZ) applies to loop constraints only, got {text!r}")
    if match["point"] is not None and kind == "lock":
        raise GaitforgeError(f"a lock constraint has no point, got {text!r}")
    axis = _vector(text, "axis", match["axis"]) if match["axis"] is not None else None
    if axis is not None and math.hypot(*axis) < 1e-12:
        raise GaitforgeError(f"bad axis {match['axis']!r} in constraint {text!r}: must be a nonzero vector")
    if match["point"] is not None:
        point = _vector(text, "point", match["point"])
    elif kind == "pin":
        point = vec3(_reference_point(character, bodies[0]))
    elif kind == "loop":
        ends = character.world_points(character.rest_qpos, bodies,
                                      [_reference_point(character, b) for b in bodies])
        d = character.make_data()
        bid = character.body_id(bodies[0])
        local = d.xmat[bid].reshape(3, 3).T @ (ends.mean(axis=0) - d.xpos[bid])
        point = vec3(local)
    else:
        point = (0.0, 0.0, 0.0)
    return Constraint(name=text, kind=kind, bone=bodies[0], other=bodies[1] if kind == "loop" else None,
                      point=point, axis=axis)  # type: ignore[arg-type]


def resolve_constraints(character, constraints) -> tuple[Constraint, ...]:
    """Extra constraints as :class:`Constraint` objects: strings are parsed,
    objects validated (``SpecError``) and their bodies checked
    (``UnknownNameError`` listing the valid bodies)."""
    if isinstance(constraints, (str, Constraint)):
        constraints = (constraints,)
    out = []
    for i, c in enumerate(constraints):
        if isinstance(c, str):
            out.append(parse_constraint(c, character))
            continue
        if not isinstance(c, Constraint):
            raise GaitforgeError(f"constraints[{i}] must be a Constraint or a string like 'pin:BODY', got {c!r}")
        c.validate(f"constraints[{i}]")
        character.body_id(c.bone)
        if c.other is not None:
            character.body_id(c.other)
        out.append(c)
    return tuple(out)

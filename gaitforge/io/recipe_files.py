"""Gait recipe files: YAML (safe loader only) or JSON (``.json``).

Layout (every key of :class:`GaitRecipe`; phases in radians, or
``phase_deg`` in degrees when writing by hand)::

    name: dog_trot
    creature: dog
    description: diagonal pairs half a cycle apart
    constraints: []
    rest_pose: null
    stiffness_scale: 1.0
    speed: null
    flight: true
    holding: paired    # stance, paired or loose; absent: the default of the gait it is named after
    arm_swing: 0.75    # optional: free limbs hang and swing with the other side's hip (motion.arms)
    still_arms: true   # optional: the holding leaves them so
    posture: relaxed   # optional: the creature's posture they hang in
    terms:
    - {mode: 4, amplitude: 0.08, phase: 1.57079632679, frequency: 2.0, offset: 0.0}
    impulses:          # optional (modal control): once per cycle, at a fraction of it
    - {mode: 2, size: 0.3, at: 0.25}
    initial:           # optional (modal control): start offset and velocity per mode
    - {mode: 0, offset: 0.01, velocity: 0.2}

``impulses`` and ``initial`` are written only when the recipe has them.

Files written by :func:`save_recipe` read back to an equal recipe, and a
recipe saved, loaded and saved again gives the same text: floats are
written with Python's shortest exact representation. Errors are one line
naming the file, the field path and the value (:class:`SpecError`).
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import yaml

from gaitforge.errors import SpecError, brief
from gaitforge.io.atomic import write_text
from gaitforge.io.documents import build_from, format_of, mapping, parse_text, read_text
from gaitforge.motion.recipe import GaitRecipe, GaitTerm, ModalImpulse, ModalStart

_RECIPE_KEYS = ("name", "creature", "description", "constraints", "rest_pose", "stiffness_scale", "speed", "flight",
                "holding", "arm_swing", "still_arms", "posture", "terms", "impulses", "initial")
_REQUIRED = ("name", "creature", "terms")
_TERM_KEYS = ("mode", "amplitude", "phase", "phase_deg", "frequency", "offset")
_IMPULSE_KEYS = ("mode", "size", "at")
_START_KEYS = ("mode", "offset", "velocity")


def recipe_to_dict(recipe: GaitRecipe) -> dict:
    """Plain data (what the file holds) for ``recipe``: every field."""
    return {
        "name": recipe.name, "creature": recipe.creature, "description": recipe.description,
        "constraints": list(recipe.constraints), "rest_pose": recipe.rest_pose,
        "stiffness_scale": recipe.stiffness_scale, "speed": recipe.speed, "flight": recipe.flight,
        "holding": recipe.holding.value if recipe.holding is not None else None,
    } | ({"arm_swing": recipe.arm_swing, "still_arms": recipe.still_arms, "posture": recipe.posture}
         if recipe.arm_swing or recipe.still_arms or recipe.posture else {}) | {
        "terms": [{"mode": t.mode, "amplitude": t.amplitude, "phase": t.phase, "frequency": t.frequency,
                   "offset": t.offset} for t in recipe.terms],
    } | ({"impulses": [{"mode": i.mode, "size": i.size, "at": i.at} for i in recipe.impulses]}
         if recipe.impulses else {}) | ({"initial": [{"mode": s.mode, "offset": s.offset, "velocity": s.velocity}
                                                    for s in recipe.initial]} if recipe.initial else {})


def _number(path: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SpecError(path, f"must be a finite number, got {brief(value)}")
    return float(value)


def _term(path: str, data: Any) -> GaitTerm:
    data = mapping(path, data, _TERM_KEYS, "a term")
    for key in ("mode", "amplitude", "frequency"):
        if key not in data:
            raise SpecError(path, f"missing required key {brief(key)}")
    if "phase" in data and "phase_deg" in data:
        raise SpecError(path, "give phase (radians) or phase_deg (degrees), not both")
    mode = data["mode"]
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise SpecError(f"{path}.mode", f"must be an integer, got {brief(mode)}")
    if "phase_deg" in data:
        phase = math.radians(_number(f"{path}.phase_deg", data["phase_deg"]))
    else:
        phase = _number(f"{path}.phase", data.get("phase", 0.0))
    values = {k: _number(f"{path}.{k}", data[k]) for k in ("amplitude", "frequency", "offset") if k in data}
    try:
        return GaitTerm(mode=mode, phase=phase, **values)
    except SpecError as exc:  # the term's own checks (e.g. a negative mode or frequency)
        raise SpecError(f"{path}.{exc.path}", exc.message) from None


def _control_item(path: str, data: Any, keys: tuple[str, ...], required: tuple[str, ...], kind: type):
    """One impulse or initial condition (mode plus numbers) from plain data."""
    data = mapping(path, data, keys, "an entry")
    for key in required:
        if key not in data:
            raise SpecError(path, f"missing required key {brief(key)}")
    mode = data["mode"]
    if isinstance(mode, bool) or not isinstance(mode, int):
        raise SpecError(f"{path}.mode", f"must be an integer, got {brief(mode)}")
    values = {k: _number(f"{path}.{k}", data[k]) for k in keys[1:] if k in data}
    try:
        return kind(mode=mode, **values)
    except SpecError as exc:
        raise SpecError(f"{path}.{exc.path}", exc.message) from None


def _control_list(data: dict, key: str, keys: tuple[str, ...], required: tuple[str, ...], kind: type) -> tuple:
    items = data.get(key, [])
    if not isinstance(items, list):
        raise SpecError(key, f"must be a list, got {brief(items)}")
    return tuple(_control_item(f"{key}[{i}]", x, keys, required, kind) for i, x in enumerate(items))


def recipe_from_dict(data: Any) -> GaitRecipe:
    """Build a recipe from plain data; :class:`SpecError` names the field."""
    data = mapping("", data, _RECIPE_KEYS, "a recipe")
    for key in _REQUIRED:
        if key not in data:
            raise SpecError("", f"missing required key {brief(key)}")
    terms = data["terms"]
    if not isinstance(terms, list):
        raise SpecError("terms", f"must be a list of terms, got {brief(terms)}")
    cons = data.get("constraints", [])
    if cons is None or not isinstance(cons, list):
        raise SpecError("constraints", f"must be a list of constraint strings, got {brief(cons)}")
    kwargs: dict[str, Any] = {"terms": tuple(_term(f"terms[{i}]", t) for i, t in enumerate(terms)),
                              "constraints": tuple(cons),
                              "impulses": _control_list(data, "impulses", _IMPULSE_KEYS, ("mode", "size"),
                                                        ModalImpulse),
                              "initial": _control_list(data, "initial", _START_KEYS, ("mode",), ModalStart)}
    for key in ("name", "creature", "description", "rest_pose", "flight", "holding", "still_arms", "posture"):
        if key in data:
            kwargs[key] = data[key]
    for key in ("stiffness_scale", "speed", "arm_swing"):
        if key in data and not (key == "speed" and data[key] is None):
            kwargs[key] = _number(key, data[key])
    return GaitRecipe(**kwargs)


def parse_recipe_text(text: str, source: str, fmt: str = "yaml") -> GaitRecipe:
    """Parse YAML or JSON (``fmt``) text into a recipe; errors name ``source``."""
    return build_from(parse_text(text, source, fmt), source, recipe_from_dict)


def load_recipe(path: str | os.PathLike) -> GaitRecipe:
    """Read a recipe file (``.yaml``, ``.yml`` or ``.json``)."""
    return parse_recipe_text(read_text(path, "recipe"), str(Path(path)), format_of(path))


def dump_recipe(recipe: GaitRecipe, fmt: str = "yaml") -> str:
    """The recipe as YAML (terms one per line) or JSON text."""
    data = recipe_to_dict(recipe)
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    lists = {k: data.pop(k) for k in ("terms", "impulses", "initial") if k in data}
    head = yaml.safe_dump(data, sort_keys=False, default_flow_style=False, width=100)
    body = yaml.safe_dump(lists, sort_keys=False, default_flow_style=None, width=1000)
    return head + body


def save_recipe(recipe: GaitRecipe, path: str | os.PathLike) -> None:
    """Write ``recipe`` atomically; JSON for ``.json``, YAML otherwise."""
    fmt = "json" if str(path).lower().endswith(".json") else "yaml"
    write_text(path, dump_recipe(recipe, fmt))

"""Sketch files (:mod:`gaitforge.optimize.sketch`): YAML or JSON.

::

    name: dog_bound_sketch
    creature: dog
    phases:                          # one cycle, in order
      - {kind: ground, duration: 0.15, favour: [4]}
      - {kind: air, duration: 0.2, favour: [6]}
    avoid: [0, 1]                    # modes whose share of the motion is bounded
    rotation: 15                     # [deg] favoured modes' starting peak joint rotation (default 15)
    barrier: 5                       # [deg] avoided modes' bound, as a peak joint rotation (default 5)
    min_speed: 0.2                   # [body lengths/s] least average speed (default 0.2; 0: none)
    upright: [0.6, 45]               # fallen below 0.6 of the root's rest height or past 45° of tilt (default: none)

Every error is one line naming the file and the field.
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from gaitforge.errors import GaitforgeError, SpecError, brief
from gaitforge.io.documents import build_from, format_of, mapping, parse_text, read_text
from gaitforge.optimize.sketch import KINDS, MAX_PHASES, Sketch, SketchPhase

_KEYS = ("name", "creature", "phases", "avoid", "rotation", "barrier", "min_speed", "upright", "description")
_PHASE_KEYS = ("kind", "duration", "favour")
MAX_MODE = 499


def _number(path: str, value: Any, lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not lo < value <= hi:
        raise SpecError(path, f"must be a number above {lo:g} up to {hi:g}, got {brief(value)}")
    return float(value)


def _modes(path: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > 50:
        raise SpecError(path, f"must be a list of elastic mode indices, got {brief(value)}")
    for i, m in enumerate(value):
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m <= MAX_MODE:
            raise SpecError(f"{path}[{i}]", f"must be a mode index from 0 to {MAX_MODE}, got {brief(m)}")
    if len(set(value)) != len(value):
        raise SpecError(path, f"names a mode twice: {brief(value)}")
    return tuple(value)


def _text(path: str, value: Any) -> str:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise SpecError(path, f"must be a name of 1 to 200 characters, got {brief(value)}")
    return value


def _speed(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value <= 10:
        raise SpecError("min_speed", f"must be a number from 0 to 10 body lengths per second, got {brief(value)}")
    return float(value)


def _upright(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise SpecError("upright", f"must be [height share, tilt in degrees], got {brief(value)}")
    return _number("upright[0]", value[0], 0.0, 1.0), _number("upright[1]", value[1], 0.0, 180.0)


def sketch_from_dict(data: Any) -> Sketch:
    """A :class:`Sketch` from plain data (field errors are :class:`SpecError`)."""
    data = mapping("", data, _KEYS, "a sketch")
    for key in ("creature", "phases"):
        if key not in data:
            raise SpecError("", f"missing required key {brief(key)}")
    phases = data["phases"]
    if not isinstance(phases, list) or not 1 <= len(phases) <= MAX_PHASES:
        raise SpecError("phases", f"must be a list of 1 to {MAX_PHASES} phases, got {brief(phases)}")
    out = []
    for i, p in enumerate(phases):
        where = f"phases[{i}]"
        p = mapping(where, p, _PHASE_KEYS, "a phase")
        for key in _PHASE_KEYS:
            if key not in p:
                raise SpecError(where, f"missing required key {brief(key)}")
        if p["kind"] not in KINDS:
            raise SpecError(f"{where}.kind", f"must be one of {', '.join(KINDS)}, got {brief(p['kind'])}")
        out.append(SketchPhase(p["kind"], _number(f"{where}.duration", p["duration"], 0.0, 10.0),
                               _modes(f"{where}.favour", p["favour"])))
    creature = _text("creature", data["creature"])
    try:
        return Sketch(_text("name", data.get("name", f"{creature}_sketch")), creature, tuple(out),
                      _modes("avoid", data.get("avoid", [])),
                      _number("rotation", data.get("rotation", 15.0), 0.0, 90.0),
                      _number("barrier", data.get("barrier", 5.0), 0.0, 90.0),
                      _speed(data.get("min_speed", 0.2)), _upright(data.get("upright")))
    except SpecError:
        raise
    except GaitforgeError as exc:  # the sketch's own checks (a mode favoured and avoided)
        raise SpecError("", str(exc)) from None


def load_sketch(path: str | os.PathLike) -> Sketch:
    """Read a sketch file (``.yaml``, ``.yml`` or ``.json``)."""
    if Path(path).suffix.lower() not in (".yaml", ".yml", ".json"):
        raise GaitforgeError(f"{path}: unknown sketch file extension {Path(path).suffix.lower() or '(none)'!r} "
                             "(valid: .yaml, .yml, .json)")
    return build_from(parse_text(read_text(path, "sketch file"), str(Path(path)), format_of(path)), str(Path(path)),
                      sketch_from_dict)

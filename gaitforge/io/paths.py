"""Path files for the path-following runners: YAML (or JSON) such as

```yaml
waypoints: [[0, 0], [4, 0], [4, 4], [0, 4]]   # world x, y [m]
speed: 1.0                                    # optional, m/s
loop: true                                    # optional: closed path
```

Errors are :class:`SpecError` with one line naming the file, the field and
the offending value (``square.yaml: waypoints[2][1]: must be a number, got 'a'``).
"""
from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import yaml

from gaitforge.control.raibert.paths import WaypointPath
from gaitforge.errors import SpecError

KEYS = ("waypoints", "speed", "loop")


def _number(path: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(path, f"must be a number, got {value!r}")
    if not math.isfinite(value):
        raise SpecError(path, f"must be a finite number, got {value!r}")
    return float(value)


def path_from_dict(data: Any) -> WaypointPath:
    """Validate the plain-data form of a path file and build the path."""
    if not isinstance(data, dict):
        raise SpecError("", f"must be a mapping with a 'waypoints' list, got {type(data).__name__} {data!r}")
    for key in data:
        if key not in KEYS:
            raise SpecError(str(key), f"unknown key {key!r} (valid keys: {', '.join(KEYS)})")
    if "waypoints" not in data:
        raise SpecError("waypoints", "missing: give a list of [x, y] points in metres")
    points = data["waypoints"]
    if not isinstance(points, list):
        raise SpecError("waypoints", f"must be a list of [x, y] points, got {points!r}")
    if len(points) < 2:
        raise SpecError("waypoints", f"needs at least 2 points, got {len(points)}")
    xy = []
    for i, p in enumerate(points):
        if not isinstance(p, list) or len(p) != 2:
            raise SpecError(f"waypoints[{i}]", f"must be a list [x, y], got {p!r}")
        xy.append((_number(f"waypoints[{i}][0]", p[0]), _number(f"waypoints[{i}][1]", p[1])))
        if i and xy[i] == xy[i - 1]:
            raise SpecError(f"waypoints[{i}]", f"repeats the previous point {p!r}")
    speed = data.get("speed")
    if speed is not None:
        speed = _number("speed", speed)
        if speed <= 0:
            raise SpecError("speed", f"must be a positive speed in m/s, got {data['speed']!r}")
    loop = data.get("loop", False)
    if not isinstance(loop, bool):
        raise SpecError("loop", f"must be true or false, got {loop!r}")
    if loop and xy[0] == xy[-1]:
        raise SpecError("loop", "the last waypoint repeats the first; leave it out, the loop closes itself")
    return WaypointPath(xy, speed=speed, loop=loop)


def parse_path_text(text: str, source: str) -> WaypointPath:
    """Parse YAML (JSON is a subset) into a path; errors name ``source``."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError("", f"{where}malformed YAML: {problem}", source) from None
    try:
        return path_from_dict(data)
    except SpecError as exc:
        raise exc.with_source(source) from None


def load_path(path: str | os.PathLike) -> WaypointPath:
    """Read a path file (``.yaml``, ``.yml`` or ``.json``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError("", "no such file", str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError("", f"cannot read: {exc}", str(p)) from None
    return parse_path_text(text, str(p))

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

import numpy as np

from gaitforge.control.paths import WaypointPath
from gaitforge.creatures.spec_checks import REACH
from gaitforge.errors import SpecError, brief
from gaitforge.inputs import RUN_SPEED
from gaitforge.io.documents import build_from, parse_text, read_text

KEYS = ("waypoints", "speed", "loop")


MAX_POINTS = 10000  # waypoints in a file


def _number(path: str, value: Any, reach: float = REACH) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(path, f"must be a number, got {brief(value)}")
    if not math.isfinite(value):
        raise SpecError(path, f"must be a finite number, got {brief(value)}")
    if abs(value) > reach:
        raise SpecError(path, f"must be within ±{reach:g}, got {brief(value)}")
    return float(value)


def path_from_dict(data: Any) -> WaypointPath:
    """Validate the plain-data form of a path file and build the path."""
    if not isinstance(data, dict):
        raise SpecError("", f"must be a mapping with a 'waypoints' list, got {type(data).__name__} {brief(data)}")
    for key in data:
        if key not in KEYS:
            raise SpecError(str(key), f"unknown key {brief(key)} (valid keys: {', '.join(KEYS)})")
    if "waypoints" not in data:
        raise SpecError("waypoints", "missing: give a list of [x, y] points in metres")
    points = data["waypoints"]
    if not isinstance(points, list):
        raise SpecError("waypoints", f"must be a list of [x, y] points, got {brief(points)}")
    if len(points) < 2:
        raise SpecError("waypoints", f"needs at least 2 points, got {len(points)}")
    if len(points) > MAX_POINTS:
        raise SpecError("waypoints", f"at most {MAX_POINTS} points are supported, got {len(points)}")
    xy = []
    for i, p in enumerate(points):
        if not isinstance(p, list) or len(p) != 2:
            raise SpecError(f"waypoints[{i}]", f"must be a list [x, y], got {brief(p)}")
        xy.append((_number(f"waypoints[{i}][0]", p[0]), _number(f"waypoints[{i}][1]", p[1])))
        if i and xy[i] == xy[i - 1]:
            raise SpecError(f"waypoints[{i}]", f"repeats the previous point {brief(p)}")
    speed = data.get("speed")
    if speed is not None:
        speed = _number("speed", speed, RUN_SPEED.hi)
        if speed <= 0:
            raise SpecError("speed", f"must be a positive speed in m/s, got {brief(data['speed'])}")
    loop = data.get("loop", False)
    if not isinstance(loop, bool):
        raise SpecError("loop", f"must be true or false, got {brief(loop)}")
    if loop and xy[0] == xy[-1]:
        raise SpecError("loop", "the last waypoint repeats the first; leave it out, the loop closes itself")
    return WaypointPath(np.array(xy, dtype=float), speed=speed, loop=loop)


def parse_path_text(text: str, source: str) -> WaypointPath:
    """Parse YAML (JSON is a subset) into a path; errors name ``source``."""
    return build_from(parse_text(text, source), source, path_from_dict)


def load_path(path: str | os.PathLike) -> WaypointPath:
    """Read a path file (``.yaml``, ``.yml`` or ``.json``)."""
    return parse_path_text(read_text(path, "path file"), str(Path(path)))

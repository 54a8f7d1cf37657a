"""Values entering the library: the range of every argument the public API
(:mod:`gaitforge.api`) and the command line take, and the checks both use,
so that ``gf.run(seconds=nan)`` and ``gaitforge run --seconds nan`` are
refused alike, before any work, in one line::

    gaitforge: error: run: argument --seconds: must be a number above 0 up to 3600, got 'nan'
    gf.run(...): GaitforgeError("seconds: must be a number above 0 up to 3600, got nan")

The CLI only parses text into numbers (:mod:`gaitforge.cli.args`, with the
same :class:`Span` objects); everything else is checked here or in the
readers (:mod:`gaitforge.io`)."""
from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass
from typing import Any

from gaitforge.creatures import spec_checks
from gaitforge.errors import GaitforgeError, brief


def plain(x: float) -> str:
    """1000000 rather than 1e+06."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


@dataclass(frozen=True)
class Span:
    """A closed range of numbers [lo, hi] (``above``: lo excluded);
    ``integer``: whole numbers only."""

    lo: float
    hi: float
    integer: bool = False
    above: bool = False

    def describe(self) -> str:
        """``a number above 0 up to 3600``, ``a whole number from 1 to 500``."""
        kind = "a whole number" if self.integer else "a number"
        if self.above:
            return f"{kind} above {plain(self.lo)} up to {plain(self.hi)}"
        return f"{kind} from {plain(self.lo)} to {plain(self.hi)}"

    def holds(self, value: float) -> bool:
        return (math.isfinite(value) and self.lo <= value <= self.hi and not (self.above and value == self.lo)
                and not (self.integer and value != int(value)))

    def check(self, name: str, value: Any):
        """``value`` as a float (an int for whole numbers) if it is a real
        number (not a bool) in the span; else :class:`GaitforgeError`
        ``name: must be … , got …``."""
        ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if ok:
            try:
                number = float(value)
            except (OverflowError, ValueError):  # a huge integer, or a real that will not convert
                ok = False
            else:
                ok = self.holds(number)
        if not ok:
            raise GaitforgeError(f"{name}: must be {self.describe()}, got {brief(value)}")
        return int(number) if self.integer else number


# ------------------------------------------------------------ the ranges
ANIMATE_SECONDS = Span(0, 600, above=True)        # [s] a kinematic clip
FPS = Span(0, 240, above=True)                    # frames per second
ANIMATE_MODES = Span(1, 500, integer=True)        # modes a gait is suggested from
MODE_COUNT = Span(1, 10000, integer=True)         # modes computed (gf.modes, gaitforge modes --count)
ANIMATE_SPEED = Span(0, 50, above=True)           # [m/s] animate --speed (and each end of a ramp)
FROUDE = Span(0, 100, above=True)                 # V²/(g h)
STIFFNESS_SCALE = Span(0, 1e6, above=True)        # factor on every spring
RUN_SECONDS = Span(0, 3600, above=True)           # [s] simulated
RUN_SPEED = Span(0, 20)                           # [m/s] commanded
SCALE = Span(0.05, 20)                            # dynamic scaling factor L (RH91 Table 1)
TURN_RATE = Span(-3, 3)                           # [rad/s]
MAX_DEVIATION = Span(0, 90, above=True)           # [deg] tune --max-deviation
TIMESTEP = Span(*spec_checks.TIMESTEP)            # [s] a physics step asked for (sim.physics.TIMESTEP_RANGE)
RAYLEIGH = Span(0, 1e6)                           # α [1/s], β [s] of Rayleigh damping
PUSH_PHASES = Span(1, 16, integer=True)           # push start points per stride
MAX_NAME = 4096                                   # characters of a name or path


# ------------------------------------------------------------ checks
def flag(name: str, value: Any) -> bool:
    """``value`` if it is True or False."""
    if not isinstance(value, bool):
        raise GaitforgeError(f"{name}: must be True or False, got {brief(value)}")
    return value


def text(name: str, value: Any) -> str:
    """A non-empty name of at most MAX_NAME characters without NUL."""
    if not isinstance(value, str) or not value or len(value) > MAX_NAME or "\0" in value:
        raise GaitforgeError(f"{name}: must be a non-empty name, got {brief(value)}")
    return value


def optional_text(name: str, value: Any) -> str | None:
    """None, or :func:`text`."""
    if value is None:
        return None
    if not isinstance(value, str) or not value or len(value) > MAX_NAME or "\0" in value:
        raise GaitforgeError(f"{name}: must be a non-empty name or None, got {brief(value)}")
    return value


def path_or_name(name: str, value: Any) -> str:
    """A built-in name or a file path (str or os.PathLike), as text."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
        if isinstance(value, bytes):
            value = os.fsdecode(value)
    if not isinstance(value, str) or not value or len(value) > MAX_NAME or "\0" in value:
        raise GaitforgeError(f"{name}: must be a built-in name or a file path, got {brief(value)}")
    return value


def character(name: str, value: Any, *, optional: bool = False):
    """A :class:`~gaitforge.creatures.character.Character` (None if ``optional``)."""
    from gaitforge.creatures.character import Character

    if value is None and optional:
        return None
    if not isinstance(value, Character):
        raise GaitforgeError(f"{name}: must be a Character (from gf.creature), got {brief(value)}")
    return value


def clip(name: str, value: Any):
    """A :class:`~gaitforge.motion.clip.MotionClip`."""
    from gaitforge.motion.clip import MotionClip

    if not isinstance(value, MotionClip):
        raise GaitforgeError(f"{name}: must be a MotionClip (from gf.animate or gf.run), got {brief(value)}")
    return value


def speed_profile(name: str, value: Any):
    """``animate``'s speed: a number in :data:`ANIMATE_SPEED`, a ramp (from,
    to) of two, (time, speed) points with increasing times in [0, 600] s, or
    a callable V(t)."""
    if callable(value):
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return ANIMATE_SPEED.check(name, value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
        return tuple(ANIMATE_SPEED.check(f"{name}[{i}]", v) for i, v in enumerate(value))
    if isinstance(value, (tuple, list)) and 2 <= len(value) <= 10000 and all(
            isinstance(p, (tuple, list)) and len(p) == 2 for p in value):
        points = [(Span(0, ANIMATE_SECONDS.hi).check(f"{name}[{i}][0]", t), ANIMATE_SPEED.check(f"{name}[{i}][1]", v))
                  for i, (t, v) in enumerate(value)]
        if any(b[0] <= a[0] for a, b in zip(points, points[1:])):
            raise GaitforgeError(f"{name}: the (time, speed) points' times must increase")
        return points
    raise GaitforgeError(f"{name}: must be a speed [m/s], a ramp (from, to), (time, speed) points or a "
                         f"callable V(t), got {brief(value)}")


def run_speed(entry, speed: float | None, path=None) -> float | None:
    """The speed [m/s] a run of registry ``entry`` is asked for: ``speed``
    (checked, within :data:`RUN_SPEED`), else the path's own, else None
    (the entry's default: ``control.entry.Entry.speed_for``, which also
    refuses a speed outside the gait's range)."""
    if speed is not None:
        return RUN_SPEED.check("speed", speed)
    if path is not None and getattr(path, "speed", None) is not None:
        return RUN_SPEED.check("the path's speed", path.speed)
    return None


def schedule(name: str, value: Any, seconds: float):
    """A skills runner's command schedule: a non-empty sequence of
    ``Command(at, gait, speed)``, times in [0, seconds] increasing from 0,
    speeds in :data:`RUN_SPEED`."""
    from gaitforge.control.skills.commands import Command

    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not 1 <= len(value) <= 10000:
        raise GaitforgeError(f"{name}: must be a list of 1 to 10000 Command(at, gait, speed), got {brief(value)}")
    for i, c in enumerate(value):
        if not isinstance(c, Command):
            raise GaitforgeError(f"{name}[{i}]: must be a Command(at, gait, speed), got {brief(c)}")
        Span(0, seconds).check(f"{name}[{i}].at", c.at)
        text(f"{name}[{i}].gait", c.gait)
        RUN_SPEED.check(f"{name}[{i}].speed", c.speed)
    return list(value)


def waypoint_path(name: str, value: Any):
    """None, a :class:`~gaitforge.control.paths.WaypointPath`, or a
    path file (``.yaml``/``.yml``/``.json``, str or os.PathLike: returned
    as text, for ``io.paths.load_path``)."""
    from gaitforge.control.paths import WaypointPath

    if isinstance(value, (str, os.PathLike)):
        return path_or_name(name, value)
    if value is not None and not isinstance(value, WaypointPath):
        raise GaitforgeError(f"{name}: must be a WaypointPath (gaitforge.io.paths.load_path), a path file or None, "
                             f"got {brief(value)}")
    return value


def push_speeds(entry, speeds: Any) -> list[float]:
    """The commanded speeds [m/s] of a push table of registry ``entry``:
    finite numbers inside its gait's range; None: the table's default
    speeds (``sim.push.default_speeds``)."""
    if speeds is None:
        from gaitforge.sim.push import default_speeds

        return default_speeds(entry)
    if isinstance(speeds, (str, bytes)) or not hasattr(speeds, "__iter__"):
        raise GaitforgeError(f"speeds: must be a list of speeds [m/s], got {brief(speeds)}")
    out = [RUN_SPEED.check(f"speeds[{i}]", v) for i, v in enumerate(speeds)]
    if not out or len(out) > 100:
        raise GaitforgeError(f"speeds: give 1 to 100 speeds, got {len(out)}")
    return [float(entry.speed_for(v)) for v in out]

"""One record per skills creature: everything its controller is tuned with."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gaitforge.control.skills.params import SkillParams


@dataclass(frozen=True)
class SkillCreature:
    """A creature's skills tuning, as data: ``key`` (the creature and runner
    name), ``params`` (physics, gains and the gait set), ``speed_ranges``
    (gait → (lo, hi) commanded speeds [m/s] offered), ``gain_sets`` (name →
    overrides of ``params``; "ours" is ``params`` as tuned), ``accel``
    [m/s²] (how fast a new speed command is followed), and the gait and
    speed [m/s] a run takes when none is asked."""

    key: str
    params: SkillParams
    speed_ranges: Mapping[str, tuple[float, float]]
    gain_sets: Mapping[str, Mapping[str, Any]]
    accel: float
    default_gait: str
    default_speed: float

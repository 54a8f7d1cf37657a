"""The skills runners (dog, gorilla) as ``gaitforge.sim.catalog.Runner``
entries, and the one preparation that serves them: build the creature, its
controller with a command schedule, and simulate with ``gaitforge.sim.run``.

Speed ranges are the commanded speeds [m/s] each gait holds for 60 s of
simulated time within 10 % (``tests/test_skills_gaits.py``)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from gaitforge.control.paths import WaypointPath
from gaitforge.control.skills.commands import Command, Commander
from gaitforge.control.skills.creature import SkillCreature
from gaitforge.control.skills.dog import DOG
from gaitforge.control.skills.gorilla import GORILLA
from gaitforge.control.skills.controller import SkillController
from gaitforge.control.skills.params import SkillParams
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.sim.catalog import Runner
from gaitforge.sim.runner import Rollout, run

# Every skills creature's tuning, one record each (its own module holds the data and the notes on
# how it was tuned); the tables below are read from them.
CREATURES: dict[str, SkillCreature] = {c.key: c for c in (GORILLA, DOG)}
PARAMS = {key: c.params for key, c in CREATURES.items()}
GAINS: dict[str, Mapping[str, Mapping[str, Any]]] = {key: c.gain_sets for key, c in CREATURES.items()}
SPEED_RANGES = {key: c.speed_ranges for key, c in CREATURES.items()}
ACCEL = {key: c.accel for key, c in CREATURES.items()}


def params(name: str, gains: str = "ours") -> SkillParams:
    """``name``'s ``SkillParams`` under its gain set ``gains`` (``GAINS``)."""
    key = runner(name).key
    sets = GAINS[key]
    if gains not in sets:
        raise UnknownNameError(f"{name} has no gain set {gains!r} (gain sets: {', '.join(sets)})")
    return replace(PARAMS[key], **sets[gains])


def _make(key: str):
    def make(character: Character, gait: str, speed: float, *, scale: float = 1.0,
             path: WaypointPath | None = None, turn_rate: float = 0.0,
             schedule: Sequence[Command] | None = None, gains: str = "ours") -> SkillController:
        commands = list(schedule) if schedule else [Command(0.0, gait, speed)]
        for c in commands:
            RUNNERS[key].check_gait(c.gait)
        return SkillController(character, params(key, gains), Commander(commands, ACCEL[key], turn_rate, path))
    return make


RUNNERS: dict[str, Runner] = {
    key: Runner(key, key, dict(c.speed_ranges), c.default_gait, c.default_speed, paths=True, scalable=False,
                make=_make(key))
    for key, c in CREATURES.items()
}


def runner(name: str) -> Runner:
    """The skills runner of ``name`` (dog or gorilla)."""
    if name not in RUNNERS:
        raise UnknownNameError(f"no skills controller for {name!r} (creatures with one: {', '.join(RUNNERS)})")
    return RUNNERS[name]


def simulate(name: str, gait: str, speed: float, seconds: float, *, turn_rate: float = 0.0,
             path: WaypointPath | None = None, schedule: Sequence[Command] | None = None,
             perturb: Callable | None = None, progress: Callable[[float], None] | None = None,
             stop_on_fall: bool = True, gains: str = "ours",
             timestep: float | None = None) -> tuple[Character, Rollout]:
    """Run ``name``'s skills controller: ``gait`` at ``speed`` [m/s] (or a
    ``schedule`` of commands), turning at ``turn_rate`` [rad/s] or following
    ``path``, for ``seconds`` of simulated time, under the gain set
    ``gains`` (``GAINS``). Speeds outside the gait's range are refused.
    ``timestep`` [s] replaces the creature's physics step (it must divide
    the 10 ms control interval)."""
    r = runner(name)
    r.check_gait(gait)
    params(name, gains)  # an unknown gain set is refused before any work
    for c in schedule or [Command(0.0, gait, speed)]:
        r.check_gait(c.gait)
        lo, hi = r.speed_range(c.gait)
        if not lo - 1e-9 <= c.speed <= hi + 1e-9:
            raise GaitforgeError(f"{name} {c.gait}: speed {c.speed:g} m/s is outside its range {lo:g}–{hi:g} m/s")
    character = Character.from_spec(registry.build(r.creature))
    assert r.make is not None
    controller = r.make(character, gait, speed, path=path, turn_rate=turn_rate, schedule=schedule, gains=gains)
    return character, run(character, controller, seconds, perturb=perturb, progress=progress,
                          stop_on_fall=stop_on_fall, timestep=timestep)

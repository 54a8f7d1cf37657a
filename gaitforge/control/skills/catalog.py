"""The skills runners (dog, gorilla) as ``gaitforge.sim.catalog.Runner``
entries, and the one preparation that serves them: build the creature, its
controller with a command schedule, and simulate with ``gaitforge.sim.run``.

Speed ranges are the commanded speeds [m/s] each gait holds for 60 s of
simulated time within 10 % (``tests/test_skills_gaits.py``)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from gaitforge.control.raibert.paths import WaypointPath
from gaitforge.control.skills import gaits
from gaitforge.control.skills.commands import Command, Commander
from gaitforge.control.skills.controller import SkillController
from gaitforge.control.skills.params import SkillParams
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.sim.catalog import Runner
from gaitforge.sim.runner import Rollout, run

PARAMS = {
    "gorilla": SkillParams(gaits.GORILLA),
    # The dog weighs a fifth of the gorilla: its speed force is scaled with its mass.
    # Its physics: under the discrete integrator its rear paws' stance (by their
    # contacts) shortened from 0.67 of the stride to 0.51-0.61, so it keeps
    # implicitfast at 2 ms; with 2-3 paws in contact against 80 DOFs, PGS (which
    # works in the contacts' few dimensions) solves it about 1.7x faster than
    # Newton (BENCHMARKS.md).
    "dog": SkillParams(gaits.DOG, kv=300.0 * 31.4 / 157.0, timestep=0.002, integrator="implicitfast",
                       solver="pgs"),
}

# Named gain sets per creature, as data: overrides of its PARAMS (the
# push command's and API's ``gains``). "ours" is PARAMS as tuned. "thesis"
# runs the gorilla's joint servos at kp_scale 1 — the builder's load-based
# stiffness itself — instead of our 3x (the value the controller's first cut
# chose and kept): the servo gains the push table is compared at beside
# Wang 2011. The thesis' own per-joint gains are not recorded in this
# package (the builder's stiffnesses are our choice, from the static load);
# everything else (the body wrench, friction) stays ours. At our 10 ms
# discrete step those soft servos do not hold every gait (the DS walk at
# 0.3 m/s fell at 2.2 s); "-2ms" sets also run the physics at 2 ms with
# implicitfast (the gorilla's step before the discrete integrator), where
# they do: "thesis-2ms" is the thesis' gains, "ours-2ms" ours, at that step.
_FINE = {"timestep": 0.002, "integrator": "implicitfast"}
GAINS: dict[str, dict[str, Mapping[str, Any]]] = {
    "gorilla": {"ours": {}, "thesis": {"kp_scale": 1.0}, "ours-2ms": dict(_FINE),
                "thesis-2ms": {"kp_scale": 1.0, **_FINE}},
    "dog": {"ours": {}},
}


def params(name: str, gains: str = "ours") -> SkillParams:
    """``name``'s ``SkillParams`` under its gain set ``gains`` (``GAINS``)."""
    key = runner(name).key
    sets = GAINS[key]
    if gains not in sets:
        raise UnknownNameError(f"{name} has no gain set {gains!r} (gain sets: {', '.join(sets)})")
    return replace(PARAMS[key], **sets[gains])


SPEED_RANGES = {
    "gorilla": {"stand": (0.0, 0.0), "ds_walk": (0.0, 0.6), "trot": (0.0, 0.6)},
    # The dog's ends are speeds that held 60 s from all of twelve starts (the rest pose and eleven
    # with every joint moved by 1e-6 rad; README), and so did every 0.1 m/s between them. Beyond:
    # the walk at 0.1 and 0.8 m/s fell in 1 and 2 of 12; the trot (its leg frames 3 cm lower,
    # gaits) at 1.4 in 1 of 12, at 50 s (at the rest pose's heights it held from 0.6 to 1.4 but
    # fell once at 1.2, and at 0.4 and 0.5 in 5 and 1 of 12). The pace, its leg frames 3 cm lower
    # and its stance servos at 0.2, held at every 0.1 m/s from 0.1 to 1.2 m/s (within 4 % of the
    # command); 1.4 held 2 of 5 (stopped after three falls), 1.6 none of 3 (before, at the rest
    # pose's heights and 0.15, it held 0.6 m/s from 11 of 12 and was offered there only). The
    # canter held at every 0.1 m/s from 0.3 to 1.1 m/s, its footfalls a canter each time
    # (0.3 m/s 8 % fast, 1.1 m/s 7.6 % slow); beyond, 0.2 m/s ran 20 % fast, 1.2 held 10 of 12 (one
    # fell at 36 s, one read as a gallop: flight, both pairs split by at most 0.3 cycle). The
    # gallop held at every 0.05 m/s from 1.3 to 1.5 m/s, a gallop each time (rest-pose starts
    # airborne 2.8 % of the stride at 1.3, 8.5 % at 1.5 m/s; up to 9.2 % slow, at 1.4); 1.6 m/s
    # fell in each of 3 starts. With 0.3 s strides throughout, 1.3-1.4 held 12 of 12, 1.2 9 of 12
    # (one fell at 20 s, two read as unknown) and 1.5 fell in each of 3 starts (at 37-50 s).
    "dog": {"stand": (0.0, 0.0), "walk": (0.2, 0.7), "trot": (0.4, 1.3), "pace": (0.1, 1.2),
            "canter": (0.3, 1.1), "gallop": (1.3, 1.5)},
}

# m/s²: how fast a new speed command is followed. The dog at 0.5 m/s² fell in its first
# strides in 2 of 7 starts of a 0.5 m/s walk (front leg frame nosing down at 2.7 s); at 0.3 every
# start of its walk at 0.1 … 0.8 m/s and of its trot held 60 s.
ACCEL = {"gorilla": 0.3, "dog": 0.3}


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
    key: Runner(key, key, SPEED_RANGES[key], "ds_walk" if key == "gorilla" else "trot",
                0.3 if key == "gorilla" else 0.8, paths=True, scalable=False, make=_make(key))
    for key in ("gorilla", "dog")
}


def runner(name: str) -> Runner:
    """The skills runner of ``name`` (dog or gorilla)."""
    if name not in RUNNERS:
        raise UnknownNameError(f"no skills controller for {name!r} (creatures with one: {', '.join(RUNNERS)})")
    return RUNNERS[name]


def simulate(name: str, gait: str, speed: float, seconds: float, *, turn_rate: float = 0.0,
             path: WaypointPath | None = None, schedule: Sequence[Command] | None = None,
             perturb: Callable | None = None, progress: Callable[[float], None] | None = None,
             stop_on_fall: bool = True, gains: str = "ours") -> tuple[Character, Rollout]:
    """Run ``name``'s skills controller: ``gait`` at ``speed`` [m/s] (or a
    ``schedule`` of commands), turning at ``turn_rate`` [rad/s] or following
    ``path``, for ``seconds`` of simulated time, under the gain set
    ``gains`` (``GAINS``). Speeds outside the gait's range are refused."""
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
                          stop_on_fall=stop_on_fall)

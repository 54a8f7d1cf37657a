"""The skills runners (dog, gorilla) as ``gaitforge.sim.catalog.Runner``
entries, and the one preparation that serves them: build the creature, its
controller with a command schedule, and simulate with ``gaitforge.sim.run``.

Speed ranges are the commanded speeds [m/s] each gait holds for 60 s of
simulated time within 10 % (``tests/test_skills_gaits.py``)."""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable, Mapping, Sequence

from gaitforge.control.paths import WaypointPath
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
    # Both at 2 ms under implicitfast: the speed and stride of every gait move by under 5 % at 1 and
    # 0.5 ms (benchmarks/convergence.py). The gorilla's former 10 ms discrete step pushed its feet
    # 44-57 mm into the ground and lost its waypoint path under another BLAS kernel.
    # Its contacts at a 12 ms time constant (the creature's own is 20 ms): its feet sank 17-23 mm, more than
    # half their 35 mm radius; at 12 ms 10-16 mm (benchmarks/convergence.py, docs/physics.md).
    "gorilla": SkillParams(gaits.GORILLA, timestep=0.002, integrator="implicitfast", contact_timeconst=0.012),
    # The dog weighs a fifth of the gorilla: its speed force is scaled with its mass.
    # Its physics: under the discrete integrator its rear paws' stance (by their
    # contacts) shortened from 0.67 of the stride to 0.51-0.61, so it keeps
    # implicitfast at 2 ms; with 2-3 paws in contact against 80 DOFs, PGS (which
    # works in the contacts' few dimensions) solves it about 1.7x faster than
    # Newton (BENCHMARKS.md).
    # Its contacts at an 8 ms time constant (the creature's own is 20 ms): at 20 ms its walk, canter and
    # gallop sank 28-31 mm, the 20 mm cap of a lower leg bone at the paw ("heel") touching; at 8 ms only
    # the 45 mm paws touch, 8-19 mm deep at mid-range speeds (benchmarks/convergence.py). At 10 ms the
    # walk's paws sank 20 mm, a quiet 0.65 m/s walk fell at 5.2 s and perturbed walks lost starts
    # (0.425 m/s: 19 of 20 held, 0.65: 13 of 20); at 12 ms the heel touched again. At 8 ms the walk
    # holds up to 0.425 m/s and the gallop, re-tuned (gaits.DOG), 1.3 m/s (SPEED_RANGES).
    "dog": SkillParams(gaits.DOG, kv=300.0 * 31.4 / 157.0, timestep=0.002, integrator="implicitfast",
                       solver="pgs", contact_timeconst=0.008),
}

# Named gain sets per creature, as data: overrides of its PARAMS (the
# push command's and API's ``gains``). "ours" is PARAMS as tuned. "thesis"
# runs the gorilla's joint servos at kp_scale 1 — the builder's load-based
# stiffness itself — instead of our 3x (the value the controller's first cut
# chose and kept): the servo gains the push table is compared at beside
# Wang 2011. The thesis' own per-joint gains are not recorded in this
# package (the builder's stiffnesses are our choice, from the static load);
# everything else (the body wrench, friction) stays ours. The "-10ms" sets
# run the gorilla's former physics, one 10 ms step of MuJoCo's discrete
# integrator per control tick, for comparison (docs/physics.md): there the
# thesis' soft servos do not hold every gait (the DS walk at 0.3 m/s fell
# at 2.2 s).
_COARSE = {"timestep": 0.01, "integrator": "discrete", "contact_timeconst": 0.0}  # its former contacts too
GAINS: dict[str, dict[str, Mapping[str, Any]]] = {
    "gorilla": {"ours": {}, "thesis": {"kp_scale": 1.0}, "ours-10ms": dict(_COARSE),
                "thesis-10ms": {"kp_scale": 1.0, **_COARSE}},
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
    # Each end and the middle of every range held 60 s from 20 of 20 perturbed starts (joints
    # ±0.01 rad, start speed ±5 %, friction ×0.8–1.2; benchmarks/robustness.py, docs/physics.md).
    # and its footfalls read as the gait every time. Just beyond: the dog's pace at 1.2 m/s held 18
    # of 20 (falls at 13.6 and 30 s), its gallop at 1.45 19 of 20 (and ran up to 10.6 % slow), at
    # 1.5 17 of 20; its canter held every start up to 1.1 m/s, but from 0.7 m/s some read as a
    # gallop (0.7: 5 of 20, 1.1: 9 of 20).
    # Under the joint limits (sim.limits: each drive clipped to 3 m g L) the walk at 0.7 m/s held 19 of 20
    # (a fall at 35.1 s, its rear shin's drive clipped 0.5 s before; without limits 20 of 20); 0.65 held 20 of 20.
    # Since the dog's contacts are at 8 ms (PARAMS) its walk at 0.65 m/s held 16 of 20 and at 0.6 15 of 20
    # (falls from 3.6 s), so the walk ends at 0.425; its gallop (stance hips re-tuned, gaits.DOG) holds
    # only 1.3 m/s (1.35: 2 of 20 read as no gait class; 1.4: 16 of 20 held). With main's torque-speed
    # envelope (sim.limits) merged, the pace at 1.1, 1.0, 0.9 and 0.8 m/s held 0 of 20 (falls from 4 s),
    # 0.7 10 of 20; 0.1, 0.35 and 0.6 held 20 of 20, so the pace ends at 0.6.
    "dog": {"stand": (0.0, 0.0), "walk": (0.2, 0.425), "trot": (0.4, 1.3), "pace": (0.1, 0.6),
            "canter": (0.3, 0.6), "gallop": (1.3, 1.3)},
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

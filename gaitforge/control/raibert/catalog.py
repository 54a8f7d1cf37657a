"""One entry point for the three RH91 creatures: build the character, its
controller and the model copy it runs on, and simulate.

Each creature's controller module keeps its own timing (the kangaroo needs a
1 ms physics step, the robots run at their tuned steps); this module hides
that so the CLI and the report treat them alike.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Callable

import mujoco

from gaitforge.control.raibert import biped, kangaroo, quadruped, quadruped_gains
from gaitforge.control.raibert.paths import WaypointPath
from gaitforge.control.raibert.scaled import (
    scale_gains,
    scale_model_contacts,
    scale_spec,
)
from gaitforge.control.raibert.scaling import factor
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.sim.runner import Rollout, run


@dataclass(frozen=True)
class Runner:
    """How to run one RH91 creature: registry name, gaits with speed ranges
    [m/s], the default gait and speed, and whether it follows paths."""

    key: str
    creature: str
    speed_ranges: dict[str, tuple[float, float]]
    default_gait: str
    default_speed: float
    paths: bool
    scalable: bool


RUNNERS: dict[str, Runner] = {
    "biped": Runner("biped", "raibert_biped", dict(biped.SPEED_RANGES), "run", 1.5, True, True),
    "quadruped": Runner("quadruped", "raibert_quadruped", dict(quadruped_gains.SPEED_RANGES), "trot", 1.5,
                        True, True),
    "kangaroo": Runner("kangaroo", "kangaroo", dict(kangaroo.SPEED_RANGES), "hop", 3.0, False, True),
}


def runner(key: str) -> Runner:
    """The entry for ``biped``, ``quadruped`` or ``kangaroo``."""
    try:
        return RUNNERS[key]
    except KeyError:
        raise UnknownNameError(f"unknown runner {key!r} (choose from {', '.join(RUNNERS)})") from None


def _check_gait(r: Runner, gait: str) -> None:
    if gait not in r.speed_ranges:
        raise UnknownNameError(f"{r.key} has no gait {gait!r} (valid gaits: {', '.join(r.speed_ranges)})")


def prepare(key: str, gait: str, speed: float, *, path: WaypointPath | None = None, scale: float = 1.0,
            **options):
    """(character, controller, model, control_dt) for a run. ``speed`` is the
    unscaled desired speed; a scaled creature is asked for speed × √L."""
    r = runner(key)
    _check_gait(r, gait)
    if path is not None and not r.paths:
        raise GaitforgeError(f"{key} does not follow paths (paths work for: "
                             f"{', '.join(k for k, v in RUNNERS.items() if v.paths)})")
    if scale != 1.0 and not r.scalable:
        raise GaitforgeError(f"{key} cannot be scaled (scaling works for: "
                             f"{', '.join(k for k, v in RUNNERS.items() if v.scalable)})")
    if not scale > 0:
        raise GaitforgeError(f"scale must be positive, got {scale!r}")
    spec = registry.build(r.creature)
    character = Character.from_spec(spec if scale == 1.0 else scale_spec(spec, scale))
    if scale != 1.0:
        scale_model_contacts(character.model, scale)
    v = speed * factor("velocity", scale)
    if key == "biped":
        if scale != 1.0:
            options["gains"] = scale_gains(options.get("gains") or biped.BipedGains(), scale)
        ctrl = biped.make_controller(character, gait, v, path=path, **options)
        model, dt = copy.copy(character.model), ctrl.control_dt
    elif key == "quadruped":
        if scale != 1.0:
            gains = options.pop("gains", None) or dict(quadruped_gains.GAIT_GAINS)
            options["gains"] = {g: scale_gains(gg, scale) for g, gg in gains.items()}
        ctrl = quadruped.make_controller(character, gait, v, path=path, **options)
        model, dt = ctrl.simulation_model(), ctrl.control_dt
    else:
        gains = scale_gains(options.pop("gains", None) or kangaroo.KangarooGains(), scale)
        ctrl = kangaroo.make_controller(character, gait, v, gains=gains, **options)
        model = copy.copy(character.model)
        model.opt.timestep = ctrl.g.timestep
        dt = ctrl.g.control_dt
    return character, ctrl, model, dt


def fall_check(key: str, character: Character) -> Callable[[mujoco.MjData], str | None]:
    module = {"biped": biped, "quadruped": quadruped, "kangaroo": kangaroo}[runner(key).key]
    return module.fall_check(character)


def simulate(key: str, gait: str, speed: float, seconds: float, *, path: WaypointPath | None = None,
             scale: float = 1.0, record_fps: float = 100.0, **options) -> tuple[Character, Rollout]:
    """Run ``key``'s ``gait`` at ``speed`` [m/s] for ``seconds`` of simulated
    time; returns the character (scaled if asked) and the recorded rollout."""
    character, ctrl, model, dt = prepare(key, gait, speed, path=path, scale=scale, **options)
    fps = min(record_fps, 1.0 / dt)
    rollout = run(character, ctrl, seconds, control_dt=dt, record_fps=fps,
                  fall_check=fall_check(key, character), model=model)
    return character, rollout

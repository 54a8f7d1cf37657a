"""The RH91 runners as a table (``gaitforge.sim.catalog.Runner`` entries) and
the one preparation that serves them all: build the creature (scaled if
asked), its controller, and simulate with ``gaitforge.sim.run``.

Each controller carries its own run settings (control interval, physics
step, fall check: ``gaitforge.sim.controller``), so adding a controller is
a package and one entry here.
"""
from __future__ import annotations

from gaitforge.control.raibert import biped, kangaroo, quadruped
from gaitforge.control.raibert.quadruped import gains as quadruped_gains
from gaitforge.control.paths import WaypointPath
from gaitforge.control.raibert.scaled import scale_model_contacts, scale_spec
from gaitforge.control.raibert.scaling import factor
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import UnknownNameError
from gaitforge.sim.catalog import Runner, check_options
from gaitforge.sim.controller import run_settings
from gaitforge.sim.runner import Rollout, run

RUNNERS: dict[str, Runner] = {
    "biped": Runner("biped", "raibert_biped", dict(biped.SPEED_RANGES), "run", 1.5, paths=True, scalable=True,
                    make=biped.make_controller),
    "quadruped": Runner("quadruped", "raibert_quadruped", dict(quadruped_gains.SPEED_RANGES), "trot", 1.5,
                        paths=True, scalable=True, make=quadruped.make_controller),
    "kangaroo": Runner("kangaroo", "kangaroo", dict(kangaroo.SPEED_RANGES), "hop", 3.0, paths=False,
                       scalable=True, make=kangaroo.make_controller),
}


def runner(name: str) -> Runner:
    """The entry for a creature with a controller, by its registry name
    (``raibert_biped``, ``raibert_quadruped``, ``kangaroo``) or its family
    name (``biped``, ``quadruped``)."""
    for r in RUNNERS.values():
        if name in (r.key, r.creature):
            return r
    names = ", ".join(r.creature for r in RUNNERS.values())
    raise UnknownNameError(f"no simulated controller for {name!r} (creatures with one: {names}; "
                           f"also by family: {', '.join(k for k in RUNNERS if k not in names.split(', '))})")


def prepare(key: str, gait: str, speed: float, *, path: WaypointPath | None = None, scale: float = 1.0,
            timestep: float | None = None, **options):
    """(character, controller, model, control_dt) for a run: the model is the
    run's copy prepared by the controller. ``speed`` is the unscaled desired
    speed; a scaled creature is asked for speed × √L."""
    r = runner(key)
    r.check_gait(gait)
    check_options(RUNNERS, r, path=path, scale=scale)
    spec = registry.build(r.creature)
    character = Character.from_spec(spec if scale == 1.0 else scale_spec(spec, scale))
    if scale != 1.0:
        scale_model_contacts(character.model, scale)
        options["scale"] = scale
    if path is not None:
        options["path"] = path
    assert r.make is not None  # every runner in RUNNERS builds its controller
    ctrl = r.make(character, gait, speed * factor("velocity", scale), **options)
    dt, model, _ = run_settings(ctrl, character.model, timestep=timestep)
    return character, ctrl, model, dt


def simulate(key: str, gait: str, speed: float, seconds: float, *, path: WaypointPath | None = None,
             scale: float = 1.0, record_fps: float = 100.0, progress=None, perturb=None,
             timestep: float | None = None, **options) -> tuple[Character, Rollout]:
    """Run ``key``'s ``gait`` at ``speed`` [m/s] for ``seconds`` of simulated
    time; returns the character (scaled if asked) and the recorded rollout
    (``progress``, ``perturb``: see :func:`gaitforge.sim.run`; ``timestep``
    [s] replaces the controller's physics step)."""
    character, ctrl, model, dt = prepare(key, gait, speed, path=path, scale=scale, timestep=timestep, **options)
    return character, run(character, ctrl, seconds, record_fps=min(record_fps, 1.0 / dt), model=model,
                          progress=progress, perturb=perturb)

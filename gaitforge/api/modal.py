"""The API's physically simulated modal control (Kry 2012): a modal gait
recipe simulated in MuJoCo, its physics, the distance landscape over
magnitude × phase, CMA-ES optimization by shooting with a cyclic
constraint, and sketch-guided control (§4.5): sketch files and the start
recipe a sketch gives (:mod:`gaitforge.api`)."""
from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any, NamedTuple

from gaitforge import inputs
from gaitforge.creatures.character import Character

if TYPE_CHECKING:
    from gaitforge.control.modal.measures import Summary
    from gaitforge.control.modal.physics import ModalPhysics
    from gaitforge.control.modal.rollout import ModalRollout
    from gaitforge.motion.recipe import GaitRecipe
    from gaitforge.optimize import Landscape, ModalProblem, Result, Settings


def sketch(path: str | os.PathLike):
    """A sketch file (YAML/JSON, :mod:`gaitforge.io.sketch_files`): the
    cycle's air and ground phases with the modes to favour in each, and the
    modes to avoid; a :class:`gaitforge.optimize.sketch.Sketch`."""
    from gaitforge.io.sketch_files import load_sketch

    return load_sketch(inputs.path_or_name("path", path))


def sketch_recipe(made, character: Character):
    """The start recipe a sketch (from :func:`sketch`) gives ``character``,
    the creature it names: each favoured mode peaking in the middle of its
    phase (:meth:`gaitforge.optimize.sketch.Sketch.recipe`)."""
    from gaitforge.errors import GaitforgeError, brief
    from gaitforge.modal import compute_modes
    from gaitforge.optimize.sketch import Sketch

    if not isinstance(made, Sketch):
        raise GaitforgeError(f"sketch: must be a Sketch (from gf.sketch), got {brief(made)}")
    character = inputs.character("character", character)
    if made.creature != character.name:
        raise GaitforgeError(f"the sketch is for {made.creature!r}, not {character.name!r}")
    return made.recipe(character, compute_modes(character, count=max(made.modes + made.avoid) + 1))


# ------------------------------------------------------------------ recipes and physics
def hand_set(name: str) -> GaitRecipe:
    """The hand-set modal gait of built-in creature ``name`` (worm: a crawl,
    loop: a roll; :mod:`gaitforge.control.modal.presets`); raises
    ``GaitforgeError`` naming the creatures that have one."""
    from gaitforge.control.modal.presets import hand_set as recipe

    return recipe(inputs.text("name", name))


def modal_recipe(character: Character, path: str | os.PathLike | None = None) -> GaitRecipe:
    """The modal gait recipe to simulate ``character`` with: the recipe
    file ``path`` (YAML or JSON), or without one the creature's hand-set
    gait (:func:`hand_set`; a creature without one is refused)."""
    from gaitforge.control.modal.presets import names

    character = inputs.character("character", character)
    if path:
        from gaitforge.api.motion import load_recipe
        return load_recipe(path)
    if character.name in names():
        return hand_set(character.name)
    from gaitforge.errors import GaitforgeError
    raise GaitforgeError(f"{character.name} has no hand-set modal gait; give a recipe file")


def suggest_recipe(character: Character, gait: str) -> GaitRecipe:
    """The recipe the gait heuristics (Kry09) suggest for ``gait`` (one of
    :func:`gaitforge.api.gaits`) on ``character``, chosen from its lowest
    elastic modes: a start for :func:`optimize_gait`."""
    from gaitforge.motion.heuristics import suggest

    return suggest(inputs.character("character", character), inputs.text("gait", gait))


class PhysicsSummary(NamedTuple):
    """What a modal run of a creature integrates with (:func:`physics_summary`)."""

    settings: str   # MuJoCo's settings as the prepared model holds them (``sim.physics.Physics``)
    limits: str     # the joint drive's torque, force and speed limits (``control.modal.physics.JointLimits``)
    why: str        # where the settings come from
    measured: bool  # whether modal physics was measured for the creature (False: the defaults)


def modal_physics(character: Character, timestep: float | None = None) -> ModalPhysics:
    """The physics a modal run of ``character`` uses
    (:class:`gaitforge.control.modal.physics.ModalPhysics`: step [s],
    integrator, contact model): the creature's measured one (or the
    defaults), with ``timestep`` [s] replacing the step (the contact model
    stays)."""
    from gaitforge.control.modal.physics import physics_for

    character = inputs.character("character", character)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    return physics_for(character, timestep)


def physics_summary(character: Character, physics: ModalPhysics) -> PhysicsSummary:
    """What a modal run of ``character`` with ``physics`` (from
    :func:`modal_physics`) integrates with, in words: MuJoCo's settings,
    the joint limits, why, and whether the physics was measured."""
    import copy

    from gaitforge.control.modal.physics import is_checked, limits
    from gaitforge.sim.physics import Physics

    character = inputs.character("character", character)
    m = copy.copy(character.model)
    physics.apply(m)
    return PhysicsSummary(str(Physics.of(m)), str(limits(character, physics)), physics.why, is_checked(character))


# ------------------------------------------------------------------ simulation
RAMP = 0.5  # [s] the amplitude fade-in of a simulated modal gait (the hand-set gaits')


class ModalRun(NamedTuple):
    """A simulated modal gait (:func:`simulate`)."""

    run: ModalRollout  # the recorded run: clip, rollout, distance [m], displacement [m], divergence, limits, bases
    summary: Summary   # distance, speed [m/s], work [J], cost of transport, cycle residual, peaks, …
    limits_text: str   # one line: peak joint torque and speed against their limits, deepest contact


def simulate(character: Character, recipe: GaitRecipe, seconds: float = 5.0, *, physics: ModalPhysics | None = None,
             contact_bases: bool = False) -> ModalRun:
    """Simulate modal gait ``recipe`` (springs pulling the rest pose along
    the recipe's modes) on ``character`` in MuJoCo for ``seconds`` [s] (at
    most 3600), its amplitude faded in over :data:`RAMP`; ``physics`` from
    :func:`modal_physics` (default the creature's); ``contact_bases``:
    while feet touch the ground, drive the modes of the creature with
    those feet pinned (Kry 2012 §3.5). The summary's cycles are those of
    the stride (the lowest frequency), not of a harmonic."""
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.measures import limits_report, summarize
    from gaitforge.motion.recipe import GaitRecipe

    character = inputs.character("character", character)
    if not isinstance(recipe, GaitRecipe):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"recipe: must be a GaitRecipe (from gf.modal_recipe), got {brief(recipe)}")
    seconds = inputs.Span(0, 3600, above=True).check("seconds", seconds)
    r = run_recipe(character, recipe, seconds, ramp=RAMP, physics=physics,
                   contact_bases=inputs.flag("contact_bases", contact_bases))
    s = summarize(r, character.mass)
    return ModalRun(r, s, limits_report(s, r.limits))


def save_modal_traces(path: str | os.PathLike, character: Character, run: ModalRun) -> None:
    """Write the energy and contact traces of ``run`` (from :func:`simulate`)
    of ``character`` to ``path`` as CSV, atomically (the path is not
    checked or claimed as a command's output: the caller's)."""
    from gaitforge.io.modal_traces import save_traces

    if not isinstance(run, ModalRun):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"run: must be a ModalRun (from gf.simulate), got {brief(run)}")
    save_traces(inputs.character("character", character), run.run, path)


# ------------------------------------------------------------------ landscape
def landscape(name: str, *, grid: int = 16, max_magnitude: float | None = None, frequency: float | None = None,
              seconds: float = 5.0, workers: int | None = None, ray: str | None = None,
              progress=None) -> Landscape:
    """Distance travelled over activation magnitude × phase (Kry 2012
    Fig. 4) of built-in creature ``name``'s hand-set gait (:func:`hand_set`)
    on its two lowest modes: ``grid`` × ``grid`` cells (2 to 200), each
    simulated for ``seconds`` [s] without stopping at the joint limits;
    magnitudes (modal units) from ``max_magnitude`` / ``grid`` up to
    ``max_magnitude`` (default 2.5 × the hand-set amplitude), phases from 0
    to 2π (not included) [rad], at ``frequency`` [Hz] (default the hand-set
    gait's). Cells run on ``workers`` processes (None: all cores) or a Ray
    cluster (``ray``: "auto" or an address); ``progress(done)`` [cells]."""
    import numpy as np

    from gaitforge.optimize import ModalProblem
    from gaitforge.optimize import landscape as scan
    from gaitforge.sim.batch import check_workers

    recipe = hand_set(name)
    grid = inputs.Span(2, 200, integer=True).check("grid", grid)
    amax = 2.5 * max(t.amplitude for t in recipe.terms) if max_magnitude is None else max_magnitude
    amax = inputs.Span(0, 1e6, above=True).check("max_magnitude", amax)
    freq = inputs.Span(0, 1000, above=True).check("frequency", recipe.terms[0].frequency if frequency is None
                                                   else frequency)
    seconds = inputs.Span(0, 3600, above=True).check("seconds", seconds)
    check_workers(workers)
    ray = inputs.optional_text("ray", ray)
    problem = ModalProblem(name, modes=(0, 1), seconds=seconds, strict_limits=False)  # a map: no limit stops
    mags = np.linspace(amax / grid, amax, grid)
    phases = np.linspace(0.0, 2.0 * math.pi, grid, endpoint=False)
    return scan(problem, mags, phases, freq, workers=workers, ray=ray, progress=progress)


def save_landscape(landscape: Landscape, csv_path: str | os.PathLike, png_path: str | os.PathLike) -> None:
    """Write ``landscape`` (from :func:`landscape`) as a CSV table (one row
    per cell: magnitude, phase [rad, deg], distance [m], dx [m], cycle
    residual, status) and a PNG heat map, each atomically (the paths are
    not checked or claimed as a command's outputs: the caller's)."""
    from gaitforge.io.landscape_files import save_landscape_csv, save_landscape_png

    save_landscape_csv(landscape, csv_path)
    save_landscape_png(landscape, png_path)


# ------------------------------------------------------------------ optimization
def cyclic_tolerance() -> float:
    """The cycle residual an optimized modal gait may have by default
    (:func:`optimize_settings`' ``cyclic_tol``; inf: no constraint)."""
    from gaitforge.control.modal.measures import CYCLIC_TOLERANCE

    return CYCLIC_TOLERANCE


def modal_problem(source: Any, start: GaitRecipe, *, seconds: float = 5.0, name: str | None = None,
                  impulses=(), initial=(), heading: float | None = None,
                  upright: tuple[float, float] | None = None, timestep: float | None = None, halved: bool = True,
                  contact_bases: bool = False, avoid: tuple[int, ...] = (), barrier: float = 5.0,
                  min_travel: float = 0.0) -> ModalProblem:
    """The shooting problem of optimizing ``start`` (a modal gait recipe):
    :class:`gaitforge.optimize.ModalProblem` on the creature ``source`` (a
    built-in name or a picklable callable building it:
    :func:`gaitforge.api.creature_source`), over the recipe's terms plus a
    once-per-cycle impulse along the elastic modes ``impulses`` and an
    initial offset and velocity along ``initial``; each candidate runs
    ``seconds`` [s] at ``timestep`` [s] (default the creature's modal
    physics) and, with ``halved``, at half of it too (the worse counts);
    ``heading`` [rad from +x] the direction that counts as forward (None:
    any); ``upright`` (height [m], tilt [rad]) below or past which a
    candidate has fallen; ``contact_bases`` as :func:`simulate`; ``avoid``
    modes kept within ``barrier`` [deg] and ``min_travel`` [m] (a sketch's,
    :meth:`gaitforge.optimize.sketch.Sketch.min_travel`)."""
    from gaitforge.optimize import ModalProblem
    from gaitforge.optimize.layout import Layout

    layout = Layout.from_recipe(start, impulses=impulses, initial=initial)
    return ModalProblem(source, layout=layout, seconds=seconds, name=name, heading=heading, upright=upright,
                        timestep=timestep, halved=halved, contact_bases=contact_bases, avoid=avoid, barrier=barrier,
                        min_travel=min_travel)


def start_direction(problem: ModalProblem, start: GaitRecipe) -> float | None:
    """The direction [rad from +x] in which ``start`` travels when ``problem``
    simulates it (one run), or None when it does not travel (under 1 µm)."""
    import numpy as np

    d = problem.rollout(problem.vector(start)).displacement
    if not np.all(np.isfinite(d)) or np.hypot(*d) < 1e-6:
        return None
    return math.atan2(d[1], d[0])


def optimize_settings(problem: ModalProblem, start: GaitRecipe, *, objective: str = "distance", budget: int = 200,
                      seed: int = 1, cyclic_tol: float | None = None, popsize: int = 0, sigma: float = 0.25,
                      outer: int = 3) -> Settings:
    """CMA-ES settings (:class:`gaitforge.optimize.Settings`) for optimizing
    ``start`` in ``problem``: ``objective`` distance, speed or cost (energy
    per distance), ``budget`` simulations in all, random ``seed``, allowed
    cycle residual ``cyclic_tol`` (None: :func:`cyclic_tolerance`; inf: no
    constraint), population ``popsize`` (0: CMA-ES's own), initial step
    ``sigma`` (scaled units) and ``outer`` method-of-multipliers rounds.
    A budget smaller than one generation, or more simulation than one job
    may run, is refused here, before any work."""
    from gaitforge.optimize import Settings
    from gaitforge.optimize.cmaes import check_budget

    settings = Settings(objective=objective, budget=budget, seed=seed,
                        cyclic_tol=cyclic_tolerance() if cyclic_tol is None else cyclic_tol, popsize=popsize,
                        sigma0=sigma, outer=outer)
    check_budget(settings, problem.vector(start).size, problem.steps)
    return settings


def optimize_gait(problem: ModalProblem, start: GaitRecipe, settings: Settings, *, workers: int | None = None,
                  ray: str | None = None, checkpoint: str | os.PathLike | None = None, resume: bool = False,
                  progress=None) -> Result:
    """Optimize ``start`` in ``problem`` (:func:`modal_problem`) by CMA-ES
    shooting with the cyclic constraint (Nunes et al. 2012;
    :func:`gaitforge.optimize.optimize`), candidates simulated on
    ``workers`` processes (None: all cores) or a Ray cluster. With
    ``checkpoint`` (a JSON file) the search is saved as it goes and, with
    ``resume``, continued from it (a killed run, or a finished one given a
    larger budget); a search that finds nothing (``NotMetError``) leaves no
    new checkpoint behind. ``progress(done, total, best)`` [simulations].
    The result's ``x`` makes the recipe: ``problem.recipe(result.x)``."""
    from gaitforge.errors import NotMetError
    from gaitforge.io.checkpoints import JsonCheckpoint
    from gaitforge.optimize import optimize
    from gaitforge.sim.batch import BatchEvaluator

    x0 = problem.vector(start)
    ckpt = None if checkpoint is None else JsonCheckpoint(checkpoint, resume=inputs.flag("resume", resume))
    fresh = ckpt is not None and not ckpt.path.exists()
    try:
        with BatchEvaluator(problem, workers=workers, ray=ray) as ev:
            return optimize(problem, x0, settings, ev, checkpoint=ckpt, progress=progress)
    except NotMetError:
        if fresh and ckpt is not None:  # a run that found nothing leaves nothing behind
            ckpt.path.unlink(missing_ok=True)
        raise

"""The one-import Python API: ``import gaitforge as gf``.

Thin, typed calls into the layers that own the work (the CLI calls the same
layers)::

    import gaitforge as gf
    dog = gf.creature("dog")                     # or a .yaml/.json/.xml/.urdf/.bvh file
    basis = gf.modes(dog, count=8)               # natural vibration modes (ModalBasis)
    clip = gf.animate(dog, "trot", seconds=4)    # kinematic gait (MotionClip)
    print(gf.metrics(clip, dog))                 # duty factors, phases, speed, class
    gf.save(clip, "trot.glb", dog)               # .glb .bvh .mp4 .gif .npz .csv
    character, rollout = gf.run("raibert_quadruped", "bound", speed=2.0, seconds=20)
    character, rollout = gf.run("gorilla", "ds_walk", speed=0.3, seconds=60, turn_rate=0.1)
    character, rollout = gf.run("worm", seconds=5)  # its modal crawl; gf.runners() lists every runner
    table = gf.push("gorilla", "trot", speeds=[0.1, 0.3])   # {speed: largest force [N]}
    gf.push("gorilla", "ds_walk", speeds=[0.3], force=200.0, gains="thesis")  # one force, per-phase verdicts

Every function checks its arguments before any work (the ranges are
:mod:`gaitforge.inputs`', the ones the command line holds its flags to) and
raises :class:`gaitforge.GaitforgeError` (one-line message) for bad input;
a result no valid input makes (a clip whose joints turn round and round) is
a :class:`gaitforge.errors.ResultError`.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from gaitforge import inputs
from gaitforge.creatures.character import Character
from gaitforge.modal import ModalBasis, compute_modes
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.metrics import GaitMetrics
from gaitforge.control.entry import Entry, Run
from gaitforge.sim import Rollout  # noqa: F401  (a public type: a Run's rollout)

if TYPE_CHECKING:
    from gaitforge.motion.ramp import Ramp
    from gaitforge.motion.recipe import GaitRecipe


def creature(name_or_path: str | os.PathLike) -> Character:
    """A built-in creature by name (``gaitforge creatures`` lists them) or a
    creature file: YAML/JSON, MJCF ``.xml``, URDF ``.urdf``, BVH ``.bvh``."""
    from gaitforge.io.creature_files import load_character
    return load_character(inputs.path_or_name("creature", name_or_path))


def creature_names() -> list[str]:
    """The built-in creatures' names (:func:`creature` builds each)."""
    from gaitforge.creatures import registry

    return list(registry.names())


_MODE_OPTIONS = ("constraints", "gravity", "stiffness_scale", "rayleigh", "method")


def modes(character: Character, count: int | None = None, **options) -> ModalBasis:
    """Natural vibration modes (:func:`gaitforge.modal.compute_modes`;
    options: constraints, gravity, stiffness_scale, rayleigh, method)."""
    character = inputs.character("character", character)
    count = None if count is None else inputs.MODE_COUNT.check("count", count)
    return compute_modes(character, count=count, **_mode_options(options))


def _mode_options(options: dict) -> dict:
    """``modes``' options, checked: known names, gravity a bool, the
    stiffness scale and Rayleigh coefficients in range, constraints a list."""
    unknown = [k for k in options if k not in _MODE_OPTIONS]
    if unknown:
        from gaitforge.errors import GaitforgeError
        raise GaitforgeError(f"modes: unknown option {unknown[0]!r} (valid: {', '.join(_MODE_OPTIONS)})")
    out = dict(options)
    if "gravity" in out:
        inputs.flag("gravity", out["gravity"])
    if "stiffness_scale" in out:
        out["stiffness_scale"] = inputs.STIFFNESS_SCALE.check("stiffness_scale", out["stiffness_scale"])
    if "rayleigh" in out:
        pair = out["rayleigh"]
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            from gaitforge.errors import GaitforgeError, brief
            raise GaitforgeError(f"rayleigh: must be a pair (alpha, beta), got {brief(pair)}")
        out["rayleigh"] = tuple(inputs.RAYLEIGH.check(f"rayleigh[{i}]", v) for i, v in enumerate(pair))
    if "constraints" in out:
        cons = out["constraints"]
        if isinstance(cons, (str, bytes)) or not isinstance(cons, (tuple, list)) or len(cons) > 1000:
            from gaitforge.errors import GaitforgeError, brief
            raise GaitforgeError(f"constraints: must be a list of constraints (e.g. ['pin:left_foot']), "
                                 f"got {brief(cons)}")
    if "method" in out:
        inputs.text("method", out["method"])
    return out


def constraint(text: str, character: Character):
    """One extra modal constraint from its text form (``pin:left_foot``,
    ``lock:head``, ``loop:left_hand:right_hand``; bodies by name or
    role/side, e.g. ``pin:foot/left``) for ``character``: a
    :class:`gaitforge.creatures.spec.Constraint` for :func:`modes`'
    ``constraints`` (which also takes the text itself)."""
    from gaitforge.modal import parse_constraint

    return parse_constraint(inputs.text("constraint", text), inputs.character("character", character))


def describe(character: Character, basis: ModalBasis) -> tuple:
    """Plain-words descriptions of ``basis``' elastic modes (a
    :class:`ModalBasis` of ``character``: shapes (nv, k)), one
    :class:`gaitforge.modal.describe.ModeDescription` per mode in basis
    order: index, frequency [Hz], symmetry, name, summary."""
    from gaitforge.modal.describe import describe_modes

    character = inputs.character("character", character)
    if not isinstance(basis, ModalBasis):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"basis: must be a ModalBasis (from gf.modes), got {brief(basis)}")
    return describe_modes(character, basis)


def mode_sheet(path: str | os.PathLike, character: Character, basis: ModalBasis, labels=None) -> None:
    """Write a PNG picture sheet of each mode's extreme poses (``basis``
    from :func:`modes` of ``character``; ``labels`` one line per mode, or
    None for none) to ``path`` (a ``.png``)."""
    from gaitforge.io.mode_sheet import save_mode_sheet

    path = inputs.path_or_name("path", path)
    if not str(path).lower().endswith(".png"):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"path: the picture sheet must be a .png file, got {brief(path)}")
    describe(character, basis)  # (checks both)
    save_mode_sheet(path, character, basis, labels)


def tune(character: Character, max_deviation: float = 5.0):
    """The smallest uniform stiffness scale at which ``character`` holds its
    rest pose under gravity, every joint within ``max_deviation`` [deg] of
    rest (:func:`gaitforge.modal.tuning.tune_stiffness`, simulated in
    MuJoCo): a ``TuningResult`` (scale, confirmed, fell, sag per joint [deg],
    linear estimate, simulations run)."""
    import math

    from gaitforge.modal.tuning import tune_stiffness

    character = inputs.character("character", character)
    return tune_stiffness(character, math.radians(inputs.MAX_DEVIATION.check("max_deviation", max_deviation)))


TYPICAL = "typical"  # animation's froude: the gait's typical Froude number (``gaitforge animate --froude``)


class Animation(NamedTuple):
    """A kinematic gait made by :func:`animation`: the character, the modal
    basis it was made from, the recipe (None for a speed ramp, which
    changes recipes on the way), the clip and, for a speed ramp, the
    :class:`gaitforge.motion.ramp.Ramp` (speeds, Froude numbers, gaits and
    switches per frame)."""

    character: Character
    basis: ModalBasis
    recipe: GaitRecipe | None
    clip: MotionClip
    ramp: Ramp | None = None


def animate(character: Character | str | None, gait: str | None, *, seconds: float = 4.0, fps: float = 60.0,
            count: int | None = None, pin: bool = True, strict: bool = False, speed=None,
            froude: float | str | None = None, recipe=None, flight: bool | None = None) -> MotionClip:
    """A kinematic gait clip (Kry09): :func:`animation`'s clip (the
    arguments are its own)."""
    return animation(character, gait, seconds=seconds, fps=fps, count=count, pin=pin, strict=strict, speed=speed,
                     froude=froude, recipe=recipe, flight=flight).clip


def animation(character: Character | str | None, gait: str | None, *, seconds: float = 4.0, fps: float = 60.0,
              count: int | None = None, pin: bool = True, strict: bool = False, speed=None,
              froude: float | str | None = None, recipe=None, flight: bool | None = None) -> Animation:
    """A kinematic gait (Kry09) with what it was made from: ``gait`` is one
    of the creature kind's gaits (walk, trot, …) or a preset name
    (``dog-trot``, which brings its own creature); or ``recipe``, a gait
    recipe (a :class:`GaitRecipe` or a recipe file) for ``character``. The
    recipe is suggested from the ``count`` lowest modes (default 20; at a
    speed :func:`gaitforge.motion.mode_selection.pool_size`, which adds the
    feet's pitch modes where the feet have soles), the clip grounded and,
    with ``pin``, its stance feet pinned; ``flight`` False keeps a foot on
    the ground in every frame (None: as the gait goes). ``strict``: raise
    :class:`NotMetError` if no recipe passes the gait's footfall check
    (default: a warning). ``speed`` [m/s] or ``froude`` (V²/(g h); "typical":
    the gait's typical one): the gait at that speed, stride length and
    frequency by dynamic similarity
    (:func:`gaitforge.motion.speed.suggest_at_speed`, as ``gaitforge animate
    --speed/--froude``); with either, ``gait`` None picks the gait the
    creature's kind uses at that Froude number. A speed *profile* — a pair
    (from, to) [m/s] ramped over the clip, (time, speed) points, or a
    callable V(t) — makes a ramp that changes gait on the way
    (:func:`gaitforge.motion.ramp.ramp`, as ``--speed FROM:TO``; ``gait``
    must be None). The one dispatch of kinematic gaits: ``gaitforge
    animate`` calls it too."""
    from gaitforge.errors import GaitforgeError
    from gaitforge.io.clipfiles import check_result
    from gaitforge.motion import presets

    gait = inputs.optional_text("gait", gait)
    if character is not None and not isinstance(character, Character):
        character = inputs.path_or_name("character", character)
    seconds = inputs.ANIMATE_SECONDS.check("seconds", seconds)
    fps = inputs.FPS.check("fps", fps)
    count = None if count is None else inputs.ANIMATE_MODES.check("count", count)
    pin, strict = inputs.flag("pin", pin), inputs.flag("strict", strict)
    if flight is not None:
        inputs.flag("flight", flight)
    speed = None if speed is None else inputs.speed_profile("speed", speed)
    if froude is not None and froude != TYPICAL:
        froude = inputs.FROUDE.check("froude", froude)
    p = presets.find(gait) if gait is not None else None
    if p is None and character is None:
        raise GaitforgeError("character: give a creature (or a preset name as the gait), got None")
    if speed is not None and not isinstance(speed, float):
        if gait is not None or froude is not None or recipe is not None or flight is not None:
            raise GaitforgeError("a speed profile picks its own gaits: give gait=None and no froude, recipe "
                                 "or flight")
        out = _ramp(_creature_of(character), speed, seconds, fps, count, pin)
    elif p is not None:
        if recipe is not None:
            raise GaitforgeError(f"{gait} is a preset with its own recipe: drop the recipe")
        if speed is not None or froude is not None:
            raise GaitforgeError(f"{gait} is a preset with its own speed: drop speed/froude")
        char = presets.character(p)
        basis = presets.basis(p, char)
        made = presets.build(p.name, char, basis, pinned=pin, strict=strict)
        out = Animation(char, basis, made, _synthesize(char, basis, made, seconds, fps, pin, flight))
    elif recipe is not None:
        if speed is not None or froude is not None:
            raise GaitforgeError("a recipe has its own speed: drop speed/froude (or give a gait)")
        out = _from_recipe(_creature_of(character), recipe, seconds, fps, count, pin, flight)
    elif speed is not None or froude is not None:
        if flight is False:
            raise GaitforgeError("flight=False does not go with a speed or Froude number (the gait's flight sets "
                                 "its speed)")
        out = _at_speed(_creature_of(character), gait, speed, froude, seconds, fps, count, pin, strict)
    elif gait is None:
        raise GaitforgeError("animate: give a gait, a recipe, or a speed or froude to pick one")
    else:
        from gaitforge.motion import heuristics

        char = _creature_of(character)
        heuristics.check_gait(char, gait)  # name errors before the modal analysis
        basis = compute_modes(char, count=heuristics.POOL if count is None else count)
        made = heuristics.suggest(char, gait, basis, pinned=pin, strict=strict)
        out = Animation(char, basis, made, _synthesize(char, basis, made, seconds, fps, pin, flight))
    check_result(out.character, out.clip, "animation")
    return out


def _creature_of(character) -> Character:
    return creature(character) if isinstance(character, (str, os.PathLike)) else character


def _synthesize(char, basis, recipe, seconds, fps, pin, flight) -> MotionClip:
    from gaitforge.motion.synthesis import synthesize

    return synthesize(char, basis, recipe, seconds, fps, flight=flight, pin_feet=pin)


def _ramp(char: Character, speed, seconds, fps, count, pin) -> Animation:
    """A speed ramp with gait transitions (``animation`` with a profile)."""
    from gaitforge.motion import heuristics
    from gaitforge.motion.mode_selection import pool_size
    from gaitforge.motion.ramp import ramp
    from gaitforge.motion.stride import check_speed

    heuristics.check_gait(char, "walk")
    if isinstance(speed, tuple):
        for v in speed:
            check_speed(char, v)
    basis = compute_modes(char, count=pool_size(char) if count is None else count)
    r = ramp(char, speed, seconds, fps, basis, plant=pin)
    return Animation(char, basis, None, r.clip, r)


def _from_recipe(named: Character, recipe, seconds, fps, count, pin, flight) -> Animation:
    """A recipe (or a recipe file) replayed on its creature (``animation``)."""
    from gaitforge.errors import GaitforgeError
    from gaitforge.motion.recipe import GaitRecipe

    source = None
    if not isinstance(recipe, GaitRecipe):
        from gaitforge.io.recipe_files import load_recipe

        source = inputs.path_or_name("recipe", recipe)
        recipe = load_recipe(source)
    if named.name != recipe.creature:
        where = source if source is not None else f"recipe {recipe.name!r}"
        raise GaitforgeError(f"{where}: the recipe is for {recipe.creature!r}, not {named.name!r} "
                             "(mode numbers name another creature's modes)")
    char = creature(recipe.rest_pose) if recipe.rest_pose else named
    from gaitforge.motion import heuristics

    # by default the modes a gait at speed is made from (the holding's IK uses them all), and at least
    # enough for the recipe's highest, so that a saved recipe replays its clip
    from gaitforge.motion.mode_selection import pool_size

    need = max(pool_size(char, heuristics.POOL), max(recipe.modes) + 1)
    basis = compute_modes(char, count=need if count is None else count, constraints=recipe.constraints,
                          stiffness_scale=recipe.stiffness_scale)
    return Animation(char, basis, recipe, _synthesize(char, basis, recipe, seconds, fps, pin, flight))


def _at_speed(char: Character, gait, speed, froude, seconds, fps, count, pin, strict) -> Animation:
    """The gait at a speed or Froude number (``animation``): the gait asked,
    else the one the creature's kind uses at that Froude number."""
    from gaitforge.errors import GaitforgeError
    from gaitforge.motion import heuristics
    from gaitforge.motion import speed as speeds
    from gaitforge.motion.mode_selection import pool_size
    from gaitforge.motion.stride import check_speed

    typical = froude == TYPICAL
    froude = None if typical else froude
    check_speed(char, speed, froude)  # before the modal analysis
    if gait is None:
        if typical:
            raise GaitforgeError("froude 'typical' is the gait's typical Froude number: give a gait")
        gait = speeds.gait_for_froude(char, speeds.froude_of(char, speed, froude))
    heuristics.check_gait(char, gait)
    basis = compute_modes(char, count=pool_size(char) if count is None else count)
    recipe = speeds.suggest_at_speed(char, gait, basis, speed=speed, froude=froude, pinned=pin, strict=strict)[0]
    return Animation(char, basis, recipe, speeds.synthesize_at_speed(char, basis, recipe, seconds, fps, pinned=pin))


def metrics(clip: MotionClip, character: Character | None = None) -> GaitMetrics:
    """Footfall metrics of ``clip``: stride, duty factors, relative phases,
    speed, Froude number, skate (the gait's name: :func:`gait_class`).
    ``character``: default the built-in creature the clip names."""
    from gaitforge.motion.footfall import detect_footfalls
    from gaitforge.motion.metrics import gait_metrics

    clip = inputs.clip("clip", clip)
    char = inputs.character("character", character, optional=True) or creature(clip.character_name)
    clip.check_character(char)
    return gait_metrics(char, clip, detect_footfalls(char, clip))


def gait_class(clip: MotionClip, character: Character | None = None) -> str:
    """What the footfalls make of ``clip``: walk, trot, pace, bound, gallop,
    canter, pronk, run, hop or unknown."""
    from gaitforge.motion.metrics import classify_gait
    return classify_gait(metrics(clip, character))


def save(clip: MotionClip, path: str | os.PathLike, character: Character | None = None, **options) -> None:
    """Write ``clip`` (format from the extension: .glb .bvh .mp4 .gif .npz
    .csv), atomically; ``character`` defaults to the built-in creature the
    clip names; options go to the writer (e.g. ``width`` for video)."""
    from gaitforge.io.atomic import check_output
    from gaitforge.io.clipfiles import EXPORT_EXTENSIONS, save_motion

    clip = inputs.clip("clip", clip)
    character = inputs.character("character", character, optional=True)
    check_output(path, EXPORT_EXTENSIONS, "motion")
    char = character or creature(clip.character_name)
    save_motion(char, clip, path, **_save_options(path, options))


def load(path: str | os.PathLike, character: Character | None = None) -> MotionClip:
    """A clip :func:`save` wrote as ``.npz`` (frames, rate [fps], the
    creature it names); with ``character``, also checked against it
    (character name, joint names, ``qpos`` size)."""
    from gaitforge.io.clipfiles import load_npz

    return load_npz(inputs.path_or_name("path", path), inputs.character("character", character, optional=True))


_VIDEO: dict[str, type] = {"fps": float, "width": int, "height": int, "camera": str, "progress": object}
_SAVE_OPTIONS: dict[str, dict[str, type]] = {".bvh": {"rotation_order": str, "units": str}, ".mp4": _VIDEO,
                                             ".gif": _VIDEO}


def _save_options(path, options: dict) -> dict:
    """The writer's options for ``path``'s format, checked: known names,
    sizes of video frames from 16 to 4096 pixels, fps as :data:`inputs.FPS`."""
    from pathlib import Path

    from gaitforge.errors import GaitforgeError

    ext = Path(path).suffix.lower()
    valid = _SAVE_OPTIONS.get(ext, {})
    out: dict[str, object] = {}
    for key, value in options.items():
        if key not in valid:
            raise GaitforgeError(f"save: {ext} files take no option {key!r}"
                                 + (f" (valid: {', '.join(valid)})" if valid else ""))
        kind = valid[key]
        if kind is object:  # a progress callback
            if value is not None and not callable(value):
                from gaitforge.errors import brief
                raise GaitforgeError(f"{key}: must be a callable (done, total) or None, got {brief(value)}")
            out[key] = value
        elif kind is str:
            out[key] = inputs.text(key, value)
            if key == "camera":
                from gaitforge.errors import brief
                from gaitforge.io.video import CAMERAS
                if out[key] not in CAMERAS:
                    raise GaitforgeError(f"camera must be one of {', '.join(CAMERAS)}, got {brief(value)}")
        elif kind is bool:
            out[key] = inputs.flag(key, value)
        elif kind is int:
            out[key] = inputs.Span(16, 4096, integer=True).check(key, value)
        else:
            out[key] = inputs.FPS.check(key, value)
    return out


def runners() -> tuple[Entry, ...]:
    """Every runnable (creature, gait) of the controller registry
    (:data:`gaitforge.control.registry.ENTRIES`): key, gait, family, speed
    range [m/s], default speed, whether it stands (can be pushed), the run
    options it takes and its gain sets."""
    from gaitforge.control.registry import ENTRIES

    return ENTRIES


def runner(name: str, gait: str | None = None, *, plots=None, pushed: bool = False) -> Entry:
    """The registry entry of runner ``name`` (a key or an alias) and ``gait``
    (None: its default gait), the one :func:`run` and :func:`push` would
    use; raises ``GaitforgeError`` naming the valid runners or gaits. With
    ``plots`` (a folder) it refuses a runner that has no plots; with
    ``pushed`` one that does not stand (naming those that do)."""
    from gaitforge.control import registry
    from gaitforge.sim.push import check_pushable

    e = registry.entry(inputs.text("name", name), inputs.optional_text("gait", gait))
    registry.check_options(e, {"plots": plots})
    if inputs.flag("pushed", pushed):
        check_pushable(e, registry.standing())
    return e


def runner_names(*, takes: str | None = None, stands: bool = False, aliases: bool = False) -> list[str]:
    """Runner keys in registry order: every one, those that take run option
    ``takes`` ("path", "scale", "turn_rate", "schedule", "plots"), those that
    stand (``stands``: can be pushed); or, with ``aliases``, the other names
    accepted (``biped``, ``quadruped``)."""
    from gaitforge.control import registry

    takes = inputs.optional_text("takes", takes)
    if inputs.flag("aliases", aliases):
        return registry.aliases()
    if inputs.flag("stands", stands):
        return registry.standing()
    return registry.keys() if takes is None else registry.takers(takes)


def push_speeds(name: str, gait: str) -> list[float]:
    """The speeds [m/s] :func:`push` covers when none are asked for
    (:func:`gaitforge.sim.push.default_speeds`)."""
    from gaitforge.sim.push import default_speeds

    return default_speeds(runner(name, gait, pushed=True))


def published_pushes(name: str, gait: str) -> dict[float, float]:
    """The published largest pushes {speed [m/s]: force [N]} of a runner's
    gait (Coros 2011 Table 3.1; {} where none are published)."""
    from gaitforge.sim.push import published

    e = runner(name, gait)
    return published(e.key, e.gait)


def motion_formats() -> tuple[str, ...]:
    """The file extensions :func:`save` writes a clip to (lower case, with the dot)."""
    from gaitforge.io.clipfiles import EXPORT_EXTENSIONS

    return tuple(EXPORT_EXTENSIONS)


def run(name: str, gait: str | None = None, *, speed: float | None = None, seconds: float = 10.0,
        scale: float = 1.0, turn_rate: float = 0.0, path=None, schedule=None, gains: str = "ours",
        timestep: float | None = None, progress=None) -> Run:
    """Simulate any runner of the controller registry (``gaitforge runners``
    lists them; :mod:`gaitforge.control.registry`): a Raibert & Hodgins
    runner (raibert_biped, raibert_quadruped, kangaroo; biped and quadruped
    accepted), a skills runner (dog, gorilla) or a modal gait (worm, loop).
    ``gait`` one of its gaits (default its default), ``speed`` [m/s]
    (default the gait's default; outside the gait's range refused; a modal
    gait takes none), ``seconds`` of simulated time; dynamic ``scale``,
    ``turn_rate`` [rad/s], ``path`` (a ``WaypointPath``) and a
    ``schedule`` of ``skills.commands.Command`` where the runner takes them;
    ``gains`` a named gain set ("ours"; the gorilla also "thesis",
    "ours-10ms", "thesis-10ms"); ``timestep`` [s] replaces the physics step
    (it must divide the control interval; ``rollout.physics`` says what
    ran); ``progress(t)`` is called about once per simulated second.
    Returns a :class:`Run` that unpacks as ``character, rollout``."""
    from gaitforge.control import registry

    name, gait = inputs.text("name", name), inputs.optional_text("gait", gait)
    e = registry.entry(name, gait)
    seconds = inputs.RUN_SECONDS.check("seconds", seconds)
    scale, turn_rate = inputs.SCALE.check("scale", scale), inputs.TURN_RATE.check("turn_rate", turn_rate)
    schedule = inputs.schedule("schedule", schedule, seconds)
    registry.check_options(e, {"path": path, "scale": scale, "turn_rate": turn_rate, "schedule": schedule})
    path = inputs.waypoint_path("path", path)  # (a file is read only for a runner that follows paths)
    if isinstance(path, str):
        from gaitforge.io.paths import load_path

        path = load_path(path)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    gains = inputs.text("gains", gains)
    if progress is not None and not callable(progress):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"progress: must be a callable (t) or None, got {brief(progress)}")
    options = {"path": path, "scale": scale, "turn_rate": turn_rate, "schedule": schedule}
    e.check_gains(gains)
    return e.run(speed=inputs.run_speed(e, speed, path), seconds=seconds, timestep=timestep, gains=gains,
                 progress=progress, **{k: v for k, v in options.items() if k in e.options})


def run_plots(run: Run, folder: str | os.PathLike) -> list:
    """Write the plots of a run whose entry has a gait graph into
    ``folder`` (made if missing): footprints.png (where the feet landed),
    gait_graph.png (the graph the controller followed) and gait_diagram.png
    (the footfalls); returns their paths."""
    from pathlib import Path

    from gaitforge.control import registry
    from gaitforge.io.gait_plots import save_gait_diagram
    from gaitforge.io.skills_plots import footholds, save_footprints, save_gait_graph
    from gaitforge.motion.footfall import detect_footfalls

    if not isinstance(run, Run) or run.entry is None:
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"run: must be a Run (from gf.run), got {brief(run)}")
    e = run.entry
    registry.check_options(e, {"plots": folder})
    assert e.gait_graph is not None and run.speed is not None
    character, rollout = run
    out = Path(inputs.path_or_name("folder", folder))
    ff = detect_footfalls(character, rollout.clip, ground=0.0, height_tol=0.01)
    title = f"{character.name} {e.gait} at {run.speed:g} m/s"
    paths = [out / "footprints.png", out / "gait_graph.png", out / "gait_diagram.png"]
    save_footprints(footholds(character, ff, rollout.clip.qpos), paths[0], f"Footprints: {title}")
    graph, limbs = e.gait_graph(e, run.speed)
    save_gait_graph(graph, limbs, paths[1], f"Gait graph: {title}")
    save_gait_diagram(ff, paths[2], f"Footfalls: {title}")
    return paths


def push(name: str, gait: str, *, speeds=None, phases: int = 4, workers: int | None = None,
         ray: str | None = None, force: float | None = None, gains: str = "ours",
         timestep: float | None = None, progress=None) -> dict:
    """Push recovery (:mod:`gaitforge.sim.push`: a 0.5 s sideways push at the
    pelvis, every phase tried, survival as :data:`gaitforge.sim.push.SURVIVAL`)
    of ``name``'s ``gait`` at each commanded speed [m/s] (default
    :func:`gaitforge.sim.push.default_speeds`); any registry runner that
    stands (a modal crawl does not: refused). Without ``force``: {speed: the
    largest force [N] such that every force on a grid of 2 % of body weight
    up to it survives} (:func:`gaitforge.sim.push.largest_push`). With
    ``force`` [N]: {speed: {"force", "survived", "phases": [per phase:
    start_s, survived, peak_tilt_deg, min_height_m, foreign_contact, fall],
    "criteria"}} (:func:`gaitforge.sim.push.push_at`). ``gains``: a named
    gain set ("ours"; the gorilla also "thesis": its servos at kp_scale 1,
    and "ours-10ms", "thesis-10ms": at its former 10 ms discrete step;
    ``control.skills.catalog.GAINS``); ``timestep`` [s] replaces the
    runner's physics step. Trials run on ``workers`` processes or a Ray
    cluster. ``progress``: see :func:`push_results`."""
    results = push_results(name, gait, speeds=speeds, phases=phases, workers=workers, ray=ray, force=force,
                           gains=gains, timestep=timestep, progress=progress)
    if force is not None:
        return {r.case.speed: r.as_dict() for r in results}
    return {r.case.speed: r.largest for r in results}


def push_results(name: str, gait: str, *, speeds=None, phases: int = 4, workers: int | None = None,
                 ray: str | None = None, force: float | None = None, gains: str = "ours",
                 timestep: float | None = None, progress=None) -> list:
    """:func:`push`'s full results, one per speed: ``sim.push.PushResult``
    (the scan: largest, first failing force, its phases' verdicts, stride,
    trials), or ``sim.push.ForceResult`` with ``force``. ``progress(done,
    speed, force, trials)`` is called as the work advances (``done``: speeds
    finished; ``force`` [N] and ``trials`` of the scan under way, None when
    a speed is finished)."""
    from gaitforge.control import registry
    from gaitforge.sim.batch import check_workers
    from gaitforge.sim.push import PushCase, check_force, check_pushable, largest_push, push_at

    name, gait = inputs.text("name", name), inputs.text("gait", gait)
    e = registry.entry(name, gait)
    check_pushable(e, registry.standing())
    e.check_gains(inputs.text("gains", gains))
    if force is not None:
        force = check_force(force)
    phases = inputs.PUSH_PHASES.check("phases", phases)
    check_workers(workers)
    ray = inputs.optional_text("ray", ray)
    speeds = inputs.push_speeds(e, speeds)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    if progress is not None and not callable(progress):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"progress: must be a callable or None, got {brief(progress)}")
    out: list = []
    for k, v in enumerate(speeds):
        case = PushCase(e, float(v), gains=gains, timestep=timestep)
        if force is not None:
            out.append(push_at(case, force, phases=phases, workers=workers, ray=ray))
        else:
            def advance(f: float, trials: int, k: int = k, v: float = v) -> None:
                if progress is not None:
                    progress(k, v, f, trials)
            out.append(largest_push(case, phases=phases, workers=workers, ray=ray, progress=advance))
        if progress is not None:
            progress(k + 1, v, None, None)
    return out


def balance(name: str, *, seconds: float = 5.0, quick: bool = False, timestep: float | None = None,
            workers: int | None = 1, progress=None):
    """Standing balance with modal displacements (Kry 2012 §4.6) of built-in
    creature ``name``: the largest lateral and forward pushes survived with
    the feedback and without, and standing on ground tilting by ±5°
    (``control.modal.balance_report.BalanceReport``; ``.as_dict()`` is the
    JSON of ``gaitforge balance``). ``seconds`` [s]: how long each run is
    judged after its push (the push protocol's 5 s); ``quick``: a grid of
    10 % of body weight instead of 2 % (coarser, about five times fewer
    runs); ``timestep`` [s] replaces the physics step; ``progress(what)``
    after each scan."""
    from gaitforge.control.modal.balance_report import BalanceSettings, measure
    from gaitforge.creatures import registry
    from gaitforge.sim.batch import check_workers

    name = registry.entry(inputs.text("name", name)).name
    seconds = inputs.Span(0, 600, above=True).check("seconds", seconds)
    quick = inputs.flag("quick", quick)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    check_workers(workers)
    if progress is not None and not callable(progress):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"progress: must be a callable or None, got {brief(progress)}")
    settings = BalanceSettings(after=seconds, step=0.1 if quick else 0.02, timestep=timestep)
    return measure(name, settings, workers=workers, progress=progress)

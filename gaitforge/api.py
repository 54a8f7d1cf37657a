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
from typing import NamedTuple

from gaitforge import inputs
from gaitforge.creatures.character import Character
from gaitforge.modal import ModalBasis, compute_modes
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.metrics import GaitMetrics
from gaitforge.sim import Rollout



def creature(name_or_path: str | os.PathLike) -> Character:
    """A built-in creature by name (``gaitforge creatures`` lists them) or a
    creature file: YAML/JSON, MJCF ``.xml``, URDF ``.urdf``, BVH ``.bvh``."""
    from gaitforge.io.creature_files import load_character
    return load_character(inputs.path_or_name("creature", name_or_path))


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


def animate(character: Character | str, gait: str | None, *, seconds: float = 4.0, fps: float = 60.0,
            count: int | None = None, pin: bool = True, strict: bool = False, speed=None,
            froude: float | None = None) -> MotionClip:
    """A kinematic gait clip (Kry09): ``gait`` is one of the creature kind's
    gaits (walk, trot, …) or a preset name (``dog-trot``); the recipe is
    suggested from the ``count`` lowest modes (default 20; at a speed
    :func:`gaitforge.motion.mode_selection.pool_size`, which adds the feet's
    pitch modes where the feet have soles), the clip grounded and, with
    ``pin``, its stance feet pinned. ``strict``: raise :class:`NotMetError` if
    no recipe passes the gait's footfall check (default: a warning).
    ``speed`` [m/s] or ``froude`` (V²/(g h)): the gait at that speed, stride
    length and frequency by dynamic similarity
    (:func:`gaitforge.motion.speed.suggest_at_speed`, as ``gaitforge animate
    --speed/--froude``); with either, ``gait`` None picks the gait the
    creature's kind uses at that Froude number. A speed *profile* — a pair
    (from, to) [m/s] ramped over the clip, (time, speed) points, or a
    callable V(t) — makes a ramp that changes gait on the way
    (:func:`gaitforge.motion.ramp.ramp`, as ``--speed FROM:TO``; ``gait``
    must be None)."""
    from gaitforge.errors import GaitforgeError
    from gaitforge.io.clipfiles import check_result
    from gaitforge.motion import heuristics, presets
    from gaitforge.motion.mode_selection import pool_size
    from gaitforge.motion.stride import check_speed
    from gaitforge.motion.synthesis import synthesize

    gait = inputs.optional_text("gait", gait)
    if character is not None and not isinstance(character, Character):
        character = inputs.path_or_name("character", character)
    seconds = inputs.ANIMATE_SECONDS.check("seconds", seconds)
    fps = inputs.FPS.check("fps", fps)
    count = None if count is None else inputs.ANIMATE_MODES.check("count", count)
    pin, strict = inputs.flag("pin", pin), inputs.flag("strict", strict)
    speed = None if speed is None else inputs.speed_profile("speed", speed)
    froude = None if froude is None else inputs.FROUDE.check("froude", froude)
    p = presets.find(gait) if gait is not None else None
    if p is None and character is None:
        raise GaitforgeError("character: give a creature (or a preset name as the gait), got None")
    if speed is not None and not isinstance(speed, float):
        from gaitforge.motion.ramp import ramp

        if gait is not None or froude is not None:
            raise GaitforgeError("a speed profile picks its own gaits: give gait=None and no froude")
        char = creature(character) if isinstance(character, (str, os.PathLike)) else character
        heuristics.check_gait(char, "walk")
        if isinstance(speed, tuple):
            for v in speed:
                check_speed(char, v)
        basis = compute_modes(char, count=pool_size(char) if count is None else count)
        clip = ramp(char, speed, seconds, fps, basis, plant=pin).clip
        check_result(char, clip, "animation")
        return clip
    if speed is not None or froude is not None:
        from gaitforge.motion import speed as speeds

        if p is not None:
            raise GaitforgeError(f"{gait} is a preset with its own speed: drop speed/froude")
        char = creature(character) if isinstance(character, (str, os.PathLike)) else character
        check_speed(char, speed, froude)
        if gait is None:
            gait = speeds.gait_for_froude(char, speeds.froude_of(char, speed, froude))
        heuristics.check_gait(char, gait)
        basis = compute_modes(char, count=pool_size(char) if count is None else count)
        recipe = speeds.suggest_at_speed(char, gait, basis, speed=speed, froude=froude, pinned=pin, strict=strict)[0]
        clip = speeds.synthesize_at_speed(char, basis, recipe, seconds, fps, pinned=pin)
        check_result(char, clip, "animation")
        return clip
    if gait is None:
        raise GaitforgeError("animate: give a gait, or a speed or froude to pick one")
    if p is not None:
        char = presets.character(p)
        basis = presets.basis(p, char)
        recipe = presets.build(p.name, char, basis, pinned=pin, strict=strict)
    else:
        char = creature(character) if isinstance(character, (str, os.PathLike)) else character
        heuristics.check_gait(char, gait)
        basis = compute_modes(char, count=heuristics.POOL if count is None else count)
        recipe = heuristics.suggest(char, gait, basis, pinned=pin, strict=strict)
    clip = synthesize(char, basis, recipe, seconds, fps, pin_feet=pin)
    check_result(char, clip, "animation")
    return clip


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


class Run(NamedTuple):
    """A simulated run: the (possibly scaled) character and its rollout
    (``rollout.clip``, ``rollout.fall``)."""

    character: Character
    rollout: Rollout


def run(name: str, gait: str | None = None, *, speed: float | None = None, seconds: float = 10.0,
        scale: float = 1.0, turn_rate: float = 0.0, path=None, schedule=None, gains: str = "ours",
        timestep: float | None = None) -> Run:
    """Simulate a controlled runner: a Raibert & Hodgins controller (``name``
    raibert_biped, raibert_quadruped, kangaroo; biped and quadruped
    accepted) or a quadruped skills controller (dog, gorilla). ``gait`` one
    of its gaits (default its first), ``speed`` [m/s] (default its
    default), ``seconds`` of simulated time; dynamic ``scale`` (Raibert
    runners); ``turn_rate`` [rad/s], ``path`` (a ``WaypointPath``) and a
    ``schedule`` of ``skills.commands.Command`` (skills runners); ``gains``
    a named gain set (``control.skills.catalog.GAINS``: "ours"; the gorilla
    also "thesis", "ours-10ms", "thesis-10ms"); ``timestep`` [s] replaces
    the controller's physics step (it must divide its control interval; the
    run's ``rollout.physics`` says what ran)."""
    from gaitforge.control.skills import catalog as skills
    from gaitforge.errors import GaitforgeError
    from gaitforge.sim.push import check_gains, family_of

    name, gait = inputs.text("name", name), inputs.optional_text("gait", gait)
    seconds = inputs.RUN_SECONDS.check("seconds", seconds)
    scale, turn_rate = inputs.SCALE.check("scale", scale), inputs.TURN_RATE.check("turn_rate", turn_rate)
    path, schedule = inputs.waypoint_path("path", path), inputs.schedule("schedule", schedule, seconds)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    check_gains(name, inputs.text("gains", gains))
    if family_of(name) == "skills":
        if scale != 1.0:
            raise GaitforgeError(f"{name} cannot be scaled (scaling works for the Raibert runners)")
        sr = skills.runner(name)
        g = gait or sr.default_gait
        sr.check_gait(g)
        v = inputs.run_speed(sr, g, speed, path)
        character, rollout = skills.simulate(name, g, v, seconds, turn_rate=turn_rate, path=path,
                                             schedule=schedule, gains=gains, timestep=timestep)
        return Run(character, rollout)
    from gaitforge.control.raibert import catalog

    if turn_rate or schedule is not None:
        raise GaitforgeError(f"turn_rate and schedule work for the skills controllers ({', '.join(skills.RUNNERS)}); "
                             f"{name} follows a path instead")
    r = catalog.runner(name)
    g = gait or r.default_gait
    r.check_gait(g)
    character, rollout = catalog.simulate(r.key, g, inputs.run_speed(r, g, speed, path), seconds, path=path,
                                          scale=scale, timestep=timestep)
    return Run(character, rollout)


def push(name: str, gait: str, *, speeds=None, phases: int = 4, workers: int | None = None,
         ray: str | None = None, force: float | None = None, gains: str = "ours",
         timestep: float | None = None) -> dict:
    """Push recovery (:mod:`gaitforge.sim.push`: a 0.5 s sideways push at the
    pelvis, every phase tried, survival as :data:`gaitforge.sim.push.SURVIVAL`)
    of ``name``'s ``gait`` at each commanded speed [m/s] (default
    :func:`gaitforge.sim.push.default_speeds`); any runner: dog, gorilla or a
    Raibert runner. Without ``force``: {speed: the largest force [N] such that
    every force on a grid of 2 % of body weight up to it survives}
    (:func:`gaitforge.sim.push.largest_push`). With ``force`` [N]: {speed:
    {"force", "survived", "phases": [per phase: start_s, survived,
    peak_tilt_deg, min_height_m, foreign_contact, fall], "criteria"}}
    (:func:`gaitforge.sim.push.push_at`). ``gains``: a named gain set ("ours";
    the gorilla also "thesis": its servos at kp_scale 1, and "ours-10ms",
    "thesis-10ms": at its former 10 ms discrete step; ``control.skills.catalog.GAINS``);
    ``timestep`` [s] replaces the runner's physics step.
    Trials run on
    ``workers`` processes or a Ray cluster."""
    from gaitforge.sim.push import (PushCase, check_force, check_gains, family_of, largest_push,
                                    push_at, runner_of)

    from gaitforge.sim.batch import check_workers

    name, gait = inputs.text("name", name), inputs.text("gait", gait)
    family = family_of(name)
    r = runner_of(name)
    r.check_gait(gait)
    check_gains(name, inputs.text("gains", gains))
    if force is not None:
        force = check_force(force)
    phases = inputs.PUSH_PHASES.check("phases", phases)
    check_workers(workers)
    ray = inputs.optional_text("ray", ray)
    speeds = inputs.push_speeds(r, name, gait, speeds)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    cases = [PushCase(family, r.key, gait, float(v), gains=gains, timestep=timestep) for v in speeds]
    if force is not None:
        return {c.speed: push_at(c, force, phases=phases, workers=workers, ray=ray).as_dict() for c in cases}
    return {c.speed: largest_push(c, phases=phases, workers=workers, ray=ray).largest for c in cases}

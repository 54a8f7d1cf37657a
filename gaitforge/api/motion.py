"""The API's kinematic gaits: clips made from modes (:func:`animation`, one
dispatch for gaits, presets, recipes, speeds and ramps), their footfall
metrics, and clip files (:mod:`gaitforge.api`)."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from gaitforge import inputs
from gaitforge.api.creatures import creature
from gaitforge.creatures.character import Character
from gaitforge.modal import ModalBasis, compute_modes
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.metrics import GaitMetrics

if TYPE_CHECKING:
    from gaitforge.motion.ramp import Ramp
    from gaitforge.motion.recipe import GaitRecipe


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
    (``dog-trot``, which brings its own creature; Kry09's clip, or with
    ``speed`` or ``froude`` its gait at that speed on the preset's pose and
    constraints: :func:`gaitforge.motion.presets.at_speed`); or ``recipe``, a gait
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
        if speed is not None or froude is not None:  # the preset's gait at a speed, on its pose and constraints
            if flight is not None:
                raise GaitforgeError("flight does not go with a speed or Froude number (the gait's flight sets "
                                     "its speed)")
            from gaitforge.motion import speed as speeds

            asked = None if froude == TYPICAL or froude is None else float(froude)
            char, basis, made = presets.at_speed(p.name, speed=speed, froude=asked, pinned=pin, strict=strict)
            out = Animation(char, basis, made, speeds.synthesize_at_speed(char, basis, made, seconds, fps,
                                                                          pinned=pin))
        else:  # Kry09's clip: the heuristics' small-amplitude recipe at the mode frequencies
            pin = pin and p.pinned  # (a preset whose feet cannot be pinned is grounded only)
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


def metrics(clip: MotionClip, character: Character | None = None, footfalls=None) -> GaitMetrics:
    """Footfall metrics of ``clip``: stride, duty factors, relative phases,
    speed, Froude number, skate (the gait's name: :func:`gait_class`).
    ``character``: default the built-in creature the clip names;
    ``footfalls``: the clip's, from :func:`footfalls` (default: detected
    here)."""
    from gaitforge.motion.footfall import Footfalls, detect_footfalls
    from gaitforge.motion.metrics import gait_metrics

    clip = inputs.clip("clip", clip)
    char = inputs.character("character", character, optional=True) or creature(clip.character_name)
    clip.check_character(char)
    if footfalls is not None and not isinstance(footfalls, Footfalls):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"footfalls: must be a clip's Footfalls (from gf.footfalls) or None, got "
                             f"{brief(footfalls)}")
    return gait_metrics(char, clip, detect_footfalls(char, clip) if footfalls is None else footfalls)


def gait_class(clip: MotionClip | GaitMetrics, character: Character | None = None) -> str:
    """What the footfalls make of ``clip`` (or of its :func:`metrics`, a
    :class:`GaitMetrics`): walk, trot, pace, bound, gallop, canter, pronk,
    run, hop or unknown."""
    from gaitforge.motion.metrics import classify_gait
    return classify_gait(clip if isinstance(clip, GaitMetrics) else metrics(clip, character))


def footfalls(clip: MotionClip, character: Character | None = None):
    """When each foot of ``character`` (default the built-in creature the
    clip names) touches the ground in ``clip``: a
    :class:`gaitforge.motion.footfall.Footfalls` (``times`` (T,) [s] of the
    frames, ``contact`` (T, F) bool, ``names`` (F,) of the feet) for
    :func:`metrics` and :func:`gait_diagram`."""
    from gaitforge.motion.footfall import detect_footfalls

    clip = inputs.clip("clip", clip)
    char = inputs.character("character", character, optional=True) or creature(clip.character_name)
    return detect_footfalls(char, clip)


def gait_diagram(path: str | os.PathLike, footfalls, title: str = "Gait diagram", *, marks=()) -> None:
    """Write the gait diagram of ``footfalls`` (from :func:`footfalls`: one
    row per foot, the first on top, its ground contacts as bars over time
    [s]) to ``path`` as PNG, atomically (the path is not checked or claimed
    as a command's output: the caller's); ``marks``: (time [s], label)
    pairs drawn as labelled vertical lines (a ramp's gait switches)."""
    from gaitforge.io.gait_plots import save_gait_diagram
    from gaitforge.motion.footfall import Footfalls

    if not isinstance(footfalls, Footfalls):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"footfalls: must be a clip's Footfalls (from gf.footfalls), got {brief(footfalls)}")
    save_gait_diagram(footfalls, path, inputs.text("title", title), marks=marks)


def gaits(character: Character) -> list[str]:
    """The kinematic gaits :func:`animation` makes for ``character`` (its
    kind's: walk, trot, …; empty for a creature of no known kind)."""
    from gaitforge.motion.heuristics import gaits_for

    return list(gaits_for(inputs.character("character", character)))


def gait_names() -> list[str]:
    """Every kinematic gait's name (a creature takes those of its kind: :func:`gaits`)."""
    from gaitforge.motion.gaits import GAITS

    return list(GAITS)


def gait_speeds(name: str) -> dict[str, tuple[float, float]]:
    """Gait → the (lowest, highest) speed [m/s] measured on built-in
    creature ``name`` (docs/gait_speeds.md; empty where none was)."""
    from gaitforge.motion.gaits import speed_ranges

    return speed_ranges(inputs.text("name", name))


def typical_froudes() -> dict[str, float]:
    """Gait → the Froude number V²/(g h) it is typical at (``froude=TYPICAL``
    in :func:`animation`), for the gaits that have one, slowest first."""
    from gaitforge.motion.gaits import typical_froudes as typical

    return typical()


def presets() -> tuple:
    """The paper's example gaits (Kry09 Fig. 3) in listing order, each a
    :class:`gaitforge.motion.presets.Preset` (name, creature, gait, pose,
    constraints, summary); :func:`animation` takes a name as its gait."""
    from gaitforge.motion.presets import PRESETS

    return tuple(PRESETS)


def preset(name: str):
    """The preset called ``name`` (``dog-trot`` or ``dog_trot``), or None
    (a built-in creature's exact name is never a preset's)."""
    from gaitforge.motion.presets import find

    return find(_name(name))


def _name(name) -> str:
    """A name to look up (any text: one that names nothing is not found)."""
    if not isinstance(name, str):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"name: must be a name, got {brief(name)}")
    return name


def at_typical_speed(name: str, gait: str | None = None) -> bool:
    """Whether :func:`animation` can make preset ``name``, or ``gait`` on
    creature ``name``, at the gait's typical Froude number
    (:func:`typical_froudes`; ``gaitforge animate`` does so unless asked
    otherwise): a gait whose speeds were measured on the creature, for a
    preset one without extra constraints."""
    from gaitforge.motion import presets as known

    found = known.find(_name(name))
    if found is not None:
        return known.has_speed(found)
    return gait is not None and known.natural_froude(name, _name(gait)) is not None


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


def write_clip(character: Character, clip: MotionClip, path: str | os.PathLike, *, fps: float | None = None,
               size: tuple[int, int] | None = None, camera: str | None = None, progress=None) -> None:
    """Write ``clip`` of ``character`` to ``path`` (format from the
    extension, as :func:`save`) where the path is already checked and
    claimed: a temporary file of :func:`gaitforge.io.atomic.atomic_paths`,
    for outputs written together (``gaitforge animate -o … --save-recipe``).
    For a video (:func:`video_settings`' extensions): ``fps`` [frames/s]
    (a GIF at most ``gif_max_fps``), ``size`` (width, height) [pixels],
    ``camera`` (one of ``cameras``) and ``progress(done, total)`` [frames],
    each None for the default; a clip file keeps the clip's own rate and
    takes none of them."""
    from pathlib import Path

    from gaitforge.io.clipfiles import save_motion

    clip = inputs.clip("clip", clip)
    character = inputs.character("character", character)
    ext = Path(path).suffix.lower()
    options: dict[str, object] = {}
    if ext in video_settings().extensions:
        if fps is not None:
            options["fps"] = min(float(fps), video_settings().gif_max_fps) if ext == ".gif" else fps
        if size is not None:
            options.update(width=int(size[0]), height=int(size[1]))
        if camera is not None:
            options["camera"] = camera
        if progress is not None:
            options["progress"] = progress
    save_motion(character, clip, path, **_save_options(path, options))


def load_recipe(path: str | os.PathLike) -> GaitRecipe:
    """A gait recipe file (YAML or JSON, :mod:`gaitforge.io.recipe_files`):
    a kinematic or modal gait's terms (mode, amplitude, phase [rad],
    frequency [Hz], offset) and what it was made for."""
    from gaitforge.io.recipe_files import load_recipe as load

    return load(path)


def save_recipe(recipe: GaitRecipe, path: str | os.PathLike) -> None:
    """Write ``recipe`` to ``path`` atomically: JSON for ``.json``, YAML
    otherwise (the path is not checked or claimed as a command's output:
    the caller's)."""
    from gaitforge.io import recipe_files

    recipe_files.save_recipe(recipe, path)


class VideoSettings(NamedTuple):
    """What a clip's video (:func:`save` to ``.mp4`` or ``.gif``) takes by default."""

    extensions: tuple[str, ...]  # the video formats (lower case, with the dot)
    size: tuple[int, int]        # default frame (width, height) [pixels]
    fps: float                   # default frame rate [frames/s]
    gif_max_fps: float           # a GIF's highest frame rate [frames/s] (browsers slow down faster ones)
    cameras: tuple[str, ...]     # the camera views: follow (the default), side, front


def video_settings() -> VideoSettings:
    """The video formats, default frame size and rate, a GIF's highest rate
    and the camera views (:mod:`gaitforge.io.video`)."""
    from gaitforge.io.video import CAMERAS, GIF_MAX_FPS, VIDEO_EXTENSIONS, VIDEO_FPS, VIDEO_SIZE

    return VideoSettings(tuple(VIDEO_EXTENSIONS), VIDEO_SIZE, VIDEO_FPS, GIF_MAX_FPS, tuple(CAMERAS))


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


def motion_formats() -> tuple[str, ...]:
    """The file extensions :func:`save` writes a clip to (lower case, with the dot)."""
    from gaitforge.io.clipfiles import EXPORT_EXTENSIONS

    return tuple(EXPORT_EXTENSIONS)

"""The API's creatures and modes: built-in or file creatures, their natural
vibration modes, constraints, descriptions, picture sheets and stiffness
tuning (:mod:`gaitforge.api`)."""
from __future__ import annotations

import os
from typing import Any

from gaitforge import inputs
from gaitforge.creatures.character import Character
from gaitforge.modal import ModalBasis, compute_modes


def creature(name_or_path: str | os.PathLike) -> Character:
    """A built-in creature by name (``gaitforge creatures`` lists them) or a
    creature file: YAML/JSON, MJCF ``.xml``, URDF ``.urdf``, BVH ``.bvh``."""
    from gaitforge.io.creature_files import load_character
    return load_character(inputs.path_or_name("creature", name_or_path))


def creature_names() -> list[str]:
    """The built-in creatures' names (:func:`creature` builds each)."""
    from gaitforge.creatures import registry

    return list(registry.names())


def creature_source(name_or_path: str | os.PathLike) -> tuple[Character, Any]:
    """:func:`creature` ``name_or_path``, and a picklable source that worker
    processes rebuild it from (:func:`gaitforge.api.modal_problem`): a
    built-in creature's registry name, or for a creature file a callable
    loading it by its absolute path (so that workers started elsewhere find
    it)."""
    import functools

    from gaitforge.naming import match

    text = inputs.path_or_name("creature", name_or_path)
    name = match(text, creature_names())
    source = name if name else functools.partial(creature, os.path.abspath(text))
    return creature(text), source


def creature_name(name: str) -> str:
    """The registry name of built-in creature ``name`` (``human-run`` or
    ``human_run``); raises ``GaitforgeError`` listing the built-in
    creatures when there is none of that name."""
    from gaitforge.creatures import registry

    if not isinstance(name, str):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"name: must be a built-in creature's name, got {brief(name)}")
    return registry.entry(name).name  # (an empty or odd name is an unknown one: the error lists the valid ones)


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


def summary(character: Character):
    """``character`` in numbers: a
    :class:`gaitforge.creatures.summary.CreatureSummary` (name, bodies,
    joints, DOFs (velocity DOFs, free root included), mass [kg], height [m]
    of the rest pose's top above the ground)."""
    from gaitforge.creatures.summary import summarize

    return summarize(inputs.character("character", character))


def bodies(character: Character) -> list:
    """One :class:`gaitforge.creatures.summary.BodyRow` per body of
    ``character``, in model order: body, mass [kg], joint kind ("fixed" if
    welded), DOFs, side, role, limb."""
    from gaitforge.creatures.summary import body_rows

    return body_rows(inputs.character("character", character))


def still(character: Character):
    """A rendered still of ``character`` in its rest pose, framed from a
    three-quarter view: an RGB image (480, 640, 3) uint8 (height, width,
    channel) for :func:`save_png`."""
    from gaitforge.io.render import render_still

    return render_still(inputs.character("character", character))


def save_png(path: str | os.PathLike, image) -> None:
    """Write an RGB image (H, W, 3) uint8 (from :func:`still`) to ``path``
    as PNG, atomically (the path is not checked or claimed as a command's
    output: the caller's)."""
    from gaitforge.io.images import save_png as save

    save(path, image)


EXPORT_EXTENSIONS = (".yaml", ".yml", ".json", ".xml")


def export(name_or_path: str | os.PathLike, path: str | os.PathLike) -> None:
    """Write the creature ``name_or_path`` (a built-in name or a creature
    file, as :func:`creature` takes) to ``path``: its creature document as YAML
    (``.yaml``, ``.yml``) or JSON (``.json``), or its MuJoCo model as MJCF
    (``.xml``; an MJCF or URDF model file is written in its compiled form).
    The path is checked before any work
    (:func:`gaitforge.io.atomic.check_output`) and written atomically."""
    from pathlib import Path

    from gaitforge.io.atomic import check_output
    from gaitforge.io.spec_files import resolve_spec, save_spec

    check_output(path, EXPORT_EXTENSIONS, "export")
    if not isinstance(name_or_path, (str, os.PathLike)):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"name_or_path: must be a built-in name or a file path, got {brief(name_or_path)}")
    name = os.fsdecode(os.fspath(name_or_path))
    if Path(path).suffix.lower() == ".xml":
        from gaitforge.io.mjcf import save_mjcf

        if name.lower().endswith((".xml", ".urdf")):  # a model: its compiled form
            save_mjcf(creature(name), path)
        else:
            save_mjcf(Character.from_spec(resolve_spec(name)), path)
    else:  # .yaml, .yml or .json (check_output refused the rest)
        save_spec(resolve_spec(name), path)

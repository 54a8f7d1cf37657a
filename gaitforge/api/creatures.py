"""The API's creatures and modes: built-in or file creatures, their natural
vibration modes, constraints, descriptions, picture sheets and stiffness
tuning (:mod:`gaitforge.api`)."""
from __future__ import annotations

import os

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

"""The API's sketch-guided modal control (Kry 2012 §4.5): sketch files and
the start recipe a sketch gives (:mod:`gaitforge.api`)."""
from __future__ import annotations

import os

from gaitforge import inputs
from gaitforge.creatures.character import Character


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

"""MJCF (MuJoCo XML) export of compiled characters."""
from __future__ import annotations

import os

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.io.atomic import write_text


def mjcf_text(character: Character) -> str:
    """The character's model as MJCF text (ground, light and rest keyframe included)."""
    if character.mjspec is None:
        raise GaitforgeError(f"{character.name}: no MjSpec to export (imported models are already MJCF)")
    return character.mjspec.to_xml()


def save_mjcf(character: Character, path: str | os.PathLike) -> None:
    """Write the character as MJCF, atomically."""
    write_text(path, mjcf_text(character))

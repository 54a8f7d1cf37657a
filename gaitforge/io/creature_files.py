"""Any creature a user can name: a built-in name or a file, its format
chosen by the extension — YAML/JSON creature documents, MJCF ``.xml``, URDF
``.urdf`` and BVH ``.bvh`` skeletons."""
from __future__ import annotations

import os
from pathlib import Path

from gaitforge.naming import match
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError

SPEC_EXTENSIONS = (".yaml", ".yml", ".json")
MODEL_EXTENSIONS = (".xml", ".urdf")
SKELETON_EXTENSIONS = (".bvh",)
CREATURE_EXTENSIONS = SPEC_EXTENSIONS + MODEL_EXTENSIONS + SKELETON_EXTENSIONS


def load_character(name_or_path: str | os.PathLike) -> Character:
    """A :class:`Character` from a built-in name or a creature file (format
    from the extension: :data:`CREATURE_EXTENSIONS`). Unknown names list the
    built-in creatures; unknown extensions list the formats."""
    text = os.fspath(name_or_path)
    if match(text, registry.names()):
        return Character.from_spec(registry.build(text))
    ext = Path(text).suffix.lower()
    if ext in SPEC_EXTENSIONS:
        from gaitforge.io.spec_files import load_spec
        return Character.from_spec(load_spec(text))
    if ext in MODEL_EXTENSIONS:
        from gaitforge.io.import_mjcf import load_character_from_mjcf
        return load_character_from_mjcf(text)
    if ext in SKELETON_EXTENSIONS:
        from gaitforge.io.import_bvh import load_creature_from_bvh
        return Character.from_spec(load_creature_from_bvh(text))
    if ext or os.sep in text:
        raise GaitforgeError(f"{text}: unknown creature file extension {ext or '(none)'!r} "
                             f"(valid: {', '.join(CREATURE_EXTENSIONS)})")
    registry.entry(text)  # raises the unknown-creature error listing the built-in names
    raise AssertionError("unreachable")

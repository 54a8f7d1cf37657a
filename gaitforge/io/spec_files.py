"""Creature files: YAML (safe loader only) or JSON, and name-or-path lookup."""
from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from gaitforge.naming import match
from gaitforge.creatures import registry
from gaitforge.creatures.serialize import spec_from_dict, spec_to_dict
from gaitforge.creatures.spec import CreatureSpec
from gaitforge.errors import GaitforgeError
from gaitforge.io.atomic import write_text
from gaitforge.io.documents import build_from, parse_text, read_text


def parse_spec_text(text: str, source: str) -> CreatureSpec:
    """Parse YAML (JSON is a subset) into a spec; errors name ``source``."""
    return build_from(parse_text(text, source), source, spec_from_dict)


def load_spec(path: str | os.PathLike) -> CreatureSpec:
    """Read a creature file (``.yaml``, ``.yml`` or ``.json``)."""
    return parse_spec_text(read_text(path), str(Path(path)))


def dump_spec(spec: CreatureSpec, fmt: str = "yaml") -> str:
    """The spec as YAML or JSON text."""
    data = spec_to_dict(spec)
    if fmt == "json":
        return json.dumps(data, indent=2) + "\n"
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=None, width=100)


def save_spec(spec: CreatureSpec, path: str | os.PathLike) -> None:
    """Write ``spec`` atomically; JSON for ``.json``, YAML otherwise."""
    fmt = "json" if str(path).lower().endswith(".json") else "yaml"
    write_text(path, dump_spec(spec, fmt))


def resolve_spec(name_or_path: str) -> CreatureSpec:
    """A built-in creature by name, or a creature file by path."""
    if match(name_or_path, registry.names()):
        return registry.build(name_or_path)
    if name_or_path.lower().endswith(".bvh"):
        from gaitforge.io.import_bvh import load_creature_from_bvh
        return load_creature_from_bvh(name_or_path)
    if name_or_path.lower().endswith((".xml", ".urdf")):
        raise GaitforgeError(f"{name_or_path}: an MJCF or URDF model has no creature document of its own; "
                             "export it as .xml, or use it directly")
    if name_or_path.lower().endswith((".yaml", ".yml", ".json")) or os.sep in name_or_path:
        return load_spec(name_or_path)
    registry.entry(name_or_path)  # raises the unknown-creature error with the valid names
    raise AssertionError("unreachable")

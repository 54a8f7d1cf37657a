"""Names users type: creatures (``human_run``), presets (``dog-trot``) and
gaits (``jumping_jacks``) are matched with hyphens and underscores counted
alike, so either spelling works everywhere."""
from __future__ import annotations

from typing import Iterable


def match(name: str, valid: Iterable[str]) -> str | None:
    """The name among ``valid`` that ``name`` spells, with ``-`` and ``_``
    counted alike (None if none)."""
    if not isinstance(name, str):
        return None
    key = name.replace("-", "_")
    return next((v for v in valid if v.replace("-", "_") == key), None)

"""Reading the small YAML/JSON documents users write (creatures, recipes,
paths, label overrides): one place for file errors and parse errors, each a
single line naming the file and, where the parser knows it, the position."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Callable, TypeVar

import yaml

from gaitforge.errors import SpecError

T = TypeVar("T")


def read_text(path: str | os.PathLike) -> str:
    """The file's UTF-8 text; a missing or unreadable file is a one-line error."""
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError("", "no such file", str(p)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError("", f"cannot read: {exc}", str(p)) from None


def parse_text(text: str, source: str, fmt: str = "yaml") -> Any:
    """Plain data from YAML (safe loader) or JSON text; errors name ``source``
    and the line and column."""
    try:
        return json.loads(text) if fmt == "json" else yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise SpecError("", f"line {exc.lineno}, column {exc.colno}: malformed JSON: {exc.msg}", source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError("", f"{where}malformed YAML: {problem}", source) from None


def build_from(data: Any, source: str, build: Callable[[Any], T]) -> T:
    """``build(data)``, with any field error attributed to ``source``."""
    try:
        return build(data)
    except SpecError as exc:
        raise exc.with_source(source) from None


def format_of(path: str | os.PathLike) -> str:
    """``json`` for a .json file, else ``yaml``."""
    return "json" if str(path).lower().endswith(".json") else "yaml"

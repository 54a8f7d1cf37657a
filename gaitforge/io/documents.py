"""Reading the small YAML/JSON documents users write (creatures, recipes,
paths, label overrides): one place for file errors and parse errors, each a
single line naming the file and, where the parser knows it, the position.

Documents may be hostile. YAML aliases can make a few lines stand for an
exponentially large tree (a "billion laughs"): the composed document is
measured, aliases expanded, before anything is built from it, and refused
beyond :data:`MAX_NODES` nodes or :data:`MAX_DEPTH` levels. Duplicate mapping
keys are refused (YAML would silently keep the last). Nesting too deep for
the parsers' recursion is an error, not a crash."""
from __future__ import annotations

import json
import os
import re
from typing import Any, Callable, TypeVar

import yaml

from gaitforge.errors import SpecError, brief

T = TypeVar("T")

MAX_NODES = 1_000_000   # scalars, sequences and mappings after alias expansion
MAX_DEPTH = 100         # nesting levels


class _Checks:
    """What our loaders add to PyYAML's safe loader: duplicate keys refused,
    ``1e9`` read as a number (YAML 1.1 wants a dot in a float; people and
    JSON do not)."""

    def construct_mapping(self, node, deep=False):
        seen = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                continue  # the base class reports unhashable keys
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {_short(repr(key))} (first at line {seen[key] + 1})",
                    key_node.start_mark)
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep)


class _Loader(_Checks, yaml.SafeLoader):
    """The pure-Python loader: its messages are the ones users see."""


_LIBYAML = hasattr(yaml, "CSafeLoader")
_FAST_BASE: Any = yaml.CSafeLoader if _LIBYAML else yaml.SafeLoader


class _FastLoader(_Checks, _FAST_BASE):
    """libyaml's parser where PyYAML has it (about 10x faster on large
    documents); a document it refuses is read again by :class:`_Loader` for
    the message, so messages never depend on the installation."""


_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")
for _cls in (_Loader, _FastLoader):
    # A resolver table of our own (PyYAML shares the per-character lists with the parent class).
    _cls.yaml_implicit_resolvers = {k: list(v) for k, v in _cls.yaml_implicit_resolvers.items()}
    _cls.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+0123456789"))


def _short(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _measure(node, source: str) -> None:
    """Refuse a composed YAML document larger than MAX_NODES once its aliases
    are expanded, or deeper than MAX_DEPTH (shared nodes counted once each
    time they are used, memoized so that measuring stays cheap)."""
    sizes: dict[int, tuple[int, int]] = {}
    stack = [(node, False)]
    while stack:  # post-order without recursion: deep documents cannot overflow it
        n, done = stack.pop()
        if id(n) in sizes:
            continue
        children = [c for pair in n.value for c in pair] if isinstance(n, yaml.MappingNode) else \
            list(n.value) if isinstance(n, yaml.SequenceNode) else []
        if not done:
            stack.append((n, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
            continue
        size = 1 + sum(sizes[id(c)][0] for c in children)
        depth = 1 + max((sizes[id(c)][1] for c in children), default=0)
        if size > MAX_NODES:
            raise SpecError("", f"the document expands to more than {MAX_NODES:,} values (YAML aliases "
                                "nested inside each other?); refused", source)
        if depth > MAX_DEPTH:
            raise SpecError("", f"the document nests deeper than {MAX_DEPTH} levels; refused", source)
        sizes[id(n)] = (size, depth)


def _load(loader_class, text: str, source: str) -> Any:
    loader = loader_class(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _measure(node, source)
        return loader.construct_document(node)
    finally:
        loader.dispose()


def _yaml(text: str, source: str) -> Any:
    if not _LIBYAML:
        return _load(_Loader, text, source)
    try:
        return _load(_FastLoader, text, source)
    except yaml.YAMLError:
        return _load(_Loader, text, source)  # the same refusal, in the pure-Python parser's words


def read_text(path: str | os.PathLike, what: str = "creature file") -> str:
    """The file's UTF-8 text: a regular file of at most the size its kind
    ``what`` may have (:data:`gaitforge.io.files.MAX_BYTES`); a missing,
    unreadable, endless or oversized file is a one-line error naming it."""
    from gaitforge.io import files

    return files.read_text(path, what)


def parse_text(text: str, source: str, fmt: str = "yaml") -> Any:
    """Plain data from YAML (safe loader) or JSON text; errors name ``source``
    and the line and column."""
    try:
        return json.loads(text) if fmt == "json" else _yaml(text, source)
    except RecursionError:
        raise SpecError("", f"the document nests too deeply to read (more than {MAX_DEPTH} levels are refused)",
                        source) from None
    except json.JSONDecodeError as exc:
        raise SpecError("", f"line {exc.lineno}, column {exc.colno}: malformed JSON: {exc.msg}", source) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if problem.startswith("duplicate key"):
            raise SpecError("", f"{where}{problem}", source) from None
        raise SpecError("", f"{where}malformed YAML: {_short(problem, 160)}", source) from None


def mapping(path: str, data: Any, allowed: tuple[str, ...], what: str) -> dict:
    """``data`` if it is a mapping whose keys are all ``allowed``; else a
    :class:`SpecError` at field ``path`` (``what`` names the thing:
    "a term", "a phase")."""
    if not isinstance(data, dict):
        raise SpecError(path, f"{what} must be a mapping, got {type(data).__name__} {brief(data)}")
    for key in data:
        if key not in allowed:
            where = f"{path}.{key}" if path else str(key)
            raise SpecError(where, f"unknown key {brief(key)} (valid keys: {', '.join(allowed)})")
    return data


def build_from(data: Any, source: str, build: Callable[[Any], T]) -> T:
    """``build(data)``, with any field error attributed to ``source``."""
    try:
        return build(data)
    except SpecError as exc:
        raise exc.with_source(source) from None


def format_of(path: str | os.PathLike) -> str:
    """``json`` for a .json file, else ``yaml``."""
    return "json" if str(path).lower().endswith(".json") else "yaml"

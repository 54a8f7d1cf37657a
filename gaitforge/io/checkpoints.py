"""Optimization checkpoints as data: one JSON document, replaced atomically
after every CMA-ES generation, so a run killed at any moment leaves the last
complete state. Reading one never runs code (no pickle), whoever wrote it.

The document (compact JSON, keys sorted)::

    {"checksum": "<sha256 hex>",
     "format": "gaitforge-optimize-checkpoint",
     "generations": [{"outer": 0, "z": [[...], ...], "scores": [{...}, ...]}, ...],
     "identity": {"creature": ..., "problem": {...}, "x0": [...], "settings": {...}},
     "version": 3}

identity: the run (creature, the problem's layout and parameters, the start
x0 and every setting except the budget, which a resumed run may raise);
generations: one per CMA-ES generation, in order: its outer (augmented
Lagrangian) iteration, the points z it asked (scaled search space) and each
candidate's :class:`~gaitforge.optimize.problem.Score` as an object of its
fields. It holds no optimizer object: CMA-ES is deterministic given its seed
and the values told to it, so ``optimize`` rebuilds its state by replaying
the record (:mod:`gaitforge.optimize.cmaes`).

Numbers are written with Python's ``repr``, which reads back bit for bit;
JSON has no literal for a non-finite float (an infinite cost of transport or
cycle residual), so those are the strings ``"inf"``, ``"-inf"`` and
``"nan"``, read back as numbers only where a field holds a number (a score's
``diverged`` text stays text). ``checksum``: sha256 (hex) of the canonical
JSON (``sort_keys``, separators ``","`` and ``":"``, ASCII) of the document
without it; it catches damage and hand edits, it is no signature.

Reading is bounded: only a regular file (a FIFO, device or folder is refused
before it is opened), at most :data:`MAX_BYTES`, checked before reading; every
problem is a one-line :class:`GaitforgeError` naming the file. Version 1
checkpoints were pickles: they are refused, never unpickled.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import typing
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from gaitforge.errors import GaitforgeError, brief
from gaitforge.io.atomic import write_bytes
from gaitforge.io.files import kind_of
from gaitforge.optimize.cmaes import Generation
from gaitforge.optimize.problem import Score

FORMAT = "gaitforge-optimize-checkpoint"
VERSION = 3  # 3: a score holds the barrier excess of a sketch's avoided modes
MAX_BYTES = 64 * 2 ** 20  # the largest checkpoint read or written
_KEYS = ("checksum", "format", "generations", "identity", "version")
_NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan}
_RESTART = "remove it or drop --resume"


def _score_kinds() -> dict[str, tuple[type, bool]]:
    """(type, may be None) of every :class:`Score` field, from its annotations."""
    hints = typing.get_type_hints(Score)
    kinds = {}
    for name in Score._fields:
        args = typing.get_args(hints[name])
        base = [a for a in args if a is not type(None)] if args else [hints[name]]
        if len(base) != 1 or base[0] not in (float, int, str, bool):
            raise TypeError(f"Score.{name}: checkpoints cannot hold a {hints[name]}")
        kinds[name] = (base[0], type(None) in args)
    return kinds


_SCORE = _score_kinds()


def plain(value: Any) -> Any:
    """``value`` as JSON values: tuples and arrays as lists, numpy scalars as
    Python numbers, non-finite floats as ``"inf"``, ``"-inf"``, ``"nan"``."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isfinite(v):
            return v
        return "nan" if math.isnan(v) else "inf" if v > 0 else "-inf"
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    raise TypeError(f"a checkpoint cannot hold a {type(value).__name__}")


def canonical(doc: Any) -> str:
    """The canonical JSON text of ``doc`` (plain values): what the checksum covers."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _checksum(rest: dict) -> str:
    return _checksum_of_text(canonical(rest))


def _checksum_of_text(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class _Malformed(Exception):
    def __init__(self, where: str, what: str):
        super().__init__(f"{where} {what}")


def _number(value: Any, where: str) -> float:
    if isinstance(value, float):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:
            raise _Malformed(where, f"is out of range, got {brief(value)}") from None
    if isinstance(value, str) and value in _NONFINITE:
        return _NONFINITE[value]
    raise _Malformed(where, f"must be a number, got {brief(value)}")


def _field(value: Any, kind: tuple[type, bool], where: str) -> Any:
    base, optional = kind
    if value is None and optional:
        return None
    if base is float:
        return _number(value, where)
    if isinstance(value, base) and (base is bool or not isinstance(value, bool)):
        return value
    article = "an" if base is int else "a"
    raise _Malformed(where, f"must be {article} {base.__name__}{' or null' if optional else ''}, got {brief(value)}")


def _object(value: Any, keys: Sequence[str], where: str) -> dict:
    if not isinstance(value, dict):
        raise _Malformed(where, f"must be an object, got {brief(value)}")
    for key in value:
        if key not in keys:
            raise _Malformed(where, f"has an unknown field {brief(key)}")
    for key in keys:
        if key not in value:
            raise _Malformed(where, f"lacks the field {key!r}")
    return value


def _list(value: Any, where: str, *, empty: bool = False) -> list:
    if not isinstance(value, list) or (not empty and not value):
        raise _Malformed(where, f"must be a {'' if empty else 'non-empty '}list, got {brief(value)}")
    return value


def encode_score(score: Score) -> dict:
    """A :class:`Score` as a JSON object of its fields."""
    return {name: plain(getattr(score, name)) for name in Score._fields}


def decode_score(value: Any, where: str = "score") -> Score:
    """Inverse of :func:`encode_score` (raises ``_Malformed`` naming ``where``)."""
    obj = _object(value, Score._fields, where)
    return Score(*(_field(obj[name], _SCORE[name], f"{where}.{name}") for name in Score._fields))


def _encode_generation(gen: Generation) -> dict:
    return {"outer": int(gen.outer), "z": plain(np.asarray(gen.z, float)),
            "scores": [encode_score(s) for s in gen.scores]}


def _decode_generations(value: Any) -> list[Generation]:
    gens: list[Generation] = []
    for i, item in enumerate(_list(value, "generations", empty=True)):
        where = f"generations[{i}]"
        obj = _object(item, ("outer", "z", "scores"), where)
        outer = _field(obj["outer"], (int, False), f"{where}.outer")
        expected = (0,) if not gens else (gens[-1].outer, gens[-1].outer + 1)
        if outer not in expected:
            raise _Malformed(f"{where}.outer", f"must be {' or '.join(map(str, expected))}, got {outer}")
        rows = _list(obj["z"], f"{where}.z")
        z = [[_number(v, f"{where}.z[{k}][{m}]") for m, v in enumerate(_list(row, f"{where}.z[{k}]"))]
             for k, row in enumerate(rows)]
        if len({len(row) for row in z}) != 1:
            raise _Malformed(f"{where}.z", "must hold points of one length")
        scores = _list(obj["scores"], f"{where}.scores")
        if len(scores) != len(z):
            raise _Malformed(f"{where}.scores", f"must hold {len(z)} scores (one per point), got {len(scores)}")
        gens.append(Generation(outer, np.array(z, float),
                               tuple(decode_score(s, f"{where}.scores[{k}]") for k, s in enumerate(scores))))
    return gens


def _difference(theirs: Any, ours: Any, where: str = "") -> str | None:
    """Where two identities first differ: "field: theirs in the checkpoint, ours here"."""
    if isinstance(theirs, dict) and isinstance(ours, dict):
        for key in list(ours) + [k for k in theirs if k not in ours]:
            inner = f"{where}.{key}" if where else key
            if key not in theirs or key not in ours:
                shown = [brief(side[key]) if key in side else "nothing" for side in (theirs, ours)]
                return f"{inner}: {shown[0]} in the checkpoint, {shown[1]} here"
            found = _difference(theirs[key], ours[key], inner)
            if found:
                return found
        return None
    same = type(theirs) is type(ours) or (isinstance(theirs, (int, float)) and isinstance(ours, (int, float))
                                          and not isinstance(theirs, bool) and not isinstance(ours, bool))
    if same and theirs == ours:
        return None
    return f"{where or 'identity'}: {brief(theirs)} in the checkpoint, {brief(ours)} here"


def _reject(token: str) -> float:
    raise ValueError(f"non-standard constant {token}")


def _finite(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise ValueError(f"number out of range: {text}")
    return v


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict:
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {brief(key)}")
        obj[key] = value
    return obj


class JsonCheckpoint:
    """The checkpoint of one optimization run, at ``path`` (format: the module
    docstring). ``load(identity)``: the recorded generations of that run, or
    None when there is no file or ``resume`` is False (a fresh run then
    overwrites it); ``save(identity, generations)``: write the record."""

    def __init__(self, path: str | os.PathLike, *, resume: bool = True):
        self.path = Path(path)
        self.resume = resume
        self._encoded: list[tuple[Generation, dict]] = []  # generations already encoded, for appends

    def _fail(self, what: str) -> GaitforgeError:
        return GaitforgeError(f"{self.path}: {what}")

    def _read(self) -> bytes | None:
        """The file's bytes (None: no file), refusing anything but a regular file up to MAX_BYTES."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise self._fail(f"cannot read the checkpoint ({exc.strerror or exc})") from None
        limit = f"more than the {MAX_BYTES // 2 ** 20} MiB a checkpoint may hold; refused without reading it"
        if not stat.S_ISREG(st.st_mode):
            raise self._fail(f"is {kind_of(st.st_mode)}, not a regular file; refused without reading it")
        if st.st_size > MAX_BYTES:
            raise self._fail(f"{st.st_size:,} bytes, {limit}")
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise self._fail(f"cannot read the checkpoint ({exc.strerror or exc})") from None
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fh.fileno()).st_mode  # the file opened may not be the one looked at
            if not stat.S_ISREG(mode):
                raise self._fail(f"is {kind_of(mode)}, not a regular file; refused without reading it")
            try:
                data = fh.read(MAX_BYTES + 1)
            except OSError as exc:
                raise self._fail(f"cannot read the checkpoint ({exc.strerror or exc})") from None
        if len(data) > MAX_BYTES:
            raise self._fail(f"grew to {limit}")
        return data

    def load(self, identity: dict) -> list[Generation] | None:
        """The generations recorded for the run ``identity`` (plain data, see
        ``gaitforge.optimize.cmaes.run_identity``), or None (no file, or not
        resuming). A file that is not a checkpoint of this version, fails its
        checksum, is malformed or belongs to another run raises a one-line
        :class:`GaitforgeError` naming it."""
        if not self.resume:
            return None
        data = self._read()
        if data is None:
            return None
        if data[:1] == b"\x80":  # pickle protocol 2 and later: what version 1 wrote
            raise self._fail("not a gaitforge checkpoint (old pickle checkpoints are no longer read; start again "
                             "without --resume)")
        try:
            doc = json.loads(data.decode("utf-8"), parse_constant=_reject, parse_float=_finite,
                             object_pairs_hook=_no_duplicates)
        except UnicodeDecodeError:
            raise self._fail("not a gaitforge checkpoint (not UTF-8 text)") from None
        except json.JSONDecodeError as exc:
            raise self._fail(f"not a gaitforge checkpoint (malformed JSON at line {exc.lineno}, column {exc.colno}: "
                             f"{exc.msg})") from None
        except RecursionError:
            raise self._fail("not a gaitforge checkpoint (JSON nested too deeply)") from None
        except ValueError as exc:
            raise self._fail(f"not a gaitforge checkpoint (malformed JSON: {exc})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise self._fail(f"not a gaitforge checkpoint (its \"format\" is not {FORMAT!r})")
        version = doc.get("version")
        if type(version) is not int or version != VERSION:
            raise self._fail(f"checkpoint version {brief(version)} is not supported (this gaitforge reads version "
                             f"{VERSION}); {_RESTART}")
        try:
            _object(doc, _KEYS, "the document")
        except _Malformed as exc:
            raise self._fail(f"malformed checkpoint ({exc})") from None
        rest = {k: v for k, v in doc.items() if k != "checksum"}
        if doc["checksum"] != _checksum(rest):
            raise self._fail(f"checksum mismatch: the checkpoint was changed or damaged after it was written; "
                             f"{_RESTART}")
        found = _difference(doc["identity"], plain(identity))
        if found:
            raise self._fail(f"the checkpoint belongs to another optimization run ({found}); {_RESTART}")
        try:
            return _decode_generations(doc["generations"])
        except _Malformed as exc:
            raise self._fail(f"malformed checkpoint ({exc})") from None

    def save(self, identity: dict, generations: Sequence[Generation]) -> None:
        """Write the record of run ``identity`` (atomically: a reader sees the
        old file or the new one). A record over :data:`MAX_BYTES` is refused
        before anything is written."""
        encoded = []
        for i, gen in enumerate(generations):
            if i < len(self._encoded) and self._encoded[i][0] is gen:
                encoded.append(self._encoded[i][1])
            else:
                encoded.append(_encode_generation(gen))
        self._encoded = list(zip(generations, encoded))
        rest = {"format": FORMAT, "version": VERSION, "identity": plain(identity), "generations": encoded}
        text = canonical(rest)
        # "checksum" sorts first: the canonical text of the whole document is this.
        data = f'{{"checksum":"{_checksum_of_text(text)}",{text[1:]}\n'.encode("ascii")
        if len(data) > MAX_BYTES:
            raise self._fail(f"the checkpoint would grow past {MAX_BYTES // 2 ** 20} MiB, more than --resume reads "
                             f"(a smaller --budget keeps it below)")
        write_bytes(self.path, data)

"""Declarative layouts of a controller's per-tick state.

A compiled control tick keeps its state in one flat numpy array (each array
argument costs a numba call time, and a flat array is what the kernels index
fastest). A :class:`Layout` names the fields of such an array — name, size,
kind, unit — and gives each its offset by laying them out in order, so two
fields cannot overlap and none lies beyond ``size``. The offsets become module
constants of the controller (compiled code reads them as literals) and
Python reads and writes the fields by name (:meth:`Layout.get`,
:meth:`Layout.set`, :meth:`Layout.as_dict`).
"""
from __future__ import annotations

import math
from typing import Iterable, NamedTuple, NoReturn

import numpy as np

from gaitforge.control.core.errors import InternalError

KINDS = (float, int, bool)


class Field(NamedTuple):
    """One field: ``name``; ``size`` elements (1: a scalar); ``kind``
    (float, int or bool: how Python reads it; stored in the array's dtype);
    ``unit`` (text, e.g. "m", "s", "N m/rad", "" for none)."""

    name: str
    size: int = 1
    kind: type = float
    unit: str = ""


class Layout:
    """Fields laid out in order in a flat array of ``dtype``.

    ``Layout("biped", [Field("k_x", unit="s"), Field("rest", 2, unit="m")])``
    puts ``k_x`` at 0 and ``rest`` at 1..2; ``layout["rest"]`` is 1,
    ``layout.size`` 3. Names are unique; sizes positive.
    """

    def __init__(self, name: str, fields: Iterable[Field | str], dtype=np.float64):
        self.name, self.dtype = name, np.dtype(dtype)
        self.fields: dict[str, Field] = {}
        self.offsets: dict[str, int] = {}
        at = 0
        for f in fields:
            f = Field(f) if isinstance(f, str) else f
            if f.name in self.fields:
                raise InternalError(f"layout {name}: field {f.name!r} twice")
            if not (isinstance(f.size, int) and f.size > 0) or f.kind not in KINDS:
                raise InternalError(f"layout {name}: field {f.name!r} has size {f.size!r}, kind {f.kind!r}")
            self.fields[f.name], self.offsets[f.name] = f, at
            at += f.size
        self.size = at

    def __getitem__(self, name: str) -> int:
        """The offset of field ``name``."""
        try:
            return self.offsets[name]
        except KeyError:
            raise InternalError(f"layout {self.name} has no field {name!r}") from None

    def _unknown(self, name: str) -> NoReturn:
        raise InternalError(f"layout {self.name} has no field {name!r}")

    def __contains__(self, name: str) -> bool:
        return name in self.offsets

    def span(self, name: str) -> slice:
        """The slice of field ``name``."""
        return slice(self[name], self[name] + self.fields[name].size)

    def new(self, fill: float = 0.0) -> np.ndarray:
        """A fresh state array (``size``,) filled with ``fill``."""
        return np.full(self.size, fill, self.dtype)

    def get(self, array: np.ndarray, name: str):
        """Field ``name`` of ``array``: a scalar of the field's kind (NaN floats
        as they are), or a live view (size,) for a vector field."""
        f = self.fields.get(name) or self._unknown(name)
        if f.size > 1:
            return array[self.span(name)]
        value = array[self[name]]
        return f.kind(value) if f.kind is not float or not math.isnan(value) else math.nan

    def set(self, array: np.ndarray, name: str, value) -> None:
        """Write field ``name`` of ``array`` (a scalar, or a sequence of ``size``)."""
        if self.fields.get(name) is None:
            self[name]
        array[self.span(name)] = value

    def as_dict(self, array: np.ndarray) -> dict:
        """Every field of ``array`` by name (vector fields as lists)."""
        out = {}
        for name, f in self.fields.items():
            value = self.get(array, name)
            out[name] = value.tolist() if f.size > 1 else value
        return out

    def check(self, array: np.ndarray) -> None:
        """Raise InternalError unless ``array`` is a state array of this layout."""
        if array.shape != (self.size,) or array.dtype != self.dtype:
            raise InternalError(f"layout {self.name}: state array {array.shape} {array.dtype}, "
                                f"expected ({self.size},) {self.dtype}")

"""Argument types shared by the commands: text parsed into numbers while
the command line is read, before any work, with the flag named in the
one-line error. The ranges are :mod:`gaitforge.inputs`' (the API checks the
same ones)."""
from __future__ import annotations

import argparse

from gaitforge.inputs import Span, plain as _plain


def number(lo: float | Span, hi: float | None = None, *, integer: bool = False, above: bool = False):
    """An argparse ``type``: a finite number in the :class:`Span` ``lo`` (or
    from ``lo`` to ``hi``; ``above``: strictly greater than ``lo``);
    ``integer``: a whole number (``1e3`` accepted as 1000)."""
    span = lo if isinstance(lo, Span) else Span(float(lo), float(hi if hi is not None else lo), integer, above)

    def parse(text: str):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {span.describe()}, got {text[:80]!r}") from None
        if not span.holds(value):
            raise argparse.ArgumentTypeError(f"must be {span.describe()}, got {text[:80]!r}")
        return int(value) if span.integer else value

    parse.__name__ = "integer" if span.integer else "number"  # argparse names the type in some messages
    return parse


def speed_or_ramp(hi: float = 50.0):
    """An argparse ``type`` for ``--speed``: a speed [m/s] above 0 up to
    ``hi``, or a ramp ``FROM:TO`` of two such speeds; returns a float or a
    (from, to) tuple."""
    one = number(0, hi, above=True)
    span = f"above 0 up to {_plain(hi)}"

    def parse(text: str):
        parts = text.split(":")
        try:
            if len(parts) == 1:
                return one(parts[0])
            if len(parts) == 2:
                return one(parts[0]), one(parts[1])
        except argparse.ArgumentTypeError:
            pass
        raise argparse.ArgumentTypeError(f"must be a speed {span} [m/s] or a ramp FROM:TO of two, "
                                         f"got {text[:80]!r}")

    parse.__name__ = "speed"
    return parse

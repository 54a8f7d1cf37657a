"""Argument types shared by the commands: numbers checked while the command
line is read, before any work, with the flag named in the one-line error."""
from __future__ import annotations

import argparse
import math


def _plain(x: float) -> str:
    """1000000 rather than 1e+06."""
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else f"{x:g}"


def number(lo: float, hi: float, *, integer: bool = False, above: bool = False):
    """An argparse ``type``: a finite number from ``lo`` to ``hi`` (``above``:
    strictly greater than ``lo``); ``integer``: a whole number (``1e3``
    accepted as 1000)."""
    kind = "a whole number" if integer else "a number"
    span = f"{'above' if above else 'from'} {_plain(lo)} {'up ' if above else ''}to {_plain(hi)}"

    def parse(text: str):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {kind} {span}, got {text[:80]!r}") from None
        if not math.isfinite(value) or value > hi or value < lo or (above and value == lo) \
                or (integer and value != int(value)):
            raise argparse.ArgumentTypeError(f"must be {kind} {span}, got {text[:80]!r}")
        return int(value) if integer else value

    parse.__name__ = "integer" if integer else "number"  # argparse names the type in some messages
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

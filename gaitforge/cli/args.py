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

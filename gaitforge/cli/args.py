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


def frame_size(text: str) -> tuple[int, int]:
    """An argparse ``type`` for ``--size WxH``: video frame width and height
    in pixels, each from 16 to 4096 (the API's bounds)."""
    parts = text.lower().split("x")
    try:
        w, h = (int(p) for p in parts)
    except ValueError:
        w = h = 0
    if len(parts) != 2 or not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise argparse.ArgumentTypeError(f"must be WIDTHxHEIGHT in pixels, each from 16 to 4096, got {text[:80]!r}")
    return w, h


def video_args(p: argparse.ArgumentParser) -> None:
    """``--size`` and ``--camera`` for a command that may write a video."""
    from gaitforge import api

    video = api.video_settings()
    w, h = video.size
    p.add_argument("--size", type=frame_size, default=video.size, metavar="WxH",
                   help=f"video frame size in pixels (default {w}x{h}; videos run at {video.fps:g} fps)")
    p.add_argument("--camera", choices=video.cameras, default="follow",
                   help="video camera: follow (three-quarter view tracking the creature; default), side (fixed, "
                        "square to the side, whole path in view) or front (tracking, facing the creature)")

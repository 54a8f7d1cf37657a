"""Entry point of the ``gaitforge`` command.

Each command lives in its own module exposing ``register(subparsers)``; the
parser stores the function to call as ``args.func``. Errors a user can cause
(:class:`GaitforgeError`) print as one line on stderr with exit code 2.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

# Offscreen rendering needs the GL backend chosen before mujoco is imported.
os.environ.setdefault("MUJOCO_GL", "egl")

from gaitforge import __version__  # noqa: E402
from gaitforge.errors import GaitforgeError  # noqa: E402
from gaitforge.cli import creatures_cmd, demo_cmd, modalsim_cmd, modes_cmd, motion_cmd, raibert_cmd  # noqa: E402

COMMAND_MODULES = [creatures_cmd, modes_cmd, motion_cmd, raibert_cmd, modalsim_cmd, demo_cmd]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gaitforge",
        description="Physics-based character locomotion from natural vibration modes, on MuJoCo.")
    parser.add_argument("--version", action="version", version=f"gaitforge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 2 bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    # Warnings reach a CLI user as one plain line, not a source listing.
    previous = warnings.formatwarning
    warnings.formatwarning = lambda message, *rest, **kw: f"gaitforge: warning: {message}\n"
    try:
        return int(args.func(args) or 0)
    except GaitforgeError as exc:
        print(f"gaitforge: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gaitforge: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = previous


if __name__ == "__main__":
    sys.exit(main())

"""Entry point of the ``gaitforge`` command.

Each command lives in its own module exposing ``register(subparsers)``; the
parser stores the function to call as ``args.func``. Errors a user can cause
(:class:`GaitforgeError`) print as one line on stderr with exit code 2.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import warnings

# Offscreen rendering needs the GL backend chosen before mujoco is imported.
os.environ.setdefault("MUJOCO_GL", "egl")

from gaitforge import __version__  # noqa: E402
from gaitforge.errors import GaitforgeError, NotMetError  # noqa: E402
from gaitforge.cli import (creatures_cmd, demo_cmd, modalopt_cmd, modalsim_cmd, modes_cmd, motion_cmd,  # noqa: E402
                           raibert_cmd, skills_cmd)

COMMAND_MODULES = [creatures_cmd, modes_cmd, motion_cmd, raibert_cmd, skills_cmd, modalsim_cmd, modalopt_cmd,
                   demo_cmd]
MAX_LINE = 400  # characters of an error or warning line (values inside are cut to ~80 already)


class _ArgumentError(Exception):
    """A command-line argument error, reported as one line (exit 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse with its errors as one line ``gaitforge: error: …`` instead of
    a usage block (``--help`` still shows the usage)."""

    def error(self, message: str):
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        raise _ArgumentError(f"{command}: {message}" if command else message)


class _Terminated(BaseException):
    """SIGTERM or SIGHUP: unwinds like Ctrl-C, so temporary files are removed."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _terminate(signum, frame):
    raise _Terminated(signum)


def _line(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "…"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gaitforge",
        description="Physics-based character locomotion from natural vibration modes, on MuJoCo.")
    parser.add_argument("--version", action="version", version=f"gaitforge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 the asked result was not
    met, 2 bad input, 130 / 128 + signal when interrupted or terminated)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except _ArgumentError as exc:
        print(f"gaitforge: error: {_line(str(exc))}", file=sys.stderr)
        return 2
    # Warnings reach a CLI user as one plain line, not a source listing.
    previous = warnings.formatwarning
    warnings.formatwarning = lambda message, *rest, **kw: f"gaitforge: warning: {_line(message)}\n"
    handlers = {}
    if argv is None:  # the real command: SIGTERM / SIGHUP unwind (temporary files go) like Ctrl-C
        for sig in (signal.SIGTERM, signal.SIGHUP):
            handlers[sig] = signal.signal(sig, _terminate)
    try:
        return int(args.func(args) or 0)
    except NotMetError as exc:
        print(f"gaitforge: error: {_line(str(exc))}", file=sys.stderr)
        return 1
    except GaitforgeError as exc:
        print(f"gaitforge: error: {_line(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("gaitforge: interrupted", file=sys.stderr)
        return 130
    except _Terminated as exc:
        print(f"gaitforge: terminated by signal {exc.signum}", file=sys.stderr)
        return 128 + exc.signum
    finally:
        warnings.formatwarning = previous
        for sig, old in handlers.items():
            signal.signal(sig, old)


if __name__ == "__main__":
    sys.exit(main())

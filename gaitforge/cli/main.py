"""Entry point of the ``gaitforge`` command.

Each command lives in its own module exposing ``register(subparsers)``; the
parser stores the function to call as ``args.func``. Every failure reaches
the user as one line ``gaitforge: error: …`` on stderr, with exit code 2 for
bad input (:class:`GaitforgeError`, a file name the system refuses, no
permission) and 1 when the run itself failed (:class:`NotMetError`, a full
disk, no memory, a numerical failure, a MuJoCo error, a bug); ``--debug``
shows the traceback instead. Warnings are one line each; those of other
libraries (NumPy, MuJoCo, …) are counted into one line at the end. A
command's outputs are written together or not at all
(:func:`gaitforge.io.atomic.command_outputs`).
"""
from __future__ import annotations

import argparse
import errno
import os
import signal
import threading
import sys
import warnings

# Offscreen rendering needs the GL backend chosen before mujoco is imported.
os.environ.setdefault("MUJOCO_GL", "egl")

from gaitforge.version import __version__  # noqa: E402
from gaitforge.errors import GaitforgeError, GaitforgeWarning, MujocoWarning, NotMetError  # noqa: E402
from gaitforge.cli import (creatures_cmd, demo_cmd, modalopt_cmd, modalsim_cmd, modes_cmd, motion_cmd,  # noqa: E402
                           push_cmd, raibert_cmd, run_cmd, studio_cmd)
from gaitforge.cli import balance_cmd  # noqa: E402

COMMAND_MODULES = [creatures_cmd, modes_cmd, motion_cmd, run_cmd, raibert_cmd, push_cmd, modalsim_cmd, modalopt_cmd,
                   demo_cmd, studio_cmd, balance_cmd]
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


_STOPPING = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _ignore(signum, frame):
    """A signal after the first: nothing to do."""


def _ignore_from_now() -> None:
    """Stopping signals ignored by the system until the process ends (Python
    puts its default handlers back while it shuts down, and a late Ctrl-C
    would then kill the process instead of letting it exit 130); set only
    once the unwinding is over, so that the race of :func:`_terminate` is
    down to a few instructions."""
    if threading.current_thread() is threading.main_thread():
        for sig in _STOPPING:
            signal.signal(sig, signal.SIG_IGN)


# The stopping signal received during this command, if any: the exception its
# handler raises can come out wrapped in another (a ctypes call it interrupts
# reports "argument 5: _Terminated: 15" as an ArgumentError), and the command
# still ends as terminated.
_received: list[int] = []


def _terminate(signum, frame):
    """The first Ctrl-C, SIGTERM or SIGHUP unwinds the command; the ones
    after it are ignored, so removing temporary files and printing the one
    line are not cut short by a traceback. Ignored by a Python handler that
    does nothing, not by SIG_IGN: a signal that arrived before the switch and
    is handled after it would make Python raise "Signal 15 ignored due to
    race condition" (an OSError with a traceback)."""
    _received.append(signum)
    for sig in _STOPPING:
        signal.signal(sig, _ignore)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise _Terminated(signum)


def _line(text: str) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= MAX_LINE else text[:MAX_LINE - 1] + "…"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="gaitforge",
        description="Physics-based character locomotion from natural vibration modes, on MuJoCo.")
    parser.add_argument("--version", action="version", version=f"gaitforge {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show tracebacks and other libraries' warnings (also accepted after the command)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    for module in COMMAND_MODULES:
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 the run failed or the
    asked result was not met, 2 bad input, 130 / 128 + signal when
    interrupted or terminated)."""
    from gaitforge.io.atomic import command_outputs

    words = sys.argv[1:] if argv is None else list(argv)
    cut = words.index("--") if "--" in words else len(words)
    debug = "--debug" in words[:cut] or os.environ.get("GAITFORGE_DEBUG", "") not in ("", "0")
    words = [w for i, w in enumerate(words) if w != "--debug" or i >= cut]
    parser = build_parser()
    try:
        args = parser.parse_args(words)
    except _ArgumentError as exc:
        print(f"gaitforge: error: {_line(str(exc))}", file=sys.stderr)
        return 2
    handlers = {}
    _received.clear()
    if argv is None:  # the real command: SIGTERM / SIGHUP unwind (temporary files go) like Ctrl-C
        for sig in _STOPPING:
            handlers[sig] = signal.signal(sig, _terminate)
    shown = _Warnings(debug)
    try:
        with warnings.catch_warnings(), shown.mujoco():
            warnings.showwarning = shown.show
            with command_outputs():
                code = int(args.func(args) or 0)
        shown.summary()  # (a failure is one line: its warnings are not summed up)
        return code
    except KeyboardInterrupt:
        return _stopped(signal.SIGINT, handlers, argv)
    except _Terminated as exc:
        return _stopped(exc.signum, handlers, argv)
    except Exception as exc:  # every failure is one line (the traceback with --debug)
        if _received:  # a stopping signal's exception, wrapped on its way out
            return _stopped(_received[0], handlers, argv)
        if debug:
            raise
        message, code = failure(exc)
        print(f"gaitforge: error: {_line(message)}", file=sys.stderr)
        return code
    finally:
        for sig, old in handlers.items():
            signal.signal(sig, old)


def _stopped(signum: int, handlers: dict, argv) -> int:
    """The one line and exit code of a command stopped by ``signum``: Ctrl-C
    130, another signal 128 + its number; the stopping signals stay ignored
    until the process ends."""
    handlers.clear()
    if signum == signal.SIGINT:
        print("gaitforge: interrupted", file=sys.stderr)
    else:
        print(f"gaitforge: terminated by signal {signum}", file=sys.stderr)
    if argv is None:
        _ignore_from_now()
    return 130 if signum == signal.SIGINT else 128 + signum


# errno values that mean the input named something the system refuses (exit 2);
# the rest (a full disk, an I/O error) mean the run failed (exit 1).
_BAD_INPUT_ERRNOS = {getattr(errno, name) for name in (
    "EACCES", "EPERM", "ENAMETOOLONG", "ENOENT", "ENOTDIR", "EISDIR", "EROFS", "EEXIST", "ELOOP", "EINVAL",
    "EXDEV", "ENXIO", "ENODEV") if hasattr(errno, name)}
_NUMERIC = (ZeroDivisionError, FloatingPointError, OverflowError)


def failure(exc: BaseException) -> tuple[str, int]:
    """The one-line message and exit code of an exception that ends a
    command (see the module notes)."""
    if isinstance(exc, NotMetError):
        return str(exc), 1
    if isinstance(exc, GaitforgeError):
        return str(exc), 2
    if isinstance(exc, OSError):
        what = exc.strerror or str(exc) or type(exc).__name__
        names = [n for n in (exc.filename, exc.filename2) if n is not None]
        where = f"{_shown_name(names[0])}: " if names else ""
        return f"{where}{what[:1].lower()}{what[1:]}", 2 if exc.errno in _BAD_INPUT_ERRNOS else 1
    if isinstance(exc, MemoryError):
        return ("out of memory: the run needs more than this machine has; try a shorter run, fewer frames "
                "or a smaller model"), 1
    if isinstance(exc, _NUMERIC):
        return (f"the computation failed ({type(exc).__name__}: {exc or 'no details'}): an input or a value derived "
                "from it is probably out of range; --debug shows where"), 1
    if isinstance(exc, RecursionError):
        return "the computation nested too deeply (RecursionError); the input is probably too large", 1
    if type(exc).__module__.startswith("mujoco"):
        return f"MuJoCo failed: {str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__}", 1
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (f"internal error ({type(exc).__name__}{': ' + first if first else ''}); please report it with the "
            "traceback that --debug shows"), 1


def _shown_name(name) -> str:
    """A file name for a message: a temporary output file by its target's name."""
    import re

    text = os.fsdecode(name) if isinstance(name, bytes) else str(name)
    folder, base = os.path.split(text)
    temp = re.fullmatch(r"\.(.+)\.[A-Za-z0-9_]{8}(\.[^.]*)?", base)  # gaitforge.io.atomic's temporary names
    if temp and temp.group(1).endswith(temp.group(2) or ""):
        text = os.path.join(folder, temp.group(1))
    return text if len(text) <= 120 else text[:60] + "…" + text[-40:]


class _Warnings:
    """Warnings while a command runs: gaitforge's own as one line each, the
    other libraries' (NumPy's RuntimeWarnings, MuJoCo's instability notes, …)
    counted and summed up in one line at the end (each shown with --debug)."""

    def __init__(self, debug: bool):
        self.debug = debug
        self.hidden: dict[str, int] = {}
        self.first = ""

    def show(self, message, category, filename, lineno, file=None, line=None) -> None:
        if self.debug or _ours(category, filename):
            print(f"gaitforge: warning: {_line(str(message))}", file=sys.stderr)
            return
        self.hide(_library(category, filename), f"{category.__name__}: {message}")

    def hide(self, library: str, text: str) -> None:
        self.hidden[library] = self.hidden.get(library, 0) + 1
        self.first = self.first or " ".join(text.split())[:100]

    def mujoco(self):
        """A context in which MuJoCo's warnings (otherwise printed by its C
        code and appended to MUJOCO_LOG.TXT) are counted here."""
        import contextlib

        @contextlib.contextmanager
        def handler():
            mj = sys.modules.get("mujoco")
            if mj is None or not hasattr(mj, "set_mju_user_warning"):
                yield
                return
            previous = mj.get_mju_user_warning()

            def warn(text: str) -> None:
                if self.debug:
                    print(f"gaitforge: warning: MuJoCo: {_line(text)}", file=sys.stderr)
                else:
                    self.hide("MuJoCo", str(text))

            mj.set_mju_user_warning(warn)
            try:
                yield
            finally:
                mj.set_mju_user_warning(previous)
        return handler()

    def summary(self) -> None:
        if not self.hidden:
            return
        n = sum(self.hidden.values())
        libraries = ", ".join(sorted(self.hidden))
        print(f"gaitforge: warning: {n} warning{'s' if n > 1 else ''} from {libraries} not shown (first: "
              f"{self.first}); --debug shows them", file=sys.stderr)
        self.hidden.clear()


def _ours(category, filename: str) -> bool:
    """A warning gaitforge gave (MuJoCo's bindings issue theirs from the
    calling frame, often gaitforge's: the category tells them apart)."""
    return issubclass(category, GaitforgeWarning)


_LIBRARIES = {"numpy": "NumPy", "scipy": "SciPy", "mujoco": "MuJoCo", "matplotlib": "Matplotlib", "numba": "Numba"}


def _library(category, filename: str) -> str:
    """The library a warning came from, by its file (NumPy's numerical
    warnings point at their caller: they are NumPy's all the same)."""
    if issubclass(category, MujocoWarning):
        return "MuJoCo"
    path = os.path.abspath(filename or "")
    if "site-packages" in path or "dist-packages" in path:
        package = path.split("-packages" + os.sep, 1)[1].split(os.sep, 1)[0].split(".")[0]
        return _LIBRARIES.get(package, package)
    if issubclass(category, RuntimeWarning):
        return "NumPy"
    return "MuJoCo" if issubclass(category, UserWarning) else "Python"


if __name__ == "__main__":
    sys.exit(main())

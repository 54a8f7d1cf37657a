"""Exception hierarchy: every error a user can cause derives from GaitforgeError.

The CLI prints ``str(error)`` as one line and exits with code 2, so messages name
the file, the field path and the offending value, and list the valid choices
where there are few.
"""
from __future__ import annotations

import reprlib


class GaitforgeError(Exception):
    """Base class of all errors raised on purpose by gaitforge."""


class SpecError(GaitforgeError):
    """A creature description (or another input document) is invalid.

    ``path`` is the field path inside the document (``bones[3].joint.type``),
    ``source`` the file it came from, if any.
    """

    def __init__(self, path: str, message: str, source: str | None = None):
        self.path = path
        self.message = message
        self.source = source
        super().__init__(self._render())

    def _render(self) -> str:
        where = f"{self.path}: " if self.path else ""
        prefix = f"{self.source}: " if self.source else ""
        return f"{prefix}{where}{self.message}"

    def with_source(self, source: str) -> "SpecError":
        """The same error, attributed to ``source`` (a file name)."""
        return type(self)(self.path, self.message, source)


class UnknownNameError(GaitforgeError):
    """A name (creature, body, gait, ...) that is not among the valid ones."""


class CompileError(GaitforgeError):
    """MuJoCo refused to compile a model built from a valid-looking spec."""


class NotMetError(GaitforgeError):
    """The input was fine but the asked result was not reached (a gait that
    does not pass its own check under ``strict``); the CLI exits with 1."""


class GaitforgeWarning(UserWarning):
    """A warning gaitforge gives (the CLI prints each as one line; other
    libraries' warnings are counted into one line)."""


class MujocoWarning(UserWarning):
    """A warning MuJoCo's C code gave where no Python handler of this
    process saw it (in a worker process); passed on as this category so the
    CLI counts it with MuJoCo's others."""


class ResultError(NotMetError):
    """A result no valid input makes (a clip whose joints turn round and
    round, positions beyond any run's reach): refused before it is written;
    the CLI exits with 1 (the run failed)."""


_BRIEF = reprlib.Repr()
_BRIEF.maxstring = _BRIEF.maxother = 80
_BRIEF.maxlist = _BRIEF.maxtuple = _BRIEF.maxdict = _BRIEF.maxset = 12
_BRIEF.maxlevel = 3


def brief(value) -> str:
    """``repr(value)`` for an error message, cut to about 80 characters (a
    hostile document's values can be huge)."""
    return _BRIEF.repr(value)

"""Internal errors of the control core."""
from __future__ import annotations


class InternalError(RuntimeError):
    """An inconsistency inside gaitforge (a bug, not a user error): not a
    ``GaitforgeError``, so the CLI does not report it as a usage error
    (exit 2) but lets it surface with its traceback."""

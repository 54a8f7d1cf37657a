"""Progress bars for long commands: on stderr, only when stderr is a
terminal, the work is long enough to notice (``MIN_SECONDS`` of simulated
time) and the user did not ask for ``--quiet``."""
from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

MIN_SECONDS = 20.0  # [s] simulated: shorter runs finish before a bar would help


@contextlib.contextmanager
def progress_bar(label: str, total: float, *, quiet: bool = False,
                 stream=None) -> Iterator[Callable[[float], None] | None]:
    """Yield ``advance(done)`` (``done`` of ``total``, e.g. simulated seconds)
    or None when no bar is shown."""
    stream = stream or sys.stderr
    if quiet or total < MIN_SECONDS or not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed:.0f}/{task.total:.0f} s"),
                  TimeRemainingColumn(), console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda done: bar.update(task, completed=done)

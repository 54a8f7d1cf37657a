"""Progress bars for long commands: on stderr, only when stderr is a
terminal and the user did not ask for ``--quiet`` (pipes, CI logs and files
get none)."""
from __future__ import annotations

import contextlib
import sys
from typing import Callable, Iterator

MIN_SECONDS = 20.0  # [s] simulated: shorter runs finish before a bar would help


@contextlib.contextmanager
def progress_bar(label: str, total: float | None, *, quiet: bool = False, worth_it: bool = True,
                 unit: str = "", stream=None) -> Iterator[Callable[..., None] | None]:
    """Yield ``advance(done, total=None, info="")`` (``done`` of ``total``
    ``unit``; a total learnt later may be passed then) or None when no bar is
    shown (``quiet``, not a terminal, or not ``worth_it``)."""
    stream = stream or sys.stderr
    if quiet or not worth_it or not stream.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    count = "{task.completed:.0f}/{task.total:.0f}" + (f" {unit}" if unit else "")
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn(count), TextColumn("{task.fields[info]}"),
                  TimeRemainingColumn(), console=Console(file=stream), transient=True) as bar:
        task = bar.add_task(label, total=total, info="")

        def advance(done: float, total: float | None = None, info: str = "") -> None:
            if total is not None:
                bar.update(task, total=total)
            bar.update(task, completed=done, info=info)

        yield advance

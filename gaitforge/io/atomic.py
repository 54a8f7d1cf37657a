"""Atomic file output: write to a temporary file beside the target, then
rename, so a failure never leaves a half-written file behind."""
from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator

from gaitforge.errors import GaitforgeError


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``.

    The temporary file keeps the target's suffix (writers that pick a format
    from the extension still work). On an exception it is removed and the
    target is left untouched.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix or target.suffix,
                               dir=target.parent)
    os.close(fd)
    # mkstemp creates 0600; give the file the permissions a plain open() would.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


@contextlib.contextmanager
def atomic_paths(*paths: str | os.PathLike | None) -> Iterator[list[Path | None]]:
    """Several outputs of one command, written together or not at all: yield
    a temporary path beside each target (None stays None); when the block
    succeeds every temporary file replaces its target, on any exception
    (Ctrl-C and termination included) all of them are removed and no target
    is touched."""
    temps: list[Path | None] = []
    try:
        for path in paths:
            if path is None:
                temps.append(None)
                continue
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=target.suffix, dir=target.parent)
            os.close(fd)
            temps.append(Path(name))
        yield temps
        umask = os.umask(0)
        os.umask(umask)
        for temp, path in zip(temps, paths):
            if temp is not None and path is not None:
                os.chmod(temp, 0o666 & ~umask)
                os.replace(temp, Path(path))
    except BaseException:
        for temp in temps:
            if temp is not None:
                temp.unlink(missing_ok=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def check_output(path: str | os.PathLike, valid: tuple[str, ...] | None = None, what: str = "output") -> Path:
    """Check, before any work, that ``path`` can be written: its extension is
    one of ``valid`` (lower case, with the dot; None: any), it is not a
    folder, and the nearest existing folder above it takes a new file (a
    temporary file is created there and removed: permissions, read-only or
    pseudo file systems). Raises :class:`GaitforgeError` naming the path."""
    target = Path(path)
    if valid is not None:
        ext = target.suffix.lower()
        if ext not in valid:
            shown = repr(ext) if ext else "(none)"
            raise GaitforgeError(f"{path}: unknown {what} file extension {shown} (valid: {', '.join(valid)})")
    if target.is_dir():
        raise GaitforgeError(f"{path}: is a folder; give a file name")
    _check_folder(target.parent, str(path))
    return target


def check_output_dir(path: str | os.PathLike) -> Path:
    """Check, before any work, that folder ``path`` exists or can be created
    and takes new files (see :func:`check_output`)."""
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise GaitforgeError(f"{path}: is a file, not a folder")
    _check_folder(target, str(path))
    return target


def _check_folder(folder: Path, shown: str) -> None:
    existing = folder
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise GaitforgeError(f"{shown}: {existing} is not a folder")
    try:
        fd, probe = tempfile.mkstemp(prefix=".gaitforge-probe.", dir=existing)
    except OSError as exc:
        raise GaitforgeError(f"{shown}: cannot write in {existing} ({exc.strerror or exc})") from None
    os.close(fd)
    os.unlink(probe)

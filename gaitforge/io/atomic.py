"""Atomic file output: write to a temporary file beside the target, then
rename, so a failure never leaves a half-written file behind.

Inside :func:`command_outputs` (the CLI runs every command in one) the
outputs a command declared with :func:`check_output` / :func:`check_output_dir`
are moreover written *together*: each finished temporary file waits, and all
of them move into place when the command succeeds; on any failure (Ctrl-C
and termination included) none does, and the temporaries and the folders
made for them are removed. Two outputs of one command may not name the same
file."""
from __future__ import annotations

import contextlib
import errno
import os
import signal
import tempfile
from pathlib import Path
from typing import Iterator

from gaitforge.errors import GaitforgeError

_TEMP_STEM = 60  # characters of the target's name kept in its temporary file's name


class _Outputs:
    """The outputs of one command: claimed targets, finished temporaries
    waiting to move, folders made on the way."""

    def __init__(self) -> None:
        self.files: dict[str, str] = {}    # real path → as the user gave it
        self.folders: dict[str, str] = {}
        self.pending: list[tuple[Path, Path]] = []
        self.made: list[Path] = []

    def claim(self, path: str | os.PathLike, folder: bool = False) -> None:
        key = os.path.realpath(path)
        earlier = self.files.get(key) or self.folders.get(key)
        if earlier is not None:
            raise GaitforgeError(f"{path}: named for two outputs of this command{_also(earlier, path)}; "
                                 "give each output its own file")
        (self.folders if folder else self.files)[key] = str(path)

    def holds(self, target: Path) -> bool:
        key = os.path.realpath(target)
        return key in self.files or any(key.startswith(d.rstrip(os.sep) + os.sep) for d in self.folders)

    def commit(self) -> None:
        blocked = _block_signals()
        try:
            for temp, target in self.pending:
                os.replace(temp, target)
            self.pending.clear()
        finally:
            _unblock_signals(blocked)

    def rollback(self) -> None:
        for temp, _ in self.pending:
            temp.unlink(missing_ok=True)
        self.pending.clear()
        for folder in reversed(self.made):
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if empty


def _also(earlier: str, path) -> str:
    return f" (also given as {earlier})" if earlier != str(path) else ""


_current: _Outputs | None = None
_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _block_signals():
    if not hasattr(signal, "pthread_sigmask"):
        return None
    try:
        return signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    except (OSError, ValueError):
        return None


def _unblock_signals(previous) -> None:
    if previous is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


@contextlib.contextmanager
def command_outputs() -> Iterator[None]:
    """Run one command's work: its declared outputs are checked to be
    distinct and written together or not at all (see the module notes)."""
    global _current
    outer, _current = _current, _Outputs()
    outputs = _current
    try:
        yield
        outputs.commit()
    except BaseException:
        outputs.rollback()
        raise
    finally:
        _current = outer


def _place(temp: Path, target: Path) -> None:
    """Move a finished temporary file onto its target, now or, for an output
    of the command in progress, when the command succeeds."""
    if _current is not None and _current.holds(target):
        _current.pending.append((temp, target))
    else:
        os.replace(temp, target)


def _make_folder(folder: Path) -> None:
    """``folder`` and its missing parents; those made inside a command are
    removed again if it fails (when still empty)."""
    missing = []
    f = folder
    while not f.exists() and f.parent != f:
        missing.append(f)
        f = f.parent
    folder.mkdir(parents=True, exist_ok=True)
    if _current is not None:
        _current.made.extend(reversed(missing))


def _mkstemp(target: Path, suffix: str | None = None) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{target.name[:_TEMP_STEM]}.", suffix=suffix or target.suffix,
                                dir=target.parent)
    os.close(fd)
    return Path(name)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``.

    The temporary file keeps the target's suffix (writers that pick a format
    from the extension still work). On an exception it is removed and the
    target is left untouched.
    """
    target = Path(path)
    _make_folder(target.parent)
    tmp_path = _mkstemp(target, suffix)
    # mkstemp creates 0600; give the file the permissions a plain open() would.
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)
    try:
        yield tmp_path
        _place(tmp_path, target)
    except BaseException as exc:
        tmp_path.unlink(missing_ok=True)
        _name(exc, {str(tmp_path): path}, path)
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
            _make_folder(target.parent)
            temps.append(_mkstemp(target))
        yield temps
        umask = os.umask(0)
        os.umask(umask)
        for temp, path in zip(temps, paths):
            if temp is not None and path is not None:
                os.chmod(temp, 0o666 & ~umask)
                _place(temp, Path(path))
    except BaseException as exc:
        for temp in temps:
            if temp is not None:
                temp.unlink(missing_ok=True)
        named = [p for p in paths if p is not None]
        _name(exc, {str(t): p for t, p in zip(temps, paths) if t is not None and p is not None},
              named[0] if len(named) == 1 else None)
        raise


def _name(exc: BaseException, temps: dict, target) -> None:
    """Name the output, as the user gave it, in an OSError about one of our
    temporary files or that names no file (a write to a full disk or past
    the file size limit: ``[Errno 27] File too large``)."""
    if not isinstance(exc, OSError):
        return
    if exc.filename is None and target is not None:
        exc.filename = str(target)
    elif exc.filename is not None and str(exc.filename) in temps:
        exc.filename = str(temps[str(exc.filename)])


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
    target = _check_name(path)
    if valid is not None:
        ext = target.suffix.lower()
        if ext not in valid:
            shown = repr(ext) if ext else "(none)"
            raise GaitforgeError(f"{path}: unknown {what} file extension {shown} (valid: {', '.join(valid)})")
    if target.is_dir():
        raise GaitforgeError(f"{path}: is a folder; give a file name")
    if target.exists() and not target.is_file():
        from gaitforge.io.files import kind_of
        raise GaitforgeError(f"{path}: is {kind_of(target.stat().st_mode)}; give the name of a regular file")
    _check_folder(target.parent, str(path))
    if _current is not None:
        _current.claim(path)
    return target


def check_output_dir(path: str | os.PathLike) -> Path:
    """Check, before any work, that folder ``path`` exists or can be created
    and takes new files (see :func:`check_output`)."""
    target = _check_name(path)
    if target.exists() and not target.is_dir():
        raise GaitforgeError(f"{path}: is a file, not a folder")
    _check_folder(target, str(path))
    if _current is not None:
        _current.claim(path, folder=True)
    return target


PATH_MAX = 4096  # bytes of a whole path (Linux)


def _check_name(path) -> Path:
    """``path`` as a Path, if the file system can hold the name: no NUL
    character, no part longer than the folder allows (255 bytes on most file
    systems), the whole at most PATH_MAX bytes."""
    if not isinstance(path, (str, os.PathLike)):
        raise GaitforgeError(f"an output file name must be a string or a path, got {type(path).__name__}")
    text = os.fspath(path)
    if isinstance(text, bytes):
        text = os.fsdecode(text)
    if not text or "\0" in text:
        raise GaitforgeError(f"{text[:80]!r}: not a valid file name" + (" (it holds a NUL character)" if text else ""))
    if len(os.fsencode(text)) > PATH_MAX:
        raise GaitforgeError(f"{text[:60]}…: the path is {len(os.fsencode(text)):,} bytes long, more than the "
                             f"{PATH_MAX} a path may have")
    target = Path(text)
    existing = target.parent
    while not _exists(existing) and existing.parent != existing:
        existing = existing.parent
    try:
        limit = os.pathconf(existing, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255
    for part in target.parts:
        if len(os.fsencode(part)) > limit:
            raise GaitforgeError(f"{part[:40]}…: a file or folder name of {len(os.fsencode(part))} bytes; this "
                                 f"file system takes at most {limit}")
    return target


def _exists(p: Path) -> bool:
    try:
        return p.exists()
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return False
        raise


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

"""Reading the files users name, with limits: one place that refuses what is
no regular file (a FIFO would block forever, ``/dev/zero`` never ends), a
file larger than its kind may be (:data:`MAX_BYTES`), and a file that grows
past that while it is read, each as a one-line :class:`SpecError`
naming the file. Every reader of user files goes through :func:`read_bytes`
or :func:`check_file` (for files a library opens itself: MuJoCo's models
and meshes, NumPy's archives)."""
from __future__ import annotations

import os
import stat
from pathlib import Path

from gaitforge.errors import GaitforgeError, SpecError

MiB = 2 ** 20
# The largest file of each kind read [bytes]: generous for what people write
# (a 1000-bone creature is ~200 KB of YAML, an hour of 100-DOF motion at
# 100 frames/s ~300 MB of NPZ), small enough that the bytes fit in memory.
MAX_BYTES = {
    "creature file": 16 * MiB,
    "recipe": 4 * MiB,
    "path file": 4 * MiB,
    "label file": 1 * MiB,
    "sketch file": 1 * MiB,
    "BVH file": 64 * MiB,
    "model file": 16 * MiB,        # MJCF or URDF, and each file it includes
    "model asset": 256 * MiB,      # meshes, height fields, textures, skins a model names
    "motion file": 512 * MiB,      # an NPZ clip, and each array inside it
}


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n >= MiB and n % MiB == 0 else f"{n:,} bytes"


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "an unknown kind of file"


def _fail(path, message: str) -> GaitforgeError:
    return SpecError("", message, str(path))


def _limit(what: str) -> int:
    return MAX_BYTES[what]


def _too_big(path, size: int, what: str) -> GaitforgeError:
    return _fail(path, f"{size:,} bytes, more than the {_size(_limit(what))} a {what} may hold; "
                       "refused without reading it")


def _stat(path: Path, shown) -> os.stat_result:
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise _fail(shown, "no such file") from None
    except ValueError:  # an embedded NUL character
        raise SpecError("", "not a valid file name (it holds a NUL character)", repr(str(shown))[:80]) from None
    except OSError as exc:
        raise _fail(shown, f"cannot read: {(exc.strerror or str(exc)).lower()}") from None


def check_file(path: str | os.PathLike, what: str) -> int:
    """Raise a one-line :class:`GaitforgeError` unless ``path`` is a regular
    file (symbolic links followed) of at most ``MAX_BYTES[what]``; returns
    its size. For files another library opens."""
    st = _stat(Path(path), path)
    if not stat.S_ISREG(st.st_mode):
        raise _fail(path, f"is {kind_of(st.st_mode)}, not a regular file; refused without reading it")
    if st.st_size > _limit(what):
        raise _too_big(path, st.st_size, what)
    if not os.access(path, os.R_OK):
        raise _fail(path, "cannot read: permission denied")
    return st.st_size


def read_bytes(path: str | os.PathLike, what: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``MAX_BYTES[what]``
    (``what``: a key of :data:`MAX_BYTES`, used in the messages). The file is
    opened without blocking and checked again once open (it may have been
    swapped), and read no further than the limit (``/proc`` files report no
    size)."""
    check_file(path, what)
    limit = _limit(what)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise _fail(path, f"cannot read: {(exc.strerror or str(exc)).lower()}") from None
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise _fail(path, f"is {kind_of(mode)}, not a regular file; refused without reading it")
        try:
            data = fh.read(limit + 1)
        except OSError as exc:
            raise _fail(path, f"cannot read: {(exc.strerror or str(exc)).lower()}") from None
    if len(data) > limit:
        raise _fail(path, f"grew past the {_size(limit)} a {what} may hold while it was read; refused")
    return data


def read_text(path: str | os.PathLike, what: str, *, errors: str = "strict") -> str:
    """The UTF-8 text of ``path`` (see :func:`read_bytes`); a byte order mark
    is dropped, text that is not UTF-8 is a one-line error naming the offset."""
    data = read_bytes(path, what)
    try:
        return data.decode("utf-8-sig", errors=errors)
    except UnicodeDecodeError as exc:
        raise _fail(path, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start:,}); "
                          f"is it a {what}?") from None

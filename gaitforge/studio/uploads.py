"""Creature files uploaded through the page: size-limited, kept in a
temporary folder of the session, and read by the CLI's own loaders
(:func:`gaitforge.creature`: YAML/JSON safe loader, MJCF, URDF, BVH)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from gaitforge.errors import GaitforgeError

MAX_UPLOAD_BYTES = 4 * 2 ** 20  # [bytes] the largest creature file accepted from a page


def _extensions() -> tuple[str, ...]:
    from gaitforge.io.creature_files import CREATURE_EXTENSIONS
    return tuple(CREATURE_EXTENSIONS)


class UploadFolder:
    """A private temporary folder holding a session's uploads (removed by :meth:`close`)."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="gaitforge-studio-")
        self.path = Path(self._tmp.name)
        self._count = 0

    def store(self, filename: str, content: bytes) -> Path:
        """Write ``content`` under a name of our own that keeps only the
        extension of ``filename`` (checked); raises :class:`GaitforgeError`
        (one line) for an empty or oversized file or an unknown extension."""
        ext = Path(str(filename)).suffix.lower()
        valid = _extensions()
        if ext not in valid:
            raise GaitforgeError(f"upload {Path(str(filename)).name!r}: unknown creature file extension "
                                 f"{ext or '(none)'!r} (valid: {', '.join(valid)})")
        if len(content) > MAX_UPLOAD_BYTES:
            raise GaitforgeError(f"upload {Path(str(filename)).name!r}: {len(content)} bytes, more than the "
                                 f"{MAX_UPLOAD_BYTES // 2 ** 20} MiB a creature file may have")
        if not content:
            raise GaitforgeError(f"upload {Path(str(filename)).name!r}: the file is empty")
        self._count += 1
        path = self.path / f"upload{self._count}{ext}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(content)
        return path

    def close(self) -> None:
        self._tmp.cleanup()

"""Writing a motion clip from a command: every format through
``gf.write_clip``; a video with a progress bar on a terminal and the
command's ``--size`` and ``--camera``."""
from __future__ import annotations

from pathlib import Path

from gaitforge import api


def save_clip(char: api.Character, clip, path, *, label: str | None = None, quiet: bool = False,
              size: tuple[int, int] | None = None, camera: str | None = None, fps: float | None = None) -> None:
    """Write ``clip`` (format from the extension) through ``gf.write_clip``.
    For a video: ``size`` (width, height) [pixels], ``camera`` and ``fps``
    when given, and a progress bar of rendered frames (``label``: the name
    to show, default the file's; ``quiet``: none)."""
    from gaitforge.cli.progress import progress_bar

    if Path(path).suffix.lower() not in api.video_settings().extensions:
        api.write_clip(char, clip, path)  # a clip file keeps the clip's own rate
        return
    with progress_bar(f"rendering {label or Path(path).name}", None, quiet=quiet, unit="frames") as advance:
        api.write_clip(char, clip, path, fps=fps, size=size, camera=camera,
                       progress=None if advance is None else lambda done, total: advance(done, total))


def video_options(args) -> dict:
    """``save_clip``'s keyword arguments from a command's parsed ``--quiet``,
    ``--size``, ``--camera`` and (``animate``'s clip rate) ``--fps``; absent
    flags: the defaults."""
    out = {"quiet": bool(getattr(args, "quiet", False)), "size": getattr(args, "size", None),
           "camera": getattr(args, "camera", None)}
    if getattr(args, "fps", None) is not None:
        out["fps"] = float(args.fps)
    return out

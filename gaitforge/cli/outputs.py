"""Writing a motion clip from a command: every format through
``io.clipfiles.save_motion``; a video with a progress bar on a terminal and
the command's ``--size`` and ``--camera``."""
from __future__ import annotations

from pathlib import Path

from gaitforge import api

VIDEO_SUFFIXES = (".mp4", ".gif")


def save_clip(char: api.Character, clip, path, *, label: str | None = None, quiet: bool = False,
              size: tuple[int, int] | None = None, camera: str | None = None, **options) -> None:
    """Write ``clip`` (format from the extension). For a video: ``size``
    (width, height) [pixels] and ``camera`` (``io.video.CAMERAS``) when
    given, and a progress bar of rendered frames (``label``: the name to
    show, default the file's; ``quiet``: none). ``options`` go to the writer."""
    from gaitforge.cli.progress import progress_bar
    from gaitforge.io.clipfiles import save_motion

    if Path(path).suffix.lower() not in VIDEO_SUFFIXES:
        options.pop("fps", None)  # a clip file keeps the clip's own rate
        save_motion(char, clip, path, **options)
        return
    if "fps" in options and Path(path).suffix.lower() == ".gif":
        from gaitforge.io.video import GIF_MAX_FPS
        options["fps"] = min(float(options["fps"]), GIF_MAX_FPS)
    if size is not None:
        options.update(width=int(size[0]), height=int(size[1]))
    if camera is not None:
        options.update(camera=camera)
    with progress_bar(f"rendering {label or Path(path).name}", None, quiet=quiet, unit="frames") as advance:
        save_motion(char, clip, path, **options,
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

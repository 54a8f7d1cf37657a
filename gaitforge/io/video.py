"""MP4 and GIF movies of a motion clip, rendered offscreen with MuJoCo.

Frames come from :class:`~gaitforge.io.render.StillRenderer` (set
``MUJOCO_GL=egl`` before importing mujoco to render without a display). MP4 is
H.264 in yuv420p (plays in browsers and editors) through imageio-ffmpeg; GIF
goes through imageio's pillow plugin and keeps every frame in memory until it
is written, so it suits short clips.
"""
from __future__ import annotations

import os
from typing import Callable

import imageio.v2 as imageio
import imageio.v3 as iio
import numpy as np
from scipy.ndimage import gaussian_filter1d

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.io.atomic import atomic_path
from gaitforge.io.clip_checks import check_clip, check_extension, clip_kinematics
from gaitforge.io.render import StillRenderer, View, frame_character
from gaitforge.motion.clip import MotionClip

VIDEO_EXTENSIONS = (".gif", ".mp4")
VIDEO_FPS = 60.0  # frames/s of every video unless asked otherwise
VIDEO_SIZE = (640, 480)  # pixels (width, height) unless asked otherwise
GIF_MAX_FPS = 50.0  # browsers slow down GIFs with frame delays under 20 ms
CAMERAS = ("follow", "side", "front")  # see camera_views
SIDE_AZIMUTH = 90.0  # deg: looking along +y, so travel along +x runs left to right
FRONT_ELEVATION = -10.0  # deg
CAMERA_SMOOTHING = 0.3  # s: standard deviation of the Gaussian that smooths the followed path
_MP4_QUALITY = 8  # imageio's 0-10 scale; 8 is x264 CRF 10, visually lossless for flat shading


def frame_indices(clip: MotionClip, fps: float) -> np.ndarray:
    """Clip frames (n,) shown at ``fps`` [frames/s]: the nearest clip frame to
    each output time 0, 1/fps, ... up to the clip's duration."""
    n = int(np.floor(clip.duration * fps + 1e-9)) + 1
    return np.minimum(np.rint(np.arange(n) * clip.fps / fps).astype(int), clip.n_frames - 1)


def camera_views(character: Character, qpos: np.ndarray, fps: float, camera: str = "follow") -> list[View]:
    """One camera per frame for ``qpos`` (T, nq) shown at ``fps``.

    ``camera`` (one of :data:`CAMERAS`):

    - ``follow``: the three-quarter view of :func:`frame_character` whose
      look-at point tracks the root body's horizontal path, smoothed by a
      Gaussian of ``CAMERA_SMOOTHING`` seconds so steps and sway do not shake
      the picture (a straight steady walk stays centred, ends included);
      height, distance and angles stay fixed.
    - ``side``: one fixed camera square to the side (travel along +x runs
      left to right), pulled back to cover the root's whole path.
    - ``front``: tracks like ``follow`` from in front of the creature, facing
      back along its direction of travel (its initial +x when it stays put).
    """
    if camera not in CAMERAS:
        raise GaitforgeError(f"camera must be one of {', '.join(CAMERAS)}, got {camera!r}")
    base = frame_character(character, qpos[0])
    pos = clip_kinematics(character, qpos)[0]
    root = pos[:, int(np.flatnonzero(character.model.body_parentid[1:] == 0)[0]) + 1, :2]
    offset = np.asarray(base.lookat[:2]) - root[0]
    if camera == "side":
        lo, hi = root.min(axis=0), root.max(axis=0)
        centre = 0.5 * (lo + hi) + offset
        view = View((*centre, base.lookat[2]), base.distance + float(np.max(hi - lo)), SIDE_AZIMUTH,
                    base.elevation)
        return [view] * len(qpos)
    azimuth, elevation = base.azimuth, base.elevation
    if camera == "front":
        travel = root[-1] - root[0]
        heading = (np.arctan2(travel[1], travel[0]) if np.hypot(*travel) > 0.05 * base.distance
                   else _initial_yaw(character, qpos[0]))
        azimuth, elevation = float(np.degrees(heading)) + 180.0, FRONT_ELEVATION
    sigma = max(CAMERA_SMOOTHING * fps, 1e-6)
    # Odd reflection at both ends keeps a steady walk unbent there (the
    # camera neither lags at the start nor runs ahead at the end).
    pad = int(4 * sigma) + 1
    padded = np.pad(root, ((pad, pad), (0, 0)), mode="reflect", reflect_type="odd")
    path = gaussian_filter1d(padded, sigma=sigma, axis=0, mode="nearest")[pad:pad + len(root)]
    return [View((*(xy + offset), base.lookat[2]), base.distance, azimuth, elevation) for xy in path]


def _initial_yaw(character: Character, qpos: np.ndarray) -> float:
    """Heading [rad] of the root body's +x axis at ``qpos``, about +z."""
    d = character.make_data(qpos)
    root = int(np.flatnonzero(character.model.body_parentid[1:] == 0)[0]) + 1
    x_axis = d.xmat[root].reshape(3, 3)[:, 0]
    return float(np.arctan2(x_axis[1], x_axis[0]))


def _check(path, fps: float, width: int, height: int) -> str:
    ext = check_extension(path, VIDEO_EXTENSIONS, "video")
    if not (isinstance(fps, (int, float)) and np.isfinite(fps) and fps > 0):
        raise GaitforgeError(f"video fps must be a positive number, got {fps!r}")
    for name, value in (("width", width), ("height", height)):
        if not isinstance(value, int) or value < 16:
            raise GaitforgeError(f"video {name} must be a whole number of pixels, at least 16, got {value!r}")
    if ext == ".mp4" and (width % 2 or height % 2):
        raise GaitforgeError(f"MP4 (H.264, yuv420p) needs an even width and height, got {width}x{height}")
    return ext


def save_video(character: Character, clip: MotionClip, path: str | os.PathLike, fps: float | None = None,
               width: int = VIDEO_SIZE[0], height: int = VIDEO_SIZE[1], camera: str = "follow",
               progress: Callable[[int, int], None] | None = None) -> None:
    """Render ``clip`` and write it as ``.mp4`` or ``.gif`` (atomically).

    fps: output frame rate [frames/s]; default :data:`VIDEO_FPS` whatever
    the clip's rate (``GIF_MAX_FPS`` for GIF); each output frame shows the
    nearest clip frame. width, height: pixels. camera: one of
    :data:`CAMERAS` (see :func:`camera_views`). progress: called as
    ``progress(done, total)`` after each rendered frame. Raises
    :class:`GaitforgeError` for a clip that does not fit the character or bad
    options; no file is written then.
    """
    ext = check_extension(path, VIDEO_EXTENSIONS, "video")
    if fps is None:
        fps = min(VIDEO_FPS, GIF_MAX_FPS) if ext == ".gif" else VIDEO_FPS
    _check(path, fps, width, height)
    if camera not in CAMERAS:
        raise GaitforgeError(f"camera must be one of {', '.join(CAMERAS)}, got {camera!r}")
    check_clip(character, clip)
    qpos = clip.qpos[frame_indices(clip, fps)]
    views = camera_views(character, qpos, fps, camera)
    with StillRenderer(character, width, height) as renderer, atomic_path(path) as tmp:
        frames = (renderer.render(q, v) for q, v in zip(qpos, views))
        if ext == ".mp4":
            writer = imageio.get_writer(tmp, format="FFMPEG", fps=fps, codec="libx264", pixelformat="yuv420p",
                                        quality=_MP4_QUALITY, macro_block_size=1, ffmpeg_log_level="error")
            with writer:
                for i, frame in enumerate(frames):
                    writer.append_data(frame)
                    if progress:
                        progress(i + 1, len(qpos))
        else:
            kept = []
            for i, frame in enumerate(frames):
                kept.append(frame)
                if progress:
                    progress(i + 1, len(qpos))
            iio.imwrite(tmp, np.stack(kept), extension=".gif", duration=1000.0 / fps, loop=0)

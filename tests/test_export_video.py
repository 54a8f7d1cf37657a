"""MP4 / GIF export: files read back with imageio have the right frame count,
size and moving content; the camera follows the root smoothly; errors (also
mid-render) leave no file behind."""
from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest

from gaitforge.errors import GaitforgeError
from gaitforge.io import render
from gaitforge.io.video import camera_views, frame_indices, save_video
from gaitforge.motion.clip import MotionClip
from test_clipfiles import gadget, smooth_clip, worm


@pytest.mark.parametrize("ext", [".mp4", ".gif"])
def test_video_reads_back(tmp_path, ext):
    ch = worm()
    clip = smooth_clip(ch, 20, fps=20.0)
    path = tmp_path / f"worm{ext}"
    calls = []
    save_video(ch, clip, path, width=160, height=120, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(i, 20) for i in range(1, 21)]
    frames = iio.imread(path, index=None, plugin="FFMPEG" if ext == ".mp4" else None)
    assert frames.shape == (20, 120, 160, 3) and frames.dtype == np.uint8
    change = np.abs(np.diff(frames.astype(int), axis=0)).mean(axis=(1, 2, 3))
    assert (change > 0.2).all()  # every frame differs from the one before
    if ext == ".mp4":
        meta = iio.immeta(path, plugin="FFMPEG")
        assert meta["codec"] == "h264" and meta["pix_fmt"].startswith("yuv420p") and meta["fps"] == 20.0
    else:
        assert iio.immeta(path, index=0)["duration"] == 50  # ms per frame


def test_output_rate_picks_the_nearest_frames():
    clip = MotionClip(30.0, np.zeros((20, 1)))
    assert frame_indices(clip, 15.0).tolist() == list(range(0, 20, 2))
    assert frame_indices(clip, 30.0).tolist() == list(range(20))
    assert frame_indices(clip, 45.0).tolist() == [0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10, 11, 11, 12,
                                                  13, 13, 14, 15, 15, 16, 17, 17, 18, 19]


def test_camera_follows_the_root_smoothly():
    ch = gadget()
    clip = smooth_clip(ch, 90, fps=30.0)  # root walks +x at 0.3 m/s, sways ±5 cm in y at 0.7 Hz
    views = camera_views(ch, clip.qpos, 30.0, follow=True)
    look = np.array([v.lookat for v in views])
    root = clip.qpos[:, :3]
    assert len({(v.distance, v.azimuth, v.elevation, v.lookat[2]) for v in views}) == 1
    # A steady walk stays framed as in the first frame, ends included ...
    np.testing.assert_allclose(look[:, 0] - root[:, 0], views[0].lookat[0] - root[0, 0], atol=1e-9)
    np.testing.assert_allclose(look[0], render.frame_character(ch, clip.qpos[0]).lookat, atol=2e-3)
    inner = slice(30, 60)
    # ... while the sway is damped (0.7 Hz through a 0.3 s Gaussian keeps exp(-(2π·0.7·0.3)²/2) ≈ 0.42).
    sway_root, sway_cam = np.ptp(root[inner, 1]), np.ptp(look[inner, 1])
    assert 0.3 * sway_root < sway_cam < 0.55 * sway_root
    fixed = camera_views(ch, clip.qpos, 30.0, follow=False)
    assert len(set(fixed)) == 1 and fixed[0].distance > views[0].distance


def test_errors_leave_no_file(tmp_path, monkeypatch):
    ch = worm()
    clip = smooth_clip(ch, 6)
    cases = [
        (dict(path=tmp_path / "w.avi"),
         f"{tmp_path / 'w.avi'}: unknown video file extension '.avi' (valid: .gif, .mp4)"),
        (dict(path=tmp_path / "w.mp4", width=161), "MP4 (H.264, yuv420p) needs an even width and height, got 161x480"),
        (dict(path=tmp_path / "w.gif", fps=0.0), "video fps must be a positive number, got 0.0"),
        (dict(path=tmp_path / "w.gif", height=8), "video height must be a whole number of pixels, at least 16, got 8"),
    ]
    for kwargs, message in cases:
        with pytest.raises(GaitforgeError) as exc:
            save_video(ch, clip, **kwargs)
        assert str(exc.value) == message
    with pytest.raises(GaitforgeError) as exc:
        save_video(gadget(), clip, tmp_path / "w.mp4", width=64, height=48)
    assert str(exc.value) == "motion clip has 22 coordinates per frame but gadget has nq = 17"

    count = {"n": 0}
    original = render.StillRenderer.render

    def failing(self, qpos, view):
        count["n"] += 1
        if count["n"] == 4:
            raise RuntimeError("GL context lost")
        return original(self, qpos, view)

    monkeypatch.setattr(render.StillRenderer, "render", failing)
    for name in ("w.mp4", "w.gif"):
        count["n"] = 0
        with pytest.raises(RuntimeError):
            save_video(ch, clip, tmp_path / name, width=64, height=48)
    assert list(tmp_path.iterdir()) == []

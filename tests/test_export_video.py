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
    save_video(ch, clip, path, fps=20.0, width=160, height=120,
               progress=lambda done, total: calls.append((done, total)))
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


@pytest.mark.parametrize("ext, fps", [(".mp4", 60.0), (".gif", 50.0)])
def test_videos_run_at_one_rate_whatever_the_clips(tmp_path, ext, fps):
    """A 20 fps clip of 1 s becomes 61 frames at 60 fps (a GIF: 51 at 50 fps,
    its frame delay in whole 10 ms)."""
    ch = worm()
    path = tmp_path / f"worm{ext}"
    save_video(ch, smooth_clip(ch, 21, fps=20.0), path, width=64, height=48)
    frames = iio.imread(path, index=None, plugin="FFMPEG" if ext == ".mp4" else None)
    assert frames.shape == (int(fps) + 1, 48, 64, 3)
    if ext == ".mp4":
        assert iio.immeta(path, plugin="FFMPEG")["fps"] == fps
    else:
        assert iio.immeta(path, index=0)["duration"] == 1000 / fps


def test_output_rate_picks_the_nearest_frames():
    clip = MotionClip(30.0, np.zeros((20, 1)))
    assert frame_indices(clip, 15.0).tolist() == list(range(0, 20, 2))
    assert frame_indices(clip, 30.0).tolist() == list(range(20))
    assert frame_indices(clip, 45.0).tolist() == [0, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10, 11, 11, 12,
                                                  13, 13, 14, 15, 15, 16, 17, 17, 18, 19]


def test_camera_follows_the_root_smoothly():
    ch = gadget()
    clip = smooth_clip(ch, 90, fps=30.0)  # root walks +x at 0.3 m/s, sways ±5 cm in y at 0.7 Hz
    views = camera_views(ch, clip.qpos, 30.0, "follow")
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
    side = camera_views(ch, clip.qpos, 30.0, "side")
    assert len(set(side)) == 1 and side[0].distance > views[0].distance and side[0].azimuth == 90.0
    # The middle of the root's path is in the middle of the fixed picture.
    np.testing.assert_allclose(side[0].lookat[0] - views[0].lookat[0], 0.5 * np.ptp(root[:, 0]), atol=1e-9)
    # In front: tracks the same path, facing back along the travel (about +x: azimuth about 180°).
    front = camera_views(ch, clip.qpos, 30.0, "front")
    np.testing.assert_allclose([v.lookat for v in front], look, atol=1e-12)
    travel = root[-1, :2] - root[0, :2]
    assert len({(v.azimuth, v.elevation) for v in front}) == 1 and front[0].elevation == -10.0
    assert front[0].azimuth == pytest.approx(np.degrees(np.arctan2(travel[1], travel[0])) + 180.0, abs=1e-9)
    assert abs(front[0].azimuth - 180.0) < 5.0


def test_a_creature_that_stays_put_is_seen_from_where_it_faces():
    ch = gadget()
    still = np.repeat(smooth_clip(ch, 1).qpos, 10, axis=0)
    yaw = 0.5  # rad about +z, as the root's unit quaternion (w, x, y, z)
    still[:, 3:7] = [np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)]
    front = camera_views(ch, still, 30.0, "front")
    assert front[0].azimuth == pytest.approx(np.degrees(yaw) + 180.0, abs=1e-9)


def test_errors_leave_no_file(tmp_path, monkeypatch):
    ch = worm()
    clip = smooth_clip(ch, 6)
    cases = [
        (dict(path=tmp_path / "w.avi"),
         f"{tmp_path / 'w.avi'}: unknown video file extension '.avi' (valid: .gif, .mp4)"),
        (dict(path=tmp_path / "w.mp4", width=161), "MP4 (H.264, yuv420p) needs an even width and height, got 161x480"),
        (dict(path=tmp_path / "w.gif", fps=0.0), "video fps must be a positive number, got 0.0"),
        (dict(path=tmp_path / "w.gif", height=8), "video height must be a whole number of pixels, at least 16, got 8"),
        (dict(path=tmp_path / "w.gif", camera="top"), "camera must be one of follow, side, front, got 'top'"),
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


def test_the_api_takes_the_camera_and_checks_it(tmp_path):
    import gaitforge as gf

    ch = worm()
    clip = smooth_clip(ch, 4)
    with pytest.raises(GaitforgeError) as exc:
        gf.save(clip, tmp_path / "w.gif", ch, camera="top")
    assert str(exc.value) == "camera must be one of follow, side, front, got 'top'"
    assert list(tmp_path.iterdir()) == []
    gf.save(clip, tmp_path / "w.gif", ch, camera="side", width=32, height=24)
    assert iio.imread(tmp_path / "w.gif", index=None).shape[1:3] == (24, 32)

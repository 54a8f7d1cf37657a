"""The root's track: speed along it, yaw rate and path error, checked on
clips whose answers are known, and reported for turning and path-following
runs."""
import math

import numpy as np
import pytest

from gaitforge.motion.clip import MotionClip
from gaitforge.sim.track import com_track, distance_to_polyline, measure_track
from test_clipfiles import gadget


def _circle_clip(ch, radius: float, speed: float, seconds: float, fps: float = 50.0) -> MotionClip:
    """The root (free joint) driven round a circle of ``radius`` [m] at
    ``speed`` [m/s] counter-clockwise, facing along its velocity."""
    t = np.arange(int(seconds * fps) + 1) / fps
    phi = speed * t / radius
    q = np.tile(ch.rest_qpos, (len(t), 1))
    q[:, 0], q[:, 1] = radius * np.sin(phi), radius * (1 - np.cos(phi))
    yaw = phi  # heading along the velocity (cos φ, sin φ)
    q[:, 3:7] = np.column_stack([np.cos(yaw / 2), 0 * t, 0 * t, np.sin(yaw / 2)])
    return MotionClip(fps, q, ch.name)


def test_a_circle_gives_its_speed_yaw_rate_and_no_path_error():
    ch = gadget()
    radius, speed = 2.0, 0.5
    clip = _circle_clip(ch, radius, speed, 30.0)
    # The circle as a closed polyline of 400 points: within 0.1 mm of the arc.
    phi = np.linspace(0, 2 * np.pi, 400, endpoint=False)
    ring = np.column_stack([radius * np.sin(phi), radius * (1 - np.cos(phi))])
    t = measure_track(ch, clip, settle=5.0, waypoints=ring, loop=True)
    assert t.path_speed == pytest.approx(speed, rel=1e-4)
    assert t.yaw_rate == pytest.approx(speed / radius, rel=1e-9)  # heading unwrapped over more than a turn
    assert t.path_error_max < 1e-4
    # 25 s at 0.25 rad/s is 6.25 rad: the chord is short, the net speed small.
    assert t.net_speed == pytest.approx(2 * radius * abs(math.sin(6.25 / 2)) / 25.0, rel=1e-6)


def test_distance_to_a_polyline():
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    points = np.array([[0.5, -0.2], [1.3, 0.5], [0.5, 0.5], [-0.3, -0.4], [0.5, 1.1]])
    np.testing.assert_allclose(distance_to_polyline(points, square, loop=True), [0.2, 0.3, 0.5, 0.5, 0.1])
    # Open: the closing side (0,1)-(0,0) is not part of it.
    np.testing.assert_allclose(distance_to_polyline(np.array([[-0.1, 0.5]]), square), [math.hypot(0.1, 0.5)])


@pytest.mark.slow
def test_a_turning_run_reports_its_yaw_rate():
    import gaitforge as gf

    run = gf.run("gorilla", "trot", speed=0.3, seconds=15, turn_rate=0.2)
    rows = dict(run.measures().rows)
    yaw = float(rows["yaw rate (deg/s)"].split()[0])
    assert rows["yaw rate (deg/s)"].endswith("(commanded 11.5)")
    assert yaw == pytest.approx(math.degrees(0.2), rel=0.1)
    assert float(rows["speed along the track (m/s)"]) == pytest.approx(0.3, rel=0.1)
    straight = dict(gf.run("gorilla", "trot", speed=0.3, seconds=6).measures().rows)
    assert "yaw rate (deg/s)" not in straight


def test_the_com_track_is_the_mass_centre_of_each_frame():
    """A circle clip's mass centre, frame by frame, against the character's
    own (whole-model) mass centre; a translated clip moves it by the same
    offset."""
    ch = gadget()
    clip = _circle_clip(ch, 2.0, 0.5, 2.0)
    xy = com_track(ch, clip.qpos)
    assert xy.shape == (clip.n_frames, 2)
    np.testing.assert_allclose(xy, [ch.com(q)[:2] for q in clip.qpos], atol=1e-12)
    moved = clip.qpos.copy()
    moved[:, :2] += [0.3, -0.7]
    np.testing.assert_allclose(com_track(ch, moved), xy + [0.3, -0.7], atol=1e-12)

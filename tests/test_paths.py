"""Path following math (waypoints -> velocity and heading) and path files."""
import math

import numpy as np
import pytest

from gaitforge.control.paths import PathFollower, WaypointPath, distance_to_path
from gaitforge.errors import GaitforgeError, SpecError
from gaitforge.io.paths import load_path, parse_path_text

SQUARE = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]]


# ----------------------------------------------------------------- geometry
def test_distance_to_path_oracle():
    path = WaypointPath(SQUARE)  # open: three sides
    pts = np.array([[2.0, 0.0], [2.0, 0.5], [2.0, -0.3], [5.0, 2.0], [-1.0, 0.0], [2.0, 2.0], [0.0, 2.0]])
    # on a side; 0.5 inside; 0.3 outside; 1 beyond the right side; 1 before
    # the start; the centre (2 from every side); the open square's missing side
    np.testing.assert_allclose(distance_to_path(path, pts), [0.0, 0.5, 0.3, 1.0, 1.0, 2.0, 2.0])
    closed = WaypointPath(SQUARE, loop=True)
    assert distance_to_path(closed, [0.0, 2.0]) == pytest.approx(0.0)  # the closing side exists
    assert closed.length == pytest.approx(16.0) and path.length == pytest.approx(12.0)


def test_path_validation():
    with pytest.raises(GaitforgeError) as info:
        WaypointPath([[0.0, 0.0]])
    assert str(info.value) == "path: waypoints must be an (N, 2) array with N >= 2, got shape (1, 2)"
    with pytest.raises(GaitforgeError) as info:
        WaypointPath([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    assert str(info.value) == "path: waypoints 1 and 2 coincide"
    with pytest.raises(GaitforgeError) as info:
        WaypointPath([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]], loop=True)
    assert str(info.value) == "path: waypoints 2 and 0 coincide"
    with pytest.raises(GaitforgeError) as info:
        WaypointPath(SQUARE, speed=0.0)
    assert str(info.value) == "path: speed must be a positive number, got 0.0"


# ----------------------------------------------------------------- follower
def test_on_the_path_the_command_points_along_it():
    f = PathFollower(WaypointPath([[0.0, 0.0], [10.0, 0.0]]), speed=1.5, lookahead=1.0)
    cmd = f.update([3.0, 0.0])
    np.testing.assert_allclose(cmd.velocity, [1.5, 0.0])
    assert cmd.heading == pytest.approx(0.0) and cmd.cross_track == pytest.approx(0.0)
    assert cmd.segment == 0 and not cmd.done


def test_off_the_path_the_command_steers_back():
    f = PathFollower(WaypointPath([[0.0, 0.0], [10.0, 0.0]]), speed=1.0, lookahead=1.0)
    cmd = f.update([3.0, 1.0])  # 1 m to the left of the line
    # carrot at (4, 0): aim down-right at 45 degrees, full speed
    np.testing.assert_allclose(cmd.velocity, [math.sqrt(0.5), -math.sqrt(0.5)])
    assert cmd.heading == pytest.approx(-math.pi / 4)
    assert cmd.cross_track == pytest.approx(1.0)
    assert f.update([3.0, -0.5]).cross_track == pytest.approx(-0.5)


def test_corner_carrot_turns_early_and_segment_advances():
    f = PathFollower(WaypointPath(SQUARE, loop=True), speed=1.0, lookahead=1.0)
    cmd = f.update([3.5, 0.0])  # 0.5 m before the corner: carrot 0.5 m up the next side
    np.testing.assert_allclose(cmd.velocity, [math.sqrt(0.5), math.sqrt(0.5)])
    assert cmd.segment == 0
    assert f.update([4.0, 0.2]).segment == 1  # past the end of side 0
    f.update([4.0, 3.0])
    f.update([1.0, 4.0])
    assert f.update([0.0, 1.0]).segment == 3  # the closing side
    assert f.update([0.5, 0.0]).segment == 0  # and around again


def test_open_path_slows_to_a_stop_at_its_end():
    f = PathFollower(WaypointPath([[0.0, 0.0], [5.0, 0.0]]), speed=2.0, lookahead=1.0, stop_radius=0.8)
    assert np.linalg.norm(f.update([4.6, 0.0]).velocity) == pytest.approx(2.0 * 0.4 / 0.8)
    end = f.update([4.95, 0.0])
    assert end.done and np.all(end.velocity == 0.0)
    # beyond the end it aims back at the last waypoint
    assert f.update([5.5, 0.0]).velocity[0] < 0.0


# --------------------------------------------------------------- path files
def test_load_path_file(tmp_path):
    p = tmp_path / "square.yaml"
    p.write_text("waypoints: [[0, 0], [4, 0], [4, 4], [0, 4]]\nspeed: 1.2\nloop: true\n")
    path = load_path(p)
    np.testing.assert_array_equal(path.waypoints, SQUARE)
    assert path.speed == 1.2 and path.loop is True
    path = parse_path_text('{"waypoints": [[0, 0], [1, 2.5]]}', "s.json")  # JSON is YAML
    assert path.speed is None and path.loop is False and path.waypoints[1, 1] == 2.5


@pytest.mark.parametrize("text, message", [
    ("waypoints: [[0, 0], [1, 0]]\nsped: 1\n", "p.yaml: sped: unknown key 'sped' (valid keys: waypoints, speed, loop)"),
    ("speed: 1\n", "p.yaml: waypoints: missing: give a list of [x, y] points in metres"),
    ("- [0, 0]\n", "p.yaml: must be a mapping with a 'waypoints' list, got list [[0, 0]]"),
    ("waypoints: 3\n", "p.yaml: waypoints: must be a list of [x, y] points, got 3"),
    ("waypoints: [[0, 0]]\n", "p.yaml: waypoints: needs at least 2 points, got 1"),
    ("waypoints: [[0, 0], [1, 0, 2]]\n", "p.yaml: waypoints[1]: must be a list [x, y], got [1, 0, 2]"),
    ("waypoints: [[0, 0], [1, a]]\n", "p.yaml: waypoints[1][1]: must be a number, got 'a'"),
    ("waypoints: [[0, 0], [1, .nan]]\n", "p.yaml: waypoints[1][1]: must be a finite number, got nan"),
    ("waypoints: [[0, 0], [1, 0], [1, 0]]\n", "p.yaml: waypoints[2]: repeats the previous point [1, 0]"),
    ("waypoints: [[0, 0], [1, 0]]\nspeed: -2\n", "p.yaml: speed: must be a positive speed in m/s, got -2"),
    ("waypoints: [[0, 0], [1, 0]]\nspeed: fast\n", "p.yaml: speed: must be a number, got 'fast'"),
    ("waypoints: [[0, 0], [1, 0]]\nloop: 1\n", "p.yaml: loop: must be true or false, got 1"),
    ("waypoints: [[0, 0], [1, 0], [0, 0]]\nloop: true\n",
     "p.yaml: loop: the last waypoint repeats the first; leave it out, the loop closes itself"),
    ("waypoints: [[0, 0], [1, 0]\n",
     "p.yaml: line 2, column 1: malformed YAML: expected ',' or ']', but got '<stream end>'"),
])
def test_path_file_errors_are_exact(text, message):
    with pytest.raises(SpecError) as info:
        parse_path_text(text, "p.yaml")
    assert str(info.value) == message


def test_missing_path_file(tmp_path):
    with pytest.raises(SpecError) as info:
        load_path(tmp_path / "nope.yaml")
    assert str(info.value) == f"{tmp_path / 'nope.yaml'}: no such file"

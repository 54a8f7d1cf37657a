"""Table 2 measurements against runs whose answers are known by construction,
and the run / report commands end to end."""
import math

import numpy as np
import pytest

from gaitforge.cli.main import main
from gaitforge.control.raibert.measures import fill_chatter, intervals, measure_run
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.motion.clip import MotionClip
from gaitforge.sim.runner import Rollout

FPS = 200.0


@pytest.fixture(scope="module")
def quad():
    return Character.from_spec(registry.build("raibert_quadruped"))


def _bound(character, speed=2.0, period=0.4, pitch_amp=math.radians(10), seconds=8.0):
    """A prescribed bound: front feet down for [0, 0.1) of each cycle, rear
    feet for [0.2, 0.3); root moving at ``speed``; trunk pitching sinusoidally."""
    t = np.arange(int(seconds * FPS)) / FPS
    q = np.tile(character.rest_qpos, (len(t), 1))
    q[:, 0] = speed * t
    pitch = pitch_amp * np.sin(2 * math.pi * t / period)
    q[:, 3], q[:, 5] = np.cos(pitch / 2), np.sin(pitch / 2)
    phase = (t % period) / period
    front = phase < 0.25
    rear = (phase >= 0.5) & (phase < 0.75)
    contact = np.column_stack([front, front, rear, rear])
    grf = np.zeros((len(t), 4, 3))
    grf[:, :, 2] = contact * character.mass * 9.81  # each stance foot carries 2x body weight / 2
    grf[:, :, 0] = contact * 0.3 * character.mass * 9.81
    feet = ("front_left_foot", "front_right_foot", "rear_left_foot", "rear_right_foot")
    clip = MotionClip(FPS, q, character.name)
    return Rollout(clip, feet, contact, grf, ("x",) * len(t), None, 0.0)


def test_intervals():
    assert intervals(np.array([0, 1, 1, 0, 1], bool)) == [(1, 3), (4, 5)]


def test_fill_chatter_closes_short_gaps_inside_a_stance_only():
    flags = np.array([[0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 1, 0]], bool).T  # gaps of 1 and 4 samples, 100 fps
    filled = fill_chatter(flags, fps=100.0, max_gap=0.02)
    assert filled[:, 0].astype(int).tolist() == [0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0]
    assert fill_chatter(flags, fps=100.0, max_gap=0.04)[:, 0].astype(int).tolist() == \
        [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0]  # the 4-sample gap too; never the edges
    assert not flags[3, 0]  # the input is left alone


def test_chatter_does_not_split_strides(quad):
    """One-sample contact gaps in mid-stance (the soft contact letting go
    for a tick) leave every measure as it was."""
    clean = _bound(quad)
    stance = clean.contact.copy()
    chattering = stance.copy()
    for i in range(4):
        for a, b in intervals(stance[:, i]):
            chattering[(a + b) // 2, i] = False
    noisy = Rollout(clean.clip, clean.feet, chattering, clean.grf, clean.states, None, 0.0)
    a, b = (measure_run(quad, r, desired_speed=2.2, settle=1.0).as_dict() for r in (clean, noisy))
    assert a.keys() == b.keys()
    for key in a:
        assert (a[key] is None and b[key] is None) or a[key] == pytest.approx(b[key], rel=1e-9, abs=1e-12), key


def test_measures_of_a_prescribed_bound(quad):
    m = measure_run(quad, _bound(quad), desired_speed=2.2, settle=1.0)
    assert m.stride_duration == pytest.approx(0.4, abs=1e-9)
    assert m.stride_length == pytest.approx(0.8, rel=1e-6)
    assert m.speed == pytest.approx(2.0, rel=1e-6)
    assert m.speed_error == pytest.approx(-0.2, rel=1e-5)
    assert m.pitch_deg == pytest.approx(20.0, rel=2e-3)  # peak to peak of ±10°
    assert m.stance_front == pytest.approx(0.1, abs=1 / FPS)
    assert m.stance_rear == pytest.approx(0.1, abs=1 / FPS)
    # Flights: after the front liftoff (gathered) 0.1 s, after the rear (extended) 0.1 s.
    assert m.gathered_flight == pytest.approx(0.1, abs=1 / FPS)
    assert m.extended_flight == pytest.approx(0.1, abs=1 / FPS)
    assert m.flight_duration == pytest.approx(0.2, abs=2 / FPS)
    # Two feet each carrying one body weight: peak total force 2 g.
    assert m.peak_vertical_accel_g == pytest.approx(2.0, rel=1e-9)
    assert m.friction_mid_stance == pytest.approx(0.3, rel=1e-9)
    assert m.leg_length_change == pytest.approx(0.0, abs=1e-12)


def test_run_command_reports_and_writes(tmp_path, capsys):
    out = tmp_path / "hop.npz"
    assert main(["run", "kangaroo", "--speed", "2.5", "--seconds", "6", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "kangaroo hop" in text and "tail wag deg" in text
    from gaitforge.io.clipfiles import load_npz
    clip = load_npz(out)
    assert clip.duration == pytest.approx(6.0, abs=0.02)


def test_run_command_bad_input(tmp_path, capsys):
    assert main(["run", "biped", "--gait", "trot"]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: biped has no gait 'trot' "
                                       "(valid gaits: run, gallop_together, gallop_alternate)\n")
    assert main(["run", "kangaroo", "-o", str(tmp_path / "x.obj")]) == 2
    assert "unknown motion file extension '.obj'" in capsys.readouterr().err
    assert not (tmp_path / "x.obj").exists()


def test_speed_outside_range_is_refused_naming_the_range(capsys):
    assert main(["run", "quadruped", "--gait", "trot", "--speed", "9", "--seconds", "3"]) == 2
    err = capsys.readouterr().err
    assert err == "gaitforge: error: raibert_quadruped trot: speed 9 m/s is outside its range 0.5–1.8 m/s\n"


@pytest.mark.slow
def test_report_raibert_writes_table_and_plots(tmp_path, capsys):
    assert main(["report", "raibert", "--seconds", "20", "--out", str(tmp_path)]) == 0
    md = (tmp_path / "table2.md").read_text()
    for title in ("Quadruped Bound", "Quadruped Trot", "Biped Run", "Kangaroo Hop"):
        assert f"### {title}" in md
    csv_lines = (tmp_path / "table2.csv").read_text().splitlines()
    assert csv_lines[0] == "experiment,quantity,robot_or_animal,rh91_animation,gaitforge"
    assert len(csv_lines) == 1 + 10 + 8 + 8 + 8
    # Every row we claim to measure has a number.
    assert all(line.split(",")[-1] != "" for line in csv_lines[1:])
    assert (tmp_path / "kangaroo_hop_fig6.png").stat().st_size > 10000
    assert (tmp_path / "biped_run_legs.png").exists()

"""Gait metrics against prescribed footfall patterns (analytic oracles).

Each clip is synthesized from a pattern (phases, duty factor, stride
frequency, speed; see test_footfall.synth); the metrics measured on the
detected footfalls must give that pattern back. Tolerances follow from the
frame rate: landings are seen to the nearest frame, dt = 1/60 s.
"""
import json
import time

import numpy as np
import pytest

from gaitforge.errors import GaitforgeError
from gaitforge.motion import MotionClip
from gaitforge.motion.footfall import detect_footfalls, footfalls_from_contacts
from gaitforge.motion.metrics import classify_gait, gait_metrics, hip_height
from test_footfall import BIPED, FOOT_R, LEG, TROT, legged, synth

FPS = 60.0
DT = 1.0 / FPS
G = 9.81
H = LEG + FOOT_R  # hip height of the ad-hoc creatures [m]


def _circ(a, b):
    d = abs(a - b) % 1.0
    return min(d, 1.0 - d)


@pytest.fixture(scope="module")
def quad():
    return legged()


@pytest.fixture(scope="module")
def biped():
    return legged(BIPED)


def measure(char, phases, **kw):
    clip, truth = synth(char, phases, fps=FPS, **kw)
    ff = detect_footfalls(char, clip)
    np.testing.assert_array_equal(ff.contact, truth)  # detection is exact on these clips
    return gait_metrics(char, clip, ff), clip, ff


def check_pattern(m, phases, *, duty, freq, speed, flight=None, reference):
    """The measured metrics reproduce the prescription within frame accuracy."""
    per_cycle = freq * DT  # one frame, in cycles
    # Landings are seen to a frame, but the stride fit over all of them
    # resolves the period far below that (a tenth of a frame here).
    assert m.stride_duration == pytest.approx(1.0 / freq, abs=0.1 * DT)
    assert m.stride_frequency == pytest.approx(freq, rel=0.1 * DT * freq)
    assert m.speed == pytest.approx(speed, rel=1e-9)
    assert m.stride_length == pytest.approx(speed / freq, abs=speed * 0.1 * DT)
    for name, phi in phases.items():
        # Each contact starts and ends on a frame: ±half a frame at each end.
        assert m.duty_factor[name] == pytest.approx(duty, abs=per_cycle), name
        expected = (phi - phases[reference]) % 1.0
        assert _circ(m.phase[name], expected) <= per_cycle, (name, m.phase[name], expected)
        assert 0.0 <= m.phase[name] < 1.0
    assert m.phase[reference] == 0.0 and m.reference == reference
    if flight is not None:
        assert m.flight_fraction == pytest.approx(flight, abs=1.5 * per_cycle)
    assert m.hip_height == pytest.approx(H, abs=1e-9)
    assert m.froude == pytest.approx(speed ** 2 / (G * H), rel=1e-6)
    assert m.relative_stride_length == pytest.approx(m.stride_length / H, rel=1e-12)
    assert m.skate_speed == pytest.approx(0.0, abs=1e-9) and m.foot_skate == pytest.approx(0.0, abs=1e-9)


def test_hip_height_is_rest_hip_above_lowest_point(quad):
    assert hip_height(quad) == pytest.approx(LEG + FOOT_R, abs=1e-12)


def test_trot(quad):
    # Flying trot: diagonals together, half a cycle apart, 20 % of time airborne.
    m, _, _ = measure(quad, TROT, duty=0.4, freq=1.9, speed=1.2)
    check_pattern(m, TROT, duty=0.4, freq=1.9, speed=1.2, flight=0.2, reference="rear_left_foot")
    assert m.n_strides >= 6
    assert classify_gait(m) == "trot"
    report = json.loads(json.dumps(m.to_dict()))
    assert report["duty_factor"]["rear_left_foot"] == m.duty_factor["rear_left_foot"]
    assert report["feet"] == list(TROT) and report["limbs"]["front_left_foot"] == "front"


def test_pace(quad):
    pace = {"front_left_foot": 0.0, "front_right_foot": 0.5, "rear_left_foot": 0.0, "rear_right_foot": 0.5}
    m, _, _ = measure(quad, pace, duty=0.5, freq=2.0, speed=1.0)
    check_pattern(m, pace, duty=0.5, freq=2.0, speed=1.0, flight=0.0, reference="rear_left_foot")
    assert classify_gait(m) == "pace"


def test_bound(quad):
    bound = {"front_left_foot": 0.55, "front_right_foot": 0.55, "rear_left_foot": 0.1, "rear_right_foot": 0.1}
    m, _, _ = measure(quad, bound, duty=0.3, freq=2.6, speed=2.0)
    check_pattern(m, bound, duty=0.3, freq=2.6, speed=2.0, flight=0.4, reference="rear_left_foot")
    assert classify_gait(m) == "bound"


def test_pronk(quad):
    pronk = dict.fromkeys(TROT, 0.2)
    m, _, _ = measure(quad, pronk, duty=0.35, freq=2.2, speed=0.8)
    check_pattern(m, pronk, duty=0.35, freq=2.2, speed=0.8, flight=0.65, reference="rear_left_foot")
    assert classify_gait(m) == "pronk"


def test_walk(quad):
    # Lateral-sequence walk: hind left, fore left, hind right, fore right, a
    # quarter cycle apart; three or four feet always down.
    walk = {"front_left_foot": 0.25, "front_right_foot": 0.75, "rear_left_foot": 0.0, "rear_right_foot": 0.5}
    m, _, _ = measure(quad, walk, duty=0.7, freq=1.1, speed=0.5, duration=6.0)
    check_pattern(m, walk, duty=0.7, freq=1.1, speed=0.5, flight=0.0, reference="rear_left_foot")
    assert classify_gait(m) == "walk"


def test_gallop(quad):
    # Transverse gallop: hind pair then fore pair, each split by 0.15 cycle.
    gallop = {"front_left_foot": 0.5, "front_right_foot": 0.65, "rear_left_foot": 0.0, "rear_right_foot": 0.15}
    m, _, _ = measure(quad, gallop, duty=0.3, freq=2.4, speed=3.0)
    check_pattern(m, gallop, duty=0.3, freq=2.4, speed=3.0, flight=0.1, reference="rear_left_foot")
    assert classify_gait(m) == "gallop"
    assert m.froude == pytest.approx(9.0 / (G * H), rel=1e-6)  # ≈ 2.8: a fast gait for a 0.33 m hip


def test_canter(quad):
    # Right-lead canter: hind left, then the diagonal pair (hind right, fore
    # left) together, then the lead fore right, a third of a cycle apart.
    canter = {"front_left_foot": 1 / 3, "front_right_foot": 2 / 3, "rear_left_foot": 0.0, "rear_right_foot": 1 / 3}
    m, _, _ = measure(quad, canter, duty=0.45, freq=2.5, speed=1.0)
    check_pattern(m, canter, duty=0.45, freq=2.5, speed=1.0, reference="rear_left_foot")
    assert classify_gait(m) == "canter"
    # The mirror image (left lead: the other diagonal pair together) too.
    left = {"front_left_foot": 2 / 3, "front_right_foot": 1 / 3, "rear_left_foot": 1 / 3, "rear_right_foot": 0.0}
    assert classify_gait(measure(quad, left, duty=0.45, freq=2.5, speed=1.0)[0]) == "canter"


def test_canter_rule_leaves_the_other_classes_alone(quad):
    canter = {"front_left_foot": 1 / 3, "front_right_foot": 2 / 3, "rear_left_foot": 0.0, "rear_right_foot": 1 / 3}
    # Every duty factor above 0.5: a walk comes first.
    assert classify_gait(measure(quad, canter, duty=0.7, freq=1.2, speed=0.5, duration=6.0)[0]) == "walk"
    # A flying three-beat whose fore and hind pairs are each split by 0.2
    # cycle: the gallop rule, checked first, takes it.
    tight = {"front_left_foot": 0.2, "front_right_foot": 0.4, "rear_left_foot": 0.0, "rear_right_foot": 0.2}
    m, _, _ = measure(quad, tight, duty=0.3, freq=2.5, speed=2.0)
    assert m.flight_fraction > 0 and classify_gait(m) == "gallop"
    # A trot with one diagonal pair split by 0.16 cycle: its single feet are
    # less than 2 tol apart, so no canter.
    sloppy = {"front_left_foot": 0.0, "front_right_foot": 0.42, "rear_left_foot": 0.58, "rear_right_foot": 0.0}
    assert classify_gait(measure(quad, sloppy, duty=0.4, freq=2.0, speed=1.0)[0]) == "unknown"


def test_biped_run_walk_hop(biped):
    run = {"left_foot": 0.0, "right_foot": 0.5}
    m, _, _ = measure(biped, run, duty=0.35, freq=1.5, speed=3.0)
    check_pattern(m, run, duty=0.35, freq=1.5, speed=3.0, flight=0.3, reference="left_foot")
    assert classify_gait(m) == "run"
    m, _, _ = measure(biped, run, duty=0.6, freq=0.9, speed=1.0, duration=6.0)
    check_pattern(m, run, duty=0.6, freq=0.9, speed=1.0, flight=0.0, reference="left_foot")
    assert classify_gait(m) == "walk"
    hop = {"left_foot": 0.3, "right_foot": 0.3}
    m, _, _ = measure(biped, hop, duty=0.4, freq=2.0, speed=1.0)
    check_pattern(m, hop, duty=0.4, freq=2.0, speed=1.0, flight=0.6, reference="left_foot")
    assert classify_gait(m) == "hop"


def test_foot_skate_of_dragged_stance_feet(quad):
    m, _, _ = measure(quad, TROT, duty=0.5, freq=2.0, speed=1.25, drag=0.4)
    assert m.skate_speed == pytest.approx(0.4, rel=1e-9)
    assert m.foot_skate == pytest.approx(0.4 / 1.25, rel=1e-9)
    assert classify_gait(m) == "trot"


def test_unknown_patterns(quad):
    # Diagonals together but only a quarter cycle apart: no rule fits.
    odd = {"front_left_foot": 0.25, "front_right_foot": 0.0, "rear_left_foot": 0.0, "rear_right_foot": 0.25}
    m, _, _ = measure(quad, odd, duty=0.4, freq=2.0, speed=1.0)
    assert classify_gait(m) == "unknown"
    three = gait_metrics(quad, *_three_feet(quad))
    assert len(three.feet) == 3 and classify_gait(three) == "unknown"


def _three_feet(char):
    clip, truth = synth(char, TROT, duty=0.4, freq=2.0, speed=1.0, fps=FPS)
    return clip, footfalls_from_contacts(truth[:, :3], list(TROT)[:3], fps=FPS)


def test_given_contacts_and_reference(quad):
    clip, truth = synth(quad, TROT, duty=0.4, freq=2.0, speed=1.0, fps=FPS)
    ff = footfalls_from_contacts(truth, list(TROT), fps=FPS)
    m = gait_metrics(quad, clip, ff, reference="front_left_foot")
    assert m.phase["front_left_foot"] == 0.0
    assert _circ(m.phase["rear_right_foot"], 0.0) <= 2 * DT * 2.0
    assert _circ(m.phase["rear_left_foot"], 0.5) <= 2 * DT * 2.0


def test_errors(quad):
    clip, truth = synth(quad, TROT, duty=0.4, freq=2.0, speed=1.0, fps=FPS)
    ff = footfalls_from_contacts(truth, list(TROT), fps=FPS)
    with pytest.raises(GaitforgeError) as e:
        gait_metrics(quad, MotionClip(FPS, clip.qpos[:10]), ff)
    assert str(e.value) == "gait metrics: footfalls have 241 frames but the clip has 10"
    with pytest.raises(GaitforgeError) as e:
        gait_metrics(quad, clip, ff, reference="tail")
    assert str(e.value) == ("gait metrics: reference foot 'tail' is not among the feet "
                            "(front_left_foot, front_right_foot, rear_left_foot, rear_right_foot)")
    standing = footfalls_from_contacts(np.ones_like(truth), list(TROT), fps=FPS)
    with pytest.raises(GaitforgeError) as e:
        gait_metrics(quad, clip, standing)
    assert str(e.value) == "gait metrics: no foot lands twice in this clip, so there is no stride to measure"


def test_ten_seconds_is_fast(quad):
    clip, _ = synth(quad, TROT, duty=0.4, freq=2.0, speed=1.0, fps=FPS, duration=10.0)
    start = time.perf_counter()
    m = gait_metrics(quad, clip, detect_footfalls(quad, clip))
    elapsed = time.perf_counter() - start
    assert m.n_strides >= 18
    print(f"detect + metrics on 10 s at 60 fps: {elapsed * 1e3:.1f} ms")

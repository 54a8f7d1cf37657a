"""Speed ramps (issue 9 item 3): ``animate dog --speed 0.5:4.0 --seconds 12``
changes gait near the Froude thresholds, each stretch is its gait, the feet
hold still, and the centre of mass and the root change velocity between
frames by bounded amounts, flying on ballistic arcs.

The bounds are the levels this ramp reaches (benchmarks/gait_ramp.py prints
them), not yet the 4 g of steady gaits (tests/test_flight.py): the modal IK
holding the feet still moves the limbs abruptly in some frames. Before the
smooth grounding the same ramp reached |a + g|/g of 18–44 for the root and
12–40 for the centre of mass."""
import warnings

import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.modal import compute_modes
from gaitforge.motion.clip import MotionClip
from gaitforge.motion.footfall import detect_footfalls
from gaitforge.motion.grounding import GRAVITY, SMOOTH_HZ, centres_of_mass, lowest_heights, smooth_stance
from gaitforge.motion.metrics import classify_gait, gait_metrics
from gaitforge.motion.ramp import ramp

FPS = 60.0
G = np.array([0.0, 0.0, GRAVITY])
CLEAR = 0.4  # [s] the stretches start and end this far from a switch (the cross-fade is one stride)


@pytest.fixture(scope="module")
def dog():
    c = Character.from_spec(registry.build("dog"))
    return c, compute_modes(c, count=20)


@pytest.fixture(scope="module")
def dog_ramp(dog):
    c, basis = dog
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ramp(c, (0.5, 4.0), 12.0, FPS, basis)


def reaction(p: np.ndarray) -> np.ndarray:
    """|a + g ẑ| / g (T−2,) at frames 1 … T−2, a the frame-to-frame velocity change over dt."""
    return np.linalg.norm(np.diff(p, 2, axis=0) * FPS ** 2 + G, axis=1) / GRAVITY


def stretches(r):
    """(gait, first frame, stop frame) of each gait between switches, CLEAR s off each switch."""
    n = len(r.gait)
    edges = [0.0] + [t for t, _, _ in r.switches] + [n / FPS]
    out = []
    for k in range(len(edges) - 1):
        a = edges[k] + (CLEAR if k > 0 else 0.0)
        b = edges[k + 1] - (CLEAR if k + 2 < len(edges) else 0.0)
        i, j = int(a * FPS), int(b * FPS)
        out.append((r.gait[i], i, j))
    return out


def test_whole_smoothing_without_flights_is_the_dense_solve():
    """smooth_stance(whole=True) on a path that never flies: (I + λ D2ᵀD2) x = p
    solved densely; a straight line passes unchanged; without ``whole`` nothing changes."""
    rng = np.random.default_rng(0)
    T, dt = 50, 1.0 / FPS
    p = np.cumsum(rng.normal(size=(T, 3)), axis=0) * 0.01
    none = np.zeros(T, bool)
    D2 = np.diff(np.eye(T), 2, axis=0)
    lam = 1.0 / (2.0 - 2.0 * np.cos(2.0 * np.pi * SMOOTH_HZ * dt)) ** 2
    np.testing.assert_allclose(smooth_stance(p, none, dt, whole=True),
                               np.linalg.solve(np.eye(T) + lam * D2.T @ D2, p), atol=1e-10)
    line = np.outer(np.arange(T) * dt, [1.0, -0.5, 0.2])
    np.testing.assert_allclose(smooth_stance(line, none, dt, whole=True), line, atol=1e-10)
    np.testing.assert_array_equal(smooth_stance(p, none, dt), p)


def test_switches_near_the_froude_thresholds(dog_ramp):
    r = dog_ramp
    assert [(a, b) for _, a, b in r.switches] == [("walk", "trot"), ("trot", "gallop")]
    (t1, _, _), (t2, _, _) = r.switches
    assert 0.5 <= r.froude[int(round(t1 * FPS))] <= 0.6
    assert 2.5 <= r.froude[int(round(t2 * FPS))] <= 2.9


# skate per stretch [share of stride]: the levels reached (walk 0.001, trot 0.002, gallop 0.026)
SKATE = {"walk": 0.01, "trot": 0.01, "gallop": 0.03}


def test_each_stretch_is_its_gait_and_the_feet_hold_still(dog, dog_ramp):
    c, _ = dog
    for gait, i, j in stretches(dog_ramp):
        part = MotionClip(FPS, dog_ramp.clip.qpos[i:j], c.name)
        m = gait_metrics(c, part, detect_footfalls(c, part))
        assert classify_gait(m) == gait
        assert m.foot_skate <= SKATE[gait], gait


def test_centre_of_mass_is_ballistic_in_flight_and_feet_on_the_ground(dog, dog_ramp):
    c, _ = dog
    q = dog_ramp.clip.qpos
    low = lowest_heights(c, q)
    assert low.min() >= -1e-9
    air = low > 1e-9
    fly = air[:-2] & air[1:-1] & air[2:]
    assert fly.sum() >= 20                                   # the trot flies
    a = np.diff(centres_of_mass(c, q), 2, axis=0) * FPS ** 2
    np.testing.assert_allclose(a[fly], np.broadcast_to(-G, (int(fly.sum()), 3)), atol=1e-6)


# largest |a + g ẑ| / g per stretch (the levels reached, rounded up): root, centre of mass
REACTION = {"walk": (4.0, 5.0), "trot": (4.5, 8.5), "gallop": (9.0, 20.0)}


def test_velocity_changes_between_frames_are_bounded(dog, dog_ramp):
    """Frame-to-frame velocity changes, over the whole ramp, switches included."""
    c, _ = dog
    q = dog_ramp.clip.qpos
    root, com = reaction(q[:, :3]), reaction(centres_of_mass(c, q))
    gait = np.array(dog_ramp.gait[1:-1])
    for g, (bound_root, bound_com) in REACTION.items():
        assert root[gait == g].max() <= bound_root, g
        assert com[gait == g].max() <= bound_com, g
    assert np.percentile(root, 99) <= 6.0                   # most frames: within the steady gaits' 4 g + 1 g
    # the forward root velocity: no jump larger than 1 m/s between frames (before: 1.5, 3.2, 6.5 m/s)
    assert np.abs(np.diff(q[:, 0], 2)).max() * FPS <= 1.0


def test_the_same_ramp_twice_is_the_same_motion(dog, dog_ramp):
    c, basis = dog
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = ramp(c, (0.5, 4.0), 12.0, FPS, basis)
    np.testing.assert_array_equal(again.clip.qpos, dog_ramp.clip.qpos)

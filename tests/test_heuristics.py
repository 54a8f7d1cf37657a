"""Automatic mode selection (Kry09 §4.3): every suggested gait must be that gait
by footfall analysis of its grounded clip, with plausible amplitudes; walks
keep a foot on the ground, runs, trots, bounds and gallops fly (checked
from the contact points' heights, not only by the footfall detector)."""
import dataclasses
import math

import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.modal import compute_modes
from gaitforge.modal.describe import describe_modes
from gaitforge.motion import gait_features, heuristics, metrics
from gaitforge.motion.footfall import detect_footfalls
from gaitforge.motion.metrics import classify_gait, gait_metrics
from gaitforge.motion.synthesis import synthesize

TOL = 0.1  # cycles, as the classifier's


@pytest.fixture(scope="module")
def setups():
    out = {}
    for name in ("dog", "human", "human_run"):
        c = Character.from_spec(registry.build(name))
        out[name] = (c, compute_modes(c, count=heuristics.POOL))
    return out


def _gait(setups, name, gait, seconds=4.0):
    c, basis = setups[name]
    recipe = heuristics.suggest(c, gait, basis)
    clip = synthesize(c, basis, recipe, seconds, 60.0, grounded=True)
    return c, basis, recipe, clip


def _metrics(c, clip):
    m = gait_metrics(c, clip, detect_footfalls(c, clip))
    return m, classify_gait(m)


def _airborne(c, clip, clearance=0.001):
    """(T,) bool: frames in which every contact point (soles, heels, toes,
    paws) is more than ``clearance`` [m] above the ground."""
    return np.array([min(p[2] for p in c.contact_positions(q).values()) > clearance for q in clip.qpos])


def _flies(c, clip, m):
    """A running gait: every duty factor below one half, flight detected,
    and at least 5 % of the frames with every contact point off the ground."""
    assert max(m.duty_factor.values()) < 0.5, dict(m.duty_factor)
    assert m.flight_fraction > 0.02
    assert _airborne(c, clip).mean() > 0.05


def _gap(a, b):
    d = abs(a - b) % 1.0
    return min(d, 1.0 - d)


def _phase(m, limb, side):
    return next(m.phase[n] for n in m.feet if m.limbs[n] == limb and m.sides[n] == side)


# ------------------------------------------------------------- quadrupeds
def test_dog_trot_is_a_trot(setups):
    c, _, _, clip = _gait(setups, "dog", "trot")
    m, gait = _metrics(c, clip)
    fl, fr, rl, rr = (_phase(m, *k) for k in (("front", "left"), ("front", "right"), ("rear", "left"),
                                                ("rear", "right")))
    assert gait == "trot"
    assert _gap(fl, rr) <= TOL and _gap(fr, rl) <= TOL      # diagonal feet together
    assert _gap(fl, fr) >= 0.5 - TOL                         # diagonals half a cycle apart
    _flies(c, clip, m)                                       # with a flight phase
    assert m.speed > 0.1 and m.stride_length > 0.05          # it goes somewhere
    assert clip.qpos[-1, 0] > clip.qpos[0, 0]                # forwards


def test_dog_pace_and_bound(setups):
    c, _, _, clip = _gait(setups, "dog", "pace")
    m, gait = _metrics(c, clip)
    assert gait == "pace"
    assert _gap(_phase(m, "front", "left"), _phase(m, "rear", "left")) <= TOL
    c, _, _, clip = _gait(setups, "dog", "bound")
    m, gait = _metrics(c, clip)
    assert gait == "bound"
    assert _gap(_phase(m, "front", "left"), _phase(m, "front", "right")) <= TOL
    assert _gap(_phase(m, "rear", "left"), _phase(m, "rear", "right")) <= TOL
    assert _gap(_phase(m, "front", "left"), _phase(m, "rear", "left")) >= 0.5 - TOL
    _flies(c, clip, m)


@pytest.mark.parametrize("gait", ["walk", "amble"])
def test_dog_four_beat_gaits_in_lateral_sequence(setups, gait):
    c, _, _, clip = _gait(setups, "dog", gait)
    m, kind = _metrics(c, clip)
    want = {("rear", "left"): 0.0, ("front", "left"): 0.25, ("rear", "right"): 0.5, ("front", "right"): 0.75}
    for (limb, side), phase in want.items():
        assert _gap(_phase(m, limb, side), phase) <= TOL, (limb, side, m.phase)
    if gait == "walk":
        assert kind == "walk" and min(m.duty_factor.values()) > 0.5
        assert m.flight_fraction == 0 and not _airborne(c, clip, 1e-9).any()
    else:  # an amble: single-foot support, no foot down half the cycle
        assert max(m.duty_factor.values()) < 0.5


def test_dog_gallop_is_a_gallop(setups):
    c, _, _, clip = _gait(setups, "dog", "gallop")
    m, gait = _metrics(c, clip)
    fl, fr, rl, rr = (_phase(m, *k) for k in (("front", "left"), ("front", "right"), ("rear", "left"),
                                                ("rear", "right")))
    assert gait == "gallop"
    # Each pair lands in quick succession (staggered, not together), the
    # fore pair apart from the hind pair, with a flight phase.
    assert TOL < _gap(fl, fr) <= 0.3 and TOL < _gap(rl, rr) <= 0.3
    mid = lambda a, b: np.angle(np.exp(2j * np.pi * a) + np.exp(2j * np.pi * b)) / (2 * np.pi) % 1.0  # noqa: E731
    assert _gap(mid(fl, fr), mid(rl, rr)) > 0.3
    _flies(c, clip, m)


# ------------------------------------------------------------- bipeds
@pytest.mark.parametrize("name", ["human", "human_run"])
def test_human_walk_has_double_support(setups, name):
    c, _, _, clip = _gait(setups, name, "walk")
    m, gait = _metrics(c, clip)
    assert gait == "walk"
    assert min(m.duty_factor.values()) > 0.5
    assert _gap(m.phase["left_foot"], m.phase["right_foot"]) >= 0.5 - TOL
    assert m.flight_fraction == 0 and not _airborne(c, clip, 1e-9).any()  # never off the ground


@pytest.mark.parametrize("name", ["human", "human_run"])
def test_human_run_has_flight(setups, name):
    c, _, _, clip = _gait(setups, name, "run")
    m, gait = _metrics(c, clip)
    assert gait == "run"
    _flies(c, clip, m)  # genuine: sole, heel and toe of both feet all above the ground
    assert _gap(m.phase["left_foot"], m.phase["right_foot"]) >= 0.5 - TOL
    assert clip.qpos[-1, 0] - clip.qpos[0, 0] > 0.1 * m.hip_height * m.stride_frequency * clip.duration


def _angles(c, clip, body):
    j = c.joints[body]
    return clip.qpos[:, j.qpos.start]


def test_human_jump_bends_both_knees_together(setups):
    c, _, recipe, clip = _gait(setups, "human", "jump")
    left, right = _angles(c, clip, "left_shin"), _angles(c, clip, "right_shin")
    assert np.allclose(left, right, atol=1e-6)              # synchronous knee bends (D)
    assert np.ptp(left) > math.radians(10)
    m, gait = _metrics(c, clip)
    assert gait == "hop"  # both feet land together
    assert _airborne(c, clip).mean() > 0.2  # and leave the ground together
    assert all(t.frequency == recipe.terms[0].frequency for t in recipe.terms)  # one bounce frequency


def test_human_jumping_jacks_spread_feet_and_raise_hands(setups):
    c, basis, recipe, clip = _gait(setups, "human", "jumping_jacks")
    from gaitforge.io.clipfiles import clip_kinematics
    pos, _ = clip_kinematics(c, clip.qpos)
    spread = pos[:, c.body_id("left_foot"), 1] - pos[:, c.body_id("right_foot"), 1]
    hands = 0.5 * (pos[:, c.body_id("left_hand"), 2] + pos[:, c.body_id("right_hand"), 2]) - pos[:, 1, 2]
    assert _metrics(c, clip)[1] == "hop"
    assert np.ptp(spread) > 0.1                              # feet go apart and back [m]
    assert np.corrcoef(spread, hands)[0, 1] > 0.5            # hands up as the feet go apart
    slow = [t for t in recipe.terms if math.isclose(t.phase % (np.pi / 2), np.pi / 4)]
    assert slow and all(math.isclose(2 * t.frequency, recipe.terms[0].frequency) for t in slow)


# ------------------------------------------------------------- amplitudes, frequencies, phases
@pytest.mark.parametrize("name,gait", [("dog", "trot"), ("human", "walk")])
def test_amplitude_frequency_and_phases_are_plausible(setups, name, gait):
    c, basis, recipe, _ = _gait(setups, name, gait, seconds=1.0)
    peak = gait_features.peak_rotation(c, basis, recipe.terms)
    assert math.degrees(peak) == pytest.approx(22.0, abs=0.01)
    h = gait_features.hip_height(c)
    f = heuristics.GAITS[gait].stride_frequency * math.sqrt(9.81 / h)
    assert min(t.frequency for t in recipe.terms) == pytest.approx(f)
    for t in recipe.terms:  # harmonics of the stride frequency, phases in [0, 2π)
        assert 0.0 <= t.phase < 2 * np.pi
        assert t.frequency / f == pytest.approx(round(t.frequency / f))
        assert t.mode < heuristics.POOL


def test_bounce_shortens_the_low_part_of_the_cycle():
    """A sinusoid is in the lower half of its range half the cycle; the
    bounce keeps its lowest point and cuts that to 36 % (share 1/4) and
    31 % (share 1/2), for any phase of the fundamental."""
    theta = np.linspace(0.0, 2 * np.pi, 100000, endpoint=False)
    for G1 in (0.424j, 0.3 - 0.2j):
        z1 = np.imag(G1 * np.exp(1j * theta))
        for share, low in ((0.0, 0.5), (0.25, 0.364), (0.5, 0.311)):
            z = z1 + np.imag(gait_features.bounce(G1, share) * np.exp(2j * theta))
            assert np.mean(z - z.min() <= 0.5 * np.ptp(z)) == pytest.approx(low, abs=0.002)
            assert theta[np.argmin(z)] == pytest.approx(theta[np.argmin(z1)], abs=1e-3)


def test_hip_height_counts_legs_only(setups):
    assert gait_features.hip_height(setups["human"][0]) == pytest.approx(0.93, abs=0.01)
    assert gait_features.hip_height(setups["dog"][0]) == pytest.approx(0.455, abs=0.01)
    # the gait metrics (λ/h, Froude number) use the same h: a biped's shoulders are no hips
    for name in ("human", "dog"):
        assert metrics.hip_height(setups[name][0]) == gait_features.hip_height(setups[name][0])


def test_swing_heuristic_finds_the_leg_swinging_mode(setups):
    c, basis = setups["human"]
    descs = describe_modes(c, basis)
    feats = gait_features.features(c, basis, descs, "biped", "walk")
    target = np.array([1.0, -1.0], complex)  # left forward while right back
    best = heuristics.rank(feats, descs, "B", target, "antisymmetric")[0]
    assert descs[best.mode].name == "alternating legs"
    # a mode is scored once, whatever its phase: a target turned by 90° ranks the same modes alike
    turned = heuristics.rank(feats, descs, "B", 1j * target, "antisymmetric")
    plain = heuristics.rank(feats, descs, "B", target, "antisymmetric")
    assert [p.mode for p in turned] == [p.mode for p in plain]
    assert [p.score for p in turned] == pytest.approx([p.score for p in plain], rel=1e-12)
    squat = heuristics.rank(feats, descs, "A", 1j * np.ones(2), "symmetric")[0]
    assert descs[squat.mode].name == "squat" and descs[squat.mode].symmetry == "symmetric"


# ------------------------------------------------------------- bad input
def test_unknown_gait_lists_the_valid_ones(setups):
    with pytest.raises(GaitforgeError) as err:
        heuristics.suggest(setups["dog"][0], "canter", setups["dog"][1])
    assert str(err.value) == ("unknown gait 'canter' (valid gaits for bipeds: walk, run, jump, jumping_jacks; "
                              "quadrupeds: walk, trot, pace, amble, bound, gallop)")


def test_quadruped_gait_on_a_biped(setups):
    with pytest.raises(GaitforgeError) as err:
        heuristics.suggest(setups["human"][0], "trot", setups["human"][1])
    assert str(err.value) == ("human is a biped: no 'trot' gait for it "
                              "(valid gaits for bipeds: walk, run, jump, jumping_jacks)")


def test_worm_has_no_feet():
    worm = Character.from_spec(registry.build("worm"))
    with pytest.raises(GaitforgeError) as err:
        heuristics.suggest(worm, "trot")
    assert str(err.value) == ("worm has no feet: suggest('trot') needs contact points named *_foot or bodies "
                              "labelled role: foot; add them in the creature file or a labels override")


def test_one_footed_kangaroo_is_neither_kind():
    kangaroo = Character.from_spec(registry.build("kangaroo"))
    with pytest.raises(GaitforgeError) as err:
        heuristics.suggest(kangaroo, "jump")
    assert str(err.value) == (
        "kangaroo has feet foot (rear center): suggest('jump') needs a left and a right foot (biped) "
        "or front and rear, left and right feet (quadruped); label them with side and limb in the creature file "
        "or a labels override")


def test_legs_without_knee_labels():
    spec = registry.build("human")
    bones = tuple(dataclasses.replace(b, role=None) if b.role == "knee" else b for b in spec.bones)
    c = Character.from_spec(dataclasses.replace(spec, bones=bones))
    with pytest.raises(GaitforgeError) as err:
        heuristics.suggest(c, "walk")
    assert str(err.value) == (
        "human has no knee on its left, right leg: suggest('walk') needs a body labelled role: knee (or elbow) "
        "between hip and foot; add it in the creature file or a labels override")

"""Ground contact for kinematic gaits: feet on z = 0, stance feet that do
not slide on average, forward progression derived from them, a dog trot
that the gait metrics recognise, and ballistic flight where no foot is low
enough to stand on: the root on a parabola of gravity, continuous, and
cyclic clips staying cyclic."""
import dataclasses

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.modal import compute_modes
from gaitforge.motion.footfall import detect_footfalls, feet_of, foot_positions
from gaitforge.motion import heuristics
from gaitforge.motion.grounding import (GRAVITY, ballistic_heights, centres_of_mass, default_contact_tol, flight_runs,
                                        ground, lowest_heights, root_translation, stance_candidates, touch_ground)
from gaitforge.motion.metrics import classify_gait, gait_metrics, root_positions
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.motion.synthesis import margin_frames, synthesize
from test_synthesis import dog_trot

FPS = 60.0
DT = 1.0 / FPS


@pytest.fixture(scope="module")
def dog():
    return Character.from_spec(registry.build("dog"))


@pytest.fixture(scope="module")
def basis(dog):
    return compute_modes(dog, count=20)


@pytest.fixture(scope="module")
def trot(dog, basis):
    r = dog_trot(dog, basis)
    return r, synthesize(dog, basis, r, 4.0, FPS, grounded=False), synthesize(dog, basis, r, 4.0, FPS, steady=False)


def lowest_contact(ch, qpos):
    """Lowest contact point (T,) [m] of each frame, one frame at a time."""
    return np.array([min(p[2] for p in ch.contact_positions(q).values()) for q in qpos])


def test_lowest_foot_on_the_ground(dog, trot):
    _, _, clip = trot
    z = foot_positions(dog, clip.qpos, feet_of(dog))[..., 2]
    np.testing.assert_allclose(z.min(axis=1), 0.0, atol=1e-12)


def test_heels_and_toes_count_for_height():
    """The human's feet are tracked at mid-sole, but a pitched foot touches
    with its heel or toe: the lowest contact point is what lands on z = 0."""
    human = Character.from_spec(registry.build("human"))
    b = compute_modes(human, count=6)
    r = GaitRecipe("sway", "human", tuple(GaitTerm(i, 0.3, i * np.pi / 3, 1.5) for i in range(6)))
    clip = synthesize(human, b, r, 1.0, FPS, flight=False)  # (with flight it hops: its feet dip briefly)
    low = lowest_contact(human, clip.qpos)
    np.testing.assert_allclose(low, 0.0, atol=1e-12)
    soles = foot_positions(human, clip.qpos, feet_of(human))[..., 2].min(axis=1)
    assert soles.max() > 0.005  # mid-sole alone would have sunk heel or toe into the ground
    np.testing.assert_allclose(touch_ground(human, clip.qpos), clip.qpos, atol=1e-12)


def test_only_the_root_translation_changes(dog, trot):
    _, raw, clip = trot
    np.testing.assert_array_equal(clip.qpos[:, 3:], raw.qpos[:, 3:])  # orientation and joints
    assert np.ptp(clip.qpos[:, 0] - raw.qpos[:, 0]) > 1.0  # it travelled


def test_down_feet_do_not_slide_on_average(dog, trot):
    """Between consecutive frames the feet down in both move by zero on
    average: the defining property of the root's horizontal motion."""
    _, raw, _ = trot
    g = ground(dog, raw.qpos, FPS)
    assert not g.airborne.any()  # sinusoidal feet: one diagonal is always in its lower half
    both = g.down[1:] & g.down[:-1]
    step = np.diff(g.positions[..., :2], axis=0)
    assert both.any(axis=1).mean() > 0.9
    for t in np.flatnonzero(both.any(axis=1)):
        np.testing.assert_allclose(step[t][both[t]].mean(axis=0), 0.0, atol=1e-12)
    # the positions it reports are the feet of the grounded frames
    np.testing.assert_allclose(g.positions, foot_positions(dog, g.qpos, list(g.feet)), atol=1e-12)
    tol = default_contact_tol(dog)
    assert tol == pytest.approx(0.01 * dog.height)
    np.testing.assert_array_equal(g.down, g.positions[..., 2] <= tol + 1e-12)


def test_dog_trot_is_a_forward_trot(dog, trot):
    _, _, clip = trot
    m = gait_metrics(dog, clip, detect_footfalls(dog, clip))
    assert classify_gait(m) == "trot"
    assert clip.qpos[-1, 0] - clip.qpos[0, 0] > 1.5  # forward along +x: ~0.48 m/s for 4 s
    assert m.stride_frequency == pytest.approx(2.0, rel=0.01)
    assert 0.4 < m.speed < 0.6
    # Grounding alone leaves the slip that no single root translation can
    # remove (diagonal feet moving unequally, feet counted down while they
    # lift); modal IK pinning removes it (test_modal_ik).
    assert m.foot_skate < 0.2


def test_prescribed_speed(dog, basis, trot):
    r, raw, _ = trot
    fixed = GaitRecipe(r.name, r.creature, r.terms, speed=0.3)
    clip = synthesize(dog, basis, fixed, 4.0, FPS)
    t = np.arange(clip.n_frames) / FPS
    np.testing.assert_allclose(clip.qpos[:, 0] - raw.qpos[:, 0], 0.3 * t, atol=1e-12)
    np.testing.assert_array_equal(clip.qpos[:, 1], raw.qpos[:, 1])
    over = synthesize(dog, basis, r, 4.0, FPS, speed=-0.1)  # the argument wins over the recipe
    np.testing.assert_allclose(over.qpos[:, 0] - raw.qpos[:, 0], -0.1 * t, atol=1e-12)


def test_creature_without_feet_rests_its_lowest_point():
    worm = Character.from_spec(registry.build("worm"))
    b = compute_modes(worm, count=4)
    r = GaitRecipe("crawl", "worm", (GaitTerm(0, 0.3, 0.0, 1.0), GaitTerm(1, 0.3, np.pi / 2, 1.0)))
    raw = synthesize(worm, b, r, 1.0, FPS, grounded=False)
    clip = synthesize(worm, b, r, 1.0, FPS)
    low = np.array([worm.extent(q)[0] for q in clip.qpos])
    np.testing.assert_allclose(low, 0.0, atol=1e-12)
    np.testing.assert_array_equal(clip.qpos[:, :2], raw.qpos[:, :2])  # no feet: no progression of its own


def test_planar_root_grounds_through_its_slides():
    roo = Character.from_spec(registry.build("kangaroo"))
    idx, axes = root_translation(roo)
    # slide x and slide z of the root body, which is built tilted: they span
    # the world's x-z plane, at right angles
    np.testing.assert_allclose(axes[:, 1], 0.0, atol=1e-12)
    np.testing.assert_allclose(axes @ axes.T, np.eye(2), atol=1e-12)
    b = compute_modes(roo, count=4)
    r = GaitRecipe("hop", "kangaroo", (GaitTerm(0, 0.05, 0.0, 2.0), GaitTerm(1, 0.05, np.pi / 2, 2.0)))
    clip = synthesize(roo, b, r, 1.0, FPS, speed=0.5, flight=False)
    np.testing.assert_allclose(lowest_contact(roo, clip.qpos), 0.0, atol=1e-12)
    raw = synthesize(roo, b, r, 1.0, FPS, grounded=False)
    moved = root_positions(roo, clip.qpos) - root_positions(roo, raw.qpos)
    np.testing.assert_allclose(moved[:, 0], 0.5 * np.arange(60) / FPS, atol=1e-12)  # world x, at 0.5 m/s
    np.testing.assert_allclose(moved[:, 1], 0.0, atol=1e-15)
    # One foot moving sinusoidally is in its upper half half the time: the
    # kangaroo hops, its root on parabolas made through the slide joints.
    g = ground(roo, raw.qpos, FPS, speed=0.5)
    assert 0.3 < g.airborne.mean() < 0.7
    z = root_positions(roo, g.qpos)[:, 2]
    np.testing.assert_allclose(np.diff(z, 2)[g.airborne[1:-1]], -GRAVITY * DT ** 2, atol=1e-12)
    np.testing.assert_allclose(root_positions(roo, g.qpos)[:, 0] - root_positions(roo, raw.qpos)[:, 0],
                               0.5 * np.arange(60) / FPS, atol=1e-12)


# ------------------------------------------------------------------- flight
@pytest.fixture(scope="module")
def flying(dog, trot):
    """The test trot grounded with stance only in the lowest fifth of each
    foot's excursion (its sinusoidal feet are then both up around every
    switch of diagonals, so it flies), and the same frames without flight."""
    _, raw, _ = trot
    return raw, ground(dog, raw.qpos, FPS, stance_share=0.2), ground(dog, raw.qpos, FPS, flight=False)


@pytest.fixture(scope="module")
def trot2(dog, basis):
    """The suggested (flying) dog trot retimed to 2 Hz: 30 frames a stride."""
    r = heuristics.suggest(dog, "trot", basis)
    f0 = min(t.frequency for t in r.terms)
    return GaitRecipe("trot", "dog", tuple(dataclasses.replace(t, frequency=t.frequency * 2.0 / f0) for t in r.terms))


def test_flight_is_where_no_foot_is_a_stance_candidate(dog, flying):
    raw, g, _ = flying
    heights = foot_positions(dog, raw.qpos, feet_of(dog))[..., 2]  # a dog's foot is one contact point
    none = ~stance_candidates(heights, 0.2).any(axis=1)
    runs = flight_runs(none)
    assert len(runs) >= 14  # two flights a stride, 8 strides, minus those cut by the ends
    want = np.zeros(len(none), bool)
    for a, b in runs:
        want[a:b + 1] = True
    np.testing.assert_array_equal(g.airborne, want)
    stance = np.flatnonzero(~none)  # between the first and last stance frames every gap flies
    np.testing.assert_array_equal(g.airborne[stance[0]:stance[-1]], none[stance[0]:stance[-1]])
    assert 0.2 < g.airborne.mean() < 0.35
    np.testing.assert_array_equal(stance_candidates(np.array([[0.0], [0.5], [0.5 + 1e-6], [1.0]])),
                                  [[True], [True], [False], [False]])  # the lower half


def test_flight_follows_a_parabola_of_gravity(dog, flying):
    _, g, still = flying
    z, z_still = root_positions(dog, g.qpos)[:, 2], root_positions(dog, still.qpos)[:, 2]
    # second difference of the root height over every flight frame: −g dt²
    np.testing.assert_allclose(np.diff(z, 2)[g.airborne[1:-1]], -GRAVITY * DT ** 2, rtol=0, atol=1e-12)
    for a, b in flight_runs(g.airborne):
        t0, t1 = a - 1, b + 1
        # it leaves from the take-off height and lands at the touchdown height
        # of the stance rule, above their chord by g s (τ − s) / 2
        np.testing.assert_allclose(z[[t0, t1]], z_still[[t0, t1]], atol=1e-12)
        s, tau = np.arange(1, b - a + 2) * DT, (t1 - t0) * DT
        chord = z[t0] + (z[t1] - z[t0]) * s / tau
        np.testing.assert_allclose(z[a:b + 1] - chord, 0.5 * GRAVITY * s * (tau - s), atol=1e-12)
    low = lowest_heights(dog, g.qpos)
    np.testing.assert_allclose(low[~g.airborne], 0.0, atol=1e-12)  # stance: lowest point on the ground
    assert low[g.airborne].min() > 0.0                              # flight: every contact point above it
    np.testing.assert_allclose(g.positions, foot_positions(dog, g.qpos, feet_of(dog)), atol=1e-12)


def test_flight_keeps_the_take_off_velocity(dog, flying):
    _, g, _ = flying
    step = np.diff(root_positions(dog, g.qpos)[:, :2], axis=0)
    for a, b in flight_runs(g.airborne):  # steps a−1 … b: through the flight into the touchdown frame
        np.testing.assert_allclose(step[a - 1:b + 1], np.broadcast_to(step[a - 2], (b - a + 2, 2)), atol=1e-12)
    assert not g.down[g.airborne].any()
    assert step[:, 0].sum() > 1.0  # still forward along +x


def test_root_is_continuous(dog, flying):
    """No jump: each step of the root is what its speed allows, the stance
    rule's (the same frames grounded without flight) or a flight's."""
    _, g, still = flying
    root, root_still = root_positions(dog, g.qpos), root_positions(dog, still.qpos)
    step, step_still = np.abs(np.diff(root, axis=0)), np.abs(np.diff(root_still, axis=0))
    z = root[:, 2]
    vz = max(abs(z[b + 1] - z[a - 1]) / ((b - a + 2) * DT) + 0.5 * GRAVITY * (b - a + 2) * DT
             for a, b in flight_runs(g.airborne))                      # fastest vertical flight speed [m/s]
    horizontal = np.linalg.norm(np.diff(root[:, :2], axis=0), axis=1)
    stance = ~(g.airborne[1:] | g.airborne[:-1])
    margin = 1e-4  # [m]
    assert horizontal.max() <= horizontal[stance].max() + margin
    assert step[:, 2].max() <= max(step_still[:, 2].max(), vz * DT) + margin
    assert np.linalg.norm(np.diff(root, axis=0), axis=1).max() < 0.02  # [m] at ~0.5 m/s and 60 fps


def test_whole_cycles_loop_with_flight(dog, basis, trot2):
    clip = synthesize(dog, basis, trot2, 3.0, FPS)
    assert (lowest_heights(dog, clip.qpos) > 1e-3).mean() > 0.05  # it flies
    d = clip.qpos[30:] - clip.qpos[:-30]                            # one stride apart
    np.testing.assert_allclose(d[:, 2:], 0.0, atol=1e-9)
    np.testing.assert_allclose(d[:, :2], np.broadcast_to(d[0, :2], (len(d), 2)), atol=1e-9)
    assert d[0, 0] > 0.05  # a stride forward [m]


def test_a_clip_may_start_in_flight(dog, basis, trot2):
    """Margin frames let ``synthesize`` see the take-off before frame 0: a
    recipe shifted by k frames gives frame k of the clip, airborne too."""
    clip = synthesize(dog, basis, trot2, 1.0, FPS)
    low = lowest_heights(dog, clip.qpos)
    k = int(np.flatnonzero(low > 1e-3)[0]) + 1  # inside the first flight
    assert margin_frames(trot2, FPS) == 30 and low[k] > 1e-3
    shifted = dataclasses.replace(trot2, terms=tuple(
        dataclasses.replace(t, phase=t.phase + 2 * np.pi * t.frequency * k / FPS) for t in trot2.terms))
    late = synthesize(dog, basis, shifted, 0.5, FPS)
    np.testing.assert_allclose(late.qpos[:, 2:], clip.qpos[k:k + 30, 2:], atol=1e-9)
    assert lowest_heights(dog, late.qpos[:1])[0] == pytest.approx(low[k], abs=1e-9)
    cut = ground(dog, synthesize(dog, basis, trot2, 1.0, FPS, grounded=False).qpos[k:], FPS)
    assert not cut.airborne[0]  # ground() alone: a flight whose take-off is not in the clip stays down


def test_pinned_flight_keeps_its_parabolas(dog, basis, trot2):
    """pin_feet removes the skate and puts the frames back on the ground and
    the centre of mass on its arcs; flights cut by the clip's ends keep their
    height."""
    late = dataclasses.replace(trot2, terms=tuple(  # 10 frames later: the clip ends in flight
        dataclasses.replace(t, phase=t.phase + 2 * np.pi * t.frequency * 10 / FPS) for t in trot2.terms))
    clip = synthesize(dog, basis, late, 2.0, FPS, pin_feet=True)
    plain = synthesize(dog, basis, late, 2.0, FPS)
    m, m0 = (gait_metrics(dog, c, detect_footfalls(dog, c)) for c in (clip, plain))
    assert classify_gait(m) == "trot" and m.flight_fraction > 0
    assert m.foot_skate < 0.05 < m0.foot_skate
    low = lowest_heights(dog, clip.qpos)
    air = low > 1e-9
    z = centres_of_mass(dog, clip.qpos)[:, 2]
    np.testing.assert_allclose(np.diff(z, 2)[air[:-2] & air[1:-1] & air[2:]], -GRAVITY * DT ** 2, atol=1e-12)
    np.testing.assert_allclose(low[~air], 0.0, atol=1e-12)
    assert lowest_heights(dog, plain.qpos[-3:]).min() > 0.01 and low[-3:].min() > 0.01
    assert np.abs(np.diff(clip.qpos[:, :3], axis=0)).max() < 0.02  # [m] no jump


def test_ballistic_heights_sinks_no_contact_point():
    """A flight whose parabola would pass below a contact point is stance there."""
    lowest = np.array([0.0, 0.0, 0.01, 0.01, -0.05, 0.01, 0.0, 0.0])  # frame 4: a foot reaches far down
    off, flying = ballistic_heights(lowest, np.zeros(8), np.r_[False, False, True, True, True, True, False, False],
                                    0.01)
    np.testing.assert_array_equal(flying, [False, False, True, True, False, True, False, False])
    np.testing.assert_allclose(off[4], 0.05)  # stance: lowest point on the ground
    assert np.all(lowest[flying] + off[flying] > 0)


def test_fixed_base_cannot_be_grounded():
    model = mujoco.MjModel.from_xml_string(
        "<mujoco><worldbody><body name='arm'><joint name='j' type='hinge'/>"
        "<geom type='capsule' fromto='0 0 0 0 0 -1' size='0.05'/></body></worldbody></mujoco>")
    arm = Character.from_model(model, name="arm")
    with pytest.raises(GaitforgeError) as err:
        ground(arm, np.zeros((3, 1)), FPS)
    assert str(err.value) == ("arm cannot be grounded: its root body 'arm' has no free or slide joint "
                              "to translate it; use grounded=False")


def test_ground_argument_errors(dog):
    with pytest.raises(GaitforgeError) as err:
        ground(dog, np.zeros((3, 5)), FPS)
    assert str(err.value) == "ground: qpos must have shape (frames, 103), got (3, 5)"
    with pytest.raises(GaitforgeError) as err:
        ground(dog, np.tile(dog.rest_qpos, (2, 1)), FPS, contact_tol=0.0)
    assert str(err.value) == "contact_tol must be a positive number of metres, got 0.0"
    with pytest.raises(GaitforgeError) as err:
        ground(dog, np.tile(dog.rest_qpos, (2, 1)), FPS, stance_share=1.5)
    assert str(err.value) == "stance_share must be a number from 0 to 1, got 1.5"
    with pytest.raises(GaitforgeError) as err:
        touch_ground(dog, np.tile(dog.rest_qpos, (2, 1)), airborne=np.array([False, True]))
    assert str(err.value) == "touch_ground: airborne frames need fps to time their flight"


def _runs_reference(a):
    edges = np.flatnonzero(np.diff(np.r_[0, a.astype(np.int8), 0]))
    return [(int(s), int(e) - 1) for s, e in zip(edges[::2], edges[1::2]) if s >= 2 and e <= len(a) - 1]


def test_compiled_grounding_steps_match_their_array_formulations():
    """The compiled flight runs, parabolas, stance steps and flight steps equal
    the array formulations they replaced (run edges from a difference of the
    mask; parabolas and weighted means as whole-array arithmetic) on random
    masks and paths, to rounding."""
    from gaitforge.motion.grounding import flight_offsets, stance_velocity_offsets, stride_window

    rng = np.random.default_rng(7)
    for trial in range(20):
        T, F, dt = int(rng.integers(3, 120)), int(rng.integers(1, 5)), 1 / 60
        air = rng.random(T) < 0.4
        assert flight_runs(air) == _runs_reference(air)
        lowest, root_z = rng.uniform(-0.1, 0.1, T), rng.uniform(0.3, 0.5, T)
        base, want, kept = -lowest, None, air.copy()
        while True:  # the parabolas, whole-array
            off, flying = base.copy(), np.zeros(T, bool)
            for a, b in _runs_reference(kept):
                t0, t1 = a - 1, b + 1
                tau = (t1 - t0) * dt
                z0, z1 = root_z[t0] + base[t0], root_z[t1] + base[t1]
                s = np.arange(1, b - a + 2) * dt
                v0 = (z1 - z0) / tau + 0.5 * GRAVITY * tau
                off[a:b + 1] = z0 + v0 * s - 0.5 * GRAVITY * s * s - root_z[a:b + 1]
                flying[a:b + 1] = True
            clash = flying & (lowest + off <= 0.0)
            if not clash.any():
                want = (off, flying)
                break
            kept = flying & ~clash
        got = ballistic_heights(lowest, root_z, air, dt)
        np.testing.assert_allclose(got[0], want[0], rtol=0, atol=1e-12)
        np.testing.assert_array_equal(got[1], want[1])
        P, down = rng.normal(size=(T, F, 3)), rng.random((T, F)) < 0.5
        step = np.diff(P[..., :2], axis=0)
        w = (down[1:] & down[:-1]).astype(float)
        lonely = w.sum(axis=1) == 0
        w[lonely] = down[1:][lonely]
        total = w.sum(axis=1, keepdims=True)
        w = np.divide(w, total, out=np.zeros_like(w), where=total > 0)
        np.testing.assert_allclose(stance_velocity_offsets(P, down), np.vstack(
            [np.zeros((1, 2)), np.cumsum(-np.einsum("tf,tfk->tk", w, step), axis=0)]), rtol=0, atol=1e-12)
        offset, root = rng.normal(size=(T, 2)), rng.normal(size=(T, 2))
        runs = _runs_reference(air)
        windows = [stride_window(0.5 * (a + b), 20) for a, b in runs] if trial % 2 else None
        move, raw = np.diff(offset, axis=0), np.diff(root, axis=0)
        fly = np.zeros(T, bool)
        for a, b in runs:
            fly[a:b + 1] = True
        on = ~fly[1:] & ~fly[:-1]
        for k, (a, b) in enumerate(runs):
            s = raw[a - 2] + move[a - 2]
            if windows is not None:
                lo, hi = max(windows[k][0], 0), min(windows[k][1], T - 1)
                if on[lo:hi].any():
                    s = (raw + move)[lo:hi][on[lo:hi]].mean(axis=0)
            move[a - 1:b + 1] = s - raw[a - 1:b + 1]
        np.testing.assert_allclose(flight_offsets(offset, root, runs, windows),
                                   np.vstack([offset[:1], offset[0] + np.cumsum(move, axis=0)]), rtol=0, atol=1e-12)


def test_grounding_steps_refuse_mis_shaped_input_in_one_line():
    """The compiled loops do not bound-check: their public functions refuse
    arrays of the wrong shapes first, with one exact line."""
    from gaitforge.motion.grounding import flight_offsets, stance_velocity_offsets

    with pytest.raises(GaitforgeError, match=r"^stance_velocity_offsets: P must be \(T, F, 2 or 3\) and down "
                                             r"\(T, F\), got \(5, 2, 3\) and \(4, 2\)$"):
        stance_velocity_offsets(np.zeros((5, 2, 3)), np.zeros((4, 2), bool))
    with pytest.raises(GaitforgeError, match=r"^ballistic_heights: lowest, root_z and airborne must be \(T,\) alike, "
                                             r"got \(5,\), \(4,\), \(5,\)$"):
        ballistic_heights(np.zeros(5), np.zeros(4), np.zeros(5, bool), 0.1)
    with pytest.raises(GaitforgeError, match=r"^flight_offsets: offset and root_xy must be \(T, 2\) alike and windows "
                                             r"one per run, got \(6, 2\), \(6, 2\), 2 windows for 1 runs$"):
        flight_offsets(np.zeros((6, 2)), np.zeros((6, 2)), [(2, 3)], [(0, 6), (0, 6)])

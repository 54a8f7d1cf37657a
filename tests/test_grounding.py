"""Ground contact for kinematic gaits: feet on z = 0, stance feet that do
not slide on average, forward progression derived from them, and a dog trot
that the gait metrics recognise."""
import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.modal import compute_modes
from gaitforge.motion.footfall import detect_footfalls, feet_of, foot_positions
from gaitforge.motion.grounding import default_contact_tol, ground, root_translation, touch_ground
from gaitforge.motion.metrics import classify_gait, gait_metrics, root_positions
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.motion.synthesis import synthesize
from test_synthesis import dog_trot

FPS = 60.0


@pytest.fixture(scope="module")
def dog():
    return Character.from_spec(registry.build("dog"))


@pytest.fixture(scope="module")
def basis(dog):
    return compute_modes(dog, count=20)


@pytest.fixture(scope="module")
def trot(dog, basis):
    r = dog_trot(dog, basis)
    return r, synthesize(dog, basis, r, 4.0, FPS, grounded=False), synthesize(dog, basis, r, 4.0, FPS)


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
    clip = synthesize(human, b, r, 1.0, FPS)
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
    r = GaitRecipe("hop", "kangaroo", (GaitTerm(0, 0.5, 0.0, 2.0), GaitTerm(1, 0.5, np.pi / 2, 2.0)))
    clip = synthesize(roo, b, r, 1.0, FPS, speed=0.5)
    np.testing.assert_allclose(lowest_contact(roo, clip.qpos), 0.0, atol=1e-12)
    raw = synthesize(roo, b, r, 1.0, FPS, grounded=False)
    moved = root_positions(roo, clip.qpos) - root_positions(roo, raw.qpos)
    np.testing.assert_allclose(moved[:, 0], 0.5 * np.arange(60) / FPS, atol=1e-12)  # world x, at 0.5 m/s
    np.testing.assert_allclose(moved[:, 1], 0.0, atol=1e-15)


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

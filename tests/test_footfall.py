"""Feet and footfall detection on ad-hoc creatures whose feet are moved exactly.

``legged`` builds a box trunk on a free root with legs made of two slide
joints (hip: x, leg: z), so a clip can put each foot at any world point;
``synth`` prescribes a footfall pattern (phases, duty factor, stride
frequency, speed) and returns the clip together with the contact table it
implies — the oracle for detection and for the gait metrics (test_metrics).
"""
import numpy as np
import pytest

from gaitforge.creatures import Bone, Character, ContactPoint, CreatureSpec, Joint, build_builtin
from gaitforge.creatures.builders import kit
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.io.gait_plots import contact_intervals, save_gait_diagram
from gaitforge.motion import MotionClip
from gaitforge.motion.footfall import (
    Footfalls, debounce, detect_footfalls, feet_in_contact, feet_named, feet_of, footfalls_from_contacts,
)

LEG, FOOT_R = 0.30, 0.03  # m: hip-to-foot-centre length and foot sphere radius
SPRING = 2.0e4  # N/m: leg springs stiff enough to stand in simulation
QUAD = (("front", "left"), ("front", "right"), ("rear", "left"), ("rear", "right"))
BIPED = ((None, "left"), (None, "right"))


def legged(legs=QUAD) -> Character:
    """Trunk + legs of (hip: slide x) → (leg: slide z, sphere foot) with a
    contact point at the sphere's bottom; hips sit LEG + FOOT_R above ground."""
    bones = [Bone("trunk", None, (kit.box((0.3, 0.15, 0.04)),), Joint("free"), role="trunk", mass=10.0)]
    contacts = []
    for limb, side in legs:
        prefix = f"{limb}_{side}" if limb else side
        sx = {"front": 0.25, "rear": -0.25, None: 0.0}[limb]
        sy = 0.12 if side == "left" else -0.12
        bones.append(Bone(f"{prefix}_hip", "trunk", (kit.sphere(0.02, contact=False),),
                          Joint("slide", axis=(1.0, 0.0, 0.0), stiffness=SPRING, damping=50.0), pos=(sx, sy, 0.0),
                          side=side, role="hip", limb=limb, mass=0.5))
        bones.append(Bone(f"{prefix}_leg", f"{prefix}_hip",
                          (kit.capsule((0, 0, 0), (0, 0, LEG - 0.05), 0.01, contact=False), kit.sphere(FOOT_R)),
                          Joint("slide", axis=(0.0, 0.0, 1.0), stiffness=SPRING, damping=50.0), pos=(0.0, 0.0, -LEG),
                          side=side, role="foot", limb=limb, mass=0.3))
        contacts.append(ContactPoint(f"{prefix}_foot", f"{prefix}_leg", (0.0, 0.0, -FOOT_R)))
    return Character.from_spec(CreatureSpec(name="slider", bones=tuple(bones), contacts=tuple(contacts)))


def synth(char: Character, phases: dict, *, duty: float, freq: float, speed: float, fps: float = 60.0,
          duration: float = 4.0, lift: float = 0.06, drag: float = 0.0, smooth: bool = False,
          bob: float = 0.01, stance_jitter: float = 0.0):
    """A clip with a prescribed footfall pattern, and its contact table (T, F).

    Foot ``n`` lands at cycle fraction ``phases[n]`` and stays down for
    ``duty`` of each 1/freq-second cycle, then swings forward (zero speed at
    both ends). The root moves forward at ``speed`` [m/s] and bobs ``bob`` m
    vertically at twice the stride frequency. drag [m/s]: stance feet slide
    forward at this speed. Swing height: a jump to 0.3 ``lift`` then a sine
    arc (exact detection), or a plain sine arc (``smooth``). stance_jitter [m]:
    every third stance frame but landings raised this much (flicker).
    """
    n = int(round(duration * fps)) + 1
    t = np.arange(n) / fps
    rest = char.rest_qpos
    q = np.tile(rest, (n, 1))
    root_dx = speed * t
    root_dz = bob * np.sin(2 * np.pi * 2 * freq * t)
    q[:, 0] += root_dx
    q[:, 2] += root_dz
    contact = np.zeros((n, len(phases)), bool)
    for i, (name, phi) in enumerate(phases.items()):
        prefix = name[: -len("_foot")]
        s_abs = freq * t - phi
        k = np.floor(s_abs)
        s = s_abs - k
        stance = s < duty
        t_land = (k + phi) / freq
        plant = speed * (t_land + duty / (2 * freq))  # lands half a stance sweep ahead of the hip
        lifted = plant + drag * duty / freq
        step = speed / freq - drag * duty / freq
        u = np.clip((s - duty) / (1 - duty), 0.0, 1.0)
        x = np.where(stance, plant + drag * (t - t_land), lifted + step * (u - np.sin(2 * np.pi * u) / (2 * np.pi)))
        arc = np.sin(np.pi * u) if smooth else 0.3 + 0.7 * np.sin(np.pi * u)
        z = np.where(stance, 0.0, lift * arc)
        if stance_jitter:
            held = stance & np.r_[True, stance[:-1]]
            z = np.where(held & (np.arange(n) % 3 == 0), stance_jitter, z)
        q[:, char.joints[f"{prefix}_hip"].qpos.start] = x - root_dx
        q[:, char.joints[f"{prefix}_leg"].qpos.start] = z - root_dz
        contact[:, i] = stance
    return MotionClip(fps, q, char.name), contact


@pytest.fixture(scope="module")
def quad():
    return legged()


TROT = {"front_left_foot": 0.5, "front_right_foot": 0.0, "rear_left_foot": 0.0, "rear_right_foot": 0.5}


# ------------------------------------------------------------------ feet
def test_feet_of_adhoc_quadruped_labels_and_points(quad):
    feet = feet_of(quad)
    assert [f.name for f in feet] == ["front_left_foot", "front_right_foot", "rear_left_foot", "rear_right_foot"]
    assert [(f.limb, f.side) for f in feet] == list(QUAD)
    assert all(f.body.endswith("_leg") and f.point == (0.0, 0.0, -FOOT_R) for f in feet)
    # The tracked points of the rest pose touch the ground.
    pos = quad.contact_positions(quad.rest_qpos)
    np.testing.assert_allclose([pos[f.name][2] for f in feet], 0.0, atol=1e-9)


def test_feet_of_builtins():
    dog = Character.from_spec(build_builtin("dog"))
    assert [(f.name, f.limb, f.side) for f in feet_of(dog)] == [
        ("front_left_foot", "front", "left"), ("front_right_foot", "front", "right"),
        ("rear_left_foot", "rear", "left"), ("rear_right_foot", "rear", "right")]
    # Knuckle-walker: knuckles are its front feet; heels and toes are not feet.
    gorilla = Character.from_spec(build_builtin("gorilla"))
    assert [f.name for f in feet_of(gorilla)] == ["front_left_knuckle", "front_right_knuckle",
                                                  "rear_left_foot", "rear_right_foot"]
    worm = Character.from_spec(build_builtin("worm"))
    with pytest.raises(GaitforgeError) as e:
        feet_of(worm)
    assert str(e.value) == ("worm has no feet: no contact point named *_foot or *_knuckle "
                            "and no body with role foot or hand")


def test_feet_fall_back_on_foot_bodies_and_names():
    spec = legged().spec
    bare = Character.from_spec(CreatureSpec(name="bare", bones=spec.bones))  # no contact points
    feet = feet_of(bare)
    assert [f.name for f in feet] == ["front_left_leg", "front_right_leg", "rear_left_leg", "rear_right_leg"]
    assert feet[0].point == (0.0, 0.0, 0.0)  # the foot sphere's centre, not the capsule's
    assert [f.name for f in feet_named(bare, ["rear_left_hip"])] == ["rear_left_hip"]
    with pytest.raises(UnknownNameError) as e:
        feet_named(bare, ["tail"])
    assert str(e.value).startswith("unknown foot 'tail' in bare (feet: front_left_leg, ")


# ------------------------------------------------------------- detection
@pytest.mark.parametrize("duty,drag", [(0.4, 0.0), (0.75, 0.0), (0.5, 0.3)])
def test_detection_recovers_prescribed_contacts_exactly(quad, duty, drag):
    clip, truth = synth(quad, TROT, duty=duty, freq=1.9, speed=1.2, drag=drag)
    ff = detect_footfalls(quad, clip)
    assert ff.names == tuple(TROT)
    np.testing.assert_array_equal(ff.times, clip.times)
    np.testing.assert_array_equal(ff.contact, truth)


def test_detection_hysteresis_and_debounce(quad):
    # Stance feet rise 7 mm every third frame: above the 5 mm landing band but
    # below the 10 mm lift-off level, so the contact must hold.
    clip, truth = synth(quad, TROT, duty=0.5, freq=2.0, speed=1.0, stance_jitter=0.007)
    np.testing.assert_array_equal(detect_footfalls(quad, clip).contact, truth)
    # Without hysteresis (both levels 5 mm apart from jitter) it would flicker:
    jittery = detect_footfalls(quad, clip, height_tol=0.0035, min_duration=0.0)
    assert (jittery.contact != truth).sum() > 20


def test_smooth_swing_arc_is_detected_within_a_frame_per_transition(quad):
    clip, truth = synth(quad, TROT, duty=0.5, freq=2.0, speed=1.0, smooth=True)
    ff = detect_footfalls(quad, clip)
    # A sine arc stays within the 5 mm band for a frame at lift-off/landing.
    for f in range(4):
        changes = np.r_[0, np.flatnonzero(np.diff(truth[:, f].astype(int)))]  # the clip starts mid-swing
        wrong = np.flatnonzero(ff.contact[:, f] != truth[:, f])
        assert all(np.min(np.abs(w - changes)) <= 1 for w in wrong)
    assert (ff.contact != truth).sum() <= 2 * len(np.flatnonzero(np.diff(truth.astype(int), axis=0)))


def test_debounce_removes_short_runs_but_keeps_edges():
    col = np.array([1, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1], bool)[:, None]
    out = debounce(col, fps=100.0, min_duration=0.025)  # runs of 1-2 frames go
    np.testing.assert_array_equal(out[:, 0], np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1], bool))
    np.testing.assert_array_equal(debounce(col, fps=100.0, min_duration=0.01), col)


# ---------------------------------------------------------- given states
def test_footfalls_from_contacts():
    c = np.zeros((10, 2), bool)
    c[2:5, 0] = c[6:9, 1] = True
    c[7, 1] = False  # one-frame flicker
    ff = footfalls_from_contacts(c, ["a", "b"], fps=50.0, min_duration=0.03)
    np.testing.assert_allclose(ff.times, np.arange(10) / 50.0)
    assert ff.contact[6:9, 1].all() and ff.dt == pytest.approx(0.02)
    np.testing.assert_array_equal(ff.touchdowns("a"), [2])
    np.testing.assert_array_equal(ff.liftoffs(0), [5])
    raw = footfalls_from_contacts(c, ("a", "b"), times=np.arange(10) * 0.02)
    assert not raw.contact[7, 1]
    with pytest.raises(GaitforgeError) as e:
        footfalls_from_contacts(c, ["a", "b"])
    assert str(e.value) == "footfalls: give either times or fps"


def test_footfalls_validation_messages():
    with pytest.raises(GaitforgeError) as e:
        Footfalls(np.arange(3.0), np.zeros((3, 2)), ("a",))
    assert str(e.value) == "footfalls: contact must have shape (frames, feet) = (3, 1), got (3, 2)"
    with pytest.raises(GaitforgeError) as e:
        Footfalls(np.array([0.0, 0.1, 0.1]), np.zeros((3, 1)), ("a",))
    assert str(e.value) == "footfalls: times must increase strictly"
    with pytest.raises(GaitforgeError) as e:
        Footfalls(np.arange(3.0), np.zeros((3, 2)), ("a", "a"))
    assert str(e.value) == "footfalls: duplicate foot names in ('a', 'a')"
    ff = Footfalls(np.arange(3.0), np.zeros((3, 1)), ["a"])
    with pytest.raises(ValueError):
        ff.contact[0, 0] = True  # read-only


def test_feet_in_contact_from_a_mujoco_simulation(quad):
    import mujoco

    feet = feet_of(quad)
    d = quad.make_data()
    rows = []
    for step in range(400):  # 0.8 s: settle on four feet, then pull the front-left foot up
        if step == 200:
            d.qpos[quad.joints["front_left_leg"].qpos.start] += 0.05
            d.qvel[:] = 0.0
        mujoco.mj_step(quad.model, d)
        rows.append(feet_in_contact(quad, d, feet))
    ff = footfalls_from_contacts(np.array(rows), [f.name for f in feet], fps=1.0 / quad.model.opt.timestep)
    assert ff.contact[150:200].all()  # standing: every foot down
    assert d.ncon >= 4 and all(quad.model.geom_bodyid[d.contact.geom[:d.ncon]].min(axis=1) == 0)
    np.testing.assert_array_equal(ff.contact[200], [False, True, True, True])
    # The stiff leg spring snaps the foot back down within a few steps (it
    # may bounce once or twice) and the creature stands again.
    landing = ff.touchdowns("front_left_foot")
    assert 1 <= len(landing) <= 3 and 200 < landing[0] < 210 and ff.contact[300:].all()


# ---------------------------------------------------------------- diagram
def test_contact_intervals():
    t = np.arange(6) * 0.1
    bars = contact_intervals(t, np.array([1, 1, 0, 0, 1, 1], bool))
    np.testing.assert_allclose(bars, [(0.0, 0.2), (0.4, 0.2)])


def test_gait_diagram_png(quad, tmp_path):
    import imageio.v3 as iio

    clip, _ = synth(quad, TROT, duty=0.4, freq=2.0, speed=1.0, duration=2.0)
    ff = detect_footfalls(quad, clip)
    path = tmp_path / "plots" / "trot.png"
    save_gait_diagram(ff, path, title="trot")
    img = iio.imread(path)
    assert img.ndim == 3 and img.shape[0] > 100 and img.shape[1] > 400
    # Dark contact bars are drawn: many near-black pixels, and a white background.
    rgb = img[..., :3].astype(int)
    assert (rgb.sum(axis=-1) < 150).mean() > 0.05
    assert (rgb.sum(axis=-1) > 750).mean() > 0.3
    assert [p.name for p in path.parent.iterdir()] == ["trot.png"]  # no temporary left behind


def test_debounce_fills_gaps_and_drops_contacts_at_their_own_lengths():
    """At 100 frames/s: a 0.08 s gap inside a stance is filled at min_gap 0.1 s,
    a 0.08 s stance survives min_duration 0.05 s (an RH91 runner's stance),
    and a 0.03 s flicker contact does not; with one length for both (0.1 s)
    the short stance is lost."""
    from gaitforge.motion.footfall import debounce

    c = np.zeros((100, 1), bool)
    c[10:30, 0] = c[38:60, 0] = True  # a stance with a 0.08 s skip in it
    c[70:78, 0] = True  # a 0.08 s stance
    c[90:93, 0] = True  # a 0.03 s flicker
    out = debounce(c, 100.0, 0.05, min_gap=0.1)[:, 0]
    assert out[10:60].all() and not out[60:70].any() and out[70:78].all() and not out[78:].any()
    assert not debounce(c, 100.0, 0.1)[70:78, 0].any()

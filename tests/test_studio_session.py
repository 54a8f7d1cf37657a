"""The studio's page logic without a browser: the session state, the
playback clock, uploads, the slider filter, puppetry physics and the
footfall image."""
from __future__ import annotations

import numpy as np
import pytest
from bvh import Bvh

from gaitforge.errors import GaitforgeError
from gaitforge.studio.footfall_view import diagram
from gaitforge.studio.playback import Clock
from gaitforge.studio.puppet import FILTER_TAU, CriticalFilter, PuppetSim
from gaitforge.studio.session import Session
from gaitforge.studio.uploads import MAX_UPLOAD_BYTES


@pytest.fixture(scope="module")
def trotting():
    s = Session("dog")
    s.compute_modes()
    s.choose_gait("trot")
    yield s
    s.close()


def test_modes_are_listed_with_frequency_and_description(trotting):
    lines = trotting.mode_lines()
    assert len(lines) == 20
    assert lines[0].startswith("0  ") and " Hz  " in lines[0]
    assert "bounding" in lines[0] or "twist" in lines[0] or "(" in lines[0]


def test_gait_buttons_come_from_the_creature(trotting):
    assert trotting.gaits() == ("walk", "trot", "pace", "amble", "bound", "gallop")
    assert trotting.gait == "trot" and trotting.recipe.name == "trot"
    report = trotting.gait_report()
    assert report is not None and report[2] == "trot"


def test_a_term_slider_changes_the_pose(trotting):
    trotting.clock.playing = False
    trotting.clock.time = 0.2
    before = trotting.pose().copy()
    old = trotting.terms[0].amplitude
    trotting.set_term(0, amplitude=old * 3)
    after = trotting.pose()
    assert np.abs(after[7:] - before[7:]).max() > 1e-3
    trotting.set_term(0, amplitude=old)
    with pytest.raises(GaitforgeError, match=r"^term field 'speed' unknown \(valid: amplitude, phase, frequency, "
                                             r"offset\)$"):
        trotting.set_term(0, speed=1.0)
    with pytest.raises(GaitforgeError, match=r"^term 99: the recipe has \d+ terms$"):
        trotting.set_term(99, amplitude=0.0)


def test_add_and_remove_a_mode(trotting):
    n = len(trotting.terms)
    free = next(m for m in range(20) if m not in {t.mode for t in trotting.terms})
    trotting.add_mode(free)
    assert len(trotting.terms) == n + 1 and trotting.terms[-1].mode == free
    with pytest.raises(GaitforgeError, match=f"^mode {free} is in the recipe already$"):
        trotting.add_mode(free)
    trotting.remove_term(n)
    assert len(trotting.terms) == n
    trotting.reset_recipe()
    assert trotting.recipe.name == "trot"


def test_download_bvh_reads_back(trotting):
    name, content = trotting.download("BVH")
    assert name == "dog-trot.bvh"
    mocap = Bvh(content.decode())
    assert mocap.nframes == trotting.clip.n_frames
    with pytest.raises(GaitforgeError, match=r"^download: unknown format 'FBX' \(valid: BVH, glTF, MP4\)$"):
        trotting.download("FBX")


def test_bad_uploads_give_one_line_errors():
    s = Session("dog")
    try:
        with pytest.raises(GaitforgeError, match=r"^upload 'x.exe': unknown creature file extension '.exe' \(valid: "):
            s.upload("x.exe", b"data")
        with pytest.raises(GaitforgeError, match=r"^upload 'big.yaml': \d+ bytes, more than the 4 MiB"):
            s.upload("big.yaml", b" " * (MAX_UPLOAD_BYTES + 1))
        with pytest.raises(GaitforgeError) as e:
            s.upload("broken.yaml", b"bones: [unclosed\n")
        assert "\n" not in str(e.value) and str(e.value).startswith("broken.yaml: line 2")
        assert s.character.name == "dog"  # the session keeps its creature
    finally:
        s.close()


def test_upload_a_creature_file(tmp_path):
    import gaitforge as gf
    from gaitforge.io.spec_files import save_spec
    from gaitforge.creatures import registry

    path = tmp_path / "worm.yaml"
    save_spec(registry.build("worm"), path)
    s = Session("dog")
    try:
        s.upload("my worm.yaml", path.read_bytes())
        assert s.character.name == gf.creature("worm").name and s.label == "my worm.yaml"
        assert list(s.uploads.path.iterdir())  # kept in the session's own temporary folder
    finally:
        s.close()
    assert not s.uploads.path.exists()


def test_clock_rates_and_steps():
    c = Clock()
    c.set_rate(0.125)
    c.advance(1.0)
    assert c.time == pytest.approx(0.125)
    c.set_rate(8)
    with pytest.raises(GaitforgeError, match=r"^playback speed must be from 1/8x to 8x, got 16$"):
        c.set_rate(16)
    c.step(0.5)
    assert not c.playing and c.time == pytest.approx(0.625)
    c.advance(10.0)
    assert c.time == pytest.approx(0.625)
    assert c.frame(30.0, 10) == int(0.625 * 30) % 10
    c.reset()
    assert c.time == 0.0


def test_filter_is_critically_damped():
    f = CriticalFilter(1, FILTER_TAU)
    f.target[:] = 1.0
    xs = [float(f.step(0.00025)[0]) for _ in range(int(1.0 / 0.00025))]
    assert max(xs) <= 1.0 + 1e-9                   # no overshoot
    t95 = next(i for i, x in enumerate(xs) if x >= 0.95) * 0.00025
    assert 4.0 * FILTER_TAU < t95 < 5.5 * FILTER_TAU  # 4.74 τ for a critically damped pair


def test_puppet_slider_moves_the_simulated_pose(trotting):
    sim = PuppetSim(trotting.character, trotting.basis, None, (0, 1, 2))
    sim.advance(0.3)
    rest = sim.qpos()
    sim.set_target(0, 1.0)
    sim.advance(0.5)
    moved = sim.qpos()
    assert np.abs(moved[7:] - rest[7:]).max() > 0.05
    assert np.all(np.isfinite(moved))
    with pytest.raises(GaitforgeError, match=r"^puppet slider value must be from -1 to 1, got 2.0$"):
        sim.set_target(0, 2.0)


def test_footfall_image():
    contact = np.zeros((10, 4), bool)
    contact[:5, 0] = True
    img = diagram(contact, 0.5)
    assert img.shape == (4 * 18 - 4, 360, 3) and img.dtype == np.uint8
    assert tuple(img[2, 10]) == (40, 40, 48) and tuple(img[2, 300]) == (232, 232, 236)
    assert tuple(img[2, 180]) == (220, 40, 40)


def test_drag_to_pose_moves_the_paw_toward_the_mouse(trotting):
    import mujoco
    sim = PuppetSim(trotting.character, trotting.basis, None, tuple(range(trotting.basis.count)))
    sim.advance(0.3)
    paw = mujoco.mj_name2id(sim.model, mujoco.mjtObj.mjOBJ_BODY, "front_left_paw")
    goal = sim.body_position(paw) + np.array([0.10, 0.0, 0.0])   # a step forward [m]
    first = sim.reach(paw, goal)
    for _ in range(20):                                         # the mouse held there: 20 Hz for 1 s
        sim.advance(0.05)
        sim.reach(paw, goal)
    after = float(np.linalg.norm(goal - sim.body_position(paw)))
    assert after < 0.4 * first, (first, after)
    assert sim.upright() > 0.9
    with pytest.raises(GaitforgeError, match=r"^body 0: the model has bodies 1 to \d+$"):
        sim.reach(0, goal)


def test_download_gltf(trotting):
    name, content = trotting.download("glTF")
    assert name == "dog-trot.glb" and content[:4] == b"glTF"


def test_constraints_reach_the_modes_and_the_recipe():
    s = Session("dog")
    try:
        with pytest.raises(GaitforgeError, match=r"^bad constraint 'bogus': expected KIND:BODY"):
            s.set_constraints("bogus")
        s.set_constraints("lock:head")
        s.compute_modes()
        assert [c.name for c in s.basis.constraints][-1] == "lock:head"
        s.preview_mode(0)
        assert s.recipe.constraints == ("lock:head",) and s.clip is not None
    finally:
        s.close()


def test_the_humans_walk_at_a_speed_is_a_walk():
    """"Modes" computes the pool a gait at speed chooses from (23 modes for
    the human, whose feet have soles, as ``gaitforge animate`` does): with
    only the 20 lowest, the human's walk at 1.5 m/s put its feet 0.17 of a
    cycle apart and read as no gait."""
    s = Session("human")
    try:
        s.compute_modes()
        assert s.basis.count == 23
        s.choose_gait("walk", 1.5)
        table, metrics, name = s.gait_report()
        assert name == "walk" and metrics.speed == pytest.approx(1.5, rel=0.1)
    finally:
        s.close()


def test_a_gait_button_makes_the_gait_at_its_natural_speed(trotting):
    """As ``gaitforge animate`` does: the dog's trot at its typical Froude
    number (1, at the dog's hip height: 2.11 m/s), moving at that speed;
    a creature whose speeds nobody measured gets the Kry09 clip (no speed)."""
    from gaitforge.motion import gait_features

    h = gait_features.hip_height(trotting.character)
    assert trotting.speed == pytest.approx((1.0 * 9.81 * h) ** 0.5)
    assert trotting.gait_report()[1].speed == pytest.approx(trotting.speed, rel=0.1)
    s = Session("gorilla")
    try:
        s.compute_modes()
        s.choose_gait("walk")
        assert s.speed is None and s.recipe.name == "walk"
    finally:
        s.close()

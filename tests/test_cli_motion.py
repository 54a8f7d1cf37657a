"""The gait commands (``animate``, ``gaits``, ``metrics``, ``demo``), called
through main(argv) as a user would; bad input gives one line and exit code 2."""
import imageio.v3 as iio
import numpy as np
import pytest

from gaitforge.cli import motion_cmd
from gaitforge.cli.main import main
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.io.clipfiles import load_npz
from gaitforge.io.recipe_files import load_recipe, save_recipe
from gaitforge.motion import presets


@pytest.fixture(autouse=True)
def wide_console():
    """Tables wide enough that no name is wrapped or cut in the captured text."""
    width = motion_cmd.console.width
    motion_cmd.console.width = 250
    yield
    motion_cmd.console.width = width


def test_gaits_lists_presets_and_what_each_creature_does(capsys):
    assert main(["gaits"]) == 0
    out = capsys.readouterr().out
    for name in presets.names():
        assert name in out
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:-1]]
            for line in out.splitlines() if line.count("│") == 4}
    # The simulated gaits are the controller registry's (* the runner's default gait).
    assert rows["dog"] == ["walk 0.67–1.42, trot 1.49–2.99, pace 1.49–2.99, amble, bound 2.11–3.66, gallop 2.99–4.72",
                           "stand, walk 0.2–0.55, trot* 0.4–1.3, pace 0.1–0.6, canter 0.3–0.6, gallop 1.3"]
    assert rows["human"][0] == "walk 0.96–2.03, run 2.14–4, jump, jumping_jacks"
    assert rows["gorilla"][1] == "stand, ds_walk* 0–0.6, trot 0–0.6"
    assert rows["human_run"] == ["walk, run, jump, jumping_jacks", "-"]
    assert rows["raibert_quadruped"][0] == "-" and rows["raibert_quadruped"][1].startswith("trot* 0.5–1.8, bound 1–2.8")
    assert rows["kangaroo"] == ["-", "hop* 0.5–4"] and rows["worm"] == ["-", "crawl*"]
    assert "lock:head" in out


def test_hyphens_and_underscores_spell_the_same_names(tmp_path, capsys):
    assert main(["animate", "dog_trot", "--seconds", "0.5", "--no-pin", "-o", str(tmp_path / "a.npz")]) == 0
    assert main(["animate", "human_run", "--gait", "jumping-jacks", "--seconds", "0.5", "--no-pin",
                 "-o", str(tmp_path / "b.npz")]) == 0   # human_run is the creature, human-run the preset
    assert main(["show", "human-run"]) == 0
    out = capsys.readouterr().out
    assert "recipe dog-trot (dog)" in out and "recipe jumping_jacks (human_run)" in out


def test_animate_trot_then_metrics_and_diagram(tmp_path, capsys):
    clip_path, recipe_path = tmp_path / "trot.npz", tmp_path / "trot.yaml"
    assert main(["animate", "dog", "--gait", "trot", "--kry09", "--seconds", "3", "-o", str(clip_path),
                 "--save-recipe", str(recipe_path)]) == 0
    out = capsys.readouterr().out
    assert "classified as trot" in out and f"wrote {clip_path} (180 frames at 60 fps)" in out
    clip = load_npz(clip_path, Character.from_spec(registry.build("dog")))
    assert clip.n_frames == 180 and clip.fps == 60.0
    diagram = tmp_path / "trot.png"
    assert main(["metrics", str(clip_path), "--diagram", str(diagram)]) == 0
    out = capsys.readouterr().out
    assert "classified as trot" in out and "duty factor" in out and "front_left_foot" in out
    assert iio.imread(diagram).std() > 5
    # The saved recipe animates the same clip again.
    again = tmp_path / "again.npz"
    assert load_recipe(recipe_path).name == "trot"
    assert main(["animate", "dog", "--recipe", str(recipe_path), "--seconds", "3", "-o", str(again)]) == 0
    assert np.array_equal(load_npz(again).qpos, clip.qpos)


def test_animate_preset_to_bvh(tmp_path, capsys):
    out = tmp_path / "run.bvh"
    assert main(["animate", "human-run", "--seconds", "1", "--fps", "30", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.startswith("HIERARCHY") and "Frames: 30" in text
    assert "recipe human-run (human)" in capsys.readouterr().out


def test_animate_gif_shows_progress(tmp_path, capsys):
    out = tmp_path / "walk.gif"
    assert main(["animate", "human", "--gait", "walk", "--kry09", "--seconds", "0.2", "--fps", "20",
                 "-o", str(out)]) == 0
    assert iio.imread(out).shape[0] == 4


def test_video_size_and_camera(tmp_path, capsys):
    out = tmp_path / "walk.gif"
    assert main(["animate", "human", "--gait", "walk", "--kry09", "--seconds", "0.2", "--fps", "20", "--size", "64x48",
                 "--camera", "side", "--quiet", "-o", str(out)]) == 0
    assert iio.imread(out, index=None).shape == (4, 48, 64, 3)
    assert main(["animate", "human", "--gait", "walk", "--kry09", "--size", "64x4", "-o", str(out)]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: animate: argument --size: must be WIDTHxHEIGHT in pixels, "
                                       "each from 16 to 4096, got '64x4'\n")


def _fails(capsys, argv, message, *paths):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == f"gaitforge: error: {message}\n"
    assert "Traceback" not in captured.err
    for p in paths:
        assert not p.exists()


def test_unknown_gait(tmp_path, capsys):
    out = tmp_path / "x.glb"
    _fails(capsys, ["animate", "dog", "--gait", "canter", "-o", str(out)],
           "unknown gait 'canter' (valid gaits for bipeds: walk, run, jump, jumping_jacks; "
           "quadrupeds: walk, trot, pace, amble, bound, gallop)", out)


def test_worm_cannot_trot(tmp_path, capsys):
    out = tmp_path / "x.glb"
    _fails(capsys, ["animate", "worm", "--gait", "trot", "--kry09", "-o", str(out)],
           "worm has no feet: suggest('trot') needs contact points named *_foot or bodies labelled role: foot; "
           "add them in the creature file or a labels override", out)


def test_recipe_naming_a_mode_not_computed(tmp_path, capsys):
    recipe = presets.build("dog-trot")
    from dataclasses import replace
    from gaitforge.motion.recipe import GaitTerm
    bad = replace(recipe, name="too-high", terms=recipe.terms + (GaitTerm(25, 0.01, 0.0, 2.0),))
    path, out = tmp_path / "bad.yaml", tmp_path / "x.npz"
    save_recipe(bad, path)
    _fails(capsys, ["animate", "dog", "--recipe", str(path), "--modes", "20", "-o", str(out)],
           "recipe 'too-high' names mode 25 but only 20 elastic modes were computed", out)


def test_bad_output_extension_and_missing_clip(tmp_path, capsys):
    out = tmp_path / "x.avi"
    _fails(capsys, ["animate", "dog", "--gait", "trot", "--kry09", "-o", str(out)],
           f"{out}: unknown motion file extension '.avi' (valid: .bvh, .csv, .gif, .glb, .mp4, .npz)", out)
    missing = tmp_path / "none.npz"
    _fails(capsys, ["metrics", str(missing)], f"{missing}: no such file")
    _fails(capsys, ["animate", "dog", "-o", str(tmp_path / "y.glb")],
           f"animate dog: give --gait GAIT or --recipe FILE (or a preset instead of a creature: "
           f"{', '.join(presets.names())})", tmp_path / "y.glb")


@pytest.mark.slow
def test_demo_writes_the_dog_trot(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path)]) == 0
    assert "classified as trot" in capsys.readouterr().out
    for name in registry.names():
        assert (tmp_path / f"{name}.png").stat().st_size > 1000
    assert (tmp_path / "dog_trot.glb").read_bytes()[:4] == b"glTF"
    assert (tmp_path / "dog_trot.bvh").read_text().startswith("HIERARCHY")
    video = iio.imread(tmp_path / "dog_trot.mp4")
    assert video.shape[1:] == (480, 640, 3) and video.shape[0] == 121  # 2 s at 60 fps
    assert iio.imread(tmp_path / "dog_trot_gait.png").std() > 5
    assert load_recipe(tmp_path / "dog_trot.yaml").name == "trot"


def test_no_flight_keeps_a_foot_down(tmp_path):
    dog = Character.from_spec(registry.build("dog"))
    lowest = {}
    for flag in ([], ["--no-flight"]):
        path = tmp_path / f"trot{len(flag)}.npz"
        assert main(["animate", "dog", "--gait", "trot", "--kry09", "--seconds", "2", "-o", str(path), *flag]) == 0
        clip = load_npz(path, dog)
        heights = [min(p[2] for p in dog.contact_positions(q).values()) for q in clip.qpos]
        lowest[bool(flag)] = np.array(heights)
    assert np.max(lowest[False]) > 1e-3  # the trot flies
    assert np.max(np.abs(lowest[True])) < 1e-6  # without flight the lowest point stays on the ground


def test_pinned_human_walk_stays_a_walk(tmp_path, capsys):
    # Pinning the stance feet rolls the sole over heel and toe; the foot counts
    # as down while any of its contact points touches, so no flight appears.
    assert main(["animate", "human", "--gait", "walk", "--kry09", "--seconds", "3", "-o", str(tmp_path / "w.npz")]) == 0
    out = capsys.readouterr().out
    assert "classified as walk" in out and "flight 0 %" in out
    import re
    skate = float(re.search(r"foot skate\s+([0-9.]+)", out).group(1))
    assert skate < 0.05


BOUND_NOT_TROT = ("dog: no recipe from 3 modes passes the trot footfall check; the closest (error 1.01) is "
                  "classified bound, a different gait; try more modes (--modes) or another gait")


def test_a_suggestion_that_is_another_gait_warns(tmp_path, capsys):
    out = tmp_path / "t.npz"
    assert main(["animate", "dog", "--gait", "trot", "--kry09", "--modes", "3", "-o", str(out)]) == 0
    assert capsys.readouterr().err == f"gaitforge: warning: {BOUND_NOT_TROT}\n" and out.exists()


def test_strict_makes_it_an_error_with_exit_1_and_no_output(tmp_path, capsys):
    out = tmp_path / "t.npz"
    assert main(["animate", "dog", "--gait", "trot", "--kry09", "--modes", "3", "--strict", "-o", str(out)]) == 1
    assert capsys.readouterr().err == f"gaitforge: error: {BOUND_NOT_TROT}\n"
    assert not out.exists()

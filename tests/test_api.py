"""The one-import API (``import gaitforge as gf``): each call reaches the
layer that owns the work and agrees with calling that layer directly."""
import numpy as np
import pytest

import gaitforge as gf
from gaitforge.io.clipfiles import load_npz
from gaitforge.modal import compute_modes
from gaitforge.motion import heuristics
from gaitforge.motion.synthesis import synthesize


def test_importing_the_package_does_not_load_the_api():
    import subprocess
    import sys
    code = "import sys, gaitforge; print('gaitforge.api' in sys.modules, 'mujoco' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_creature_modes_and_animate_match_the_layers():
    dog = gf.creature("dog")
    assert dog.name == "dog" and dog.nv == 80
    basis = gf.modes(dog, count=8)
    np.testing.assert_array_equal(basis.frequencies, compute_modes(dog, count=8).frequencies)
    clip = gf.animate(dog, "trot", seconds=1.0, pin=False)
    direct_basis = compute_modes(dog, count=20)
    direct = synthesize(dog, direct_basis, heuristics.suggest(dog, "trot", direct_basis), 1.0, 60.0)
    np.testing.assert_array_equal(clip.qpos, direct.qpos)
    assert gf.gait_class(gf.animate("dog", "trot", seconds=3.0)) == "trot"


def test_presets_by_name_and_metrics():
    clip = gf.animate(None, "human-run", seconds=2.0, pin=False)
    m = gf.metrics(clip, gf.creature("human_run"))
    assert m.n_strides >= 2 and max(m.duty_factor.values()) < 0.5


def test_save_round_trip(tmp_path):
    dog = gf.creature("dog")
    clip = gf.animate(dog, "bound", seconds=0.5, pin=False)
    gf.save(clip, tmp_path / "b.npz")          # character from the clip's name
    back = load_npz(tmp_path / "b.npz", dog)
    np.testing.assert_allclose(back.qpos, clip.qpos)


def test_run_a_raibert_controller():
    character, rollout = gf.run("raibert_quadruped", "trot", speed=1.0, seconds=3.0)
    assert rollout.fall is None and character.name == "raibert_quadruped"
    x = rollout.clip.qpos[:, 0]
    assert (x[-1] - x[len(x) // 3]) / (rollout.clip.duration * 2 / 3) == pytest.approx(1.0, rel=0.25)


def test_bad_input_is_a_gaitforge_error(tmp_path):
    with pytest.raises(gf.GaitforgeError) as err:
        gf.creature("unicorn")
    assert str(err.value).startswith("unknown creature 'unicorn' (built-in creatures: ")
    with pytest.raises(gf.GaitforgeError) as err:
        gf.creature(tmp_path / "c.obj")
    assert str(err.value) == f"{tmp_path / 'c.obj'}: unknown creature file extension '.obj' " \
                             "(valid: .yaml, .yml, .json, .xml, .urdf, .bvh)"
    with pytest.raises(gf.GaitforgeError) as err:
        gf.run("unicorn", "crawl")
    assert str(err.value) == "no simulated controller for 'unicorn' (creatures with one: raibert_biped, " \
                             "raibert_quadruped, kangaroo, gorilla, dog, worm, loop; also accepted: biped, quadruped)"
    with pytest.raises(gf.GaitforgeError) as err:
        gf.save(gf.animate("dog", "trot", seconds=0.2, pin=False), tmp_path / "x.txt")
    assert str(err.value).startswith(f"{tmp_path / 'x.txt'}: unknown motion file extension '.txt'")
    assert not (tmp_path / "x.txt").exists()


def test_run_and_push_reach_the_skills_and_every_runner():
    import gaitforge as gf

    character, rollout = gf.run("gorilla", "ds_walk", speed=0.3, seconds=1.0)
    assert character.name == "gorilla" and rollout.fall is None and rollout.states[-1].startswith("ds_walk:")
    table = gf.push("raibert_quadruped", "trot", speeds=[1.5], phases=1, force=20.0)
    assert list(table) == [1.5] and table[1.5]["force"] == 20.0 and len(table[1.5]["phases"]) == 1
    with pytest.raises(gf.GaitforgeError, match="gorilla cannot be scaled"):
        gf.run("gorilla", scale=2.0)


def test_the_cli_animates_through_the_one_api_dispatch(tmp_path, capsys):
    from gaitforge.cli.main import main

    made = gf.animation("dog", "trot", seconds=1.0, pin=False)
    assert made.recipe is not None and made.ramp is None and made.basis.frequencies.shape[0] == 20
    np.testing.assert_array_equal(made.clip.qpos, gf.animate("dog", "trot", seconds=1.0, pin=False).qpos)
    out, recipe = tmp_path / "t.npz", tmp_path / "t.yaml"
    assert main(["animate", "dog", "--gait", "trot", "--kry09", "--seconds", "1", "--no-pin", "-o", str(out),
                 "--save-recipe", str(recipe), "--quiet"]) == 0
    capsys.readouterr()
    np.testing.assert_array_equal(load_npz(out).qpos, made.clip.qpos)
    replay = gf.animation("dog", None, recipe=recipe, seconds=1.0, pin=False)
    np.testing.assert_allclose(replay.clip.qpos, made.clip.qpos, atol=1e-9)
    with pytest.raises(gf.GaitforgeError) as err:
        gf.animation("human", None, recipe=recipe)
    assert str(err.value) == (f"{recipe}: the recipe is for 'dog', not 'human' (mode numbers name another "
                              "creature's modes)")

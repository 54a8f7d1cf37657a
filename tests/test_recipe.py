"""Gait recipes: validation on construction, checks against a modal basis,
and the YAML / JSON files (exact round trip, one-line errors)."""
import math
import os

import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, SpecError
from gaitforge.io.recipe_files import (dump_recipe, load_recipe, parse_recipe_text, recipe_from_dict,
                                       recipe_to_dict, save_recipe)
from gaitforge.modal import compute_modes
from gaitforge.motion.recipe import GaitRecipe, GaitTerm, check_basis, modes_for


@pytest.fixture(scope="module")
def dog():
    return Character.from_spec(registry.build("dog"))


@pytest.fixture(scope="module")
def basis8(dog):
    return compute_modes(dog, count=8)


def recipe(**kw):
    terms = kw.pop("terms", (GaitTerm(4, 0.08, math.pi / 2, 2.0), GaitTerm(7, 0.02, 0.0, 4.0, offset=-0.01)))
    return GaitRecipe(kw.pop("name", "trot"), kw.pop("creature", "dog"), terms, **kw)


# ---------------------------------------------------------------- validation
@pytest.mark.parametrize("kwargs, message", [
    (dict(mode=-1), "mode: must be a non-negative integer (an elastic mode index), got -1"),
    (dict(mode=True), "mode: must be a non-negative integer (an elastic mode index), got True"),
    (dict(mode=2.0), "mode: must be a non-negative integer (an elastic mode index), got 2.0"),
    (dict(amplitude=float("nan")), "amplitude: must be a finite number, got nan"),
    (dict(phase="90"), "phase: must be a finite number, got '90'"),
    (dict(frequency=-1.0), "frequency: must not be negative, got -1.0"),
    (dict(offset=float("inf")), "offset: must be a finite number, got inf"),
])
def test_term_validation(kwargs, message):
    args = dict(mode=1, amplitude=0.1, phase=0.0, frequency=2.0) | kwargs
    with pytest.raises(SpecError) as err:
        GaitTerm(**args)
    assert str(err.value) == message


def test_term_normalizes_numpy_numbers():
    t = GaitTerm(np.int64(3), np.float32(0.5), 1, np.float64(2.0))
    assert type(t.mode) is int and type(t.amplitude) is float and type(t.phase) is float
    assert t == GaitTerm(3, 0.5, 1.0, 2.0)


@pytest.mark.parametrize("kwargs, message", [
    (dict(name=""), "name: must be a non-empty string, got ''"),
    (dict(creature=None), "creature: must be a non-empty string, got None"),
    (dict(terms=()), "terms: a recipe needs at least one term"),
    (dict(terms=(GaitTerm(1, 0.1, 0.0, 2.0), "mode 3")), "terms[1]: must be a GaitTerm, got 'mode 3'"),
    (dict(constraints="lock:head"), "constraints: must be a list of constraint strings, got 'lock:head'"),
    (dict(constraints=("lock:head", 3)), "constraints[1]: must be a non-empty string, got 3"),
    (dict(stiffness_scale=0.0), "stiffness_scale: must be positive, got 0.0"),
    (dict(speed=float("nan")), "speed: must be a finite number, got nan"),
    (dict(rest_pose=""), "rest_pose: must be a non-empty string, got ''"),
])
def test_recipe_validation(kwargs, message):
    with pytest.raises(SpecError) as err:
        recipe(**kwargs)
    assert str(err.value) == message


def test_recipe_converts_lists_and_summarizes():
    r = recipe(terms=[GaitTerm(7, 0.1, 0.0, 2.0), GaitTerm(2, 0.1, 0.0, 4.0)], constraints=["lock:head"])
    assert isinstance(r.terms, tuple) and r.constraints == ("lock:head",)
    assert r.modes == (2, 7) and r.max_frequency == 4.0
    assert hash(r) == hash(recipe(terms=(GaitTerm(7, 0.1, 0.0, 2.0), GaitTerm(2, 0.1, 0.0, 4.0)),
                                  constraints=("lock:head",)))


# ------------------------------------------------------------ against a basis
def test_check_basis_mode_out_of_range(dog, basis8):
    r = recipe(terms=(GaitTerm(3, 0.1, 0.0, 2.0), GaitTerm(12, 0.1, 0.0, 2.0)))
    with pytest.raises(GaitforgeError) as err:
        check_basis(r, basis8, dog)
    assert str(err.value) == "recipe 'trot' names mode 12 but only 8 elastic modes were computed"
    one = compute_modes(dog, count=1)
    with pytest.raises(GaitforgeError) as err:
        check_basis(recipe(terms=(GaitTerm(1, 0.1, 0.0, 2.0),)), one)
    assert str(err.value) == "recipe 'trot' names mode 1 but only 1 elastic mode was computed"
    check_basis(recipe(terms=(GaitTerm(7, 0.1, 0.0, 2.0),)), basis8, dog)  # the last mode is fine


def test_check_basis_analysis_mismatch(dog, basis8):
    with pytest.raises(GaitforgeError) as err:
        check_basis(recipe(stiffness_scale=2.0), basis8, dog)
    assert str(err.value) == ("recipe 'trot' needs modes computed with stiffness_scale 2, "
                              "the basis has 1")
    with pytest.raises(GaitforgeError) as err:
        check_basis(recipe(constraints=("lock:head",)), basis8, dog)
    assert str(err.value) == ("recipe 'trot' needs modes computed with constraints (lock:head), "
                              "the basis has (none)")
    worm = Character.from_spec(registry.build("worm"))
    with pytest.raises(GaitforgeError) as err:
        check_basis(recipe(), basis8, worm)
    assert str(err.value) == "the modal basis is of 'dog' (nv = 80) but the character is 'worm' (nv = 21)"


def test_modes_for_follows_the_recipe(dog):
    r = recipe(constraints=("lock:head",), stiffness_scale=2.0)
    b = modes_for(dog, r)
    assert b.count == 8 and b.stiffness_scale == 2.0
    assert [c.name for c in b.constraints] == ["lock:head"]
    check_basis(r, b, dog)
    # Stiffer springs: every frequency scales by √2 (no gravity, no constraint stiffness).
    free = compute_modes(dog, count=8, constraints=("lock:head",))
    np.testing.assert_allclose(b.frequencies, np.sqrt(2.0) * free.frequencies, rtol=1e-9)


# ---------------------------------------------------------------------- files
def awkward_recipe():
    return GaitRecipe("dog trot", "dog", (GaitTerm(4, 0.1234567890123457, math.pi / 2, 2.0),
                                          GaitTerm(14, 1e-17, -0.3, 4.0, offset=0.1 + 0.2)),
                      constraints=("lock:head", "pin:foot/left/front"), rest_pose="human_run",
                      stiffness_scale=1.5, speed=0.5, description="diagonal pairs: together\nsecond line")


@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_text_round_trip_is_exact(fmt):
    r = awkward_recipe()
    text = dump_recipe(r, fmt)
    back = parse_recipe_text(text, "x", fmt)
    assert back == r
    assert back.terms[1].offset == 0.1 + 0.2  # bit-exact floats, not 0.3
    assert dump_recipe(back, fmt) == text
    assert recipe_from_dict(recipe_to_dict(r)) == r


def test_yaml_layout_is_readable():
    text = dump_recipe(GaitRecipe("trot", "dog", (GaitTerm(4, 0.08, 0.0, 2.0),)))
    assert text == ("name: trot\ncreature: dog\ndescription: ''\nconstraints: []\nrest_pose: null\n"
                    "stiffness_scale: 1.0\nspeed: null\nflight: true\nholding: paired\nterms:\n"
                    "- {mode: 4, amplitude: 0.08, phase: 0.0, frequency: 2.0, offset: 0.0}\n")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_save_load_files(tmp_path, suffix):
    path = tmp_path / f"trot{suffix}"
    r = awkward_recipe()
    save_recipe(r, path)
    assert load_recipe(path) == r
    first = path.read_text()
    save_recipe(load_recipe(path), path)  # overwrite in place
    assert path.read_text() == first
    assert sorted(os.listdir(tmp_path)) == [f"trot{suffix}"]  # no temporary files left behind


def test_exponents_without_a_dot_are_numbers():
    r = parse_recipe_text("name: t\ncreature: dog\nterms:\n- {mode: 1, amplitude: 1e-3, frequency: 2e0}\n", "t.yaml")
    assert (r.terms[0].amplitude, r.terms[0].frequency) == (0.001, 2.0)


def test_phase_in_degrees_by_hand():
    r = parse_recipe_text("name: t\ncreature: dog\nterms:\n- {mode: 2, amplitude: 0.1, frequency: 2, "
                          "phase_deg: 90}\n- {mode: 3, amplitude: 0.1, frequency: 2}\n", "t.yaml")
    assert r.terms[0].phase == math.pi / 2 and r.terms[1].phase == 0.0 and r.terms[1].offset == 0.0


@pytest.mark.parametrize("text, message", [
    ("name: t\ncreature: dog\nterms: []\ncolour: red\n",
     "t.yaml: colour: unknown key 'colour' (valid keys: name, creature, description, constraints, rest_pose, "
     "stiffness_scale, speed, flight, holding, arm_swing, still_arms, posture, terms, impulses, initial)"),
    ("name: t\ncreature: dog\n", "t.yaml: missing required key 'terms'"),
    ("name: t\ncreature: dog\nterms: []\n", "t.yaml: terms: a recipe needs at least one term"),
    ("name: t\ncreature: dog\nterms:\n- {mode: 1, amplitude: big, frequency: 2}\n",
     "t.yaml: terms[0].amplitude: must be a finite number, got 'big'"),
    ("name: t\ncreature: dog\nterms:\n- {mode: 1, amplitude: 0.1, frequency: 2}\n- {mode: 1.5, amplitude: 0.1, "
     "frequency: 2}\n", "t.yaml: terms[1].mode: must be an integer, got 1.5"),
    ("name: t\ncreature: dog\nterms:\n- {mode: -2, amplitude: 0.1, frequency: 2}\n",
     "t.yaml: terms[0].mode: must be a non-negative integer (an elastic mode index), got -2"),
    ("name: t\ncreature: dog\nterms:\n- {mode: 1, amplitude: 0.1, frequency: -2}\n",
     "t.yaml: terms[0].frequency: must not be negative, got -2.0"),
    ("name: t\ncreature: dog\nterms:\n- {mode: 1, amplitude: 0.1}\n",
     "t.yaml: terms[0]: missing required key 'frequency'"),
    ("name: t\ncreature: dog\nterms:\n- {mode: 1, amplitude: 0.1, frequency: 2, phase: 1, phase_deg: 90}\n",
     "t.yaml: terms[0]: give phase (radians) or phase_deg (degrees), not both"),
    ("name: t\ncreature: dog\nterms:\n- {mode: 1, amplitude: 0.1, frequency: 2, gain: 3}\n",
     "t.yaml: terms[0].gain: unknown key 'gain' (valid keys: mode, amplitude, phase, phase_deg, frequency, offset)"),
    ("name: t\ncreature: dog\nconstraints: lock:head\nterms:\n- {mode: 1, amplitude: 0.1, frequency: 2}\n",
     "t.yaml: constraints: must be a list of constraint strings, got 'lock:head'"),
    ("name: t\ncreature: dog\nspeed: fast\nterms:\n- {mode: 1, amplitude: 0.1, frequency: 2}\n",
     "t.yaml: speed: must be a finite number, got 'fast'"),
    ("- just\n- a list\n", "t.yaml: a recipe must be a mapping, got list ['just', 'a list']"),
    ("name: [unclosed\n", "t.yaml: line 2, column 1: malformed YAML: expected ',' or ']', but got '<stream end>'"),
])
def test_file_errors_are_one_line(text, message):
    with pytest.raises(SpecError) as err:
        parse_recipe_text(text, "t.yaml")
    assert str(err.value) == message
    assert "\n" not in str(err.value)


def test_missing_file_and_bad_json(tmp_path):
    with pytest.raises(GaitforgeError) as err:
        load_recipe(tmp_path / "nope.yaml")
    assert str(err.value) == f"{tmp_path / 'nope.yaml'}: no such file"
    bad = tmp_path / "bad.json"
    bad.write_text('{"name": "t",\n "terms": [1e-3,]}')
    with pytest.raises(SpecError) as err:
        load_recipe(bad)
    assert str(err.value) == f"{bad}: line 2, column 17: malformed JSON: Expecting value"

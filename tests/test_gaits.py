"""Gaits as data (``gaitforge.motion.gaits``) and the holding a recipe records.

What differs between gaits is a field of their :class:`GaitSpec`; the
holding strategy is a field of the recipe, so renaming a recipe or its file
never changes the motion."""
import dataclasses
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import SpecError
from gaitforge.io.recipe_files import dump_recipe, load_recipe, parse_recipe_text, save_recipe
from gaitforge.modal import compute_modes
from gaitforge.motion import heuristics, presets
from gaitforge.motion.gaits import (GAITS, KINDS, HoldingStrategy, Support, default_holding, gaits_of_kind,
                                   speed_gaits, speed_ranges, transitions, typical_froudes)
from gaitforge.motion.holds import HOLDINGS
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.motion.stride import FROUDE_RANGE, duty_target
from gaitforge.motion.synthesis import synthesize

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


# ---------------------------------------------------------------- the registry
@pytest.mark.parametrize("name", list(GAITS))
def test_every_spec_is_consistent(name):
    s = GAITS[name]
    assert s.name == name and s.footfalls
    for kind, phases in s.footfalls.items():
        assert sorted(phases, key=str) == sorted(KINDS[kind].feet, key=str)
        assert all(0.0 <= p < 1.0 for p in phases.values())
    assert s.flies == bool(s.bounces) == (s.support is Support.FLIGHT)
    assert not (s.flies and s.grounded)
    assert s.stride_frequency > 0 and all(0 < b < 1 for b in s.duty_factors) and s.harmonics >= 1
    if s.typical_froude is not None:
        assert FROUDE_RANGE[0] <= s.typical_froude <= FROUDE_RANGE[1]
        beta = duty_target(name, s.typical_froude)   # walks above half the stride, flying gaits below
        assert beta > 0.5 if s.support is Support.DOUBLE else (beta < 0.5 if s.flies else 0.4 <= beta <= 0.6)
    for creature, (lo, hi) in s.speed_ranges.items():
        assert creature in registry.names() and 0 < lo < hi
    assert set(s.ramp_from) <= set(s.footfalls) and s.holding in HOLDINGS and s.ramp_holding in HOLDINGS


def test_the_registry_gives_the_lists_the_library_shows():
    assert gaits_of_kind("biped") == ("walk", "run", "jump", "jumping_jacks")
    assert gaits_of_kind("quadruped") == ("walk", "trot", "pace", "amble", "bound", "gallop")
    assert speed_gaits() == ("walk", "amble", "trot", "pace", "run", "bound", "gallop")
    assert typical_froudes()["gallop"] == 3.0 and typical_froudes()["walk"] == 0.25
    assert transitions("quadruped") == ((0.5, "walk"), (2.5, "trot"), (math.inf, "gallop"))
    assert transitions("biped") == ((0.5, "walk"), (math.inf, "run"))
    assert speed_ranges("human") == {"walk": (0.96, 2.03), "run": (2.14, 4.0)}
    assert speed_ranges("worm") == {}
    assert [g for g, s in GAITS.items() if s.holding is HoldingStrategy.PAIRED] == ["trot", "pace", "bound", "run"]
    assert [g for g, s in GAITS.items() if s.holding is HoldingStrategy.LOOSE] == ["gallop"]


def test_a_spec_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        GAITS["trot"].stride_frequency = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        GAITS["trot"].footfalls["quadruped"][("front", "left")] = 0.1  # type: ignore[index]


def test_every_holding_strategy_has_one_step_with_the_same_call():
    assert set(HOLDINGS) == set(HoldingStrategy)
    import inspect
    params = {tuple(inspect.signature(h.hold).parameters) for h in HOLDINGS.values()}
    assert params == {("character", "basis", "g")}


# ------------------------------------------------------ the recipe's holding
def _recipe(name, **kw):
    return GaitRecipe(name, "dog", (GaitTerm(4, 0.08, 0.0, 2.0),), **kw)


def test_a_recipe_without_a_holding_takes_its_gaits_and_keeps_it_when_renamed():
    assert _recipe("trot").holding is HoldingStrategy.PAIRED
    assert _recipe("gallop").holding is HoldingStrategy.LOOSE
    assert _recipe("dog_trot").holding is HoldingStrategy.STANCE is default_holding("dog_trot")
    assert dataclasses.replace(_recipe("trot"), name="mine").holding is HoldingStrategy.PAIRED
    assert _recipe("trot", holding="stance").holding is HoldingStrategy.STANCE
    with pytest.raises(SpecError) as err:
        _recipe("trot", holding="tight")
    assert str(err.value) == "holding: must be one of stance, paired, loose, smoothed, got 'tight'"


def test_the_holding_round_trips_through_files_and_old_files_get_the_default(tmp_path):
    r = _recipe("mine", holding=HoldingStrategy.LOOSE)
    assert "\nholding: loose\n" in dump_recipe(r)
    assert parse_recipe_text(dump_recipe(r), "x.yaml") == r
    assert parse_recipe_text(dump_recipe(r, "json"), "x.json", "json") == r
    old = "name: {}\ncreature: dog\nterms:\n- {{mode: 4, amplitude: 0.08, frequency: 2.0}}\n"
    assert parse_recipe_text(old.format("trot"), "old.yaml").holding is HoldingStrategy.PAIRED
    assert parse_recipe_text(old.format("walkies"), "old.yaml").holding is HoldingStrategy.STANCE
    with pytest.raises(SpecError) as err:
        parse_recipe_text(old.format("trot") + "holding: 3\n", "bad.yaml")
    assert str(err.value) == "bad.yaml: holding: must be one of stance, paired, loose, smoothed, got 3"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_recipe_files_still_load(path):
    if "terms" not in path.read_text():
        pytest.skip("not a recipe file")
    r = load_recipe(path)
    assert r.holding is default_holding(r.name)


def test_presets_record_the_stance_holding():
    assert all(p.holding is HoldingStrategy.STANCE for p in presets.PRESETS)


@pytest.fixture(scope="module")
def trot():
    """The dog's suggested trot, its basis and its clip with the stance feet held."""
    c = Character.from_spec(registry.build("dog"))
    basis = compute_modes(c, count=heuristics.POOL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = heuristics.suggest(c, "trot", basis)
    return c, basis, r, synthesize(c, basis, r, 1.0, 60.0, pin_feet=True)


def test_renaming_a_recipe_or_its_file_no_longer_changes_the_motion(trot, tmp_path):
    c, basis, r, clip = trot
    assert r.name == "trot" and r.holding is HoldingStrategy.PAIRED
    path = tmp_path / "my_own_gait.yaml"
    save_recipe(dataclasses.replace(r, name="my own gait"), path)
    renamed = load_recipe(path)
    assert renamed.name == "my own gait" and renamed.holding is HoldingStrategy.PAIRED
    again = synthesize(c, basis, renamed, 1.0, 60.0, pin_feet=True)
    np.testing.assert_array_equal(again.qpos, clip.qpos)
    # the holding, not the name, is what changes it
    stance = synthesize(c, basis, dataclasses.replace(r, holding="stance"), 1.0, 60.0, pin_feet=True)
    assert np.abs(stance.qpos - clip.qpos).max() > 1e-3
    asked = synthesize(c, basis, dataclasses.replace(r, holding="stance"), 1.0, 60.0, pin_feet=True,
                       holding=HoldingStrategy.PAIRED)
    np.testing.assert_array_equal(asked.qpos, clip.qpos)


def test_an_unknown_holding_is_refused_by_name():
    from gaitforge.errors import UnknownNameError

    c = Character.from_spec(registry.build("dog"))
    basis = compute_modes(c, count=5)
    r = GaitRecipe("trot", "dog", (GaitTerm(0, 0.01, 0.0, 2.0),))
    with pytest.raises(UnknownNameError) as err:
        synthesize(c, basis, r, 0.5, 60.0, pin_feet=True, holding="tight")
    assert str(err.value) == "unknown holding 'tight' (valid holdings: stance, paired, loose, smoothed)"

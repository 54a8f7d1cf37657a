"""A recipe saved from a gait made at a speed replays the same clip: the
recipe records how its feet were held (a walk at a speed: the smoothed
holding), and a replay computes the modes the gait was made from."""
from __future__ import annotations

import numpy as np
import pytest

import gaitforge as gf
from gaitforge.io.recipe_files import load_recipe, save_recipe
from gaitforge.motion.gaits import HoldingStrategy


@pytest.mark.parametrize("creature, gait, holding", [("dog", "walk", HoldingStrategy.SMOOTHED),
                                                     ("dog", "trot", HoldingStrategy.PAIRED),
                                                     ("human", "walk", HoldingStrategy.SMOOTHED)])
def test_a_saved_recipe_replays_its_clip(tmp_path, creature, gait, holding):
    made = gf.animation(creature, gait, froude="typical", seconds=2.0)
    assert made.recipe.holding == holding
    path = tmp_path / "r.yaml"
    save_recipe(made.recipe, path)
    again = gf.animation(creature, None, recipe=str(path), seconds=2.0)
    assert load_recipe(path).holding == holding
    np.testing.assert_array_equal(again.clip.qpos, made.clip.qpos)

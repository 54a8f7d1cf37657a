"""The optimized modal bound of the dog (Nunes et al. 2012, surveyed in Kry
2012 §4.5) under its converged modal physics (0.25 ms steps, 5 ms contacts,
joint torques only; docs/modal_physics.md): replayed from its recipe file it
bounds forward in a clean limit cycle, within its joint limits, at the step
and at half of it.

examples/dog_bound_optimized.yaml was written in two runs from the bound the
heuristics suggest (the commands are in its header): the first (10 s
horizon) found a 6.40 m bound that rolls over after 13.5 s; the second (30 s
horizon) a slower one that holds (measured: 9.42 m in 30 s, 19.36 m in 60 s
at 0.25 ms and 19.34 m at 0.125 ms, cycle residual 0.002, joints at most
10.3 rad/s, contacts at most 3.3 mm deep).
"""
import math
import re
from pathlib import Path

import pytest

from gaitforge.control.modal import run_recipe
from gaitforge.control.modal.measures import summarize
from gaitforge.control.modal.physics import PHYSICS
from gaitforge.control.modal.presets import RAMP
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.io.recipe_files import load_recipe

RECIPE = Path(__file__).parents[1] / "examples" / "dog_bound_optimized.yaml"
MIN_HEIGHT, MAX_TILT = 0.2, math.radians(60)  # the fall check the optimizer used (rest: root 0.5 m, upright)
DT = PHYSICS["dog"].timestep


@pytest.fixture(scope="module")
def dog():
    return Character.from_spec(registry.build("dog")), load_recipe(RECIPE)


@pytest.fixture(scope="module")
def runs(dog):
    """30 s replays at the dog's modal step and at half of it."""
    character, recipe = dog
    return {dt: run_recipe(character, recipe, 30.0, ramp=RAMP, timestep=dt) for dt in (DT, DT / 2)}


def _recorded(recipe) -> float:
    return float(re.search(r"\): ([0-9.]+) m,", recipe.description).group(1))  # travel along +x, the worse step


@pytest.mark.parametrize("half", [False, True])
def test_the_optimized_bound_runs_forward_upright_in_a_limit_cycle(dog, runs, half):
    character, recipe = dog
    r = runs[DT / 2 if half else DT]
    assert r.ok, r.divergence
    assert r.clip.duration == pytest.approx(30.0)
    assert r.displacement[0] >= 0.95 * _recorded(recipe)  # forward (+x), about 0.31 m/s
    assert abs(r.displacement[1]) < 0.05 * r.displacement[0]  # straight ahead
    q = r.clip.qpos
    up = 1.0 - 2.0 * (q[:, 4] ** 2 + q[:, 5] ** 2)  # cosine of the chest's tilt (upright at rest)
    assert q[:, 2].min() > MIN_HEIGHT and up.min() > math.cos(MAX_TILT)
    s = summarize(r, character.mass)
    assert s.cycle_residual <= 0.1  # measured 0.002: it repeats
    assert s.peak_joint_speed <= 40.0 and s.peak_torque <= 3.0 and s.over_speed == 0.0
    assert r.penetration <= min(0.02, 0.5 * r.contact_radius)


def test_the_recipe_replays_the_optimizers_own_rollout(dog, runs):
    """The worse of the two steps travels what the optimizer recorded, within
    1 % (the bound is a limit cycle: its figures survive a change of CPU or
    BLAS kernel), and the two steps agree within 1 %."""
    _, recipe = dog
    a, b = (runs[dt].displacement[0] for dt in (DT, DT / 2))
    assert min(a, b) == pytest.approx(_recorded(recipe), rel=0.01)
    assert a == pytest.approx(b, rel=0.01)
    assert len({t.frequency for t in recipe.terms}) == 2 and len(recipe.impulses) == 2  # stride, bounce, kicks


@pytest.mark.parametrize("seed", [1, 2])
def test_the_bound_survives_a_perturbed_start(dog, seed):
    """A random start velocity along the driven modes (σ = 0.05 modal units/s)
    changes little over 10 s, at either step (the worse counts)."""
    from gaitforge.optimize import Layout, ModalProblem

    _, recipe = dog
    p = ModalProblem("dog", layout=Layout.from_recipe(recipe), seconds=10.0, heading=0.0, start_noise=0.05,
                     upright=(MIN_HEIGHT, MAX_TILT), name=recipe.name)
    quiet = ModalProblem("dog", layout=Layout.from_recipe(recipe), seconds=10.0, heading=0.0,
                         upright=(MIN_HEIGHT, MAX_TILT), name=recipe.name)
    x = p.vector(recipe)
    s, s0 = p(x, seed), quiet(x, 0)
    assert not s.failed and not s0.failed, (s.diverged, s0.diverged)
    assert s.distance == pytest.approx(s0.distance, rel=0.1) and s.distance > 2.5


@pytest.mark.slow
@pytest.mark.parametrize("half", [False, True])
def test_the_bound_holds_for_60_s(dog, half):
    character, recipe = dog
    r = run_recipe(character, recipe, 60.0, ramp=RAMP, timestep=DT / 2 if half else DT, upright=(MIN_HEIGHT, MAX_TILT))
    assert r.ok, r.divergence
    assert r.displacement[0] == pytest.approx(19.35, rel=0.05)
    assert summarize(r, character.mass).cycle_residual <= 0.1

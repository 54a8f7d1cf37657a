"""Batch evaluation, the shooting problem, CMA-ES with the method of
multipliers (determinism, checkpoint/resume) and the worm landscape."""
import math

import numpy as np
import pytest

from gaitforge.control.modal.presets import hand_set
from gaitforge.errors import GaitforgeError
from gaitforge.io.checkpoints import PickleCheckpoint
from gaitforge.io.landscape_files import CSV_HEADER, landscape_csv, save_landscape_png
from gaitforge.optimize import FAILED, ModalProblem, Settings, landscape, optimize
from gaitforge.optimize.cmaes import objective_value, violation
from gaitforge.sim.batch import BatchEvaluator, candidate_seeds, check_workers, evaluate_batch


class Noisy:
    """A cheap picklable problem whose result depends on params and seed."""

    def __call__(self, x, seed):
        return float(np.sum(x) + np.random.default_rng(seed).standard_normal())


def test_seeds_depend_only_on_base_and_index():
    a = candidate_seeds(7, 0, 10)
    assert candidate_seeds(7, 4, 3) == a[4:7]
    assert len(set(a)) == 10 and candidate_seeds(8, 0, 10) != a


def test_batch_results_do_not_depend_on_worker_count():
    cands = [np.full(3, i, float) for i in range(9)]
    seeds = candidate_seeds(3, 0, 9)
    one = evaluate_batch(Noisy(), cands, seeds, workers=1)
    assert evaluate_batch(Noisy(), cands, seeds, workers=2) == one
    assert evaluate_batch(Noisy(), cands, seeds, workers=3) == one


def test_batch_errors():
    with pytest.raises(GaitforgeError) as e:
        check_workers(0)
    assert str(e.value) == "workers must be an integer from 1 to 1024, got 0"
    with pytest.raises(GaitforgeError) as e:
        evaluate_batch(Noisy(), [np.zeros(2)], [1, 2], workers=1)
    assert str(e.value) == "got 1 candidates but 2 seeds"


def test_modal_problem_identical_across_workers():
    p = ModalProblem("worm", seconds=0.6)
    x0 = p.vector(hand_set("worm"))
    cands = [x0, x0 * [1.2, 0.8, 1.0, 1.1], x0 * [0.5, 1.5, -1.0, 0.9]]
    seeds = candidate_seeds(1, 0, 3)
    assert evaluate_batch(p, cands, seeds, workers=2) == evaluate_batch(p, cands, seeds, workers=1)


def test_problem_round_trips_recipes_and_scores_failures():
    p = ModalProblem("worm")
    r = hand_set("worm")
    x = p.vector(r)
    np.testing.assert_allclose(x, [0.02, 0.02, math.pi / 2, 0.2])
    back = p.recipe(x)
    assert [(t.mode, t.amplitude, t.phase) for t in back.terms] == [(t.mode, t.amplitude, t.phase) for t in r.terms]
    assert back.terms[0].frequency == pytest.approx(5.0)
    bad = p(np.array([0.02, 0.02, 1.0, -0.2]), 0)
    assert bad.failed and bad.diverged == "invalid candidate: period must be positive, got -0.2"
    assert objective_value(bad, "distance") == FAILED and violation(bad, 1.0) == FAILED
    with pytest.raises(GaitforgeError) as e:
        p.recipe(np.zeros(3))
    assert str(e.value).startswith("parameter vector must hold 4 finite numbers, got ")


def test_heading_counts_travel_one_way():
    x0 = ModalProblem("loop").vector(hand_set("loop"))
    any_way = ModalProblem("loop", seconds=1.0)(x0, 0)
    backward = ModalProblem("loop", seconds=1.0, heading=0.0)(x0, 0)  # the loop rolls toward -x
    forward = ModalProblem("loop", seconds=1.0, heading=math.pi)(x0, 0)
    assert any_way.distance > 0.1 and forward.distance == pytest.approx(any_way.distance, rel=1e-6)
    assert backward.distance == pytest.approx(-any_way.distance, rel=1e-6)
    assert backward.cost_of_transport == math.inf and objective_value(backward, "distance") > 0
    with pytest.raises(GaitforgeError) as e:
        ModalProblem("loop", heading=float("nan"))
    assert str(e.value) == "heading must be a finite angle in radians or None, got nan"


def test_energy_that_the_controller_did_not_put_in_is_a_blow_up():
    # CMA-ES found this launch (74 J of kinetic energy out of 17 J of work) before
    # the energy-balance check existed: a numerical artefact, now a failed candidate.
    p = ModalProblem("worm", seconds=3.0)
    s = p(np.array([0.03899211, 0.03026319, 2.62315459, 0.33711086]), 0)
    assert s.failed and s.distance == 0.0
    assert s.diverged.startswith("diverged at t = 2.100 s (energy blow-up: mechanical energy rose ")
    assert objective_value(s, "distance") == FAILED


def test_settings_are_validated():
    with pytest.raises(GaitforgeError) as e:
        Settings(objective="height")
    assert str(e.value) == "unknown objective 'height' (choose from distance, speed, cost)"
    with pytest.raises(GaitforgeError) as e:
        Settings(budget=1)
    assert str(e.value) == "budget must be an integer from 2 to 10000000, got 1"
    with pytest.raises(GaitforgeError) as e:
        Settings(sigma0=float("inf"))
    assert str(e.value) == "sigma0 must be a positive finite number, got inf"


class _Kill(Exception):
    pass


def _small_run(tmp_path, name, *, kill_after=None, resume=False):
    p = ModalProblem("worm", seconds=0.8)
    settings = Settings(budget=16, popsize=4, outer=2, seed=5)
    ckpt = PickleCheckpoint(tmp_path / f"{name}.ckpt", resume=resume)

    def progress(n, total, f):
        if kill_after is not None and n >= kill_after:
            raise _Kill

    with BatchEvaluator(p, workers=1) as ev:
        return optimize(p, p.vector(hand_set("worm")), settings, ev, checkpoint=ckpt, progress=progress)


def test_optimizer_is_deterministic_and_a_killed_run_resumes_to_the_same_result(tmp_path):
    full = _small_run(tmp_path, "full")
    assert full.evaluations == 16 and len(full.history) == 4
    assert [h["outer"] for h in full.history] == [0, 0, 1, 1]
    assert _small_run(tmp_path, "again").x.tolist() == full.x.tolist()
    with pytest.raises(_Kill):
        _small_run(tmp_path, "killed", kill_after=12)  # dies after the third generation's checkpoint
    resumed = _small_run(tmp_path, "killed", resume=True)
    assert resumed.x.tolist() == full.x.tolist()
    assert resumed.score == full.score and resumed.history == full.history
    assert (resumed.lam, resumed.mu) == (full.lam, full.mu)


def test_resume_refuses_another_run(tmp_path):
    _small_run(tmp_path, "a")
    p = ModalProblem("worm", seconds=0.8)
    with BatchEvaluator(p, workers=1) as ev:
        with pytest.raises(GaitforgeError) as e:
            optimize(p, p.vector(hand_set("worm")), Settings(budget=16, popsize=4, outer=2, seed=6), ev,
                     checkpoint=PickleCheckpoint(tmp_path / "a.ckpt"))
    assert str(e.value) == ("the checkpoint belongs to a different optimization run (other creature, settings "
                            "or start); remove it or drop --resume")


def test_seed_zero_and_the_largest_seed_are_deterministic():
    # cma takes seed 0 for "from the clock" and refuses seeds past 2**32 - 1 (seed + j).
    p = ModalProblem("worm", seconds=0.8)
    x0 = p.vector(hand_set("worm"))
    with BatchEvaluator(p, workers=1) as ev:
        for seed in (0, 2 ** 32 - 1):
            settings = Settings(budget=8, popsize=4, outer=2, seed=seed)
            a = optimize(p, x0, settings, ev)
            b = optimize(p, x0, settings, ev)
            assert a.x.tolist() == b.x.tolist() and a.history == b.history


def test_landscape_marks_blow_ups_and_writes_files(tmp_path):
    p = ModalProblem("worm", seconds=1.0)
    ls = landscape(p, [0.02, 5.0], [0.0, math.pi / 2], 5.0, workers=1)
    assert ls.distance.shape == ls.blew_up.shape == (2, 2)
    assert not ls.blew_up[0].any() and ls.blew_up[1].all()
    assert np.all(ls.distance[1] == 0.0) and not ls.non_cyclic[1].any()
    assert ls.optimum()[0] == 0
    text = landscape_csv(ls).splitlines()
    assert text[0] == CSV_HEADER and len(text) == 5
    assert text[3].endswith(",inf,blew_up") and text[1].split(",")[:3] == ["0.02", "0.0", "0"]
    save_landscape_png(ls, tmp_path / "l.png")
    assert (tmp_path / "l.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_objectives():
    from gaitforge.optimize import Score

    s = Score(2.0, -2.0, 0.4, 10.0, 1.5, 0.5, None)
    assert objective_value(s, "distance") == -2.0
    assert objective_value(s, "speed") == -0.4
    assert objective_value(s, "cost") == 1.5
    assert violation(s, 1.0) == 0.0 and violation(s, 0.2) == pytest.approx(0.3)
    assert violation(s, math.inf) == 0.0
    stuck = Score(0.0, 0.0, 0.0, 1.0, math.inf, 0.1, None)
    assert objective_value(stuck, "cost") == FAILED


def test_optimized_worm_goes_farther_than_the_hand_set_gait():
    """examples/worm_optimized.yaml was written by
    ``gaitforge optimize worm --budget 160 --seed 3 --workers 2 -o examples/worm_optimized.yaml``."""
    from pathlib import Path

    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.measures import cycle_residual
    from gaitforge.io.recipe_files import load_recipe

    p = ModalProblem("worm")
    character, basis = p.setup()
    best = load_recipe(Path(__file__).parents[1] / "examples" / "worm_optimized.yaml")
    hand = run_recipe(character, hand_set("worm"), 5.0, basis=basis)
    opt = run_recipe(character, best, 5.0, basis=basis)
    assert hand.ok and opt.ok
    assert opt.displacement[0] < 0 and hand.displacement[0] < 0  # the same direction, head first
    assert opt.distance >= 1.3 * hand.distance
    assert f"{opt.distance:.4g} m" in best.description  # the replay is the optimizer's own rollout
    assert cycle_residual(opt, 1.0 / best.terms[0].frequency) <= 1.0  # meets the cyclic constraint

"""Batch evaluation, the shooting problem, CMA-ES with the method of
multipliers (determinism, checkpoint/resume by replay, larger budgets) and the
worm landscape."""
import hashlib
import json
import math
import shutil

import numpy as np
import pytest

from gaitforge.control.modal.presets import hand_set
from gaitforge.errors import GaitforgeError
from gaitforge.io.checkpoints import JsonCheckpoint
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


@pytest.mark.same_machine
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


@pytest.mark.same_machine
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
    one = {"seconds": 1.0, "halved": False}  # one step: the same rollout scored three ways
    any_way = ModalProblem("loop", **one)(x0, 0)
    backward = ModalProblem("loop", heading=0.0, **one)(x0, 0)  # the loop rolls toward -x
    forward = ModalProblem("loop", heading=math.pi, **one)(x0, 0)
    assert any_way.distance > 0.1 and forward.distance == pytest.approx(any_way.distance, rel=1e-6)
    assert backward.distance == pytest.approx(-any_way.distance, rel=1e-6)
    assert backward.cost_of_transport == math.inf and objective_value(backward, "distance") > 0
    with pytest.raises(GaitforgeError) as e:
        ModalProblem("loop", heading=float("nan"))
    assert str(e.value) == "heading must be a finite angle in radians or None, got nan"


def test_energy_that_the_controller_did_not_put_in_is_a_blow_up():
    """A controller that pushes the state (here: lifts the root by writing its
    velocity, as modal impulses once wrote velocities) without doing work
    through the drive gains energy from nowhere: the run stops as a blow-up."""
    from gaitforge.control.modal import simulate_modal

    class Cheat:
        state, control_dt = "cheat", 0.002

        def reset(self, model, data):
            pass

        def compute(self, model, data):
            data.qvel[2] += 0.03  # lifts the root: 15 m/s², more than gravity

    worm = ModalProblem("worm").setup()[0]
    r = simulate_modal(worm, Cheat(), 3.0)
    assert not r.ok and r.divergence.reason.startswith("energy blow-up: mechanical energy rose ")
    assert r.divergence.reason.endswith("more than the 0 J put in")


def test_two_steps_the_worse_counts():
    """A candidate runs at dt and dt/2; its score is the worse: the shorter
    travel, the larger residual and cost."""
    from gaitforge.optimize.problem import worse

    x = ModalProblem("loop").vector(hand_set("loop"))
    both = ModalProblem("loop", seconds=1.0)
    assert both.timesteps == (0.0005, 0.00025)
    fine = ModalProblem("loop", seconds=1.0, timestep=0.00025, halved=False)(x, 0)
    coarse = ModalProblem("loop", seconds=1.0, halved=False)(x, 0)
    assert both(x, 0) == worse([coarse, fine])
    assert both(x, 0).distance == min(coarse.distance, fine.distance)
    assert worse([coarse, fine]).cycle_residual == max(coarse.cycle_residual, fine.cycle_residual)


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


class _KillAfter(JsonCheckpoint):
    """A fresh run's checkpoint that dies right after its ``saves``-th save
    (as if the process were killed between generations)."""

    def __init__(self, path, saves):
        super().__init__(path, resume=False)
        self.left = saves

    def save(self, identity, generations):
        super().save(identity, generations)
        self.left -= 1
        if self.left == 0:
            raise _Kill


class _Counting:
    """An evaluator that counts the simulations it runs."""

    def __init__(self, ev):
        self.ev, self.simulated = ev, 0

    def map(self, xs, seeds):
        self.simulated += len(xs)
        return self.ev.map(xs, seeds)


def _small_run(tmp_path, name, *, budget=16, seed=5, kill_after=None, resume=False, outer=2):
    """CMA-ES on the worm (4 parameters, 4 candidates a generation, 0.8 s
    simulations); returns (result, simulations run)."""
    p = ModalProblem("worm", seconds=0.8)
    settings = Settings(budget=budget, popsize=4, outer=outer, seed=seed)
    path = tmp_path / f"{name}.ckpt"
    ckpt = _KillAfter(path, kill_after) if kill_after else JsonCheckpoint(path, resume=resume)
    with BatchEvaluator(p, workers=1) as ev:
        counting = _Counting(ev)
        res = optimize(p, p.vector(hand_set("worm")), settings, counting, checkpoint=ckpt)
    return res, counting.simulated


def _same(a, b):
    assert a.x.tolist() == b.x.tolist() and a.f == b.f and a.score == b.score and a.feasible == b.feasible
    assert a.evaluations == b.evaluations and a.history == b.history and (a.lam, a.mu) == (b.lam, b.mu)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    """The uninterrupted run (budget 16) and the folder of its checkpoint ``full.ckpt``."""
    folder = tmp_path_factory.mktemp("full")
    return _small_run(folder, "full")[0], folder


@pytest.mark.same_machine
def test_optimizer_is_deterministic(full_run, tmp_path):
    full, _ = full_run
    assert full.evaluations == 16 and len(full.history) == 4
    assert [h["outer"] for h in full.history] == [0, 0, 1, 1]
    _same(_small_run(tmp_path, "again")[0], full)


@pytest.mark.same_machine
@pytest.mark.parametrize("killed_after", [1, 2, 3])  # generations; 2 ends the first outer iteration
def test_a_killed_run_resumes_to_the_same_result_without_simulating_again(full_run, tmp_path, killed_after):
    full, _ = full_run
    with pytest.raises(_Kill):
        _small_run(tmp_path, "killed", kill_after=killed_after)
    resumed, simulated = _small_run(tmp_path, "killed", resume=True)
    _same(resumed, full)
    assert simulated == 16 - 4 * killed_after  # the recorded generations are replayed, not simulated
    again, simulated = _small_run(tmp_path, "killed", resume=True)  # the finished run: nothing left to do
    _same(again, full)
    assert simulated == 0


@pytest.mark.same_machine
def test_resume_with_a_larger_budget_continues_the_last_outer_iteration(full_run, tmp_path):
    full, folder = full_run
    shutil.copy(folder / "full.ckpt", tmp_path / "more.ckpt")
    more, simulated = _small_run(tmp_path, "more", budget=24, resume=True)
    assert more.evaluations == 24 and simulated == 8
    assert more.history[:4] == full.history  # the first part is the smaller run
    assert [h["outer"] for h in more.history] == [0, 0, 1, 1, 1, 1]  # its last outer iteration reopened
    assert more.history[-1]["best_f"] <= full.history[-1]["best_f"]
    again, simulated = _small_run(tmp_path, "more", budget=24, resume=True)
    _same(again, more)
    assert simulated == 0
    # A budget below what the checkpoint spent replays it and returns its result.
    fewer, simulated = _small_run(tmp_path, "more", budget=8, resume=True)
    _same(fewer, more)
    assert simulated == 0


@pytest.mark.same_machine
def test_a_killed_run_resumed_with_a_larger_budget_splits_what_remains(tmp_path):
    with pytest.raises(_Kill):
        _small_run(tmp_path, "k", budget=16, outer=3, kill_after=1)
    res, simulated = _small_run(tmp_path, "k", budget=24, outer=3, resume=True)
    # Outer iteration 0 goes on to (24 - 0) // 3 = 8, then 1 and 2 get (24 - 8) // 2 = 8 and 8.
    assert res.evaluations == 24 and simulated == 20
    assert [h["outer"] for h in res.history] == [0, 0, 1, 1, 2, 2]
    _same(res, _small_run(tmp_path, "k24", budget=24, outer=3)[0])


@pytest.mark.same_machine
def test_seed_zero_and_the_largest_seed_are_deterministic(tmp_path):
    # cma takes seed 0 for "from the clock" and refuses seeds past 2**32 - 1 (seed + j).
    p = ModalProblem("worm", seconds=0.8)
    x0 = p.vector(hand_set("worm"))
    with BatchEvaluator(p, workers=1) as ev:
        for seed in (0, 2 ** 32 - 1):
            settings = Settings(budget=8, popsize=4, outer=2, seed=seed)
            a = optimize(p, x0, settings, ev)
            b = optimize(p, x0, settings, ev)
            assert a.x.tolist() == b.x.tolist() and a.history == b.history


def _refusal(tmp_path, problem, settings):
    with pytest.raises(GaitforgeError) as e:
        optimize(problem, problem.vector(hand_set(problem.creature_name)), settings, None,
                 checkpoint=JsonCheckpoint(tmp_path / "full.ckpt"))
    return str(e.value)


@pytest.mark.same_machine
def test_resume_refuses_another_run(full_run):
    _, folder = full_run
    worm = ModalProblem("worm", seconds=0.8)
    path = folder / "full.ckpt"
    assert _refusal(folder, worm, Settings(budget=16, popsize=4, outer=2, seed=6)) == (
        f"{path}: the checkpoint belongs to another optimization run (settings.seed: 5 in the checkpoint, 6 here); "
        "remove it or drop --resume")
    assert _refusal(folder, ModalProblem("loop", seconds=0.8), Settings(budget=16, popsize=4, outer=2, seed=5)) == (
        f"{path}: the checkpoint belongs to another optimization run (creature: 'worm' in the checkpoint, 'loop' "
        "here); remove it or drop --resume")
    assert _refusal(folder, ModalProblem("worm", seconds=0.5), Settings(budget=16, popsize=4, outer=2, seed=5)) == (
        f"{path}: the checkpoint belongs to another optimization run (problem.seconds: 0.8 in the checkpoint, 0.5 "
        "here); remove it or drop --resume")
    assert _refusal(folder, worm, Settings(budget=16, popsize=4, outer=2, seed=5, cyclic_tol=math.inf)) == (
        f"{path}: the checkpoint belongs to another optimization run (settings.cyclic_tol: 0.2 in the checkpoint, "
        "'inf' here); remove it or drop --resume")


@pytest.mark.same_machine
def test_a_checkpoint_that_does_not_replay_is_refused(full_run, tmp_path):
    _, folder = full_run
    doc = json.loads((folder / "full.ckpt").read_text())
    z = doc["generations"][1]["z"]
    z[2][1] = float(np.nextafter(z[2][1], math.inf))  # one bit off
    doc["checksum"] = hashlib.sha256(json.dumps({k: v for k, v in doc.items() if k != "checksum"}, sort_keys=True,
                                                separators=(",", ":")).encode()).hexdigest()
    (tmp_path / "off.ckpt").write_text(json.dumps(doc))
    with pytest.raises(GaitforgeError) as e:
        _small_run(tmp_path, "off", resume=True)
    assert str(e.value) == (f"{tmp_path / 'off.ckpt'}: the checkpoint does not replay on this setup (generation 2 "
                            "asks other points than it records: another version of cma or numpy?); remove it or "
                            "drop --resume")


def test_landscape_marks_blow_ups_and_writes_files(tmp_path):
    p = ModalProblem("worm", seconds=1.0, strict_limits=False)
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


@pytest.mark.parametrize("halve", [False, pytest.param(True, marks=pytest.mark.half_step)])
def test_the_optimized_worm_keeps_to_its_limits_and_repeats_but_does_not_crawl(halve):
    """examples/worm_optimized.yaml (the command is in its header): the best
    gait CMA-ES found within the worm's limits (joint speed <= 40 rad/s,
    contacts <= 6 mm deep) that repeats (cycle residual <= 0.2), scored at
    0.25 and 0.125 ms. It barely moves (0.9 mm in 10 s): it does NOT beat
    the hand-set crawl, which under the same physics hops chaotically (its
    cycle residual ~1), turns its joints at up to ~100 rad/s and averages
    0.2-0.6 m in 20 s (docs/modal_physics.md)."""
    from pathlib import Path

    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.measures import summarize
    from gaitforge.control.modal.physics import PHYSICS
    from gaitforge.io.recipe_files import load_recipe

    character, basis = ModalProblem("worm").setup()
    best = load_recipe(Path(__file__).parents[1] / "examples" / "worm_optimized.yaml")
    r = run_recipe(character, best, 10.0, basis=basis, timestep=PHYSICS["worm"].timestep / (2 if halve else 1))
    s = summarize(r, character.mass)
    assert r.ok, r.divergence
    recorded = float(best.description.split("): ")[1].split(" m,")[0])
    assert recorded < 0.002 and r.distance < 0.005  # metres in 10 s: it does not crawl
    assert abs(-r.displacement[0] - recorded) < 0.002  # the optimizer's own figure (heading 180°: toward -x)
    assert s.cycle_residual <= 0.2 and s.peak_joint_speed <= 40.0 and r.penetration <= 0.006


@pytest.mark.slow
@pytest.mark.parametrize("halve", [False, pytest.param(True, marks=pytest.mark.half_step)])
def test_the_optimized_worm_replays_60_s(halve):
    from pathlib import Path

    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.physics import PHYSICS
    from gaitforge.io.recipe_files import load_recipe

    character, basis = ModalProblem("worm").setup()
    best = load_recipe(Path(__file__).parents[1] / "examples" / "worm_optimized.yaml")
    r = run_recipe(character, best, 60.0, basis=basis, timestep=PHYSICS["worm"].timestep / (2 if halve else 1))
    assert r.ok, r.divergence
    assert r.clip.duration == pytest.approx(60.0) and r.penetration <= 0.006


def test_the_population_never_overrides_the_budget(tmp_path):
    p = ModalProblem("worm", seconds=0.3)
    x0 = p.vector(hand_set("worm"))
    with BatchEvaluator(p, workers=1) as ev:
        counting = _Counting(ev)
        with pytest.raises(GaitforgeError) as err:
            optimize(p, x0, Settings(budget=4, popsize=10000), counting)
        assert str(err.value) == ("budget 4 is smaller than one CMA-ES generation of 10000 simulations (popsize); "
                                  "raise the budget or lower the popsize")
        assert counting.simulated == 0
        # 10 simulations in generations of 4: two fit, a third would overrun the budget.
        res = optimize(p, x0, Settings(budget=10, popsize=4, outer=1), counting)
    assert res.evaluations == counting.simulated == 8


def test_an_optimization_in_which_every_candidate_fell_writes_nothing(tmp_path, capsys):
    from gaitforge.cli.main import main

    out = tmp_path / "best.yaml"
    # No worm stands 5 m tall: every candidate falls at once.
    code = main(["optimize", "worm", "--budget", "8", "--popsize", "4", "--seconds", "0.5", "--workers", "1",
                 "--heading", "any", "--upright", "5,10", "--quiet", "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1
    assert err == ["gaitforge: error: every one of the 8 candidates failed: 8 fell (the longest stayed up 0.00 s); "
                   "no result"]
    assert list(tmp_path.iterdir()) == []


class Unstable:
    """A picklable problem whose every candidate makes MuJoCo warn (a NaN velocity)."""

    def __call__(self, x, seed):
        import mujoco

        m = mujoco.MjModel.from_xml_string('<mujoco><worldbody><body><freejoint/><geom size=".1"/></body>'
                                           '</worldbody></mujoco>')
        d = mujoco.MjData(m)
        d.qvel[0] = math.nan
        mujoco.mj_step(m, d)
        return float(seed)


def test_worker_processes_pass_mujocos_warnings_back_instead_of_printing_them(tmp_path, monkeypatch, capfd):
    from gaitforge.errors import MujocoWarning

    monkeypatch.chdir(tmp_path)
    with pytest.warns(MujocoWarning) as caught:
        out = evaluate_batch(Unstable(), [np.zeros(1)] * 3, [1, 2, 3], workers=2)
    assert out == [1.0, 2.0, 3.0]
    texts = [str(w.message) for w in caught if w.category is MujocoWarning]
    assert texts == ["in a worker process: Nan, Inf or huge value in QVEL at DOF 0. The simulation is unstable. "
                     "Time = 0.0000."] * 3
    captured = capfd.readouterr()
    assert "Nan, Inf" not in captured.out + captured.err
    assert list(tmp_path.iterdir()) == []  # no MUJOCO_LOG.TXT


def test_a_script_without_a_main_guard_gets_one_clear_error(tmp_path):
    """Workers import the main script again; one that starts a batch at import
    time must end with the advice to guard it, not with a traceback per worker."""
    import subprocess
    import sys

    script = tmp_path / "unguarded.py"
    script.write_text("import numpy as np\nfrom gaitforge.sim.batch import evaluate_batch\n\n\n"
                      "class P:\n    def __call__(self, x, seed):\n        return 1.0\n\n\n"
                      "evaluate_batch(P(), [np.zeros(1)] * 2, [1, 2], workers=2)\n")
    import os
    from pathlib import Path

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))  # this checkout's gaitforge
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=env)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "gaitforge.errors.GaitforgeError: a worker process stopped before it returned a result (if this runs from a "
        "script, put the script's work under if __name__ == \"__main__\": — each worker imports the script again; "
        "else the machine may be out of memory); workers=1 runs without them")
    assert proc.stderr.count("Traceback") == 1 and "RuntimeError" not in proc.stderr

"""Contact-aware modal bases (Kry 2012 §3.5): stance modes keep the pinned
foot still, recipe modes are matched to them by the mass-metric overlap, the
controller switches on measured contact with continuous spring references,
and a contact-aware run holds 60 s."""
from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import mujoco
import numpy as np
import pytest

import gaitforge as gf
from gaitforge.control.modal.contact_bases import ContactAwareController, ContactBases, match_modes
from gaitforge.errors import GaitforgeError
from gaitforge.io.recipe_files import load_recipe
from gaitforge.motion.recipe import modes_for

ROOT = Path(__file__).resolve().parent.parent
BOUND = ROOT / "examples" / "dog_bound_optimized.yaml"


@pytest.fixture(scope="module")
def dog_bound():
    dog = gf.creature("dog")
    recipe = load_recipe(BOUND)
    return dog, recipe, modes_for(dog, recipe)


def test_matching_recovers_a_permuted_and_flipped_basis():
    rng = np.random.default_rng(3)
    nv, k = 9, 6
    A = rng.standard_normal((nv, nv))
    M = A @ A.T + nv * np.eye(nv)
    # an M-orthonormal basis (Cholesky whitening)
    L = np.linalg.cholesky(M)
    Q, _ = np.linalg.qr(rng.standard_normal((nv, nv)))
    V = np.linalg.solve(L.T, Q)[:, :k]
    air = V[:, [1, 4, 2]]
    order, signs = [5, 0, 3, 1, 4, 2], np.array([1, -1, 1, -1, -1, 1])
    stance = V[:, order] * signs
    rows = np.arange(3, nv)
    index, overlap, shapes = match_modes(air, stance, M, rows)
    assert index.tolist() == [order.index(1), order.index(4), order.index(2)]
    np.testing.assert_allclose(overlap, 1.0, atol=1e-12)
    np.testing.assert_allclose(shapes, air, atol=1e-12)  # turned back and at the same joint norm


def test_stance_shapes_keep_the_pinned_foot_still(dog_bound):
    dog, recipe, basis = dog_bound
    bases = ContactBases(dog, basis, recipe)
    foot = "front_left_paw"
    plan = bases.shapes((foot,)).plan
    air = bases.shapes(()).plan
    m = dog.model
    d = mujoco.MjData(m)
    bid = dog.body_id(foot)
    sole = m.site_pos[m.site_bodyid == bid].mean(axis=0)

    def sole_at(v, eps):
        d.qpos[:] = dog.rest_qpos
        mujoco.mj_integratePos(m, d.qpos, v, eps)
        mujoco.mj_kinematics(m, d)
        return d.xpos[bid] + d.xmat[bid].reshape(3, 3) @ sole

    for k, mode in enumerate(recipe.modes[:4]):
        v_stance = plan.full_U[:, k]
        v_air = air.full_U[:, k]
        eps = 1e-4
        moved = np.linalg.norm(sole_at(v_stance, eps) - sole_at(v_stance, 0.0)) / eps
        moved_air = np.linalg.norm(sole_at(v_air, eps) - sole_at(v_air, 0.0)) / eps
        assert moved < 1e-3 * max(moved_air, 1e-3), (mode, moved, moved_air)


def test_contact_state_reads_the_feet_on_the_ground(dog_bound):
    dog, recipe, basis = dog_bound
    bases = ContactBases(dog, basis, recipe)
    m = dog.model
    d = mujoco.MjData(m)
    d.qpos[:] = dog.rest_qpos
    d.qpos[2] -= 0.005  # the paws just into the ground
    mujoco.mj_forward(m, d)
    assert bases.state(m, d) == tuple(sorted(bases.feet))
    d.qpos[2] += 1.0
    mujoco.mj_forward(m, d)
    assert bases.state(m, d) == ()
    assert bases.max_pinned == 2  # a quadruped pins a stance pair at most


def test_a_foot_counts_down_through_its_toes():
    human = gf.creature("human")
    recipe = gf.animation(human, "walk", seconds=0.5).recipe
    bases = ContactBases(human, modes_for(human, recipe), recipe)
    toe = human.body_id("left_toe")
    assert bases.feet[bases.foot_of_body[toe]] == "left_foot"
    assert bases.max_pinned == 1


def test_bad_feet_are_refused(dog_bound):
    dog, recipe, basis = dog_bound
    with pytest.raises(GaitforgeError, match="unknown body .tail_paw. in dog"):
        ContactBases(dog, basis, recipe, feet=["tail_paw"])
    with pytest.raises(GaitforgeError, match="max_pinned must be from 0 to 4 feet, got 7"):
        ContactBases(dog, basis, recipe, max_pinned=7)


def test_references_stay_continuous_across_switches(dog_bound):
    """Between consecutive steps the spring references move by the drive's
    own rate plus at most a blend's share of the basis change; without the
    blend a switch jumps."""
    dog, recipe, basis = dog_bound
    jumps = {}
    for blend in (0.0, 0.04):
        bases = ContactBases(dog, basis, recipe)
        bases.precompute()
        ctl = ContactAwareController(bases, ramp=0.5, blend=blend)
        model = copy.copy(dog.model)  # the controller writes the springs' references into its model
        ctl.prepare_model(model)
        data = mujoco.MjData(model)
        data.qpos[:] = dog.rest_qpos
        ctl.reset(model, data)
        h = ctl.plan.hinge_index
        prev = model.qpos_spring[h].copy()
        worst = 0.0
        for _ in range(int(2.0 / ctl.control_dt)):
            ctl.compute(model, data)
            mujoco.mj_step(model, data)
            now = model.qpos_spring[h]
            worst = max(worst, float(np.abs(now - prev).max()))
            prev = now.copy()
        assert ctl.switches > 0
        jumps[blend] = worst
    assert jumps[0.04] < 0.25 * jumps[0.0], jumps


def test_a_contact_aware_bound_runs_60_s_within_the_physics_limits(dog_bound):
    """60 s of the shipped bound on contact-aware bases: no divergence, no
    contact deeper than half the paw's radius, the bases switched with the
    gait and their time adds up. (It is not a better gait: the recipe was
    optimized on the single basis, and on contact-aware bases it rolls over
    within a minute; docs/guides/modal-control.md has the table.)"""
    dog, recipe, basis = dog_bound
    from gaitforge.control.modal import run_recipe

    r = run_recipe(dog, recipe, 60.0, basis=basis, contact_bases=True)
    assert r.divergence is None, r.divergence
    assert r.bases is not None and r.bases.switches > 60
    assert abs(sum(r.bases.seconds.values()) - 60.0) < 0.01
    assert r.penetration < 0.0125  # half the 25 mm paw


def test_simulate_reports_the_bases():
    out = subprocess.run([sys.executable, "-m", "gaitforge.cli.main", "simulate", "dog", "--recipe", str(BOUND),
                          "--seconds", "1", "--contact-bases", "--quiet"], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "contact bases:" in out.stdout and "switches" in out.stdout


def test_the_optimizer_scores_candidates_on_contact_bases(dog_bound):
    """A contact-aware problem's candidate is the contact-aware replay of its
    recipe (two paths, one number); its stance bases are computed once per
    process; a checkpoint of a single-basis run does not match it."""
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.presets import RAMP
    from gaitforge.optimize import ModalProblem, Settings
    from gaitforge.optimize.cmaes import run_identity
    from gaitforge.optimize.layout import Layout

    dog, recipe, basis = dog_bound
    layout = Layout.from_recipe(recipe)
    problem = ModalProblem("dog", layout=layout, seconds=1.0, ramp=RAMP, halved=False, contact_bases=True)
    x0 = problem.vector(recipe)
    first = problem.rollout(x0)
    stance = dict(problem._stance_cache)
    assert len(stance) == 10  # four feet alone and six pairs
    again = problem.rollout(x0)
    assert all(problem._stance_cache[k] is v for k, v in stance.items())
    direct = run_recipe(dog, problem.recipe(x0), 1.0, ramp=RAMP, contact_bases=True, strict_limits=True)
    assert first.distance == again.distance == direct.distance
    assert first.bases is not None and first.bases.switches > 0
    single = ModalProblem("dog", layout=layout, seconds=1.0, ramp=RAMP, halved=False)
    settings = Settings()
    assert run_identity(problem, x0, settings) != run_identity(single, x0, settings)

"""Modal impulses and initial conditions (Nunes et al. 2012, surveyed in
Kry 2012 §4.5): recipe fields and files, the controller applying them, the
optimizer's parameter layout covering them, and the fall check."""
import copy
import dataclasses
import math

import mujoco
import numpy as np
import pytest

from gaitforge.cli.main import main
from test_cli_modalsim import replayed
from gaitforge.control.modal import modal_controller, run_recipe
from gaitforge.control.modal.falls import upright_check
from gaitforge.control.modal.presets import hand_set
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, SpecError
from gaitforge.io.recipe_files import dump_recipe, load_recipe, parse_recipe_text
from gaitforge.modal import compute_modes
from gaitforge.motion.recipe import GaitRecipe, GaitTerm, ModalImpulse, ModalStart
from gaitforge.optimize import FAILED, ModalProblem
from gaitforge.optimize.cmaes import objective_value
from gaitforge.optimize.layout import Layout


@pytest.fixture(scope="module")
def worm():
    ch = Character.from_spec(registry.build("worm"))
    return ch, compute_modes(ch, count=4)


def kicked(**kw):
    base = hand_set("worm")
    return GaitRecipe("kicked", "worm", base.terms, impulses=(ModalImpulse(2, 0.3, 0.25),),
                      initial=(ModalStart(0, 0.01, -0.2), ModalStart(3, velocity=0.1)), **kw)


# ------------------------------------------------------------------ recipe and files
@pytest.mark.parametrize("fmt", ["yaml", "json"])
def test_impulses_and_initial_conditions_round_trip(fmt):
    r = kicked()
    text = dump_recipe(r, fmt)
    back = parse_recipe_text(text, "x", fmt)
    assert back == r and dump_recipe(back, fmt) == text
    assert r.modes == (0, 1, 2, 3) and r.base_frequency == 5.0
    if fmt == "yaml":
        assert text.endswith("impulses:\n- {mode: 2, size: 0.3, at: 0.25}\ninitial:\n"
                             "- {mode: 0, offset: 0.01, velocity: -0.2}\n- {mode: 3, offset: 0.0, velocity: 0.1}\n")
    assert "impulses" not in dump_recipe(hand_set("worm"))  # written only when present


HEAD = "name: t\ncreature: worm\nterms:\n- {mode: 0, amplitude: 0.02, frequency: 5}\n"


@pytest.mark.parametrize("text, message", [
    (HEAD + "impulses:\n- {mode: 1, size: 0.1, at: 1.0}\n",
     "t.yaml: impulses[0].at: must be a fraction of the cycle in [0, 1), got 1.0"),
    (HEAD + "impulses:\n- {mode: 1, at: 0.5}\n", "t.yaml: impulses[0]: missing required key 'size'"),
    (HEAD + "impulses:\n- {mode: 1, size: 0.1, when: 0.5}\n",
     "t.yaml: impulses[0].when: unknown key 'when' (valid keys: mode, size, at)"),
    (HEAD + "impulses: {mode: 1}\n", "t.yaml: impulses: must be a list, got {'mode': 1}"),
    (HEAD + "initial:\n- {mode: -1, velocity: 0.1}\n",
     "t.yaml: initial[0].mode: must be a non-negative integer (an elastic mode index), got -1"),
    (HEAD + "initial:\n- {mode: 1, velocity: fast}\n",
     "t.yaml: initial[0].velocity: must be a finite number, got 'fast'"),
    (HEAD + "initial:\n- {mode: 1}\n- {mode: 1, offset: 0.1}\n",
     "t.yaml: initial: names a mode more than once: [1, 1]"),
    ("name: t\ncreature: worm\nterms:\n- {mode: 0, amplitude: 0.0, frequency: 0, offset: 0.1}\n"
     "impulses:\n- {mode: 1, size: 0.1}\n",
     "t.yaml: impulses: need a term with a positive frequency (the cycle they repeat in)"),
])
def test_file_errors_are_one_line(text, message):
    with pytest.raises(SpecError) as e:
        parse_recipe_text(text, "t.yaml")
    assert str(e.value) == message


# ------------------------------------------------------------------ controller
def test_initial_conditions_set_the_start_state(worm):
    ch, basis = worm
    r = kicked()
    ctl = modal_controller(ch, basis, r)
    m = copy.copy(ch.model)
    d = mujoco.MjData(m)
    d.qpos[:] = ch.rest_qpos
    ctl.reset(m, d)
    U = basis.shapes[:, [0, 3]]
    expected = ch.rest_qpos.copy()
    mujoco.mj_integratePos(m, expected, U @ [0.01, 0.0], 1.0)
    np.testing.assert_allclose(d.qpos, expected, atol=1e-15)
    np.testing.assert_allclose(d.qvel, U @ [-0.2, 0.1], atol=1e-15)


def test_impulses_fire_once_per_cycle_as_torque_pulses(worm):
    """Each impulse is the joint torque J / W for W = impulse_window, J = M u s
    with the root's rows zero, starting on the step it is due; nothing
    writes the velocities."""
    ch, basis = worm
    r = kicked()
    ctl = modal_controller(ch, basis, GaitRecipe("k", "worm", r.terms, impulses=r.impulses))
    m = copy.copy(ch.model)
    ctl.prepare_model(m)
    d = mujoco.MjData(m)
    d.qpos[:] = ch.rest_qpos
    ctl.reset(m, d)
    mujoco.mj_forward(m, d)
    dt = ctl.control_dt
    steps = round(ctl.physics.impulse_window / dt)
    u = basis.shapes[:, 2]
    pulsed, starts, work = [], [], []
    for _ in range(round(0.5 / dt)):  # 2.5 cycles of 0.2 s, impulses due at 0.05, 0.25, 0.45 s
        J = np.zeros(m.nv)
        mujoco.mj_mulM(m, d, J, 0.3 * u)  # M of this state (the step before's: as the controller sees it)
        before_v, before_w = d.qvel.copy(), ctl.work
        ctl.compute(m, d)
        assert np.array_equal(d.qvel, before_v) and not d.qfrc_applied[:6].any()
        if d.qfrc_applied.any():
            if not pulsed or pulsed[-1] != round(d.time - dt, 6):
                starts.append(round(d.time, 6))
                np.testing.assert_allclose(d.qfrc_applied[6:] * steps * dt, J[6:], rtol=1e-9, atol=1e-12)
            pulsed.append(round(d.time, 6))
            work.append(ctl.work - before_w)
        mujoco.mj_step(m, d)
    assert starts == [0.05, 0.25, 0.45] and len(pulsed) == 3 * steps
    assert min(work) > 0  # the drive's work counts the pulses' power


def test_impulses_fade_in_with_the_ramp(worm):
    ch, basis = worm
    r = GaitRecipe("k", "worm", hand_set("worm").terms, impulses=(ModalImpulse(1, 0.5, 0.0),))
    ctl = modal_controller(ch, basis, r, ramp=0.4)
    m = copy.copy(ch.model)
    ctl.prepare_model(m)
    d = mujoco.MjData(m)
    d.qpos[:] = ch.rest_qpos
    ctl.reset(m, d)
    mujoco.mj_forward(m, d)
    d.time = 0.2  # second cycle starts: half way through the fade-in, smoothstep 0.5
    ctl.compute(m, d)
    J = np.zeros(m.nv)
    mujoco.mj_mulM(m, d, J, 0.25 * basis.shapes[:, 1])
    np.testing.assert_allclose(d.qfrc_applied[6:] * ctl.physics.impulse_window, J[6:], rtol=1e-9, atol=1e-12)


def test_a_kicked_gait_runs_without_divergence(worm):
    ch, basis = worm
    r = dataclasses.replace(kicked(), initial=(ModalStart(0, 0.0, -0.2), ModalStart(3, velocity=0.1)))
    run = run_recipe(ch, r, 2.0, basis=basis)  # (an offset along mode 0 would bend the ends into the ground)
    assert run.ok, run.divergence
    assert run.work[-1] > run_recipe(ch, hand_set("worm"), 2.0, basis=basis).work[-1]


# ------------------------------------------------------------------ layout and problem
def test_layout_covers_harmonics_impulses_and_initial_conditions():
    base = GaitRecipe("b", "dog", (GaitTerm(0, 0.1, 1.0, 2.0), GaitTerm(2, 0.05, 0.4, 2.0),
                                   GaitTerm(2, 0.02, 3.0, 4.0, offset=0.01)),
                      impulses=(ModalImpulse(1, 0.2, 0.3),), initial=(ModalStart(0, 0.0, 0.5),))
    lay = Layout.from_recipe(base, impulses=(3,), initial=(2,))
    assert lay.terms == ((0, 1.0, 0.0), (2, 1.0, 0.0), (2, 2.0, 0.01)) and lay.phase0 == 1.0
    assert lay.impulses == (1, 3) and lay.initial == (0, 2) and lay.modes == (0, 2, 1, 3)
    x = lay.vector(base)
    assert lay.size == len(x) == 3 + 2 + 2 + 2 + 2 + 2 + 1
    np.testing.assert_allclose(x, [0.1, 0.05, 0.02, 0.4, 3.0, 0.3, 0.0, 0.2, 0.0, 0.0, 0.0, 0.5, 0.0, 0.5])
    back = lay.recipe(x, "b", "dog")
    assert back.terms == base.terms and back.impulses[0] == base.impulses[0] and back.initial[0] == base.initial[0]
    y = x.copy()
    y[5] = 1.25  # impulse times wrap into the cycle
    assert lay.recipe(y, "b", "dog").impulses[0].at == 0.25
    scale, lower, upper = lay.bounds(x)
    assert scale.shape == lower.shape == upper.shape == x.shape and np.all(lower < upper)
    with pytest.raises(GaitforgeError) as e:
        lay.vector(hand_set("worm"))
    assert str(e.value).startswith("recipe 'worm_crawl' must drive modes [0, 2, 2] at frequency ratios")


def test_one_frequency_layout_keeps_the_classic_vector():
    p = ModalProblem("worm")
    assert p.layout == Layout.from_recipe(hand_set("worm")) and p.modes == (0, 1) and p.size == 4


def test_a_fall_is_a_failed_candidate_graded_by_time_up():
    x = ModalProblem("worm").vector(hand_set("worm"))
    fell = ModalProblem("worm", seconds=1.0, upright=(0.5, math.pi))(x, 0)  # the worm's root is far below 0.5 m
    assert fell.failed and fell.diverged.startswith("fell at t = 0.000 s (root height ")
    assert fell.survived == 0.0 and objective_value(fell, "distance") == FAILED
    later = fell._replace(survived=0.5)
    assert 0.5 * FAILED < objective_value(later, "distance") < objective_value(fell, "distance")
    with pytest.raises(GaitforgeError) as e:
        ModalProblem("worm", upright=(0.1, 0.0))
    assert str(e.value) == "upright must be (min_height [m], max_tilt in (0, π] rad), got (0.1, 0.0)"


def test_upright_check_reports_tilt():
    dog = Character.from_spec(registry.build("dog"))
    check = upright_check(dog, 0.2, math.radians(30))
    d = dog.make_data()
    assert check(d) is None
    d.qpos[3:7] = [math.cos(0.35), 0.0, math.sin(0.35), 0.0]  # pitched 40°
    assert check(d) == "trunk tilted 40 deg, more than 30 deg"
    d.qpos[2] = 0.1
    assert check(d) == "root height 0.100 m below 0.2 m"


def test_optimize_covers_impulses_and_initial_conditions_then_replays(tmp_path, capsys):
    best = tmp_path / "best.yaml"
    assert main(["optimize", "worm", "--budget", "6", "--seconds", "0.5", "--workers", "1", "--impulses", "2",
                 "--initial", "0", "--popsize", "6", "--heading", "any", "--quiet", "-o", str(best)]) == 0
    r = load_recipe(best)
    assert [i.mode for i in r.impulses] == [2] and [s.mode for s in r.initial] == [0]
    assert r.impulses[0].size != 0.0 and r.initial[0].velocity != 0.0
    out = capsys.readouterr().out
    assert "CMA-ES" in out
    distance = float(r.description.split("): ")[1].split(" m,")[0])
    assert replayed(capsys, "worm", best, 0.5) == pytest.approx(distance, abs=6e-4)  # the worse of dt and dt/2

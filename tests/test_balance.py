"""Standing balance with modal displacements (Kry 2012 §4.6):
``control.modal.balance`` (modes chosen by their effect on the centre of
mass, the feedback), ``control.modal.standing`` (directed pushes, tilting
ground), ``gf.balance`` and ``gaitforge balance``."""
from __future__ import annotations

import json
import math

import mujoco
import numpy as np
import pytest

from gaitforge.cli.main import main
from gaitforge.control.modal.balance import (OFF, BalanceController, BalanceGains, balance_modes, choose_modes,
                                             com_effect, stance_constraints)
from gaitforge.control.modal.balance_report import BalanceReport, BalanceSettings
from gaitforge.control.modal.rollout import simulate_modal
from gaitforge.control.modal.standing import (DirectedPush, PushLimit, Standing, TiltingGround, TiltResult,
                                              standing_case)
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.sim.push import judge, push_body, reference_height, root_track


def creature(name: str) -> Character:
    return Character.from_spec(registry.build(name))


# ---------------------------------------------------------------- the modes
def test_stance_pins_every_foot_and_locks_the_soles():
    assert stance_constraints(creature("human")) == ["pin:left_foot", "lock:left_foot", "pin:right_foot",
                                                     "lock:right_foot"]
    assert stance_constraints(creature("dog")) == [f"pin:{e}_paw" for e in ("rear_left", "rear_right", "front_left",
                                                                            "front_right")]


@pytest.mark.parametrize("name", ["human", "dog", "gorilla"])
def test_the_com_effect_is_the_com_displacement_of_each_mode(name):
    """J_com uᵢ against a central finite difference of the CoM over the pose
    displaced along uᵢ (basis.displace: the true, nonlinear pose)."""
    c = creature(name)
    bm = balance_modes(c)
    eps = 1e-4
    for i in range(bm.basis.count):
        plus, minus = np.zeros(i + 1), np.zeros(i + 1)
        plus[i], minus[i] = eps, -eps
        fd = (c.com(bm.basis.displace(plus)) - c.com(bm.basis.displace(minus)))[:2] / (2 * eps)
        assert np.allclose(bm.effect[i], fd, atol=1e-6 + 1e-4 * np.abs(fd).max()), (i, bm.effect[i], fd)
    assert np.allclose(com_effect(c, bm.basis.shapes), bm.effect)


@pytest.mark.parametrize("name", ["human", "dog", "gorilla"])
def test_the_chosen_modes_move_the_com_most_both_ways(name):
    bm = balance_modes(creature(name))
    for axis in (0, 1):
        best = int(np.argmax(np.abs(bm.effect[:, axis])))
        assert best in bm.chosen
    # The pseudo-inverse makes any CoM shift: B B⁺ = I (2 × 2).
    assert np.allclose(bm.B @ bm.B_pinv, np.eye(2), atol=1e-9)
    # No chosen mode is weaker along both axes than a mode left out.
    left_out = [i for i in range(len(bm.effect)) if i not in bm.chosen]
    strongest_left = np.abs(bm.effect[left_out]).max(axis=0)
    assert all(np.any(np.abs(bm.effect[i]) >= strongest_left - 1e-12) for i in bm.chosen)


def test_choose_modes_takes_turns_between_the_axes():
    effect = np.array([[0.0, 0.9], [0.5, 0.0], [0.0, 0.1], [0.4, 0.0], [0.0, 0.8]])
    assert choose_modes(effect, 2) == (0, 1)
    assert choose_modes(effect, 4) == (0, 1, 3, 4)
    with pytest.raises(Exception, match="need 2 ≤ modes ≤ 5"):
        choose_modes(effect, 6)


# ---------------------------------------------------------------- the controller
class _Watch:
    """The controller, checked at every tick: it never writes the state and
    never forces the root (its drive's rows on the free joint stay 0)."""

    def __init__(self, inner):
        self.inner, self.worst = inner, 0.0

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def compute(self, model, data):
        q, v = data.qpos.copy(), data.qvel.copy()
        self.inner.compute(model, data)
        assert np.array_equal(q, data.qpos) and np.array_equal(v, data.qvel)
        self.worst = max(self.worst, float(np.abs(data.qfrc_applied[:6]).max()), float(np.abs(data.xfrc_applied).max()))


def test_feedback_holds_the_human_standing_for_60_s_by_joint_torques_only():
    c = creature("human")
    ctl = _Watch(BalanceController(c, balance_modes(c), BalanceGains()))
    r = simulate_modal(c, ctl, 60.0)
    assert r.divergence is None and ctl.worst == 0.0
    height, tilt = root_track(c, r.clip.qpos)
    late = r.times >= 5.0
    assert tilt[late].max() < 5.0 and height[late].min() > 0.95 * height[0]
    assert r.rollout.contact[late].all() and (r.rollout.other_contact[late] == 0).all()
    drift = np.abs(r.com[late, :2] - r.com[late][0, :2]).max()
    assert drift < 0.02  # m: it stands still, no creep


def _settled(name: str):
    """(model, data, controller, modes) of ``name`` standing under the
    feedback for 3 s from rest: the state the loop is linearized about."""
    from gaitforge.control.modal.linearize import settle

    c = creature(name)
    modes = balance_modes(c)
    ctl = BalanceController(c, modes, BalanceGains())
    m, d = settle(c, ctl, 3.0)
    return c, m, d, ctl, modes


@pytest.mark.filterwarnings("ignore:.*partly redundant")
@pytest.mark.parametrize("name", ["human", "dog", "gorilla"])
def test_the_linearized_closed_loop_is_stable_and_a_flipped_sign_is_not(name):
    """The feedback's sign and gain on the linearized loop (one feedback
    period's map, central differences through MuJoCo): with the feedback,
    every eigenvalue but the three of the scene's symmetries (sliding along
    the ground, turning about the vertical: |λ| = 1) lies inside the unit
    circle; the same gains with the sign flipped (B⁺ → −B⁺) put one well
    outside it, at the same state. The settled state is an equilibrium of
    the loop: a period moves it by under 1e-4 (tangent norm)."""
    import dataclasses

    from gaitforge.control.modal.linearize import period_jacobian, period_map, spectral_radius

    c, m, d, ctl, modes = _settled(name)
    steps = ctl._every
    assert np.linalg.norm(period_map(m, d, ctl, steps, np.zeros(2 * m.nv))) < 1e-4
    A = period_jacobian(m, d, ctl, steps)
    lam = np.abs(np.linalg.eigvals(A))
    assert np.sort(np.abs(lam - 1.0))[:3].max() < 1e-5  # the three neutral directions
    assert spectral_radius(A, neutral=3) < 1.0
    flipped = BalanceController(c, dataclasses.replace(modes, B_pinv=-modes.B_pinv), BalanceGains())
    flipped.reset(m, mujoco.MjData(m))
    flipped._last_support = ctl._last_support
    assert spectral_radius(period_jacobian(m, d, flipped, steps), neutral=3) > 1.05


def test_bad_gains_are_refused():
    c = creature("dog")
    with pytest.raises(Exception, match="gain kd must be a finite number ≥ 0"):
        BalanceController(c, balance_modes(c), BalanceGains(1.0, math.nan))


def _pushed(name: str, gains: str, force_of_weight: float, direction):
    """The verdict of ``name`` standing with ``gains``, pushed by the given
    fraction of its weight along ``direction`` (x, y) for 0.5 s at 3 s."""
    case = standing_case(name, gains)
    character, base = case.simulate(8.5)
    reference = reference_height(character, base, 3.5, 8.5)
    force = force_of_weight * character.mass * 9.81
    character, r = case.simulate(8.5, DirectedPush(push_body(character), force, direction, 3.0, 0.5))
    return judge(character, r, 3.5, 8.5, reference)


def test_feedback_survives_a_forward_push_the_human_does_not_survive_without():
    """Human, forward push of 15 % body weight (measured limits: 5 % without,
    25 % with, docs/guides/balance.md): a clear fall without, a clear
    recovery with."""
    without = _pushed("human", "none", 0.15, (1.0, 0.0))
    with_ = _pushed("human", "feedback", 0.15, (1.0, 0.0))
    assert not without.survived and without.peak_tilt > 60.0
    assert with_.survived and with_.peak_tilt < 20.0


def test_feedback_survives_a_lateral_push_the_dog_does_not_survive_without():
    without = _pushed("dog", "none", 0.15, (0.0, 1.0))
    with_ = _pushed("dog", "feedback", 0.15, (0.0, 1.0))
    assert not without.survived and without.peak_tilt > 60.0
    assert with_.survived and with_.peak_tilt < 20.0


def test_the_ground_tilts_and_the_creature_tilts_with_it():
    g = TiltingGround(1, math.radians(5.0), 8.0, 1.0)
    c, r = Standing("dog").run(seconds=3.0, gains="none", ground=g)
    _, tilt = root_track(c, r.clip.qpos)
    assert tilt[-1] > 3.0  # 5° · sin(π/2) at 3 s: the dog leans with the ground
    assert r.fall is None


# ---------------------------------------------------------------- the report, the API and the CLI
def _fake_report(creature_name: str = "dog") -> BalanceReport:
    pushes = {(d, g): PushLimit(d, g, f, f + 6.2, "" if math.isinf(f) else "root tilted 90.0°", 307.7, 5)
              for (d, g), f in {("lateral", "none"): 30.8, ("lateral", "feedback"): 61.5,
                                ("forward", "none"): 92.3, ("forward", "feedback"): 123.1}.items()}
    tilts = {(a, g): TiltResult(a, g, 5.0, True, 5.2, "") for a in ("roll", "pitch") for g in ("none", "feedback")}
    return BalanceReport(creature_name, pushes, tilts, BalanceSettings(), ((0, 1.45), (1, 1.54)))


def test_report_json_schema():
    d = _fake_report().as_dict()
    assert set(d) == {"creature", "weight_N", "push_with_feedback_N", "push_without_N", "ratio", "first_failing_N",
                      "tilt_deg", "tilt_with_feedback", "tilt_without", "modes", "protocol"}
    assert d["push_with_feedback_N"] == {"lateral": 61.5, "forward": 123.1}
    assert d["push_without_N"] == {"lateral": 30.8, "forward": 92.3}
    assert d["ratio"]["lateral"] == pytest.approx(61.5 / 30.8, abs=1e-3)
    assert d["tilt_with_feedback"] == {"roll": True, "pitch": True} and d["tilt_deg"] == 5.0
    json.dumps(d, allow_nan=False)


def test_cli_balance_prints_and_writes_json(tmp_path, capsys, monkeypatch):
    import gaitforge.api as api

    seen = {}

    def fake(name, **kwargs):
        seen.update(kwargs, name=name)
        return _fake_report(name)

    monkeypatch.setattr(api, "balance", fake)
    out = tmp_path / "dog.json"
    assert main(["balance", "dog", "--seconds", "4", "--quick", "--json", str(out), "--quiet"]) == 0
    assert seen["name"] == "dog" and seen["seconds"] == 4.0 and seen["quick"] is True
    assert json.loads(out.read_text()) == _fake_report().as_dict()
    printed = " ".join(capsys.readouterr().out.split())
    assert "61.5" in printed and "30.8" in printed and "2.00" in printed and "not met" in printed  # forward 1.33


@pytest.mark.parametrize("argv, message", [
    (["balance", "cat"], "unknown creature 'cat'"),
    (["balance", "dog", "--seconds", "0"], "--seconds: must be a number above 0"),
    (["balance", "dog", "--seconds", "-3"], "--seconds: must be a number above 0"),
    (["balance", "dog", "--seconds", "nan"], "--seconds"),
    (["balance", "dog", "--seconds", "soon"], "--seconds"),
    (["balance", "dog", "--json", "out.txt"], ".json"),
    (["balance", "dog", "--json", "/dev/null/out.json"], "/dev/null is not a folder"),
    (["balance", "worm", "--quiet"], "balance: worm has no feet"),
])
def test_cli_balance_rejects_bad_input_in_one_line(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert message in err and "Traceback" not in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())  # no partial output


def test_api_balance_rejects_bad_input():
    import gaitforge as gf
    from gaitforge.api import balance

    for kwargs, message in (({"seconds": -1.0}, "seconds: must be"), ({"seconds": math.nan}, "seconds: must be"),
                            ({"seconds": True}, "seconds: must be"), ({"timestep": 1.0}, "timestep"),
                            ({"progress": 3}, "progress: must be a callable")):
        with pytest.raises(gf.GaitforgeError, match=message):
            balance("dog", **kwargs)
    with pytest.raises(gf.GaitforgeError, match="unknown creature"):
        balance("cat")


def test_gains_off_is_no_feedback():
    assert not OFF.active and BalanceGains().active
    c = creature("dog")
    ctl = BalanceController(c, balance_modes(c), OFF)
    m = c.model
    d = mujoco.MjData(m)
    d.qpos[:] = c.rest_qpos
    d.qpos[1] += 0.05
    ctl.reset(m, d)
    mujoco.mj_forward(m, d)
    mujoco.mj_subtreeVel(m, d)
    assert not np.any(ctl.feedback(m, d))

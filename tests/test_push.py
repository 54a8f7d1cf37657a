"""The push-recovery protocol (Wang 2011 §3.5.3) on any runner: survival
judged by the thresholds in ``Survival`` (tilt, height, only feet on the
ground), the limit found by scanning a grid upward (no bisection: survival
is not monotonic in the force), results that do not depend on the worker
count, and the CLI's table, JSON and errors."""
from __future__ import annotations

import json
import math
from dataclasses import FrozenInstanceError

import mujoco
import numpy as np
import pytest

from gaitforge.cli.main import main
from gaitforge.control import registry
from gaitforge.sim.push import (SURVIVAL, Push, PushCase, PushTrial, Survival, Verdict, grid, judge, largest_push,
                                push_at, reference_height, root_track, scan, unpushed)

# A short real case: the gorilla's trot is the cheapest runner to simulate
# (a 7.5 s trial takes ~0.1 s); a coarse grid (10 % of body weight) keeps
# the scan to a few trials.
CASE = PushCase(registry.entry("gorilla", "trot"), 0.3, settle=4.0, after=3.0)


# ---------------------------------------------------------------- the scan
class FakeVerdict:
    def __init__(self, survived: bool, start: float):
        self.survived, self.start = survived, start


def fake_evaluator(survives, calls: list):
    """evaluate(pairs) from ``survives(force, start)``, logging each call's pairs."""
    def evaluate(pairs):
        calls.append(list(pairs))
        return [FakeVerdict(survives(f, s), s) for f, s in pairs]
    return evaluate


@pytest.mark.parametrize("chunk", [1, 2, 3, 10])
def test_scan_stops_at_the_first_failure_though_larger_forces_survive(chunk):
    # survives at 10, fails at 12 (one phase), survives at 14 and above: the limit is 10
    starts = (8.0, 8.25, 8.5, 8.75)
    calls: list = []
    seen = []
    out = scan(fake_evaluator(lambda f, s: not (f == 12.0 and s == 8.5), calls), [2.0 * k for k in range(1, 21)],
               starts, chunk=chunk, progress=lambda f, n: seen.append((f, n)))
    assert out.largest == 10.0 and out.failed == 12.0
    assert [v.survived for v in out.verdicts] == [True, True, False, True]
    assert out.trials == 6 * 4  # 2 … 12 N at four phases: the same whatever the chunk
    assert seen == [(2.0 * k, 4 * k) for k in range(1, 7)]
    assert all(len(c) == min(chunk, 20 - i * chunk) * 4 for i, c in enumerate(calls))  # chunk forces per batch


def test_scan_reports_zero_when_the_first_step_fails_and_the_ceiling_when_none_does():
    calls: list = []
    out = scan(fake_evaluator(lambda f, s: f != 2.0 or s != 0.0, calls), [2.0, 4.0], (0.0, 0.5))
    assert (out.largest, out.failed, out.trials) == (0.0, 2.0, 2)
    out = scan(fake_evaluator(lambda f, s: True, calls), [2.0, 4.0], (0.0, 0.5))
    assert (out.largest, out.failed, out.verdicts, out.trials) == (4.0, math.inf, (), 4)


def test_grid_is_two_percent_of_body_weight_to_the_ceiling_rounded_to_a_tenth_of_a_newton():
    forces = grid(1540.17)
    assert len(forces) == 50 and forces[0] == 30.8 and forces[12] == 400.4 and forces[-1] == 1540.2
    assert grid(100.0, 0.1, 0.35) == [10.0, 20.0, 30.0]


# ------------------------------------------------------------ the criteria
@pytest.fixture(scope="module")
def gorilla():
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character

    return Character.from_spec(registry.build("gorilla"))


def rollout_of(character, qpos, other=None, fall=None):
    """A rollout of ``qpos`` (T, nq) recorded at 100 fps, no foot contacts
    needed; ``other`` (T,) the non-foot body touching the ground (0: none)."""
    from gaitforge.motion.clip import MotionClip
    from gaitforge.sim.runner import Rollout

    n = len(qpos)
    other = np.zeros(n, np.int32) if other is None else other
    return Rollout(MotionClip(100.0, qpos, character.name), ("f",), np.zeros((n, 1), bool), np.zeros((n, 1, 3)),
                   ("x",) * n, fall, 0.0, other)


def tilted(character, degrees: float, n: int = 101) -> np.ndarray:
    """The rest pose, the root turned by ``degrees`` about world x in the
    middle of the record."""
    qpos = np.tile(character.rest_qpos, (n, 1))
    turn = np.array([math.cos(math.radians(degrees) / 2), math.sin(math.radians(degrees) / 2), 0.0, 0.0])
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, turn, qpos[n // 2, 3:7])
    qpos[n // 2, 3:7] = out
    return qpos


def test_survival_is_data_thirty_degrees_seventy_percent_feet_only():
    assert SURVIVAL == Survival(max_tilt=30.0, min_height=0.7, feet_only=True)
    with pytest.raises(FrozenInstanceError):
        SURVIVAL.max_tilt = 45.0  # type: ignore[misc]


def test_tilt_over_thirty_degrees_fails(gorilla):
    rest = tilted(gorilla, 0.0)
    reference = float(root_track(gorilla, rest)[0].min())
    ok = judge(gorilla, rollout_of(gorilla, tilted(gorilla, 29.0)), 0.0, 1.0, reference, start=0.5)
    bad = judge(gorilla, rollout_of(gorilla, tilted(gorilla, 31.0)), 0.0, 1.0, reference, start=0.5)
    assert ok.survived and ok.peak_tilt == pytest.approx(29.0, abs=1e-6) and ok.start == 0.5
    assert not bad.survived and bad.peak_tilt == pytest.approx(31.0, abs=1e-6)
    assert bad.foreign is None and bad.fall is None and bad.min_height == pytest.approx(reference)
    # only the window counts: the tilted frame (t = 0.5 s) is outside [0.6, 1.0]
    assert judge(gorilla, rollout_of(gorilla, tilted(gorilla, 31.0)), 0.6, 1.0, reference).survived
    # a looser definition lets it pass
    assert judge(gorilla, rollout_of(gorilla, tilted(gorilla, 31.0)), 0.0, 1.0, reference, Survival(max_tilt=35.0)
                 ).survived


def test_anything_but_the_feet_on_the_ground_fails(gorilla):
    qpos = tilted(gorilla, 0.0)
    reference = float(root_track(gorilla, qpos)[0].min())
    hand = mujoco.mj_name2id(gorilla.model, mujoco.mjtObj.mjOBJ_BODY, "hand_left")
    other = np.zeros(len(qpos), np.int32)
    other[70] = hand
    v = judge(gorilla, rollout_of(gorilla, qpos, other), 0.0, 1.0, reference)
    assert not v.survived and v.foreign == "hand_left" and v.peak_tilt < 1e-6
    assert judge(gorilla, rollout_of(gorilla, qpos, other), 0.0, 1.0, reference, Survival(feet_only=False)).survived


def test_root_below_seventy_percent_of_the_unpushed_runs_lowest_fails(gorilla):
    qpos = tilted(gorilla, 0.0)
    z = qpos[0, 2]
    unpushed = qpos.copy()
    unpushed[:, 2] = z + 0.05 * np.sin(np.linspace(0.0, 6.0, len(qpos)))  # a walk's bob: lowest z - 0.05
    reference = reference_height(gorilla, rollout_of(gorilla, unpushed), 0.0, 1.0)
    assert reference == pytest.approx(root_track(gorilla, unpushed)[0].min()) and reference < z - 0.049
    low = qpos.copy()
    low[60, 2] -= z - 0.69 * reference  # down to 69 % of the reference
    v = judge(gorilla, rollout_of(gorilla, low), 0.0, 1.0, reference)
    assert not v.survived and v.min_height == pytest.approx(0.69 * reference)
    low[60, 2] = 0.71 * reference
    assert judge(gorilla, rollout_of(gorilla, low), 0.0, 1.0, reference).survived


def test_a_fall_reported_by_the_runner_fails(gorilla):
    from gaitforge.sim.events import RunEvent

    qpos = tilted(gorilla, 0.0)
    reference = float(root_track(gorilla, qpos)[0].min())
    v = judge(gorilla, rollout_of(gorilla, qpos, fall=RunEvent(0.9, "front leg frame tilted 61°", "trot:SWWS")),
              0.0, 1.0, reference)
    assert not v.survived and v.fall == "fell at t = 0.900 s (front leg frame tilted 61°) in state trot:SWWS"


def test_the_runner_records_contacts_of_bodies_that_are_no_feet():
    character, rollout = CASE.simulate(10.0, Push(1, 4000.0, 4.0, 0.5))  # thrown over: the trunk lands
    assert rollout.other_contact is not None and rollout.other_contact.shape == (len(rollout.times),)
    assert not rollout.other_contact[rollout.times < 4.0].any()
    _, calm = CASE.simulate(6.0)
    assert calm.other_contact is not None and not calm.other_contact.any()


def test_the_runner_reports_a_run_mujoco_reset_as_diverged(gorilla):
    """MuJoCo resets the data when accelerations blow up (time back to 0, the
    rest pose again): that is a divergence, not a run that goes on."""
    from gaitforge.sim.runner import run

    class Blow:
        control_dt, state = 0.01, "blow"

        def reset(self, m, d):
            pass

        def compute(self, m, d):
            d.qfrc_applied[:] = 1e12 if d.time >= 0.5 else 0.0

    rollout = run(gorilla, Blow(), 2.0, fall_check=None)
    assert rollout.fall is not None and rollout.fall.reason == "MuJoCo reset it" and rollout.fall.kind == "diverged"
    assert rollout.fall.time == pytest.approx(0.5) and rollout.times[-1] <= 0.5 + 1e-9


# -------------------------------------------------------- a short real scan
@pytest.fixture(scope="module")
def result():
    return largest_push(CASE, phases=2, step=0.1, workers=1)


def test_push_scan_reports_the_first_failing_force_one_step_above(result):
    assert len(result.starts) == 2 and result.starts[1] - result.starts[0] == pytest.approx(result.stride / 2)
    assert math.isinf(result.failed) or result.failed == pytest.approx(result.largest + 0.1 * result.weight, abs=0.1)
    assert result.trials == 1 + 2 * round(result.failed / (0.1 * result.weight))
    assert len(result.verdicts) == 2 and result.failing_starts
    assert result.reference == pytest.approx(0.70, abs=0.03)  # the pelvis' lowest, trotting
    # every trial replays: the verdicts at the failing force come back the same
    character, _ = CASE.simulate(1.0)
    trial = PushTrial(CASE, 1, result.reference)
    assert tuple(trial([result.failed, s], 0) for s in result.starts) == result.verdicts


@pytest.mark.same_machine
def test_push_scan_does_not_depend_on_the_worker_count(result):
    again = largest_push(CASE, phases=2, step=0.1, workers=2)
    assert (again.largest, again.failed, again.trials, again.verdicts) == \
        (result.largest, result.failed, result.trials, result.verdicts)


def test_push_at_one_force_judges_every_phase(result):
    one = push_at(CASE, result.failed, phases=2, workers=1)
    assert not one.survived and one.verdicts == result.verdicts
    d = one.as_dict()
    assert d["force"] == result.failed and d["survived"] is False and len(d["phases"]) == 2
    assert d["criteria"]["max_tilt_deg"] == 30.0
    assert d["criteria"]["min_height_m"] == pytest.approx(0.7 * result.reference, abs=1e-4)


def test_push_acts_only_during_its_window():
    class Data:
        xfrc_applied = np.zeros((3, 6))

    push, d = Push(1, 50.0, 2.0, 0.5), Data()
    push(1.99, d)
    assert d.xfrc_applied[1, 1] == 0.0
    push(2.0, d)
    assert d.xfrc_applied[1, 1] == 50.0 and not d.xfrc_applied[1, [0, 2, 3, 4, 5]].any()
    push(2.5, d)
    assert d.xfrc_applied[1, 1] == 0.0


# ------------------------------------------------------------- thesis gains
def test_thesis_gains_are_the_gorillas_servos_at_kp_scale_one():
    from dataclasses import replace

    from gaitforge.control.skills import catalog
    from gaitforge.sim.controller import run_settings

    ours = catalog.PARAMS["gorilla"]
    assert catalog.params("gorilla", "thesis") == replace(ours, kp_scale=1.0)
    former = {"timestep": 0.01, "integrator": "discrete", "contact_timeconst": 0.0}  # the creature's 20 ms contacts
    assert catalog.params("gorilla", "thesis-10ms") == replace(ours, kp_scale=1.0, **former)
    assert catalog.params("gorilla", "ours-10ms") == replace(ours, **former)
    assert ours.kp_scale == 3.0 and ours.timestep == 0.001 and ours.integrator == "implicitfast"
    gain_sets = {k: registry.entry(k).gain_sets for k in ("gorilla", "dog", "raibert_quadruped")}
    assert gain_sets == {"gorilla": ("ours", "thesis", "ours-10ms", "thesis-10ms"),
                         "dog": ("ours", "contacts-4ms"), "raibert_quadruped": ("ours",)}
    assert catalog.params("dog", "contacts-4ms").contact_timeconst == 0.004
    character, _ = catalog.simulate("gorilla", "stand", 0.0, 0.02)
    stiff = {g: run_settings(catalog.RUNNERS["gorilla"].make(character, "stand", 0.0, gains=g),
                             character.model).model.jnt_stiffness for g in ("ours", "thesis")}
    assert np.allclose(stiff["ours"], 3.0 * stiff["thesis"]) and stiff["thesis"].max() > 0


# ---------------------------------------------------------------- the CLI
def test_cli_push_prints_and_writes_json(tmp_path, capsys):
    out = tmp_path / "push.json"
    code = main(["push", "gorilla", "--gait", "trot", "--speeds", "0.3", "--phases", "1", "--workers", "1",
                 "--json", str(out), "--quiet"])
    assert code == 0
    table = json.loads(out.read_text())
    assert list(table) == ["trot"] and list(table["trot"]) == ["0.3"] and table["trot"]["0.3"] > 0
    printed = " ".join(capsys.readouterr().out.split())  # the table wraps at the console's width
    assert "largest lateral push survived" in printed and "first" in printed and "failing" in printed
    assert "root tilt < 30°" in printed and "Wang" in printed and "185" in printed  # the thesis' trot at 0.3
    assert f"{table['trot']['0.3']:.1f}" in printed


def test_cli_push_one_force_writes_each_phases_verdict(tmp_path, capsys):
    out = tmp_path / "one.json"
    code = main(["push", "gorilla", "--gait", "trot", "--speeds", "0.3", "--phases", "2", "--workers", "1",
                 "--force", "120", "--gains", "thesis", "--json", str(out), "--quiet"])
    assert code == 0
    table = json.loads(out.read_text())
    assert list(table) == ["trot"] and list(table["trot"]) == ["0.3"]
    cell = table["trot"]["0.3"]
    assert set(cell) == {"force", "survived", "phases", "criteria"}
    assert cell["force"] == 120.0 and isinstance(cell["survived"], bool)
    assert len(cell["phases"]) == 2 and cell["survived"] == all(p["survived"] for p in cell["phases"])
    for p in cell["phases"]:
        assert set(p) == {"start_s", "survived", "peak_tilt_deg", "min_height_m", "foreign_contact", "fall"}
        assert p["survived"] == (p["fall"] is None and p["foreign_contact"] is None and p["peak_tilt_deg"] < 30.0
                                 and p["min_height_m"] > cell["criteria"]["min_height_m"])
    assert cell["phases"][0]["start_s"] == 8.0
    assert set(cell["criteria"]) == {"max_tilt_deg", "min_height_m", "reference_height_m", "feet_only"}
    printed = " ".join(capsys.readouterr().out.split())
    assert "120 N lateral push" in printed and "thesis gains" in printed and "120 N (0.078 × body weight)" in printed


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "-inf", "1e999", "ten", ""])
def test_cli_push_rejects_a_bad_force_in_one_line(value, capsys):
    code = main(["push", "gorilla", "--gait", "trot", f"--force={value}"])
    assert code == 2
    assert capsys.readouterr().err == \
        f"gaitforge: error: push: argument --force: must be a finite number ≥ 0 [N], got {value!r}\n"


def test_api_push_rejects_a_bad_force():
    import gaitforge as gf

    for bad in (math.nan, -1.0, math.inf, True, "10"):
        with pytest.raises(gf.GaitforgeError) as err:
            gf.push("gorilla", "trot", speeds=[0.3], force=bad)
        assert str(err.value) == f"push: force must be a finite number ≥ 0 [N], got {bad!r}"


@pytest.mark.parametrize("argv, message", [
    (["push", "gorilla", "--gait", "gallop"], "gorilla has no gait 'gallop' (valid gaits: stand, ds_walk, trot)"),
    (["push", "gorilla", "--gait", "trot", "--speeds", "0.1,fast"], "expected speeds like 0.1,0.2,0.3"),
    (["push", "gorilla", "--gait", "trot", "--speeds", "0.9"], "speed 0.9 m/s is outside its range 0–0.6 m/s"),
    (["push", "cat", "--gait", "trot"], "no simulated controller for 'cat'"),
    (["push", "worm", "--gait", "crawl"],
     "gaitforge: error: push: worm crawl does not stand on legs, so there is no balance for a push to upset "
     "(runners that stand: raibert_biped, raibert_quadruped, kangaroo, gorilla, dog)\n"),
    (["push", "loop", "--gait", "roll", "--speeds", "0.1"], "push: loop roll does not stand on legs"),
    (["push", "kangaroo", "--gait", "hop", "--speeds", "2"], "kangaroo moves in its sagittal plane only"),
    (["push", "gorilla", "--gait", "trot", "--json", "out.txt"], ".json"),
    (["push", "gorilla", "--gait", "trot", "--gains", "wang"],
     "gaitforge: error: gorilla has no gain set 'wang' (gain sets: ours, thesis, ours-10ms, thesis-10ms)\n"),
    (["push", "raibert_quadruped", "--gait", "trot", "--gains", "thesis"],
     "gaitforge: error: raibert_quadruped has no gain set 'thesis' (gain sets: ours)\n"),
])
def test_cli_push_rejects_bad_input(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_default_speeds_are_the_thesis_ones_where_the_gait_holds_them_else_its_range():
    from gaitforge.sim.push import default_speeds

    assert default_speeds(registry.entry("gorilla", "ds_walk")) == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert default_speeds(registry.entry("dog", "trot")) == [0.4, 0.62, 0.85, 1.08, 1.3]  # 0.4–1.3: not 0.1–0.3
    assert default_speeds(registry.entry("dog", "walk")) == [0.2, 0.29, 0.38, 0.46, 0.55]  # not the thesis' 0.1
    assert default_speeds(registry.entry("dog", "pace")) == [0.1, 0.2, 0.3, 0.4, 0.5]     # 0.1–0.6 holds them all
    assert default_speeds(registry.entry("dog", "gallop")) == [1.3]  # a range of one speed
    assert default_speeds(registry.entry("gorilla", "stand")) == [0.0]                  # a gait of one speed
    lo, hi = registry.entry("raibert_quadruped", "trot").speed_range
    speeds = default_speeds(registry.entry("raibert_quadruped", "trot"))
    assert len(speeds) == 5 and speeds[0] == round(lo, 2) and speeds[-1] == round(hi, 2)


def test_verdict_json_names_its_units():
    v = Verdict(8.123456, False, 31.234, 0.61234, "hand_left", None)
    assert v.as_dict() == {"start_s": 8.1235, "survived": False, "peak_tilt_deg": 31.23, "min_height_m": 0.6123,
                           "foreign_contact": "hand_left", "fall": None}


@pytest.mark.parametrize("gait, speed", [("canter", 0.45), ("walk", 0.55)])
def test_a_paws_heel_is_the_paw(gait, speed):
    """The dog's metacarpus and metatarsus end in a cap at the paw's joint
    that touches the ground in stride; within the paw's reach of its joint
    it is the paw's heel, not a foreign contact (before this rule every
    unpushed canter 'failed' the feet-only criterion)."""
    from gaitforge.control.skills import catalog

    _, rollout = catalog.simulate("dog", gait, speed, 15.0)
    assert rollout.fall is None and not np.any(rollout.other_contact)


@pytest.mark.parametrize("kw, message", [
    ({"speeds": [math.nan]}, "speeds[0]: must be a number from 0 to 20, got nan"),
    ({"speeds": "fast"}, "speeds: must be a list of speeds [m/s], got 'fast'"),
    ({"speeds": []}, "speeds: give 1 to 100 speeds, got 0"),
    ({"speeds": [0.9]}, "gorilla trot: speed 0.9 m/s is outside its range 0–0.6 m/s"),
    ({"phases": 0}, "phases: must be a whole number from 1 to 16, got 0"),
    ({"workers": 0}, "workers must be an integer from 1 to 1024, got 0"),
])
def test_the_api_checks_push_arguments_before_any_work(kw, message):
    import gaitforge as gf

    with pytest.raises(gf.GaitforgeError) as info:
        gf.push("gorilla", "trot", **kw)
    assert str(info.value) == message


def test_a_push_table_of_a_runner_that_does_not_stand_is_refused_before_any_work():
    import gaitforge as gf

    with pytest.raises(gf.GaitforgeError) as info:
        gf.push("worm", "crawl")
    assert str(info.value) == ("push: worm crawl does not stand on legs, so there is no balance for a push to upset "
                               "(runners that stand: raibert_biped, raibert_quadruped, kangaroo, gorilla, dog)")
    with pytest.raises(gf.GaitforgeError, match="^push: loop roll does not stand on legs"):
        largest_push(PushCase(registry.entry("loop"), 0.0))


@pytest.mark.parametrize("gait, speed", [("trot", 1.8), ("bound", 2.8)])
def test_pushes_are_spread_over_the_stride_the_gait_measures_take(gait, speed):
    """The push phases divide the unpushed run's stride, read from its foot
    contacts; for the RH91 quadruped's 0.08-0.1 s stances it must agree with
    the stride the RH91 measures take from the same run's touchdowns (a 0.1 s
    filter on contacts read 5.0 s for the trot and 1 s, the fallback, for the
    bound)."""
    from gaitforge.control.raibert.measures import measure_run

    case = PushCase(registry.entry("raibert_quadruped", gait), speed)
    u = unpushed(case)
    character, base = case.simulate(case.settle + case.duration + case.after)
    assert u.stride == pytest.approx(measure_run(character, base, speed, settle=2.0).stride_duration, rel=0.05)
    assert np.diff(u.starts) == pytest.approx([u.stride / 4] * 3)

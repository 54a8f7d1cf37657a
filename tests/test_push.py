"""The push-recovery protocol (Wang 2011 §3.5.3) on any runner: the
bisection brackets the edge it reports, every phase is tried, results do
not depend on the worker count, and the CLI prints and writes the table."""
from __future__ import annotations

import json

import pytest

from gaitforge.cli.main import main
from gaitforge.sim.push import Push, PushCase, PushTrial, largest_push, push_body, runner_of

CASE = PushCase("raibert", "quadruped", "trot", 1.5, settle=4.0, after=3.0)


@pytest.fixture(scope="module")
def result():
    return largest_push(CASE, phases=2, resolution=0.05, workers=1)


def test_push_search_brackets_its_edge(result):
    assert result.largest > 0.0
    assert len(result.starts) == 2 and result.starts[1] - result.starts[0] == pytest.approx(result.stride / 2)
    character, _ = CASE.simulate(1.0)
    trial = PushTrial(CASE, push_body(character))
    # the reported force survives at every phase; the bracket's other end,
    # within one resolution step, fails at some phase
    assert all(trial([result.largest, s], 0) for s in result.starts)
    assert result.largest < result.failed <= result.largest + 0.05 * result.weight + 1e-9
    assert not all(trial([result.failed, s], 0) for s in result.starts)


def test_push_search_does_not_depend_on_the_worker_count(result):
    again = largest_push(CASE, phases=2, resolution=0.05, workers=2)
    assert again.largest == result.largest and again.trials == result.trials


def test_push_acts_only_during_its_window():
    import numpy as np

    class Data:
        xfrc_applied = np.zeros((3, 6))

    push, d = Push(1, 50.0, 2.0, 0.5), Data()
    push(1.99, d)
    assert d.xfrc_applied[1, 1] == 0.0
    push(2.0, d)
    assert d.xfrc_applied[1, 1] == 50.0 and not d.xfrc_applied[1, [0, 2, 3, 4, 5]].any()
    push(2.5, d)
    assert d.xfrc_applied[1, 1] == 0.0


def test_cli_push_prints_and_writes_json(tmp_path, capsys):
    out = tmp_path / "push.json"
    code = main(["push", "raibert_quadruped", "--gait", "trot", "--speeds", "1.5", "--phases", "1",
                 "--workers", "1", "--json", str(out), "--quiet"])
    assert code == 0
    table = json.loads(out.read_text())
    assert list(table) == ["trot"] and list(table["trot"]) == ["1.5"] and table["trot"]["1.5"] > 0
    assert "largest lateral push survived" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["push", "gorilla", "--gait", "gallop"], "gorilla has no gait 'gallop' (valid gaits: stand, ds_walk, trot)"),
    (["push", "gorilla", "--gait", "trot", "--speeds", "0.1,fast"], "expected speeds like 0.1,0.2,0.3"),
    (["push", "gorilla", "--gait", "trot", "--speeds", "0.9"], "speed 0.9 m/s is outside its range 0–0.6 m/s"),
    (["push", "cat", "--gait", "trot"], "no simulated controller for 'cat'"),
    (["push", "kangaroo", "--gait", "hop", "--speeds", "2"], "kangaroo moves in its sagittal plane only"),
    (["push", "gorilla", "--gait", "trot", "--json", "out.txt"], ".json"),
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

    assert default_speeds(runner_of("gorilla"), "ds_walk") == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert default_speeds(runner_of("dog"), "trot") == [0.4, 0.62, 0.85, 1.08, 1.3]  # 0.4–1.3: not 0.1–0.3
    assert default_speeds(runner_of("dog"), "walk") == [0.2, 0.33, 0.45, 0.57, 0.7]  # 0.2–0.7: not the thesis' 0.1
    assert default_speeds(runner_of("dog"), "pace") == [0.1, 0.2, 0.3, 0.4, 0.5]     # 0.1–1.1 holds them all
    assert default_speeds(runner_of("dog"), "gallop") == [1.3, 1.32, 1.35, 1.38, 1.4]
    assert default_speeds(runner_of("gorilla"), "stand") == [0.0]                  # a gait of one speed
    lo, hi = runner_of("raibert_quadruped").speed_range("trot")
    speeds = default_speeds(runner_of("raibert_quadruped"), "trot")
    assert len(speeds) == 5 and speeds[0] == round(lo, 2) and speeds[-1] == round(hi, 2)

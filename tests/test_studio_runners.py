"""Registry runners in the studio without a browser: the list the Runner
dropdown shows, a live run steered by speed and turn rate, the registry's
refusals as one line, pushes and the drag's pull, pause and single steps.

The sessions are paused after the start (their thread simulates nothing)
and advanced by hand, so what is measured does not depend on the machine's
speed."""
from __future__ import annotations

import math

import numpy as np
import pytest

from gaitforge.control import registry
from gaitforge.errors import GaitforgeError
from gaitforge.studio.runner_sim import runnable
from gaitforge.studio.session import Session


def _yaw(q: np.ndarray) -> float:
    w, x, y, z = q[3:7]
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


@pytest.fixture
def session():
    s = Session("dog")
    yield s
    s.close()


def test_the_runner_list_is_the_registrys_speed_taking_entries(session):
    listed = session.runners()
    assert sorted(listed) == sorted(e.label for e in registry.ENTRIES if e.speed_range is not None)
    assert listed[0].startswith("dog ")  # the current creature's runners first
    assert "worm crawl" not in listed      # a modal gait sets its own speed: physics, not a runner


def test_a_skills_runner_takes_speed_and_turn_live(session):
    session.start_runner("dog trot")
    session.play(False)                     # the thread pauses; the test steps by hand
    sim = session.runner
    assert sim is not None and sim.speed == registry.entry("dog", "trot").default_speed
    assert sim.dt == pytest.approx(registry.entry("dog", "trot").physics().timestep)  # its own physics step
    sim.advance(3.0)
    x0 = sim.qpos()[0]
    sim.advance(1.0)
    slow = sim.qpos()[0] - x0
    assert slow > 0.4 and sim.fall is None, slow

    assert session.runner_speed(1.2) == "live"
    t = sim.sim_time()
    sim.advance(3.0)
    assert sim.sim_time() > t + 2.9          # the run carried on: no restart
    x0 = sim.qpos()[0]
    sim.advance(1.0)
    fast = sim.qpos()[0] - x0
    assert fast > slow + 0.2 and sim.fall is None, (slow, fast)

    yaw0 = _yaw(sim.qpos())
    assert session.turn(0.4) == "live"
    sim.advance(3.0)
    turned = (_yaw(sim.qpos()) - yaw0 + math.pi) % (2 * math.pi) - math.pi
    assert turned > 0.6 and sim.upright() > 0.8, turned   # 1.2 rad asked


def test_out_of_range_speed_and_turn_are_refused_with_the_registrys_line(session):
    session.start_runner("dog walk")
    session.play(False)
    with pytest.raises(GaitforgeError, match=r"dog walk: speed 3 m/s is outside its range 0.2–0.55 m/s"):
        session.runner_speed(3.0)
    assert session.runner.speed == registry.entry("dog", "walk").default_speed
    with pytest.raises(GaitforgeError, match="turn rate"):
        session.turn(9.0)
    with pytest.raises(GaitforgeError, match="no runner"):
        session.stop_runner()
        session.turn(0.1)


def test_a_refused_start_changes_nothing(session):
    with pytest.raises(GaitforgeError, match="raibert_biped does not turn on command"):
        session.start_runner("raibert_biped run", turn_rate=0.3)
    assert session.character.name == "dog" and session.runner is None
    with pytest.raises(GaitforgeError, match="outside its range"):
        session.start_runner("kangaroo hop", speed=9.0)
    assert session.character.name == "dog"
    assert session.runner_turns("dog trot") and not session.runner_turns("kangaroo hop")


def test_a_raibert_runner_loads_its_creature_restarts_at_a_new_speed_and_refuses_to_turn(session):
    session.start_runner("raibert_biped run", speed=1.0)
    session.play(False)
    sim = session.runner
    assert session.character.name == "raibert_biped" and sim.character is session.character
    with pytest.raises(GaitforgeError, match=r"raibert_biped does not turn on command \(turn_rate works for: "):
        session.turn(0.3)
    sim.advance(1.0)
    assert session.runner_speed(2.0) == "restarted" and sim.sim_time() == 0.0
    sim.advance(4.0)
    x0 = sim.qpos()[0]
    sim.advance(2.0)
    assert (sim.qpos()[0] - x0) / 2.0 == pytest.approx(2.0, rel=0.35) and sim.fall is None
    # the pose shown is the simulated one
    assert np.array_equal(session.pose(), sim.qpos())


def test_push_and_drag_move_a_standing_runner(session):
    session.start_runner("dog stand")
    session.play(False)
    sim = session.runner
    sim.advance(1.0)
    y0 = sim.qpos()[1]
    sim.push((0.0, 0.5 * session.character.mass * 9.81, 0.0), seconds=0.2)
    sim.advance(0.5)
    assert sim.qpos()[1] - y0 > 0.01
    head = session.character.model.body("head").id
    start = sim.body_position(head)
    sim.hold(head, start + [0.0, 0.0, 0.3])
    sim.advance(0.3)
    assert sim.body_position(head)[2] > start[2] + 0.03
    sim.release()
    assert not sim.data.xfrc_applied.any()


def test_pause_and_single_steps_drive_the_simulation(session):
    session.start_runner("dog trot")
    session.play(False)
    sim = session.runner
    assert sim.paused
    t = sim.sim_time()
    session.step()
    assert sim.sim_time() == pytest.approx(t + 1 / 30, abs=sim.control_dt)
    with pytest.raises(GaitforgeError, match="cannot step back"):
        session.step(-1)
    session.stop_runner()
    assert session.runner is None
    session.step(-1)                        # a clip steps back
    assert session.clock.time == pytest.approx(0.0)


def test_physics_and_runner_exclude_each_other(session):
    session.start_runner("dog trot")
    session.compute_modes()
    session.start_physics(drive_recipe=False)
    assert session.runner is None and session.sim is session.physics
    session.start_runner("dog trot")
    assert session.physics is None and session.sim is session.runner


@pytest.mark.parametrize("entry", [e for e in registry.ENTRIES if not runnable(e)], ids=lambda e: e.label)
def test_entries_without_a_speed_are_not_runners(entry, session):
    with pytest.raises(GaitforgeError, match="takes no commanded speed"):
        session.start_runner(entry.label)

"""The one registry of controllers (``gaitforge.control.registry``): every
entry of every family runs through the same call into a finite rollout
under the physics its controller declares, out-of-range speeds are refused
by one rule, names and options by one set of messages, and the CLI's
``run`` and ``runners`` read the same entries."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import gaitforge as gf
from gaitforge.cli.main import main
from gaitforge.control import registry
from gaitforge.creatures import registry as creatures
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.sim.starts import QUIET, StartNoise
from gaitforge.sim.events import RunEvent
from gaitforge.sim.physics import Physics

SECONDS = 3.0
ENTRIES = {f"{e.key}-{e.gait}": e for e in registry.ENTRIES}


# ------------------------------------------------------------------ the data
def test_the_registry_holds_every_family_once_per_creature_and_gait():
    pairs = [(e.key, e.gait) for e in registry.ENTRIES]
    assert len(pairs) == len(set(pairs))
    assert {e.family for e in registry.ENTRIES} == {"raibert", "skills", "modal"}
    assert registry.keys() == ["raibert_biped", "raibert_quadruped", "kangaroo", "gorilla", "dog", "worm", "loop"]
    assert registry.aliases() == ["biped", "quadruped"]
    for key in registry.keys():
        assert sum(e.default for e in registry.gaits(key)) == 1, key
        assert key in creatures.names()


@pytest.mark.parametrize("name", list(ENTRIES))
def test_each_entry_is_consistent_data(name):
    e = ENTRIES[name]
    assert e.creature in creatures.names()
    if e.speed_range is None:
        assert e.default_speed is None and not e.stands  # a modal drive sets its own speed
    else:
        lo, hi = e.speed_range
        assert 0.0 <= lo <= e.default_speed <= hi
    assert e.gain_sets[0] == "ours"
    assert registry.entry(e.key, e.gait) is e and all(registry.entry(a, e.gait) is e for a in e.aliases)
    assert pickle.loads(pickle.dumps(e)) == e  # push and ensemble trials carry entries to worker processes


def test_names_resolve_with_either_spelling_and_defaults():
    assert registry.entry("biped").key == "raibert_biped" and registry.entry("biped").gait == "run"
    assert registry.entry("Raibert-Quadruped".lower(), "trot").key == "raibert_quadruped"
    assert registry.entry("gorilla", "ds-walk").gait == "ds_walk"
    assert registry.entry("worm").gait == "crawl" and registry.entry("loop").gait == "roll"
    with pytest.raises(UnknownNameError) as err:
        registry.entry("horse")
    assert str(err.value) == ("no simulated controller for 'horse' (creatures with one: raibert_biped, "
                              "raibert_quadruped, kangaroo, gorilla, dog, worm, loop; also accepted: biped, quadruped)")
    with pytest.raises(UnknownNameError) as err:
        registry.entry("worm", "trot")
    assert str(err.value) == "worm has no gait 'trot' (valid gaits: crawl)"


# ------------------------------------------------------------- every entry runs
@pytest.mark.parametrize("name", list(ENTRIES))
def test_every_entry_runs_into_a_finite_rollout_under_its_physics(name):
    e = ENTRIES[name]
    run = e.run(seconds=SECONDS)
    character, rollout = run
    assert run.entry is e and run.speed == e.default_speed
    assert rollout.fall is None, f"{e.label}: {rollout.fall}"
    assert rollout.clip.duration == pytest.approx(SECONDS)
    assert np.all(np.isfinite(rollout.clip.qpos)) and rollout.clip.nq == character.nq
    # The physics the run reports is the entry's: the one its controller prepares.
    assert isinstance(rollout.physics, Physics) and rollout.physics == e.physics()
    assert run.measures().title.startswith(f"{character.name} {e.gait}")


# ------------------------------------------------------------ one speed rule
@pytest.mark.parametrize("name", [k for k, e in ENTRIES.items() if e.speed_range is not None])
def test_a_speed_outside_the_range_is_refused_naming_it(name):
    e = ENTRIES[name]
    lo, hi = e.speed_range
    for v in (hi + 0.1, lo - 0.1) if lo >= 0.1 else (hi + 0.1,):
        with pytest.raises(GaitforgeError) as err:
            e.run(speed=v, seconds=0.1)
        assert str(err.value) == f"{e.key} {e.gait}: speed {v:g} m/s is outside its range {lo:g}–{hi:g} m/s"


def test_the_same_rule_for_every_family_through_the_api_and_the_cli(capsys):
    with pytest.raises(GaitforgeError) as err:
        gf.run("kangaroo", speed=6.0, seconds=0.1)  # a Raibert runner: it used to be clamped with a warning
    assert str(err.value) == "kangaroo hop: speed 6 m/s is outside its range 0.5–4 m/s"
    assert main(["run", "biped", "--speed", "5", "--seconds", "0.1"]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: raibert_biped run: speed 5 m/s is outside its range "
                                       "0.5–3.5 m/s\n")
    assert main(["run", "dog", "--gait", "gallop", "--speed", "1", "--seconds", "0.1"]) == 2
    assert capsys.readouterr().err == "gaitforge: error: dog gallop: speed 1 m/s is outside its range 1.3–1.3 m/s\n"
    assert main(["run", "worm", "--speed", "0.1", "--seconds", "0.1"]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: worm crawl takes no speed: its drive sets how fast it goes "
                                       "(give no speed)\n")


def test_options_a_runner_does_not_take_are_refused_naming_who_takes_them():
    with pytest.raises(GaitforgeError) as err:
        gf.run("worm", scale=2.0, seconds=0.1)
    assert str(err.value) == "worm cannot be scaled (scaling works for: raibert_biped, raibert_quadruped, kangaroo)"
    with pytest.raises(GaitforgeError) as err:
        gf.run("dog", path="nowhere.yaml", seconds=0.1, scale=3.0)
    assert str(err.value) == "dog cannot be scaled (scaling works for: raibert_biped, raibert_quadruped, kangaroo)"
    with pytest.raises(GaitforgeError) as err:
        gf.run("loop", seconds=0.1, turn_rate=0.2)
    assert str(err.value) == "loop does not turn on command (turn_rate works for: gorilla, dog)"
    with pytest.raises(GaitforgeError) as err:  # an entry alone does not know the others
        registry.entry("loop").run(seconds=0.1, turn_rate=0.2)
    assert str(err.value) == "loop does not turn on command"
    with pytest.raises(GaitforgeError) as err:
        registry.entry("dog").run(seconds=0.1, gains="thesis")
    assert str(err.value) == "dog has no gain set 'thesis' (gain sets: ours, contacts-4ms)"


# ------------------------------------------------------------- perturbed starts
@pytest.mark.same_machine
def test_a_seeded_start_is_reproducible_and_the_quiet_one_is_the_plain_run():
    e = registry.entry("kangaroo")
    plain = e.run(seconds=1.0).rollout.clip.qpos
    np.testing.assert_array_equal(e.run(seconds=1.0, initial=QUIET, seed=0).rollout.clip.qpos, plain)
    a = e.run(seconds=1.0, initial=StartNoise(), seed=3).rollout.clip.qpos
    np.testing.assert_array_equal(e.run(seconds=1.0, initial=StartNoise(), seed=3).rollout.clip.qpos, a)
    assert not np.array_equal(a, plain)
    worm = registry.entry("worm")
    b = worm.run(seconds=0.3, initial=StartNoise(), seed=1).rollout.clip.qpos
    assert np.all(np.isfinite(b)) and not np.array_equal(b, worm.run(seconds=0.3).rollout.clip.qpos)


# ------------------------------------------------------------------ events
def test_one_event_type_tells_falls_divergences_and_limit_stops_apart():
    fell = RunEvent(1.25, "trunk tilt 50°", "stance")
    assert fell.fell and not fell.over_limit and str(fell) == "fell at t = 1.250 s (trunk tilt 50°) in state stance"
    diverged = RunEvent(0.5, "non-finite state", kind="diverged")
    assert not diverged.fell and str(diverged) == "diverged at t = 0.500 s (non-finite state)"
    limit = RunEvent(0.1, "a joint turned at 50 rad/s, over its 40 rad/s limit", kind="over_limit")
    assert limit.over_limit and str(limit).startswith("went over a limit at t = 0.100 s (a joint turned")
    with pytest.raises(ValueError):
        RunEvent(0.0, "x", kind="tripped")


def test_a_modal_fall_is_an_event_of_kind_fell_not_a_prefix():
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.presets import hand_set

    worm = Character.from_spec(creatures.build("worm"))
    r = run_recipe(worm, hand_set("worm"), 0.5, upright=(0.5, 3.0))  # the worm's root lies far below 0.5 m
    assert r.fell and r.divergence.kind == "fell" and r.divergence.reason.startswith("root height ")


# ------------------------------------------------------------------ the CLI
def test_run_worm_runs_its_modal_crawl_as_simulate_does(capsys):
    assert main(["run", "worm", "--seconds", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("worm crawl: 1.0 s simulated in ")
    assert "physics: 0.25 ms implicitfast" in out and "cost of transport" in out and "peak joint torque" in out
    travel = next(line.split("│")[2].strip() for line in out.splitlines() if "travel (m)" in line)
    assert main(["simulate", "worm", "--seconds", "1"]) == 0
    assert f"travel {travel} m" in capsys.readouterr().out  # the same run


def test_runners_lists_every_entry(capsys):
    assert main(["runners"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for key in registry.keys():
        assert key in out
    assert "(biped)" in out and "crawl*" in out and "gorilla: ours, thesis" in out


def test_push_and_the_run_and_push_commands_reach_no_family_package():
    """What differs between families is on the entries: the push protocol
    and the commands import no family's package."""
    import ast
    import inspect

    from gaitforge.cli import push_cmd, run_cmd
    from gaitforge.sim import push

    families = ("gaitforge.control.raibert", "gaitforge.control.skills", "gaitforge.control.modal")
    for module in (push, run_cmd, push_cmd):
        tree = ast.parse(inspect.getsource(module))
        imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert not [m for m in imported if m.startswith(families)], module.__name__

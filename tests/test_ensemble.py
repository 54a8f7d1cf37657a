"""Perturbed starts and ensembles of them (``gaitforge.control.ensembles``)."""
from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from gaitforge.control.skills import catalog
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.control.ensembles import ensemble, simulate_perturbed
from gaitforge.sim.starts import QUIET, PerturbedStart, StartNoise


def test_the_quiet_start_is_the_catalogues_own_run():
    """Two routes to one run: the ensemble's generic preparation with no
    noise and the skills catalogue's ``simulate`` give the same motion."""
    _, a = catalog.simulate("dog", "trot", 0.8, 3.0)
    _, b = simulate_perturbed("dog", "trot", 0.8, 3.0, QUIET, 0)
    np.testing.assert_array_equal(a.clip.qpos, b.clip.qpos)


def _start(character, noise, seed, speed):
    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    start = PerturbedStart(noise, seed, speed)
    start(m, d)
    return start, d


def test_a_perturbed_start_moves_joints_speed_and_friction_within_their_bounds():
    dog = Character.from_spec(registry.build("dog"))
    m = dog.model
    noise = StartNoise()
    starts = []
    for seed in range(1, 21):
        start, d = _start(dog, noise, seed, 2.0)
        dq = np.zeros(m.nv)
        mujoco.mj_differentiatePos(m, dq, 1.0, dog.rest_qpos, d.qpos)
        assert np.all(dq[:6] == 0.0)  # the free joint: same place and orientation
        assert 0.0 < np.abs(dq[6:]).max() <= noise.joint + 1e-12
        assert np.all(d.qvel[1:] == 0.0) and abs(d.qvel[0]) <= noise.speed * 2.0
        assert noise.friction[0] <= start.friction <= noise.friction[1]
        starts.append((start.friction, start.velocity, d.qpos.copy()))
    # each seed its own start, the same one every time
    assert len({s[0] for s in starts}) == 20
    again, d = _start(dog, noise, 7, 2.0)
    assert again.friction == starts[6][0] and np.array_equal(d.qpos, starts[6][2])


def test_ball_joints_stay_unit_quaternions():
    human = Character.from_spec(registry.build("human"))
    m = human.model
    _, d = _start(human, StartNoise(joint=0.3), 3, 1.0)
    balls = [m.jnt_qposadr[j] for j in range(m.njnt) if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_BALL]
    assert balls
    for a in balls:
        assert np.linalg.norm(d.qpos[a:a + 4]) == pytest.approx(1.0, abs=1e-12)


def test_friction_scales_every_geoms_sliding_friction():
    dog = Character.from_spec(registry.build("dog"))
    before = dog.model.geom_friction.copy()
    start = PerturbedStart(StartNoise(), 5, 1.0)
    start.apply_friction(dog.model)
    np.testing.assert_allclose(dog.model.geom_friction[:, 0], before[:, 0] * start.friction)
    np.testing.assert_array_equal(dog.model.geom_friction[:, 1:], before[:, 1:])


@pytest.mark.parametrize("kw, message", [
    ({"joint": -0.1}, "start noise: joint must be 0 to 0.5 rad, got -0.1"),
    ({"speed": math.nan}, "start noise: speed must be a fraction from 0 to 1, got nan"),
    ({"friction": (1.2, 0.8)}, "start noise: friction must be a range 0 < lo <= hi <= 10, got (1.2, 0.8)"),
])
def test_bad_noise_is_refused(kw, message):
    with pytest.raises(GaitforgeError) as info:
        StartNoise(**kw)
    assert str(info.value) == message


@pytest.mark.same_machine
def test_ensemble_outcomes_do_not_depend_on_the_workers():
    one = ensemble("dog", "trot", 0.8, starts=3, seconds=2.0, workers=1)
    two = ensemble("dog", "trot", 0.8, starts=3, seconds=2.0, workers=2)
    def key(e):  # nan (held) is not equal to itself
        return [(o.seed, o.held, o.fall if not o.held else None, o.speed) for o in e.outcomes]

    assert key(one) == key(two)
    assert [o.seed for o in one.outcomes] == [1, 2, 3] and one.held == 3 and math.isnan(one.first_fall)


def test_a_timestep_that_does_not_divide_the_control_interval_is_refused():
    with pytest.raises(GaitforgeError) as info:
        simulate_perturbed("dog", "trot", 0.8, 1.0, QUIET, 0, timestep=0.003)
    assert str(info.value) == "timestep 0.003 s must divide the control interval 0.01 s"


def test_an_rh91_run_beyond_its_range_runs_at_the_speed_asked():
    """The ranges are measured beyond their ends, so the ensembles run the
    RH91 runners unclamped (their controllers clamp into the range, with a
    warning, unless asked not to): the quiet start at 4 m/s, above the biped
    run's 3.5, is the controller's own unclamped run, not its top speed's."""
    import warnings

    from gaitforge.control.raibert import catalog as rh91

    assert rh91.RUNNERS["biped"].speed_ranges["run"][1] < 4.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, beyond = simulate_perturbed("biped", "run", 4.0, 2.0, QUIET, 0)
        _, asked = rh91.simulate("biped", "run", 4.0, 2.0, clamp=False)
    np.testing.assert_array_equal(beyond.clip.qpos, asked.clip.qpos)
    with pytest.warns(UserWarning, match="outside the supported range"):
        _, top = rh91.simulate("biped", "run", 4.0, 2.0)
    assert not np.array_equal(beyond.clip.qpos, top.clip.qpos)

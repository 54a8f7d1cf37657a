"""The runner protocol (gaitforge.sim): controllers carry their run settings
(control interval, model preparation, fall check), sim.run uses them and
stays compatible with the plain protocol; the RH91 catalogue is a table of
sim.catalog.Runner entries with one generic preparation."""
import math

import mujoco
import numpy as np
import pytest

from gaitforge.control.raibert import catalog, quadruped
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, UnknownNameError
from gaitforge.sim import Controller, run
from gaitforge.sim.catalog import Runner
from gaitforge.sim.controller import DEFAULT_CONTROL_DT, run_settings


class Plain:
    """The plain protocol only: reset, compute, state."""

    def __init__(self):
        self.ticks = 0

    def reset(self, model, data):
        self.ticks = 0

    def compute(self, model, data):
        self.ticks += 1

    @property
    def state(self):
        return "idle"


class Rich(Plain):
    """The plain protocol plus every run setting."""

    control_dt = 0.004

    def prepare_model(self, model):
        model.opt.timestep = 0.001

    def fall_check(self, data):
        return "always" if data.time > 0.05 else None


@pytest.fixture(scope="module")
def worm():
    return Character.from_spec(registry.build("worm"))


def test_a_plain_controller_runs_as_before(worm):
    c = Plain()
    assert isinstance(c, Controller)
    settings = run_settings(c, worm.model)
    assert settings.control_dt == DEFAULT_CONTROL_DT and settings.fall_check is None
    assert settings.model is not worm.model and settings.model.opt.timestep == worm.model.opt.timestep
    r = run(worm, c, 0.1)
    assert r.fall is None and c.ticks == round(0.1 / DEFAULT_CONTROL_DT)


def test_a_controller_with_settings_is_run_by_them(worm):
    c = Rich()
    step = worm.model.opt.timestep
    r = run(worm, c, 0.2, record_fps=250)
    assert str(r.fall).endswith("(always) in state idle") and 0.05 < r.fall.time < 0.07
    assert c.ticks == round(r.fall.time / 0.004)
    assert worm.model.opt.timestep == step  # the character's model is never changed
    # Arguments still win: no fall check, another interval.
    c2 = Rich()
    r2 = run(worm, c2, 0.2, control_dt=0.002, fall_check=None, model=worm.model)
    assert r2.fall is None and c2.ticks == 100


@pytest.mark.parametrize("key", list(catalog.RUNNERS))
def test_catalog_entries_and_the_run_loop(key):
    r = catalog.runner(key)
    assert isinstance(r, Runner) and r.make is not None and r.default_gait in r.speed_ranges
    character, ctrl, model, dt = catalog.prepare(key, r.default_gait, r.default_speed)
    assert dt == ctrl.control_dt and callable(ctrl.fall_check)
    assert model.opt.timestep == run_settings(ctrl, character.model).model.opt.timestep
    lo, hi = r.speed_range(r.default_gait, 4.0)
    assert (lo, hi) == pytest.approx(tuple(2.0 * v for v in r.speed_ranges[r.default_gait]))
    # sim.run alone gives the catalogue's run (same settings, same motion).
    _, a = catalog.simulate(key, r.default_gait, r.default_speed, 1.0)
    _, ctrl2, _, _ = catalog.prepare(key, r.default_gait, r.default_speed)
    b = run(character, ctrl2, 1.0, record_fps=100.0)
    np.testing.assert_array_equal(a.clip.qpos, b.clip.qpos)


def test_catalog_refusals():
    with pytest.raises(UnknownNameError, match=r"^no simulated controller for 'horse' \(creatures with one: "
                       r"raibert_biped, raibert_quadruped, kangaroo; also by family: biped, quadruped\)$"):
        catalog.runner("horse")
    with pytest.raises(GaitforgeError, match=r"^kangaroo does not follow paths \(paths work for: biped, quadruped\)$"):
        from gaitforge.control.paths import WaypointPath
        catalog.prepare("kangaroo", "hop", 2.0, path=WaypointPath([[0, 0], [1, 0]]))
    with pytest.raises(GaitforgeError, match=r"^scale must be positive, got -1$"):
        catalog.prepare("biped", "run", 1.0, scale=-1)


def test_a_scaled_quadruped_falls_at_its_own_height():
    character, ctrl, _, _ = catalog.prepare("quadruped", "trot", 1.5, scale=0.5)
    assert ctrl.leg_length == pytest.approx(0.405) and ctrl.size == pytest.approx(0.5)
    d = mujoco.MjData(character.model)
    d.qpos[:] = character.rest_qpos
    d.qpos[2] = 0.21  # above 0.4 × 0.5 m: standing
    mujoco.mj_kinematics(character.model, d)
    assert ctrl.fall_check(d) is None
    d.qpos[2] = 0.19
    mujoco.mj_kinematics(character.model, d)
    assert ctrl.fall_check(d) == "trunk height 0.190 m below 0.200 m"
    assert quadruped.fall_check(character)(d) == ctrl.fall_check(d)
    assert math.isclose(ctrl.control_dt, 0.012 * math.sqrt(0.5))

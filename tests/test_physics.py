"""The physics record of a run (``gaitforge.sim.physics``) and the
``--timestep`` override of ``run``."""
from __future__ import annotations

import math

import mujoco
import pytest

from gaitforge.cli.main import main
from gaitforge.control.skills import catalog
from gaitforge.errors import GaitforgeError
from gaitforge.sim.physics import Physics, check_timestep

XML = """<mujoco><option timestep="0.004" integrator="RK4" solver="CG"/>
<worldbody><geom type="plane" size="1 1 .1" friction="0.6 0.005 0.0001" solref="0.01 0.8"
 solimp="0.8 0.9 0.002 0.5 2"/><body><freejoint/><geom size=".1"/></body></worldbody></mujoco>"""


def test_the_record_reads_what_mujoco_is_given():
    p = Physics.of(mujoco.MjModel.from_xml_string(XML))
    assert p == Physics(0.004, "rk4", "CG", (0.01, 0.8), (0.8, 0.9, 0.002, 0.5, 2.0), 0.6)
    assert str(p) == "physics: 4 ms rk4, CG; contacts 10 ms, ratio 0.8, solimp 0.8–0.9/2 mm; friction 0.6"


def test_a_run_records_its_physics_and_the_override_replaces_the_step():
    _, own = catalog.simulate("gorilla", "ds_walk", 0.3, 0.2)
    _, finer = catalog.simulate("gorilla", "ds_walk", 0.3, 0.2, timestep=0.0005)
    assert own.physics.timestep == 0.001 and own.physics.integrator == "implicitfast"
    assert finer.physics.timestep == 0.0005 and finer.physics.integrator == "implicitfast"
    assert finer.clip.qpos.shape == own.clip.qpos.shape  # same control ticks, twice the physics steps


@pytest.mark.parametrize("dt, message", [
    (math.nan, "timestep must be from 1e-05 to 0.05 s, got nan"),
    (1e-9, "timestep must be from 1e-05 to 0.05 s, got 1e-09"),
    (0.003, "timestep 0.003 s must divide the control interval 0.01 s"),
    (0.02, "timestep 0.02 s must divide the control interval 0.01 s"),
])
def test_bad_timesteps_are_refused(dt, message):
    with pytest.raises(GaitforgeError) as info:
        check_timestep(dt, 0.01)
    assert str(info.value) == message


def test_run_prints_its_physics_and_refuses_a_step_that_does_not_fit(capsys):
    assert main(["run", "quadruped", "--seconds", "0.5", "--quiet", "--timestep", "0.002"]) == 0
    out = capsys.readouterr().out
    assert "physics: 2 ms implicitfast, Newton; contacts 6 ms, ratio 1" in out
    assert main(["run", "dog", "--seconds", "0.5", "--quiet", "--timestep", "0.003"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "gaitforge: error: timestep 0.003 s must divide the control interval 0.01 s"


def test_push_takes_a_timestep_and_refuses_one_that_does_not_fit(capsys):
    assert main(["push", "gorilla", "--gait", "trot", "--speeds", "0.3", "--force", "50", "--phases", "1",
                 "--workers", "1", "--timestep", "0.001", "--quiet"]) == 0
    assert "0.3 m/s: survived 50 N" in capsys.readouterr().out
    assert main(["push", "dog", "--gait", "trot", "--speeds", "0.8", "--force", "10", "--phases", "1",
                 "--workers", "1", "--timestep", "0.003", "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "gaitforge: error: timestep 0.003 s must divide the control interval 0.01 s"

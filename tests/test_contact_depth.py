"""The contact-depth probe against geometry and MuJoCo's soft-contact law."""
from __future__ import annotations


import mujoco
import numpy as np
import pytest

from gaitforge.sim.contact_depth import CAP, ContactProbe, geom_radius

G = 9.81
RADIUS = 0.05  # m, the ball's


def _ball(timeconst: float, height: float, timestep: float = 0.001) -> mujoco.MjModel:
    """A frictionless 1 kg ball of RADIUS over a plane, both with the same
    contact parameters (MuJoCo mixes the two geoms'), the impedance fixed at
    0.95 (solimp d0 = dmax) so that the contact law has a closed form."""
    return mujoco.MjModel.from_xml_string(f"""
<mujoco>
  <option timestep="{timestep}" gravity="0 0 -{G}"/>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" condim="1"
          solref="{timeconst} 1" solimp="0.95 0.95 0.001 0.5 2"/>
    <body pos="0 0 {height}">
      <freejoint/>
      <geom name="ball" type="sphere" size="{RADIUS}" mass="1" condim="1"
            solref="{timeconst} 1" solimp="0.95 0.95 0.001 0.5 2"/>
    </body>
    <body pos="1 0 0.5">
      <geom name="plank" type="box" size="0.2 0.1 0.03"/>
    </body>
  </worldbody>
</mujoco>""")


def test_geom_radius_takes_the_least_half_extent_of_boxes_and_ellipsoids():
    m = mujoco.MjModel.from_xml_string("""
<mujoco><worldbody>
  <geom type="sphere" size="0.04"/>
  <geom type="capsule" size="0.03 0.2"/>
  <geom type="box" size="0.06 0.055 0.0225"/>
  <geom type="ellipsoid" size="0.045 0.032 0.025"/>
</worldbody></mujoco>""")
    assert [geom_radius(m, g) for g in range(4)] == pytest.approx([0.04, 0.03, 0.0225, 0.025])


def test_the_probe_reads_every_physics_step_of_a_landing():
    """A ball dropped from 0.5 m: the deepest the probe saw, hooked in at the
    first step only, is the geometric depth RADIUS − z at the deepest state
    any step started from; reading only every tenth step misses the peak."""
    m = _ball(0.005, 1.0)
    d = mujoco.MjData(m)
    starts = []
    with ContactProbe(m) as probe:
        for k in range(1000):
            if k == 0:
                probe(0.0, d)  # as a runner's perturb callback, at its first tick
            starts.append(float(d.qpos[2]))
            mujoco.mj_step(m, d)
        assert mujoco.get_mjcb_control() is not None
    assert mujoco.get_mjcb_control() is None
    geometric = RADIUS - np.array(starts)
    assert probe.deepest == pytest.approx(geometric.max(), abs=1e-9)
    assert geometric[::10].max() < probe.deepest - 1e-4
    ball = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "ball")
    assert list(probe.touched) == [ball]
    assert probe.geom_name(probe.worst) == "ball"


@pytest.mark.parametrize("timeconst", [0.01, 0.02, 0.04])
def test_a_resting_ball_sinks_as_the_soft_contact_law_says(timeconst):
    """At rest the constraint holds d·k·r = (1 − d)·g with k = 1/(dmax²·τ²)
    at damping ratio 1, so with d = dmax = 0.95 the ball sinks 0.05·g·τ²."""
    m = _ball(timeconst, RADIUS)
    d = mujoco.MjData(m)
    for _ in range(3000):
        mujoco.mj_step(m, d)
    with ContactProbe(m) as probe:
        probe.read(d)
    assert probe.deepest == pytest.approx(0.05 * G * timeconst**2, rel=1e-3)
    assert RADIUS - d.qpos[2] == pytest.approx(probe.deepest, rel=1e-6, abs=1e-7)


def test_each_geom_is_held_to_half_its_own_radius_at_most_20_mm():
    m = _ball(0.02, 0.5)
    probe = ContactProbe(m)
    ball = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "ball")
    plank = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "plank")
    assert probe.caps[ball] == CAP  # half of 50 mm is 25 mm: the 20 mm cap binds
    assert probe.caps[plank] == pytest.approx(0.015)
    assert probe.worst == -1 and probe.worst_ratio == 0.0 and probe.deepest == 0.0
    probe.depth[ball] = 0.010
    assert probe.worst_ratio == pytest.approx(0.5)

"""Joint limits (``sim.limits``): a clipped drive reaches the joint as
exactly its bound, on hinge, slide and ball joints; under the bound the
stepping is MuJoCo's own, bit for bit; the report counts what it saw; every
runner declares its limits and its rollouts report them."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

from gaitforge.errors import GaitforgeError
from gaitforge.sim.limits import JointLimits, Limiter, limits_of

# A floating base (body 1, the root: never limited) with a hinge arm, a
# slide and a ball joint, each on its own body.
XML = """
<mujoco>
  <option timestep="0.002" integrator="implicitfast"/>
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.1 0.1" mass="10"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0" stiffness="{k}" damping="{b}"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
      </body>
      <body name="piston" pos="-0.2 0 0">
        <joint name="slide" type="slide" axis="0 0 1" stiffness="{k}" damping="{b}"/>
        <geom type="sphere" size="0.03" mass="1"/>
      </body>
      <body name="head" pos="0 0 0.2">
        <joint name="ball" type="ball" stiffness="{k}" damping="{b}"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def model(k: float, b: float = 0.1) -> mujoco.MjModel:
    """The test creature with springs of stiffness ``k`` and dampers ``b``."""
    return mujoco.MjModel.from_xml_string(XML.format(k=k, b=b))


def test_limits_are_checked_where_they_enter():
    with pytest.raises(GaitforgeError, match=r"^joint limits: length must be positive, got 0$"):
        JointLimits(0)
    with pytest.raises(GaitforgeError, match=r"^joint limits: speed must be positive, got nan$"):
        JointLimits(1.0, speed=float("nan"))
    with pytest.raises(GaitforgeError, match=r"^joint_limits must be a JointLimits, got float$"):
        limits_of(type("C", (), {"joint_limits": 3.0})())
    assert limits_of(object()) is None


def test_bounds_are_multiples_of_the_weight():
    m = model(1.0)
    torque, force = JointLimits(0.5, torque=3.0, force=6.0).bounds(m)
    mg = 13.0 * 9.81  # 10 + 3 × 1 kg
    assert torque == pytest.approx(3.0 * mg * 0.5) and force == pytest.approx(6.0 * mg)


def _set_points(m: mujoco.MjModel, angle: float) -> None:
    """Spring set points far from the start: hinge and slide by ``angle``
    (rad, m), the ball turned by ``angle`` about x."""
    for name in ("hinge", "slide"):
        m.qpos_spring[m.joint(name).qposadr[0]] = angle
    a = m.joint("ball").qposadr[0]
    m.qpos_spring[a:a + 4] = (np.cos(angle / 2), np.sin(angle / 2), 0.0, 0.0)


def test_the_report_sees_the_demand_and_the_controller_keeps_its_torque():
    """The springs ask 200 N m (N) of joints bounded at 3.8 N m: the report
    gives the demand (spring plus the controller's own torque) over the
    bound, the joint, one clipped tick; the controller's ``qfrc_applied``
    is what it wrote once the tick is over."""
    m = model(200.0, 0.0)
    _set_points(m, 1.0)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    limits = JointLimits(0.01, torque=3.0, force=2.0)  # 3 m g L = 3.83 N m; 2 m g = 255 N, not reached
    torque, _ = limits.bounds(m)
    lim = Limiter(m, limits)
    h = m.joint("hinge").dofadr[0]
    d.qfrc_applied[h] = 1.0
    lim.step(m, d, 1)
    assert d.qfrc_applied[h] == 1.0 and np.count_nonzero(d.qfrc_applied) == 1
    report = lim.report()
    assert report.clipped == 1 and report.ticks == 1
    assert report.peak_torque == pytest.approx(201.0 / torque, rel=1e-9) and report.torque_joint == "hinge"


def test_a_clipped_step_is_a_step_under_constant_bounds():
    """An independent formulation: the same model with the springs removed
    and each joint driven by a constant force equal to its bound, in the
    spring's direction, takes the same step (the springs ask 5000 N m (N)
    of joints bounded at 3.8 N m and 64 N; a ball's torque keeps its
    direction, here its x axis)."""
    m = model(5000.0, 0.0)
    _set_points(m, 1.0)
    limits = JointLimits(0.01, torque=3.0, force=0.5)
    torque, force = limits.bounds(m)
    d = mujoco.MjData(m)
    lim = Limiter(m, limits)
    lim.step(m, d, 1)

    ref = model(0.0, 0.0)
    r = mujoco.MjData(ref)
    h, s, b = (ref.joint(n).dofadr[0] for n in ("hinge", "slide", "ball"))
    r.qfrc_applied[h], r.qfrc_applied[s] = torque, force
    r.qfrc_applied[b:b + 3] = (torque, 0.0, 0.0)
    mujoco.mj_step(ref, r)
    np.testing.assert_allclose(d.qacc, r.qacc, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(d.qvel, r.qvel, rtol=1e-12, atol=1e-12)
    report = lim.report()
    assert report.clipped == 1 and report.peak_torque == pytest.approx(5000.0 / torque)  # the hinge's demand


def test_under_the_bounds_the_steps_are_mujocos_own():
    m = model(5.0)
    _set_points(m, 0.3)
    a, b = mujoco.MjData(m), mujoco.MjData(m)
    lim = Limiter(m, JointLimits(1.0))
    h, bl = m.joint("hinge").dofadr[0], m.joint("ball").dofadr[0]
    fastest = 0.0  # rad/s: the fastest rotational joint at the start of any step
    for _ in range(50):
        lim.step(m, a, 3)
        for _ in range(3):
            fastest = max(fastest, abs(b.qvel[h]), float(np.linalg.norm(b.qvel[bl:bl + 3])))
            mujoco.mj_step(m, b)
    assert np.array_equal(a.qpos, b.qpos) and np.array_equal(a.qvel, b.qvel)
    report = lim.report()
    assert report.clipped == 0 and report.ticks == 50 and 0.0 < report.peak_torque < 1.0
    assert report.peak_speed == pytest.approx(fastest / 40.0, rel=1e-12) and fastest > 0.0
    assert "clipped in 0 of 50 ticks" in str(report)


@pytest.mark.parametrize("name", ["dog", "gorilla", "biped", "quadruped", "kangaroo"])
def test_every_runner_declares_and_reports_its_limits(name):
    """Each runner's controller carries its limits (L its leg length or hip
    height: between 0.3 and 1 m for these creatures) and a short run
    reports the peaks against them."""
    from gaitforge.control import registry as runners
    from gaitforge.control.ensembles import simulate_perturbed
    from gaitforge.sim.starts import QUIET

    e = runners.entry(name)  # its default gait
    lo, hi = e.speed_range
    _, rollout = simulate_perturbed(name, e.gait, 0.5 * (lo + hi), 2.0, QUIET, 0)
    report = rollout.limits
    assert report is not None and 0.3 < report.limits.length < 1.0
    assert report.limits.torque == 3.0 and report.limits.speed == 40.0
    assert 0.0 < report.peak_torque and 0.0 < report.peak_speed < 1.0
    assert report.ticks >= len(rollout.times) - 1  # every control tick counted (records are every tick or fewer)


# A fixed base (body 1) with a hinge arm and a ball-jointed arm, no springs,
# next to no gravity (the bounds are multiples of m g, so not none): only the
# controller's torque turns them, and they pass through each other.
FREE_ARMS = """
<mujoco>
  <option timestep="0.001" gravity="0 0 -0.01">
    <flag contact="disable"/>
  </option>
  <worldbody>
    <body name="base">
      <geom type="box" size="0.1 0.1 0.1" mass="10"/>
      <body name="arm" pos="0.2 0 0">
        <joint name="hinge" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" mass="1"/>
      </body>
      <body name="head" pos="0 0 0.2">
        <joint name="ball" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def _spin(speed_limit: float, torque: float, start: float = 0.0, seconds: float = 1.0) -> tuple[float, float]:
    """Hinge and ball (about y) driven by ``torque`` [N m] from ``start``
    [rad/s] for ``seconds`` under a ``speed_limit`` [rad/s] and a torque
    bound far above ``torque``: their final speeds [rad/s]."""
    m = mujoco.MjModel.from_xml_string(FREE_ARMS)
    d = mujoco.MjData(m)
    h, b = m.joint("hinge").dofadr[0], m.joint("ball").dofadr[0]
    d.qvel[h] = d.qvel[b + 1] = start
    limiter = Limiter(m, JointLimits(1.0, torque=1000.0, speed=speed_limit))  # 1000 × 11 kg × 0.01 m/s² × 1 m ≫ torque
    for _ in range(int(round(seconds / m.opt.timestep))):
        d.qfrc_applied[:] = 0.0
        d.qfrc_applied[h] = d.qfrc_applied[b + 1] = torque
        limiter.step(m, d, 1)
    return float(d.qvel[h]), float(d.qvel[b + 1])


def test_a_drive_cannot_push_a_joint_past_its_speed_limit():
    """2 N m on arms of ~0.03 kg m² would reach ~60 rad/s in a second; under
    a 5 rad/s limit the drive fades over the last 10 % and the joints stay
    at the limit, past it by at most one step of the drive's acceleration
    (the envelope is read at each step's start)."""
    free = _spin(1000.0, 2.0)
    assert min(free) > 30.0
    limited = _spin(5.0, 2.0)
    one_step = [w * 0.001 for w in free]  # free speed after 1 s × the 1 ms step: a step's gain [rad/s]
    assert all(4.9 < w <= 5.0 + g for w, g in zip(limited, one_step)), (limited, one_step)


def test_braking_is_never_reduced_by_the_speed_limit():
    """A joint already past its limit and driven against its motion slows
    as fast as without any speed limit: the envelope cuts only drive along
    the motion."""
    fast, limited = _spin(1000.0, -2.0, start=8.0, seconds=0.05), _spin(5.0, -2.0, start=8.0, seconds=0.05)
    assert limited == pytest.approx(fast, rel=1e-12)
    assert all(w < 8.0 for w in limited)

"""Unit tests of the RH91 control toolbox pieces."""
import numpy as np
import pytest

from gaitforge.control.raibert import (
    Phase, PhaseMachine, StanceTimer, foot_placement, hop_height, joint_servo, neutral_point,
    paw_pad_force, posture_torque, spring_force,
)
from gaitforge.control.raibert.scaling import EXPONENTS, factor
from gaitforge.control.raibert.toolbox import G, required_friction


def test_neutral_point_is_half_the_stance_sweep():
    # The body sweeps speed * T_s during stance; symmetric sweep: foot at its middle.
    assert neutral_point(2.0, 0.2) == pytest.approx(0.2)


def test_foot_placement_adds_speed_correction():
    assert foot_placement(2.0, 2.0, 0.2, 0.05) == pytest.approx(0.2)
    # Too fast: the foot goes further ahead to decelerate.
    assert foot_placement(2.5, 2.0, 0.2, 0.05) == pytest.approx(0.25 + 0.025)
    # Too slow: the foot lands nearer, accelerating the body.
    assert foot_placement(1.5, 2.0, 0.2, 0.05) < neutral_point(1.5, 0.2)
    np.testing.assert_allclose(foot_placement([1.0, 0.0], [1.0, 0.5], 0.2, 0.1), [0.1, -0.05])


def test_posture_servo_opposes_error_and_rate():
    assert posture_torque(0.1, 0.0, 0.0, 100.0, 10.0) == pytest.approx(-10.0)
    assert posture_torque(0.0, 1.0, 0.0, 100.0, 10.0) == pytest.approx(-10.0)
    assert posture_torque(0.1, 0.0, 0.1, 100.0, 10.0) == pytest.approx(0.0)


def test_joint_servo_is_spring_damper_with_programmable_rest():
    assert joint_servo(0.2, 0.0, 0.5, 10.0, 1.0) == pytest.approx(3.0)
    assert joint_servo(0.5, 2.0, 0.5, 10.0, 1.0) == pytest.approx(-2.0)


def test_spring_force_pushes_when_compressed():
    assert spring_force(0.45, 0.0, 0.5, 1000.0, 0.0) == pytest.approx(50.0)
    assert spring_force(0.5, -1.0, 0.5, 1000.0, 10.0) == pytest.approx(10.0)


def test_hop_height_energy_balance():
    # A mass at rest 0.5 m up with 10 J in the spring rises 10/(M g) above that.
    m = 2.0
    assert hop_height(10.0, 0.5, 0.0, m) == pytest.approx(0.5 + 10.0 / (m * G))
    # Kinetic energy of upward speed v adds v^2 / 2g.
    assert hop_height(0.0, 0.0, 0.5 * m * 3.0 ** 2, m) == pytest.approx(9.0 / (2 * G))


def test_paw_pad_is_zero_at_touchdown_and_stiffens():
    f = paw_pad_force(np.array([0.01, 0.0, -0.002, -0.004, -0.008]), 1000.0, 0.01)
    assert f[0] == 0.0 and f[1] == 0.0
    assert np.all(np.diff(f[1:]) > 0)
    # Stiffening: the local stiffness grows with depth.
    assert (f[4] - f[3]) / 0.004 > (f[3] - f[2]) / 0.002
    # Small depth: linear with slope k_gz / k_r.
    assert paw_pad_force(-1e-7, 1000.0, 0.01) == pytest.approx(1000.0 / 0.01 * 1e-7, rel=1e-4)


def test_required_friction():
    mu = required_friction(np.array([[3.0, 4.0], [1.0, 0.0]]), np.array([10.0, 0.1]))
    assert mu[0] == pytest.approx(0.5) and np.isnan(mu[1])


def test_phase_machine_runs_the_cycle_in_order():
    fsm = PhaseMachine()
    rest = 0.5
    ticks = [  # (touching, length, rate)
        (False, 0.5, 0.0), (True, 0.5, -0.5), (True, 0.49, -0.5), (True, 0.45, 0.0),
        (True, 0.46, 0.4), (True, 0.495, 0.5), (False, 0.5, 0.5),
    ]
    phases = [fsm.update(0.01 * i, *tick, rest) for i, tick in enumerate(ticks)]
    assert phases == [Phase.FLIGHT, Phase.LOADING, Phase.COMPRESSION, Phase.COMPRESSION,
                      Phase.THRUST, Phase.UNLOADING, Phase.FLIGHT]
    assert fsm.steps == 1
    assert [p for _, p in fsm.history] == [Phase.LOADING, Phase.COMPRESSION, Phase.THRUST,
                                         Phase.UNLOADING, Phase.FLIGHT]


def test_phase_machine_returns_to_flight_on_early_liftoff():
    fsm = PhaseMachine()
    fsm.update(0.0, True, 0.5, -0.1, 0.5)
    assert fsm.update(0.01, False, 0.5, 0.0, 0.5) is Phase.FLIGHT
    assert fsm.steps == 1


def test_stance_timer_predicts_last_stance():
    timer = StanceTimer(default=0.2)
    assert timer.predicted_stance == 0.2
    timer.touchdown(1.0)
    timer.liftoff(1.12)
    assert timer.predicted_stance == pytest.approx(0.12)
    timer.touchdown(1.40)
    assert timer.last_flight == pytest.approx(0.28)


def test_scaling_table_consistency():
    L = 2.0
    # Derived rows follow from the basic ones: velocity = length / time, etc.
    assert factor("velocity", L) == pytest.approx(factor("length", L) / factor("time", L))
    assert factor("mass", L) == pytest.approx(factor("force", L) / factor("acceleration", L))
    assert factor("stiffness", L) == pytest.approx(factor("force", L) / factor("length", L))
    assert factor("torsional_stiffness", L) == pytest.approx(factor("torque", L))
    assert factor("inertia", L) == pytest.approx(factor("mass", L) * factor("length", L) ** 2)
    assert factor("damping", L) == pytest.approx(factor("force", L) / factor("velocity", L))
    assert set(EXPONENTS) >= {"mass", "inertia", "torsional_damping"}
    with pytest.raises(KeyError):
        factor("charm", L)

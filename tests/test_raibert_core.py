"""The control core (gaitforge.control.core): declarative layouts, the one
phase rule, the laws every controller's tick calls, rotations; and the
controllers built on them (their kernels name the core's functions)."""
import math

import numpy as np
import pytest

from gaitforge.control.core import G, InternalError, laws
from gaitforge.control.core.layout import Field, Layout
from gaitforge.control.core.phase import COMPRESSION, FLIGHT, LOADING, THRUST, UNLOADING, next_phase
from gaitforge.control.core.rotations import quat_to_mat, roll_pitch_yaw
from gaitforge.control.raibert import catalog
from gaitforge.control.raibert.biped import kernel as biped_kernel
from gaitforge.control.raibert.biped import servo as biped_servo
from gaitforge.control.raibert.kangaroo import kernel as kangaroo_kernel
from gaitforge.control.raibert.quadruped import kernel as quadruped_kernel
from gaitforge.control.raibert import toolbox
from gaitforge.control.raibert.quadruped import tick as quadruped_tick
from gaitforge.control.raibert.fsm import Phase, PhaseMachine
from gaitforge.errors import GaitforgeError


def test_layout_offsets_follow_the_fields_in_order():
    lay = Layout("demo", [Field("k_x", unit="s"), Field("rest", 2, unit="m"), "phase", Field("n", kind=int)])
    assert (lay["k_x"], lay["rest"], lay["phase"], lay["n"], lay.size) == (0, 1, 3, 4, 5)
    s = lay.new()
    lay.set(s, "rest", [0.5, -0.25])
    lay.set(s, "n", 3)
    assert lay.get(s, "n") == 3 and isinstance(lay.get(s, "n"), int)
    assert lay.as_dict(s) == {"k_x": 0.0, "rest": [0.5, -0.25], "phase": 0.0, "n": 3}
    lay.get(s, "rest")[1] = 7.0  # a live view
    assert s[2] == 7.0


def test_layout_mistakes_are_internal_errors():
    with pytest.raises(InternalError, match=r"^layout demo: field 'a' twice$"):
        Layout("demo", ["a", "a"])
    with pytest.raises(InternalError, match=r"^layout demo: field 'b' has size 0, kind <class 'float'>$"):
        Layout("demo", [Field("b", 0)])
    with pytest.raises(InternalError, match=r"^layout demo has no field 'c'$"):
        Layout("demo", ["a"])["c"]
    with pytest.raises(InternalError, match=r"^layout demo: state array \(3,\) float64, expected \(1,\) float64$"):
        Layout("demo", ["a"]).check(np.zeros(3))
    assert not issubclass(InternalError, GaitforgeError)  # a bug, not a user error (no CLI exit 2)


@pytest.mark.parametrize("module, layouts", [(biped_kernel, {"": "LAYOUT"}),
                                             (quadruped_kernel, {"F_": "F_LAYOUT", "I_": "I_LAYOUT"}),
                                             (kangaroo_kernel, {"": "S_LAYOUT", "ix": "IX_LAYOUT"})])
def test_every_controller_names_its_state_by_a_layout(module, layouts):
    for prefix, name in layouts.items():
        lay = getattr(module, name)
        for field in lay.fields:
            assert getattr(module, (prefix if prefix != "ix" else "") + field.upper()) == lay[field], field


def test_phase_rule_is_fig4():
    assert next_phase(FLIGHT, True, 0.8, 0.0, 0.8, 0.01, 0.98) == LOADING
    assert next_phase(FLIGHT, False, 0.8, 0.0, 0.8, 0.01, 0.98) == FLIGHT
    assert next_phase(LOADING, True, 0.795, 0.0, 0.8, 0.01, 0.98) == LOADING
    assert next_phase(LOADING, True, 0.78, -1.0, 0.8, 0.01, 0.98) == COMPRESSION
    assert next_phase(COMPRESSION, True, 0.7, 0.5, 0.8, 0.01, 0.98) == THRUST
    assert next_phase(THRUST, True, 0.79, 0.5, 0.8, 0.01, 0.98) == UNLOADING
    for ph in (LOADING, COMPRESSION, THRUST, UNLOADING):
        assert next_phase(ph, False, 0.8, 0.0, 0.8, 0.01, 0.98) == FLIGHT


def test_every_tick_and_the_phase_machine_share_the_rule():
    assert biped_kernel.next_phase is next_phase and kangaroo_kernel.next_phase is next_phase
    assert quadruped_tick.next_phase is next_phase
    fsm = PhaseMachine(compress_eps=0.01)
    assert [fsm.update(0.1 * i, *a) for i, a in enumerate(
        [(True, 0.8, 0.0, 0.8), (True, 0.7, -1.0, 0.8), (True, 0.7, 1.0, 0.8), (True, 0.8, 1.0, 0.8),
         (False, 0.8, 1.0, 0.8)])] == [Phase.LOADING, Phase.COMPRESSION, Phase.THRUST, Phase.UNLOADING, Phase.FLIGHT]
    assert fsm.steps == 1


def test_the_controllers_call_the_laws_the_toolbox_tests():
    assert toolbox.foot_placement.law is laws.foot_placement and toolbox.posture_torque.law is laws.posture_torque
    assert quadruped_kernel.foot_placement is laws.foot_placement is kangaroo_kernel.foot_placement
    assert quadruped_kernel.posture_torque is laws.posture_torque is kangaroo_kernel.posture_torque
    assert biped_servo.spring_force is laws.spring_force and biped_servo.foot_point is laws.foot_point
    assert biped_kernel.hop_height is laws.hop_height and toolbox.G == G == 9.81
    # Eq. 3 from an origin adds in the written order; from 0 it is foot_placement.
    assert laws.foot_point(1.0, 2.0, 1.5, 0.2, 0.1) == 1.0 + 2.0 * 0.2 / 2.0 + 0.1 * (2.0 - 1.5)
    assert laws.foot_placement(2.0, 1.5, 0.2, 0.1, 0.25) == pytest.approx(0.2 + 0.1 * 0.25)
    assert toolbox.paw_pad_force(-0.5, 150.0, 0.01) == pytest.approx(150.0 * (0.01 / (0.01 - 0.00999) - 1.0))


def test_rotations():
    h = 0.3
    R = np.array(quat_to_mat(math.cos(h / 2), 0.0, 0.0, math.sin(h / 2))).reshape(3, 3)
    np.testing.assert_allclose(R, [[math.cos(h), -math.sin(h), 0], [math.sin(h), math.cos(h), 0], [0, 0, 1]],
                               atol=1e-15)
    a = 0.2  # pitch about y
    R = quat_to_mat(math.cos(a / 2), 0.0, math.sin(a / 2), 0.0)
    assert roll_pitch_yaw(R) == pytest.approx((0.0, a, 0.0))


def test_unknown_gaits_are_unknown_names_everywhere():
    from gaitforge.errors import UnknownNameError
    for key in catalog.RUNNERS:
        with pytest.raises(UnknownNameError, match=rf"^{key} has no gait 'moonwalk' \(valid gaits: "):
            catalog.prepare(key, "moonwalk", 1.0)

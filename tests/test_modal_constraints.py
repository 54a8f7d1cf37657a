"""Constraints of the modal analysis: parsing, Jacobians against finite
differences, DOF counts, redundancy, and the errors users can cause."""
from __future__ import annotations

import warnings

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import Character, Constraint, build_builtin
from gaitforge.errors import GaitforgeError, SpecError, UnknownNameError
from gaitforge.modal import compute_modes, parse_constraint
from gaitforge.modal.constraints import anchor_all, constraint_jacobian, constraint_violation
from modal_specs import blob, quadruped, zoo

WORM = Character.from_spec(build_builtin("worm"))
LOOP = Character.from_spec(build_builtin("loop"))
ZOO = Character.from_spec(zoo("free"))
QUAD = Character.from_spec(quadruped())
WORM_BODIES = ", ".join(f"link{i}" for i in range(16))


def _dofs(basis) -> int:
    return basis.n_rigid + basis.count


def _strict(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return fn(*args, **kwargs)


# ---------------------------------------------------------------- parsing
def test_parse_by_name_and_default_points():
    pin = parse_constraint("pin:shin", ZOO)
    assert (pin.name, pin.kind, pin.bone, pin.other, pin.axis) == ("pin:shin", "pin", "shin", None, None)
    np.testing.assert_allclose(pin.point, (0.01, 0.0, -0.2))  # mean of the shin's two contact sites
    assert parse_constraint("pin:trunk", ZOO).point == (0.0, 0.0, 0.0)  # no sites: the bone origin
    lock = parse_constraint("lock:head", ZOO)
    assert (lock.kind, lock.bone, lock.point) == ("lock", "head", (0.0, 0.0, 0.0))


def test_parse_loop_default_point_is_midway_between_the_bodies():
    c = parse_constraint("loop:hand:shin", ZOO)
    assert (c.bone, c.other, c.axis) == ("hand", "shin", None)
    ends = ZOO.world_points(ZOO.rest_qpos, ["hand", "shin"], [(0, 0, -0.02), (0.01, 0, -0.2)])  # their sites
    mid = ZOO.world_points(ZOO.rest_qpos, ["hand"], [c.point])[0]
    np.testing.assert_allclose(mid, ends.mean(axis=0), atol=1e-12)


def test_parse_explicit_point_and_axis_and_labels():
    c = parse_constraint("loop:head:shin@0.1,0,0~0,1,0", ZOO)
    assert (c.point, c.axis) == ((0.1, 0.0, 0.0), (0.0, 1.0, 0.0))
    assert parse_constraint("pin:ankle/left", QUAD).bone == "left_shin"
    assert parse_constraint("lock:left/shoulder/front", QUAD).bone == "left_arm"


@pytest.mark.parametrize("text,error,message", [
    ("pin", GaitforgeError, "bad constraint 'pin': expected KIND:BODY[:OTHER][@X,Y,Z][~AX,AY,AZ], "
                            "e.g. pin:left_foot, lock:head, loop:left_hand:right_hand"),
    ("glue:head", GaitforgeError, "unknown constraint kind 'glue' in 'glue:head' (choose from lock, loop, pin)"),
    ("pin:nose", UnknownNameError, f"unknown body 'nose' in worm (valid bodies: {WORM_BODIES})"),
    ("loop:link0", GaitforgeError, "a loop constraint takes two bodies, got 1 in 'loop:link0'"),
    ("pin:link0:link1", GaitforgeError, "a pin constraint takes one body, got 2 in 'pin:link0:link1'"),
    ("loop:link3:link3", GaitforgeError, "a loop needs two different bodies, got 'link3' twice in 'loop:link3:link3'"),
    ("pin:link0~0,1,0", GaitforgeError, "an axis (~AX,AY,AZ) applies to loop constraints only, got 'pin:link0~0,1,0'"),
    ("lock:link0@1,2,3", GaitforgeError, "a lock constraint has no point, got 'lock:link0@1,2,3'"),
    ("pin:link0@1,2", GaitforgeError, "bad point '1,2' in constraint 'pin:link0@1,2': expected three numbers x,y,z"),
    ("loop:link0:link9~0,0,0", GaitforgeError, "bad axis '0,0,0' in constraint 'loop:link0:link9~0,0,0': "
                                               "must be a nonzero vector"),
    ("pin:foot/left", UnknownNameError, f"no body of worm is labeled 'foot/left' (valid bodies: {WORM_BODIES})"),
    ("pin:foot/elbow", UnknownNameError, "unknown body 'foot/elbow' in worm: a label is role/side[/limb], "
                                         f"e.g. foot/left/front (valid bodies: {WORM_BODIES})"),
    ("pin:trunk/center", UnknownNameError, "label 'trunk/center' matches several bodies of worm "
                                           "(link1, link2, link3, link4, link5, link6, link7, link8, link9, "
                                           "link10, link11, link12, link13, link14); name one of them"),
])
def test_parse_errors(text, error, message):
    with pytest.raises(error) as err:
        parse_constraint(text, WORM)
    assert str(err.value) == message


def test_constraint_objects_naming_unknown_bodies_are_rejected():
    with pytest.raises(UnknownNameError) as err:
        compute_modes(WORM, constraints=[Constraint("hold", "loop", "link0", other="tail")])
    assert str(err.value) == f"unknown body 'tail' in worm (valid bodies: {WORM_BODIES})"
    with pytest.raises(SpecError) as err:
        compute_modes(WORM, constraints=[Constraint("hold", "loop", "link0")])
    assert str(err.value) == "constraints[0].other: a loop constraint needs the other bone"


# ------------------------------------------------------- Jacobians by FD
CASES = ["pin:shin", "lock:head", "loop:hand:shin", "loop:head:tail@0.05,0.02,0~0.2,1,0.1", "pin:trunk@0.1,0.05,0"]


def _violation(ch, anchors, q):
    d = mujoco.MjData(ch.model)
    d.qpos[:] = q
    mujoco.mj_kinematics(ch.model, d)
    return constraint_violation(ch.model, d, anchors)


def _jacobian(ch, anchors, q):
    d = mujoco.MjData(ch.model)
    d.qpos[:] = q
    mujoco.mj_kinematics(ch.model, d)
    mujoco.mj_comPos(ch.model, d)
    return constraint_jacobian(ch.model, d, anchors)


def _displaced(ch, v):
    q = ch.rest_qpos.copy()
    mujoco.mj_integratePos(ch.model, q, v, 1.0)
    return q


@pytest.mark.parametrize("text,at_rest", [(t, True) for t in CASES] + [(t, False) for t in CASES if t[:4] != "lock"])
def test_constraint_jacobian_matches_finite_differences(text, at_rest):
    """Central differences of g along random tangent directions (mj_integratePos)
    against G·v, at rest and at a displaced pose. The lock's rows (angular
    velocity) are the derivative of its rotation-vector violation only at rest."""
    ch = ZOO
    anchors = anchor_all(ch, ch.make_data(), [parse_constraint(text, ch)])
    rng = np.random.default_rng(7)
    q0 = ch.rest_qpos.copy() if at_rest else _displaced(ch, 0.2 * rng.standard_normal(ch.nv))
    if at_rest:
        assert np.abs(_violation(ch, anchors, q0)).max() < 1e-12
    G = _jacobian(ch, anchors, q0)
    h = 1e-6
    for _ in range(5):
        v = rng.standard_normal(ch.nv)
        qp, qm = q0.copy(), q0.copy()
        mujoco.mj_integratePos(ch.model, qp, v, h)
        mujoco.mj_integratePos(ch.model, qm, v, -h)
        fd = (_violation(ch, anchors, qp) - _violation(ch, anchors, qm)) / (2 * h)
        np.testing.assert_allclose(fd, G @ v, atol=1e-7 * max(1.0, np.abs(G @ v).max()))


def test_loop_closure_rows_of_the_loop_creature():
    d = LOOP.make_data()
    anchors = anchor_all(LOOP, d, LOOP.constraints)
    G = constraint_jacobian(LOOP.model, d, anchors)
    assert G.shape == (5, 21)
    assert np.linalg.matrix_rank(G, tol=1e-9 * np.abs(G).max()) == 2  # a planar ring can only open in its plane
    assert np.abs(constraint_violation(LOOP.model, d, anchors)).max() < 1e-12


# -------------------------------------------------------------- DOF counts
@pytest.mark.parametrize("constraints,dofs,rigid", [
    ((), 21, 6), (("pin:link0",), 18, 3), (("lock:link0",), 18, 3), (("pin:link0", "lock:link0"), 15, 0),
    (("pin:link0", "pin:link15@0,0,0.01"), 15, 1), (("lock:link3", "pin:link12@0.05,0,0"), 15, 0),
])
@pytest.mark.parametrize("method", ["generalized", "full"])
def test_constraints_remove_the_right_number_of_dofs(constraints, dofs, rigid, method):
    basis = _strict(compute_modes, WORM, constraints=constraints, method=method)
    assert (_dofs(basis), basis.n_rigid) == (dofs, rigid)


def test_own_closure_always_applies_without_warnings():
    basis = _strict(compute_modes, LOOP, constraints=["pin:link4"])
    assert _dofs(basis) == 16 and [c.name for c in basis.constraints] == ["closure", "pin:link4"]


def test_planar_root_with_a_pin_keeps_one_rigid_rotation():
    """Out-of-plane rows of a 3-D constraint on a planar creature are redundant."""
    ch = Character.from_spec(zoo("planar"))
    with pytest.warns(UserWarning) as record:
        basis = compute_modes(ch, constraints=["pin:trunk"])
    assert [str(r.message) for r in record] == [
        "zoo_planar: the constraints (pin:trunk) are partly redundant: their 3 rows remove only 2 degrees of "
        "freedom; 12 of 14 remain"]
    assert (_dofs(basis), basis.n_rigid) == (12, 1)


# ------------------------------------------------------------- bad input
@pytest.mark.parametrize("method", ["generalized", "full"])
def test_redundant_rows_warn_with_the_dofs_left(method):
    """A ball closure on the axis of the straight (planar) worm can only be
    violated along z; two pins on that axis cannot be pulled apart to first order."""
    with pytest.warns(UserWarning) as record:
        basis = compute_modes(WORM, constraints=["loop:link0:link15"], method=method)
    assert [str(r.message) for r in record] == [
        "worm: the constraints (loop:link0:link15) are partly redundant: their 3 rows remove only 1 degrees "
        "of freedom; 20 of 21 remain"]
    assert _dofs(basis) == 20
    with pytest.warns(UserWarning) as record:
        basis = compute_modes(WORM, constraints=["pin:link0", "pin:link15"], method=method)
    assert [str(r.message) for r in record] == [
        "worm: the constraints (pin:link0, pin:link15) are partly redundant: their 6 rows remove only 5 degrees "
        "of freedom; 16 of 21 remain"]
    assert (_dofs(basis), basis.n_rigid) == (16, 1)
    with pytest.warns(UserWarning, match=r"^worm: the constraints \(pin:link2, pin:link2\) are partly redundant: "
                                         r"their 6 rows remove only 3 degrees of freedom; 18 of 21 remain$"):
        assert _dofs(compute_modes(WORM, constraints=["pin:link2", "pin:link2"], method=method)) == 18


@pytest.mark.parametrize("method", ["generalized", "full"])
def test_no_dofs_left_is_an_error(method):
    ch = Character.from_spec(blob())
    with pytest.raises(GaitforgeError) as err:
        compute_modes(ch, constraints=["pin:body", "lock:body"], method=method)
    assert str(err.value) == ("blob: the constraints (pin:body, lock:body) remove all 6 degrees of freedom; "
                              "nothing is left to vibrate")


@pytest.mark.parametrize("method", ["generalized", "full"])
def test_massless_bodies_are_named(method):
    ch = Character.from_spec(build_builtin("worm"))
    for name in ("link14", "link15"):
        ch.model.body_mass[ch.body_id(name)] = 0.0
        ch.model.body_inertia[ch.body_id(name)] = 0.0
    with pytest.raises(GaitforgeError) as err:
        compute_modes(ch, method=method)
    assert str(err.value) == ("worm: the mass matrix is singular: these bodies move without mass or inertia: "
                              "link14 (0 kg), link15 (0 kg); give them mass, or constrain or remove them")

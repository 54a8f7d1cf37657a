"""Mode descriptions: mirror symmetry, regions, feet, knees and names on creatures with known modes."""
import math

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.builders.kit import box, capsule
from gaitforge.creatures.character import Character
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Joint
from gaitforge.errors import GaitforgeError
from gaitforge.modal import compute_modes, mirror_matrix
from gaitforge.modal.describe import ANTISYMMETRIC, NO_MIRROR, SYMMETRIC, describe_modes, regions


def _table(hip_axis=(0, 1, 0), hip="hinge", asymmetric=False):
    """A box trunk on four two-segment legs (hip, knee), feet with contact points.
    Hinges about y: every mode lies in the sagittal plane."""
    trunk = Bone("trunk", None, (box((0.3, 0.12, 0.05)),), Joint("free"), pos=(0, 0, 0.5), role="trunk")
    bones, contacts = [trunk], []
    for limb, x in (("front", 0.25), ("rear", -0.25)):
        for side, sign in (("left", 1.0), ("right", -1.0)):
            y = 0.12 * sign + (0.02 if asymmetric and limb == "front" and side == "left" else 0.0)
            thigh, shin = f"{limb}_{side}_thigh", f"{limb}_{side}_shin"
            k = 12.0 if limb == "front" else 18.0
            bones.append(Bone(thigh, "trunk", (capsule((0, 0, 0), (0, 0, -0.2), 0.03),),
                              Joint(hip, axis=hip_axis, stiffness=k), pos=(x, y, -0.05),
                              side=side, limb=limb, role="hip"))
            bones.append(Bone(shin, thigh, (capsule((0, 0, 0), (0, 0, -0.2), 0.025),),
                              Joint("hinge", axis=(0, 1, 0), stiffness=0.6 * k), pos=(0, 0, -0.2),
                              side=side, limb=limb, role="knee"))
            contacts.append(ContactPoint(f"{limb}_{side}_sole", shin, (0, 0, -0.225)))
    return Character.from_spec(CreatureSpec("table", tuple(bones), contacts=tuple(contacts)))


def _pair(axis):
    """Two boxes joined by one hinge about ``axis``: a single elastic mode."""
    a = Bone("a", None, (box((0.1, 0.05, 0.05), pos=(0.1, 0, 0)),), Joint("free"), role="trunk")
    b = Bone("b", "a", (box((0.1, 0.05, 0.05), pos=(0.1, 0, 0)),), Joint("hinge", axis=axis, stiffness=5.0),
             pos=(0.2, 0, 0), role="trunk")
    return Character.from_spec(CreatureSpec("pair", (a, b)))


def _site_world(c, qpos, site):
    d = c.make_data(qpos)
    return d.site_xpos[c.contacts[site]].copy()


def test_table_modes_split_into_mirror_classes_with_feet_and_knees():
    c = _table()
    basis = compute_modes(c)
    descs = describe_modes(c, basis)
    assert len(descs) == 8
    assert sorted(d.symmetry for d in descs) == [ANTISYMMETRIC] * 4 + [SYMMETRIC] * 4
    for d in descs:
        share = d.symmetric_share
        assert share == pytest.approx(1.0, abs=1e-9) or share == pytest.approx(0.0, abs=1e-9)
        if d.symmetry == SYMMETRIC:  # hinges about y; opposed legs also yaw the trunk
            assert d.sagittal_share == pytest.approx(1.0, abs=1e-9)
        assert sum(d.motion_share.values()) == pytest.approx(1.0)
        assert sum(d.bend_share.values()) == pytest.approx(1.0)
        feet = {(f.side, f.limb): f for f in d.feet}
        sign = 1.0 if d.symmetry == SYMMETRIC else -1.0
        for limb in ("front", "rear"):
            left, right = feet[("left", limb)], feet[("right", limb)]
            assert right.forward == pytest.approx(sign * left.forward, abs=1e-9)
            assert right.vertical == pytest.approx(sign * left.vertical, abs=1e-9)
        for key, cosine in d.phases.items():
            if key.startswith("left/right"):
                assert cosine == pytest.approx(sign, abs=1e-9)
    assert any(d.name == "alternating legs" for d in descs)
    assert set(regions(c).values()) == {"spine", "front left leg", "front right leg", "rear left leg",
                                        "rear right leg"}


def test_foot_motion_and_knee_bend_match_finite_differences():
    c = _table()
    basis = compute_modes(c)
    descs = describe_modes(c, basis)
    eps = 1e-6
    for i in (0, 3, 7):
        e = np.zeros(basis.shapes.shape[1])
        e[i] = eps
        for f in descs[i].feet:
            site = f"{f.limb}_{f.side}_sole"
            fd = (_site_world(c, basis.displace(e), site) - _site_world(c, basis.displace(-e), site)) / (2 * eps)
            np.testing.assert_allclose([f.forward, f.lateral, f.vertical], fd, atol=1e-6)
        for knee, bend in descs[i].knee_bend.items():
            # A knee hinge about +y: the bend is the hinge coordinate of the mode.
            assert bend == pytest.approx(basis.shapes[c.joints[knee].dof.start, i], abs=1e-12)


@pytest.mark.parametrize("hip", ["ball", "hinge_x"])
def test_the_mirror_map_reflects_the_motion(hip):
    """The symmetry classes rest on Π: Π u moves every body like the reflection
    of what u moves (to first order)."""
    c = _table(hip_axis=(1, 0, 0), hip="hinge") if hip == "hinge_x" else _table(hip="ball")
    d = c.make_data()
    Pi = mirror_matrix(c)
    np.testing.assert_allclose(Pi @ Pi, np.eye(c.nv), atol=1e-9)
    M = np.zeros((c.nv, c.nv))
    mujoco.mj_fullM(c.model, d, M)
    np.testing.assert_allclose(Pi.T @ M @ Pi, M, atol=1e-9)
    rng = np.random.default_rng(7)
    u = rng.normal(size=c.nv) * 1e-4
    q1, q2 = c.rest_qpos.copy(), c.rest_qpos.copy()
    mujoco.mj_integratePos(c.model, q1, u, 1.0)
    mujoco.mj_integratePos(c.model, q2, Pi @ u, 1.0)
    rest, p1, p2 = (c.make_data(q).xpos[1:] for q in (c.rest_qpos, q1, q2))
    partner = [c.body_id(n.replace("left", "#").replace("right", "left").replace("#", "right")) - 1
               for n in c.labels]
    reflect = np.array([1.0, -1.0, 1.0])
    np.testing.assert_allclose((p2 - rest)[partner], (p1 - rest) * reflect, atol=1e-7)
    if hip == "hinge_x":  # a roll hinge maps to minus its partner's coordinate
        left, right = c.joints["front_left_thigh"].dof.start, c.joints["front_right_thigh"].dof.start
        assert Pi[right, left] == pytest.approx(-1.0)
    # The free root: linear y and angular x, z flip.
    np.testing.assert_allclose(np.diag(Pi)[:6], [1, -1, 1, -1, 1, -1], atol=1e-12)


@pytest.mark.parametrize("axis, symmetry, name", [((0, 1, 0), SYMMETRIC, "bending 1"),
                                                   ((1, 0, 0), ANTISYMMETRIC, "twist 1"),
                                                   ((0, 0, 1), ANTISYMMETRIC, "lateral bending 1")])
def test_single_hinge_mode_is_named_after_its_axis(axis, symmetry, name):
    c = _pair(axis)
    (d,) = describe_modes(c, compute_modes(c))
    assert (d.symmetry, d.name) == (symmetry, name)
    expected = np.zeros(3)
    expected[int(np.argmax(np.abs(axis)))] = 1.0
    np.testing.assert_allclose(d.axis_share, expected, atol=1e-9)
    assert d.sagittal_share == pytest.approx(1.0 if symmetry == SYMMETRIC else 0.0, abs=1e-9)


def test_worm_bends_with_one_more_node_per_mode():
    c = Character.from_spec(registry.build("worm"))
    descs = describe_modes(c, compute_modes(c, count=6))
    assert [d.name for d in descs] == [f"bending {n}" for n in range(1, 7)]
    assert all(d.symmetry == SYMMETRIC for d in descs)
    assert {r for d in descs for r in d.motion_share} == {"head", "spine", "tail"}
    assert all(d.feet == () and d.phases == {} for d in descs)


def test_loop_modes_come_in_pairs_of_equal_wave_number():
    c = Character.from_spec(registry.build("loop"))
    names = [d.name for d in describe_modes(c, compute_modes(c, count=4))]
    assert names[0] == names[1] and names[0].startswith("bending ")
    assert int(names[2].split()[1]) > int(names[0].split()[1])


def test_a_lopsided_creature_has_no_mirror():
    c = _table(asymmetric=True)
    descs = describe_modes(c, compute_modes(c, count=3))
    with pytest.raises(GaitforgeError):
        mirror_matrix(c)
    assert all(d.symmetry == NO_MIRROR and math.isnan(d.symmetric_share) for d in descs)
    assert descs[0].to_dict()["symmetric_share"] is None


def test_dog_has_bounding_and_alternating_legs_among_its_first_modes():
    c = Character.from_spec(registry.build("dog"))
    descs = describe_modes(c, compute_modes(c, count=8))
    by_name = {d.name: d for d in descs}
    assert by_name["bounding"].symmetry == SYMMETRIC
    assert by_name["alternating legs"].symmetry == ANTISYMMETRIC
    assert by_name["alternating legs"].phases["left/right front"] < -0.5 or \
        by_name["alternating legs"].phases["left/right rear"] < -0.5
    assert all(d.symmetry != NO_MIRROR for d in descs)

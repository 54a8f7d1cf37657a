"""The dog builder: DOFs, proportions, labels, symmetry, support and a passive stand."""
import math

import mujoco
import numpy as np
import pytest

from gaitforge.creatures.builders.dog import DAMPING_TIME, KRY09_STIFFNESS, STIFFNESS_SCALE, dog
from gaitforge.creatures.character import Character
from gaitforge.creatures.serialize import spec_from_dict, spec_to_dict
from gaitforge.io.spec_files import dump_spec, parse_spec_text

FEET = ("front_left_foot", "front_right_foot", "rear_left_foot", "rear_right_foot")
LEG_ROLES = {"shoulder", "elbow", "wrist", "hip", "knee", "ankle", "foot", "toe"}


@pytest.fixture(scope="module")
def spec():
    return dog()


@pytest.fixture(scope="module")
def ch(spec):
    return Character.from_spec(spec)


def _top_z(model, data, body: str) -> float:
    """Highest point [m] of the geoms of ``body`` (capsules and ellipsoids exactly)."""
    top = -math.inf
    for g in np.flatnonzero(model.geom_bodyid == model.body(body).id):
        R, size, z = data.geom_xmat[g].reshape(3, 3), model.geom_size[g], data.geom_xpos[g][2]
        if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE:
            reach = abs(R[2, 2]) * size[1] + size[0]
        elif model.geom_type[g] == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
            reach = float(np.linalg.norm(R[2, :] * size))
        else:
            raise AssertionError(f"unexpected geom type on {body}")
        top = max(top, z + reach)
    return top


def _joint_deviation(ch, qpos) -> dict[str, float]:
    """Angle [rad] of every hinge and ball joint away from the rest pose."""
    out = {}
    for name, j in ch.joints.items():
        if j.kind == "ball":
            dq = np.zeros(3)
            mujoco.mju_subQuat(dq, qpos[j.qpos], ch.rest_qpos[j.qpos])
            out[name] = float(np.linalg.norm(dq))
        elif j.kind == "hinge":
            out[name] = abs(float(qpos[j.qpos][0] - ch.rest_qpos[j.qpos][0]))
    return out


def _stand(ch, seconds=2.0):
    m = ch.model
    d = ch.make_data()
    for _ in range(int(round(seconds / m.opt.timestep))):
        mujoco.mj_step(m, d)
    return d


def test_dof_count(spec, ch):
    kinds = [b.joint.type for b in spec.bones]
    assert kinds.count("free") == 1 and kinds.count("ball") == 22 and kinds.count("hinge") == 8
    assert ch.nv == 6 + 3 * 22 + 8 == 80
    assert len(spec.bones) == 31


def test_mass_in_range(spec, ch):
    assert 25.0 <= ch.mass <= 35.0
    assert ch.mass == pytest.approx(sum(b.mass for b in spec.bones), rel=1e-12)
    assert ch.mass == pytest.approx(31.37, abs=1e-9)


def test_shoulder_height_and_ground(ch):
    d = ch.make_data()
    withers = _top_z(ch.model, d, "chest")
    assert 0.55 <= withers <= 0.65
    assert withers == pytest.approx(0.60, abs=1e-9)
    assert ch.extent()[0] == pytest.approx(0.0, abs=1e-9)  # ground_clearance 0: paws on the ground
    # The chest is deeper than the belly: the brisket hangs lower than the loin.
    assert ch.extent()[1] > withers  # the head is carried above the withers
    bottoms = {}
    for body in ("chest", "spine3"):
        m, ids = ch.model, np.flatnonzero(ch.model.geom_bodyid == ch.model.body(body).id)
        bottoms[body] = min(d.geom_xpos[g][2] - np.linalg.norm(d.geom_xmat[g].reshape(3, 3)[2, :] * m.geom_size[g])
                            for g in ids if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_ELLIPSOID)
    assert bottoms["spine3"] - bottoms["chest"] > 0.08


def test_left_right_mirror_symmetry(spec, ch):
    d = ch.make_data()
    left = [b.name for b in spec.bones if b.side == "left"]
    assert len(left) == 8
    for name in left:
        twin = name.replace("_left_", "_right_")
        assert spec.bone(twin).side == "right"
        i, j = ch.model.body(name).id, ch.model.body(twin).id
        assert ch.model.body_mass[i] == pytest.approx(ch.model.body_mass[j], rel=1e-9)
        np.testing.assert_allclose(ch.model.body_inertia[i], ch.model.body_inertia[j], rtol=1e-9)
        np.testing.assert_allclose(d.xipos[i] * [1, -1, 1], d.xipos[j], atol=1e-12)
        # Every shape is the reflection of its twin: position y -> -y, orientation S R S.
        S = np.diag([1.0, -1.0, 1.0])
        gi = np.flatnonzero(ch.model.geom_bodyid == i)
        gj = np.flatnonzero(ch.model.geom_bodyid == j)
        assert len(gi) == len(gj)
        for a, b in zip(gi, gj):
            np.testing.assert_allclose(ch.model.geom_size[a], ch.model.geom_size[b], rtol=1e-12)
            np.testing.assert_allclose(S @ d.geom_xpos[a], d.geom_xpos[b], atol=1e-12)
            Ra, Rb = d.geom_xmat[a].reshape(3, 3), d.geom_xmat[b].reshape(3, 3)
            # Symmetric shapes: compare the axes up to sign (a capsule's axis may flip).
            np.testing.assert_allclose(np.abs(S @ Ra @ S), np.abs(Rb), atol=1e-9)
    # Centre bones lie on the sagittal plane, so the whole dog balances left-right.
    assert abs(ch.com()[1]) < 1e-12


def test_labels(spec):
    for b in spec.bones:
        assert b.role is not None, b.name
        if b.side == "center":
            assert b.limb is None and b.role not in LEG_ROLES, b.name
        else:
            assert b.limb in ("front", "rear") and b.name.startswith(f"{b.limb}_{b.side}_"), b.name
            assert b.role in LEG_ROLES, b.name
    roles = {(b.limb, b.role) for b in spec.bones if b.side == "left"}
    assert roles == {("front", r) for r in ("shoulder", "elbow", "wrist", "foot")} | \
        {("rear", r) for r in ("hip", "knee", "ankle", "foot")}
    center = [b.role for b in spec.bones if b.side == "center"]
    assert center.count("spine") == 4 and center.count("neck") == 3 and center.count("tail") == 5
    assert {"trunk", "pelvis", "head"} <= set(center)


def test_leg_shape_hock_back_wrist_forward(ch):
    """Hind legs: stifle ahead of the hip, hock behind it. Front legs: elbow
    behind the shoulder, the pastern sloping forward from the wrist to the paw."""
    d = ch.make_data()
    x = {b: d.xpos[ch.model.body(f"{b}").id][0] for b in ch.bodies}
    for side in ("left", "right"):
        r, f = f"rear_{side}_", f"front_{side}_"
        assert x[r + "shin"] > x[r + "thigh"] > x[r + "metatarsus"]
        assert x[r + "metatarsus"] < x[r + "paw"]
        assert x[f + "forearm"] < x[f + "upperarm"]
        assert x[f + "metacarpus"] < x[f + "paw"]


def test_contact_points_at_paw_bottoms(spec, ch):
    assert tuple(sorted(c.name for c in spec.contacts)) == tuple(sorted(FEET))
    for c in spec.contacts:
        assert spec.bone(c.bone).role == "foot" and c.name.startswith(c.bone.rsplit("_", 1)[0])
    pos = ch.contact_positions(ch.rest_qpos)
    for name in FEET:
        assert pos[name][2] == pytest.approx(0.0, abs=1e-9)
    np.testing.assert_allclose(pos["front_left_foot"] * [1, -1, 1], pos["front_right_foot"], atol=1e-12)


def test_com_inside_support_polygon(ch):
    pos = ch.contact_positions(ch.rest_qpos)
    # Counter-clockwise seen from above: front left, rear left, rear right, front right.
    order = ("front_left_foot", "rear_left_foot", "rear_right_foot", "front_right_foot")
    poly = np.array([pos[n][:2] for n in order])
    com = ch.com()[:2]
    margins = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0)):
        edge = b - a
        margins.append((edge[0] * (com - a)[1] - edge[1] * (com - a)[0]) / np.linalg.norm(edge))
    assert min(margins) > 0.05  # m inside every edge
    # More weight on the front paws than on the hind paws, as in dogs.
    front_x, rear_x = poly[0][0], poly[1][0]
    assert 0.55 < (com[0] - rear_x) / (front_x - rear_x) < 0.7


def test_stiffness_pattern(spec, ch):
    k = KRY09_STIFFNESS * STIFFNESS_SCALE
    for b in spec.bones[1:]:
        expected = 5 * k if b.role in ("spine", "pelvis") else k
        dofs = ch.joints[b.name].dof
        np.testing.assert_allclose(ch.stiffness[dofs], expected, rtol=1e-12)
        np.testing.assert_allclose(ch.damping[dofs], DAMPING_TIME * expected, rtol=1e-12)
    paper = dog(stiffness_scale=1.0)
    assert paper.bone("spine2").joint.stiffness == 100.0 and paper.bone("rear_left_shin").joint.stiffness == 20.0


def test_stands_two_seconds(ch):
    d = _stand(ch, 2.0)
    chest = ch.model.body("chest").id
    rest = ch.make_data()
    assert np.all(np.isfinite(d.qpos))
    assert d.xpos[chest][2] / rest.xpos[chest][2] > 0.96
    assert d.xmat[chest][8] > math.cos(math.radians(3.0))  # chest z axis within 3 degrees of vertical
    assert max(_joint_deviation(ch, d.qpos).values()) < 0.04  # rad
    assert np.linalg.norm(d.xpos[chest][:2] - rest.xpos[chest][:2]) < 0.01
    feet = ch.contact_positions(d.qpos)
    assert all(abs(feet[n][2]) < 0.015 for n in FEET)  # all four paws still on the ground
    assert np.abs(d.qvel).max() < 0.02  # settled


def test_paper_stiffness_collapses():
    """Kry09's 20 N m/rad (spine 100) cannot carry 31 kg: why the builder scales it."""
    weak = Character.from_spec(dog(stiffness_scale=1.0))
    d = _stand(weak, 2.0)
    chest = weak.model.body("chest").id
    assert d.xpos[chest][2] < 0.7 * weak.make_data().xpos[chest][2]


def test_round_trip(spec):
    assert spec_from_dict(spec_to_dict(spec)) == spec
    assert parse_spec_text(dump_spec(spec), "dog.yaml") == spec

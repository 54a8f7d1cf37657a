"""The 47-DOF human (Kry09 Fig. 3) in its T-pose and running rest pose."""
from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest
import yaml

from gaitforge.creatures.builders.human import human, human_run
from gaitforge.creatures.character import Character
from gaitforge.creatures.serialize import spec_from_dict, spec_to_dict
from gaitforge.creatures.spec import ROLES
from gaitforge.creatures.stance import com_support_margin, support_points

BUILDERS = {"human": human, "human_run": human_run}
ARM = ("clavicle", "upper_arm", "forearm", "hand")
LEG = ("thigh", "shin", "foot", "toe")


@pytest.fixture(scope="module")
def chars() -> dict[str, Character]:
    return {name: Character.from_spec(build()) for name, build in BUILDERS.items()}


def _axis(data: mujoco.MjData, model: mujoco.MjModel, body: str, col: int) -> np.ndarray:
    """Column ``col`` of a body's world rotation: its local x, y or z axis (3,)."""
    return data.xmat[model.body(body).id].reshape(3, 3)[:, col].copy()


def _angle_deg(a: np.ndarray, b: np.ndarray) -> float:
    return math.degrees(math.acos(np.clip(a @ b / np.linalg.norm(a) / np.linalg.norm(b), -1.0, 1.0)))


@pytest.mark.parametrize("name", BUILDERS)
def test_47_dofs_from_the_listed_joints(chars, name):
    c = chars[name]
    assert c.nv == 47
    kinds = [j.kind for j in c.joints.values()]
    assert kinds.count("free") == 1 and kinds.count("ball") == 10 and kinds.count("hinge") == 11
    assert c.joints["left_shin"].kind == "hinge" and c.joints["lumbar"].kind == "ball"


def test_mass_segment_fractions_and_same_masses_in_both_poses(chars):
    t, r = chars["human"], chars["human_run"]
    assert t.mass == pytest.approx(70.0, rel=1e-12)
    np.testing.assert_array_equal(t.model.body_mass, r.model.body_mass)
    m = {b: float(t.model.body(b).mass[0]) for b in t.bodies}
    frac = lambda *names: sum(m[n] for n in names) / 70.0  # noqa: E731
    assert 0.06 < frac("head", "neck") < 0.08
    assert 0.40 < frac("pelvis", "lumbar", "thorax", "chest", "left_clavicle", "right_clavicle") < 0.50
    assert 0.12 < frac("left_thigh") < 0.16
    assert 0.045 < frac(*(f"left_{k}" for k in ARM)) < 0.06
    assert 0.17 < frac(*(f"left_{k}" for k in LEG)) < 0.22


def test_height_is_175_cm_in_the_t_pose_and_lower_when_running(chars):
    low, high = chars["human"].extent()
    assert low == pytest.approx(0.0, abs=1e-9)
    assert high == pytest.approx(1.75, abs=1e-6)
    assert 1.60 < chars["human_run"].height < 1.72


@pytest.mark.parametrize("name", BUILDERS)
def test_left_and_right_are_mirror_images(chars, name):
    c = chars[name]
    m, d = c.model, c.make_data()
    lefts = [b for b in c.bodies if b.startswith("left_")]
    assert len(lefts) == 8
    for left in lefts:
        i, j = m.body(left).id, m.body(left.replace("left_", "right_")).id
        assert m.body_mass[j] == pytest.approx(m.body_mass[i], rel=1e-9)
        np.testing.assert_allclose(m.body_inertia[j], m.body_inertia[i], rtol=1e-9)
        np.testing.assert_allclose(d.xpos[j], d.xpos[i] * [1, -1, 1], atol=1e-12)
        np.testing.assert_allclose(d.xipos[j], d.xipos[i] * [1, -1, 1], atol=1e-12)
    assert abs(c.com()[1]) < 1e-12


@pytest.mark.parametrize("name", BUILDERS)
def test_equal_joint_angles_flex_both_sides_alike(chars, name):
    """Hinge axes and ball rotations are mirrored as axial vectors, so the same
    coordinates on both sides give a mirror-symmetric body."""
    c = chars[name]
    q = c.rest_qpos.copy()
    for k, part in enumerate(ARM + LEG):
        left, right = c.joints[f"left_{part}"], c.joints[f"right_{part}"]
        if left.kind == "hinge":
            q[left.qpos] = q[right.qpos] = 0.1 + 0.05 * k
        else:
            rot = np.zeros(4)
            mujoco.mju_axisAngle2Quat(rot, np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8]),
                                      0.2 + 0.05 * k)
            q[left.qpos] = rot
            q[right.qpos] = rot * [1, -1, 1, -1]
    d = c.make_data(q)
    for part in ARM + LEG:
        i, j = c.body_id(f"left_{part}"), c.body_id(f"right_{part}")
        np.testing.assert_allclose(d.xpos[j], d.xpos[i] * [1, -1, 1], atol=1e-12)


def test_positive_hinge_angles_flex(chars):
    """+0.5 rad at a hinge moves a point the anatomical way: the knee sends the
    heel back, the elbow (T-pose) swings the hand forward, the toe lifts its tip,
    the clavicle raises the hand, the wrist turns the hand down (palm first)."""
    c = chars["human"]
    cases = (("left_shin", "left_heel", 0, -1), ("right_shin", "right_heel", 0, -1),
             ("left_forearm", "left_hand", 0, 1), ("right_forearm", "right_hand", 0, 1),
             ("left_toe", "left_toe", 2, 1), ("right_toe", "right_toe", 2, 1),
             ("left_clavicle", "left_hand", 2, 1), ("right_clavicle", "right_hand", 2, 1),
             ("left_hand", "left_hand", 2, -1), ("right_hand", "right_hand", 2, -1))

    def point(d: mujoco.MjData, name: str) -> np.ndarray:
        if name in c.contacts:
            return d.site_xpos[c.contacts[name]]
        return d.xipos[c.body_id(name)]  # the segment's centre of mass

    rest = c.make_data()
    for joint, name, axis, sign in cases:
        q = c.rest_qpos.copy()
        q[c.joints[joint].qpos] = 0.5
        delta = point(c.make_data(q), name) - point(rest, name)
        assert sign * delta[axis] > 0.02, (joint, delta)


@pytest.mark.parametrize("name", BUILDERS)
def test_every_bone_is_labelled(chars, name):
    spec = chars[name].spec
    for b in spec.bones:
        assert b.role in ROLES
        side = "left" if b.name.startswith("left_") else "right" if b.name.startswith("right_") else "center"
        assert b.side == side
        part = b.name.removeprefix(f"{side}_")
        assert b.limb == ("front" if part in ARM else "rear" if part in LEG else None), b.name
    c = chars[name]
    assert c.bodies_labeled(role="knee") == ["left_shin", "right_shin"]
    assert c.bodies_labeled(role="elbow") == ["left_forearm", "right_forearm"]
    assert c.bodies_labeled(role="foot") == ["left_foot", "right_foot"]
    assert c.bodies_labeled(role="hand") == ["left_hand", "right_hand"]
    assert c.bodies_labeled(role="hip", side="left") == ["left_thigh"]
    assert c.bodies_labeled(role="spine") == ["lumbar", "thorax"]
    assert [c.labels[b].role for b in ("pelvis", "chest", "neck", "head")] == ["pelvis", "trunk", "neck", "head"]


@pytest.mark.parametrize("name", BUILDERS)
def test_contact_points_lie_on_the_ground_under_each_foot(chars, name):
    c = chars[name]
    pos = c.contact_positions(c.rest_qpos)
    assert sorted(pos) == sorted(f"{s}_{p}" for s in ("left", "right") for p in ("foot", "heel", "toe"))
    for side, sign in (("left", 1), ("right", -1)):
        heel, sole, toe = pos[f"{side}_heel"], pos[f"{side}_foot"], pos[f"{side}_toe"]
        for p in (heel, sole, toe):
            assert p[2] == pytest.approx(0.0, abs=1e-9)
            assert sign * p[1] == pytest.approx(0.09, abs=1e-9)
        assert heel[0] < sole[0] < toe[0]
        assert toe[0] - heel[0] == pytest.approx(0.26, abs=1e-9)  # foot length


@pytest.mark.parametrize("name", BUILDERS)
def test_centre_of_mass_over_the_support_polygon(chars, name):
    c = chars[name]
    # Both feet flat: the 4 bottom corners of each foot and toe box touch the ground.
    assert len(support_points(c)) == 16
    assert com_support_margin(c) > 0.04  # m, inside by at least 4 cm


def _stand(c: Character, seconds: float = 2.0) -> dict[str, float]:
    """Simulate ``c`` from rest on the ground; how far it strayed from the rest pose."""
    m, d, rest = c.model, c.make_data(), c.make_data()
    feet0 = c.contact_positions(c.rest_qpos)
    for _ in range(round(seconds / m.opt.timestep)):
        mujoco.mj_step(m, d)
    assert np.isfinite(d.qpos).all()
    dev = []
    for j in c.joints.values():
        if j.kind == "ball":
            v = np.zeros(3)
            mujoco.mju_subQuat(v, d.qpos[j.qpos], c.rest_qpos[j.qpos])
            dev.append(np.linalg.norm(v))
        elif j.kind == "hinge":
            dev.append(abs(d.qpos[j.qpos][0] - c.rest_qpos[j.qpos][0]))
    feet = c.contact_positions(d.qpos)
    return {"height": d.qpos[2] / c.rest_qpos[2] - 1.0,
            "tilt": max(_angle_deg(_axis(d, m, b, 2), _axis(rest, m, b, 2))
                        for b in ("pelvis", "chest", "head")),
            "joint": math.degrees(max(dev)),
            "slip": max(np.linalg.norm(feet[k][:2] - feet0[k][:2]) for k in feet),
            "lift": max(p[2] for p in feet.values()),
            "speed": float(np.abs(d.qvel).max())}


def _stood(r: dict[str, float]) -> bool:
    """Pelvis within 2 % of its rest height, pelvis, chest and head within 2° of
    upright, no joint more than 4° from rest, feet planted, nearly still."""
    return (abs(r["height"]) < 0.02 and r["tilt"] < 2.0 and r["joint"] < 4.0 and r["slip"] < 0.01
            and r["lift"] < 0.005 and r["speed"] < 0.1)


@pytest.mark.parametrize("name", BUILDERS)
def test_stands_passively_for_two_seconds(chars, name):
    r = _stand(chars[name])
    assert _stood(r), r


@pytest.mark.parametrize("name", BUILDERS)
def test_krys_unscaled_stiffness_cannot_stand(name):
    """At Kry09's 100 / 1000 N m/rad the human sags over (T-pose) or collapses
    (running pose) within 2 s: the stand test catches a human that is too soft."""
    r = _stand(Character.from_spec(BUILDERS[name](stiffness_scale=1.0)))
    assert not _stood(r) and r["tilt"] > 5.0, r


def test_stiffness_is_krys_pattern_scaled_ten_times(chars):
    c = chars["human"]
    k = dict(zip(c.joints, (c.stiffness[j.dof] for j in c.joints.values())))
    for joint in ("lumbar", "thorax", "chest"):
        np.testing.assert_array_equal(k[joint], 10_000.0)
    for joint in ("neck", "head", "left_upper_arm", "right_forearm", "left_thigh", "left_shin", "right_toe"):
        np.testing.assert_array_equal(k[joint], 1_000.0)
    np.testing.assert_allclose(c.damping[6:], 0.05 * c.stiffness[6:], rtol=1e-12)


def test_t_pose_arms_horizontal_and_legs_straight(chars):
    c = chars["human"]
    m, d = c.model, c.make_data()
    for side, sign in (("left", 1), ("right", -1)):
        shoulder, hand = d.xpos[m.body(f"{side}_upper_arm").id], d.xpos[m.body(f"{side}_hand").id]
        assert hand[2] == pytest.approx(shoulder[2], abs=1e-9)
        assert sign * (hand[1] - shoulder[1]) == pytest.approx(0.53, abs=1e-9)  # upper arm + forearm
        for body in (f"{side}_thigh", f"{side}_shin", f"{side}_foot"):
            np.testing.assert_allclose(_axis(d, m, body, 2), [0, 0, 1], atol=1e-12)


def test_running_pose_bends_knees_elbows_and_trunk(chars):
    c = chars["human_run"]
    m, d = c.model, c.make_data()
    for side in ("left", "right"):
        knee = _angle_deg(_axis(d, m, f"{side}_thigh", 2), _axis(d, m, f"{side}_shin", 2))
        elbow = _angle_deg(_axis(d, m, f"{side}_upper_arm", 2), _axis(d, m, f"{side}_forearm", 2))
        assert 30 <= knee <= 45 and elbow == pytest.approx(90, abs=1e-6)
        forearm = _axis(d, m, f"{side}_forearm", 2)  # points from the hand to the elbow
        assert forearm[0] < -0.9  # the hand is in front of the elbow
        np.testing.assert_allclose(_axis(d, m, f"{side}_foot", 2), [0, 0, 1], atol=1e-12)  # sole flat
    chest_lean = _angle_deg(_axis(d, m, "chest", 2), np.array([0, 0, 1.0]))
    assert 5 < chest_lean < 15 and _axis(d, m, "chest", 2)[0] > 0  # forward
    assert _angle_deg(_axis(d, m, "head", 2), np.array([0, 0, 1.0])) < 1e-4  # head upright
    crouch = chars["human"].make_data().xpos[m.body("pelvis").id][2] - d.xpos[m.body("pelvis").id][2]
    assert 0.03 < crouch < 0.10  # m: the bent knees lower the hips


@pytest.mark.parametrize("name", BUILDERS)
def test_yaml_round_trip(name):
    spec = BUILDERS[name]()
    assert spec_from_dict(spec_to_dict(spec)) == spec
    assert spec_from_dict(yaml.safe_load(yaml.safe_dump(spec_to_dict(spec)))) == spec

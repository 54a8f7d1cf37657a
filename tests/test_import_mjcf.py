"""MJCF / URDF import: a hand-written URDF quadruped with hand-computed
stiffness, MJCF fixtures for props, keyframes, facing, springs, sites and
errors, and the dog and CMU humanoid that the dm_control wheel ships
(skipped without it; their gaits are in test_imported_gaits.py)."""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from gaitforge.creatures.character import BodyLabel
from gaitforge.creatures.imported import BACK_FACTOR, own_weight_torque
from gaitforge.errors import GaitforgeError, SpecError
from gaitforge.io.import_mjcf import STIFFNESS_FACTOR, load_character_from_mjcf
from gaitforge.io.mjcf import mjcf_text

DATA = Path(__file__).parent / "data"
URDF = DATA / "tiny_quadruped.urdf"

# A biped with a free tennis ball, a camera and a sensor on the ball, and a
# keyframe; angles in degrees (MJCF's default). LEGS: the leg offset axis.
CRITTER = """<mujoco model="critter">
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <camera name="follow" mode="targetbody" target="ball" pos="0 -2 1"/>
    <body name="ball" pos="1 0 0.1"><freejoint name="ball_root"/><geom name="ball_geom" size="0.05"/></body>
    <body name="torso" pos="0 0 0.5">
      <freejoint name="root"/>
      <geom type="box" size="0.2 0.2 0.05" mass="2"/>
      <body name="left_leg" pos="{lx} {ly} 0">
        <joint name="left_hip" axis="{ax}"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.5"/>
        <body name="left_foot" pos="0 0 -0.3">
          <joint name="left_ankle" axis="{ax}" stiffness="3" springref="10"/>
          <geom type="sphere" size="0.04" mass="0.1"/>
        </body>
      </body>
      <body name="right_leg" pos="{rx} {ry} 0">
        <joint name="right_hip" axis="{ax}"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03" mass="0.5"/>
        <body name="right_foot" pos="0 0 -0.3">
          <joint name="right_ankle" axis="{ax}" stiffness="3" springref="10"/>
          <geom type="sphere" size="0.04" mass="0.1"/>
        </body>
      </body>
    </body>
  </worldbody>
  <sensor><framepos name="ball_pos" objtype="body" objname="ball"/></sensor>
  <keyframe><key name="crouch" qpos="1 0 0.1 1 0 0 0  0 0 0.45 1 0 0 0  0.2 -0.1 0.3 -0.2"/></keyframe>
</mujoco>
"""


def critter(tmp_path, facing_minus_y: bool = False) -> Path:
    legs = (dict(lx=0.1, ly=0, rx=-0.1, ry=0, ax="1 0 0") if facing_minus_y
            else dict(lx=0, ly=0.1, rx=0, ry=-0.1, ax="0 1 0"))
    path = tmp_path / "critter.xml"
    path.write_text(CRITTER.format(**legs))
    return path


def names(model, kind: str, count: str) -> list[str]:
    return [getattr(model, kind)(i).name for i in range(getattr(model, count))]


# ------------------------------------------------------------------ URDF
@pytest.fixture(scope="module")
def quad():
    return load_character_from_mjcf(URDF)


def test_urdf_gets_free_root_kept_links_ground_and_feet(quad):
    m = quad.model
    assert (m.nq, m.nv) == (15, 14)  # free root + 8 hinges
    assert quad.mass == pytest.approx(4.0 + 4 * (0.5 + 0.3 + 0.05))
    assert quad.joints["base_free"].kind == "free"
    assert "FL_foot" in quad.labels  # fixed links stay bodies (fusestatic off)
    ground = m.geom("ground")
    assert m.geom_type[ground.id] == mujoco.mjtGeom.mjGEOM_PLANE and m.geom_friction[ground.id][0] == 1.0
    assert quad.rest_qpos[2] == pytest.approx(0.42)  # legs 0.4 m + foot radius 0.02 m
    assert quad.extent()[0] == pytest.approx(0.0, abs=1e-12)
    feet = quad.contact_positions(quad.rest_qpos)
    assert sorted(feet) == ["front_left_foot", "front_right_foot", "rear_left_foot", "rear_right_foot"]
    np.testing.assert_allclose(feet["front_left_foot"], [0.2, 0.1, 0.0], atol=1e-12)
    np.testing.assert_allclose(feet["rear_right_foot"], [-0.2, -0.1, 0.0], atol=1e-12)


def test_imported_model_exports_as_mjcf_with_its_rest_keyframe(quad):
    np.testing.assert_array_equal(quad.model.key_qpos[quad.model.key("rest").id], quad.rest_qpos)
    again = mujoco.MjModel.from_xml_string(mjcf_text(quad))
    assert (again.nq, again.nsite) == (15, 4)
    np.testing.assert_allclose(again.key_qpos[again.key("rest").id], quad.rest_qpos, atol=1e-6)
    np.testing.assert_allclose(again.jnt_stiffness, quad.model.jnt_stiffness, rtol=1e-5)  # %g precision


def test_urdf_labels(quad):
    assert quad.labels["base"] == BodyLabel("center", "trunk", None)
    assert quad.labels["FL_thigh"] == BodyLabel("left", "hip", "front")
    assert quad.labels["RR_calf"] == BodyLabel("right", "knee", "rear")
    assert quad.labels["RL_foot"] == BodyLabel("left", "foot", "rear")


def test_default_stiffness_matches_hand_computation(quad):
    # Own-weight torque m g ℓ of the knee: calf (0.3 kg, centre 0.1 m below,
    # tr I = 0.0021) and foot (0.05 kg, 0.2 m below, tr I = 3e-5); the hip adds
    # the thigh (0.5 kg, 0.1 m, tr I = 0.0041). Every leg joint gets one
    # stiffness (Kry09's layout): the one that holds the heavier hip subtree.
    def mgl(parts):
        m = sum(p[0] for p in parts)
        return m * 9.81 * math.sqrt(sum(mi * d * d + tr / 2 for mi, d, tr in parts) / m)
    calf, foot, thigh = (0.3, 0.1, 0.0021), (0.05, 0.2, 3e-5), (0.5, 0.1, 0.0041)
    knee, hip = mgl([calf, foot]), mgl([thigh, (0.3, 0.3, 0.0021), (0.05, 0.4, 3e-5)])
    assert knee == pytest.approx(0.45198, abs=1e-5)
    tau = own_weight_torque(quad.model, quad.make_data())
    for leg in ("FL", "FR", "RL", "RR"):
        for joint, expected in (("knee", knee), ("hip", hip)):
            j = quad.joints[f"{leg}_{joint}_joint"]
            assert tau[j.mj_joints[0]] == pytest.approx(expected, rel=1e-9)
            assert quad.stiffness[j.dof.start] == pytest.approx(STIFFNESS_FACTOR * hip, rel=1e-9)


def test_springs_pull_toward_the_rest_pose(quad):
    m = quad.model
    np.testing.assert_array_equal(m.qpos_spring[7:], quad.rest_qpos[7:])
    d = quad.make_data()
    assert np.abs(d.qfrc_spring).max() == 0.0
    q = quad.rest_qpos.copy()
    hip = quad.joints["FR_hip_joint"]
    q[hip.qpos.start] += 0.1
    d = quad.make_data(q)
    assert d.qfrc_spring[hip.dof.start] == pytest.approx(-0.1 * quad.stiffness[hip.dof.start])


def test_urdf_quadruped_stands_for_two_seconds(quad):
    d = quad.make_data()
    heights = []
    for _ in range(int(2.0 / quad.model.opt.timestep)):
        mujoco.mj_step(quad.model, d)
        heights.append(d.qpos[2])
    assert np.isfinite(d.qpos).all()
    assert max(abs(h - 0.42) for h in heights) < 0.01


def test_uniform_default_stiffness_and_label_overrides(tmp_path):
    labels = tmp_path / "labels.yaml"
    labels.write_text("labels:\n  FL_foot: {role: toe}\n  base: {role: pelvis, side: center}\n")
    c = load_character_from_mjcf(URDF, labels_file=labels, default_stiffness=7.5)
    assert set(c.stiffness[6:]) == {7.5}
    assert c.labels["FL_foot"] == BodyLabel("left", "toe", "front")
    assert c.labels["base"].role == "pelvis"
    assert "front_left_foot" in c.contacts  # toes stand too


@pytest.mark.parametrize("text, message", [
    ("labels:\n  FL_fot: {role: foot}\n", "labels.FL_fot: unknown body 'FL_fot' (did you mean 'FL_foot'?)"),
    ("labels:\n  FL_foot: {role: hoof}\n", "labels.FL_foot.role: unknown role 'hoof' (choose from ankle, elbow, "
     "finger, foot, hand, head, hip, knee, knuckle, neck, pelvis, shoulder, spine, tail, toe, trunk, wrist)"),
    ("labels:\n  FL_foot: [role\n", "line 3, column 1: malformed YAML: expected ',' or ']', but got '<stream end>'"),
])
def test_label_file_errors_name_file_field_and_value(tmp_path, text, message):
    labels = tmp_path / "labels.yaml"
    labels.write_text(text)
    with pytest.raises(SpecError) as err:
        load_character_from_mjcf(URDF, labels_file=labels)
    assert str(err.value) == f"{labels}: {message}"


# ------------------------------------------------------------------ MJCF
def test_props_and_what_points_at_them_are_removed(tmp_path):
    c = load_character_from_mjcf(critter(tmp_path))
    m = c.model
    assert "ball" not in names(m, "body", "nbody") and names(m, "camera", "ncam") == []
    assert m.nsensor == 0 and (m.nq, m.nv) == (11, 10)
    np.testing.assert_allclose(m.key_qpos[0], [0, 0, 0.45, 1, 0, 0, 0, 0.2, -0.1, 0.3, -0.2])
    assert "ground" not in names(m, "geom", "ngeom")  # the file has a floor
    kept = load_character_from_mjcf(critter(tmp_path), keep_props=True)
    assert kept.model.nq == 18 and "ball" in kept.labels


def test_rest_pose_choices_and_degree_spring_references(tmp_path):
    path = critter(tmp_path)
    hinges = slice(7, 11)
    crouch = load_character_from_mjcf(path, rest="crouch")
    np.testing.assert_allclose(crouch.rest_qpos[hinges], [0.2, -0.1, 0.3, -0.2])
    np.testing.assert_allclose(crouch.model.qpos_spring[hinges], [0.2, -0.1, 0.3, -0.2], atol=1e-12)
    assert crouch.rest_qpos[2] == pytest.approx(crouch.rest_qpos[2] - crouch.extent()[0])  # on the ground
    assert crouch.extent()[0] == pytest.approx(0.0, abs=1e-12)
    spring = load_character_from_mjcf(path, rest="spring")  # the file's springref: 10 degrees at the ankles
    np.testing.assert_allclose(spring.rest_qpos[hinges], [0, math.radians(10), 0, math.radians(10)], atol=1e-12)
    first = load_character_from_mjcf(path, rest="keyframe")
    np.testing.assert_allclose(first.rest_qpos, crouch.rest_qpos)


def test_existing_stiffness_is_kept_unless_replaced(tmp_path):
    path = critter(tmp_path)
    c = load_character_from_mjcf(path, default_stiffness=7.0)
    k = {n: c.stiffness[j.dof.start] for n, j in c.joints.items() if j.kind == "hinge"}
    assert k == {"left_hip": 7.0, "left_ankle": 3.0, "right_hip": 7.0, "right_ankle": 3.0}
    replaced = load_character_from_mjcf(path, default_stiffness=7.0, replace_stiffness=True)
    assert set(replaced.stiffness[6:]) == {7.0}
    # An ankle spring too weak to hold the foot (k < m g ℓ ≈ 0.024 N m) marks
    # the file's springs as a driven model's tone: all are replaced, unless kept.
    weak = tmp_path / "weak.xml"
    weak.write_text(path.read_text().replace('stiffness="3"', 'stiffness="0.001"'))
    auto = load_character_from_mjcf(weak, default_stiffness=7.0)
    assert set(auto.stiffness[6:]) == {7.0}
    kept = load_character_from_mjcf(weak, default_stiffness=7.0, replace_stiffness=False)
    assert sorted(set(kept.stiffness[6:])) == [0.001, 7.0]


# Vertebra chains (dm_control-style names): 3 lumbar, 2 cervical, 2 caudal, and two legs.
SPINE = """<mujoco model="spiny">
  <worldbody>
    <body name="torso" pos="0 0 0.5"><freejoint/><geom type="box" size="0.1 0.08 0.05" mass="2"/>
      <body name="L_1" pos="-0.1 0 0"><joint axis="0 1 0"/><geom size="0.04" pos="-0.05 0 0" mass="0.3"/>
        <body name="L_2" pos="-0.1 0 0"><joint axis="0 1 0"/><geom size="0.04" pos="-0.05 0 0" mass="0.3"/>
          <body name="L_3" pos="-0.1 0 0"><joint axis="0 1 0"/><geom size="0.04" pos="-0.05 0 0" mass="0.3"/>
            <body name="Ca_1" pos="-0.1 0 0"><joint axis="0 1 0"/><geom size="0.01" pos="-0.05 0 0" mass="0.02"/>
              <body name="Ca_2" pos="-0.1 0 0"><joint axis="0 1 0"/><geom size="0.01" pos="-0.05 0 0" mass="0.02"/>
              </body></body></body></body></body>
      <body name="C_1" pos="0.1 0 0.05"><joint axis="0 1 0"/><geom size="0.03" pos="0.05 0 0" mass="0.2"/>
        <body name="C_2" pos="0.1 0 0"><joint axis="0 1 0"/><geom size="0.05" pos="0.05 0 0" mass="0.5"/></body>
      </body>
      <body name="left_thigh" pos="0 0.06 -0.05"><joint axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" mass="0.4"/>
        <body name="left_foot" pos="0 0 -0.2"><joint axis="0 1 0"/><geom size="0.03" mass="0.1"/></body>
      </body>
      <body name="right_thigh" pos="0 -0.06 -0.05"><joint axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.2" size="0.02" mass="0.4"/>
        <body name="right_foot" pos="0 0 -0.2"><joint axis="0 1 0"/><geom size="0.03" mass="0.1"/></body>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_default_layout_stiffens_the_back_and_vertebra_chains(tmp_path):
    path = tmp_path / "spiny.xml"
    path.write_text(SPINE)
    c = load_character_from_mjcf(path)
    k = {j.body: c.stiffness[j.dof.start] for j in c.joints.values() if j.kind == "hinge"}
    leg = k["left_thigh"]
    # limbs 1; lumbar: back × 3 in a row; cervical and caudal: 2 in a row.
    expected = {"left_thigh": 1, "left_foot": 1, "right_thigh": 1, "right_foot": 1, "L_1": 3 * BACK_FACTOR,
                "L_2": 3 * BACK_FACTOR, "L_3": 3 * BACK_FACTOR, "C_1": 2, "C_2": 2, "Ca_1": 2, "Ca_2": 2}
    assert {b: v / leg for b, v in k.items()} == pytest.approx(expected, rel=1e-12)
    # The scale: the weakest joint just holds its own subtree out (k = 10 m g ℓ).
    tau = own_weight_torque(c.model, c.make_data())
    held = [k[c.model.body(c.model.jnt_bodyid[j]).name] / (STIFFNESS_FACTOR * tau[j])
            for j in range(c.model.njnt) if tau[j] > 0]
    assert min(held) == pytest.approx(1.0, rel=1e-12)


def test_sites_that_are_no_contact_points_go_with_their_sensors(tmp_path):
    text = CRITTER.format(lx=0, ly=0.1, rx=0, ry=-0.1, ax="0 1 0")
    text = text.replace('<geom type="box" size="0.2 0.2 0.05" mass="2"/>',
                        '<geom type="box" size="0.2 0.2 0.05" mass="2"/><site name="imu"/><site name="t1"/>'
                        '<site pos="0 0 0.1"/>')
    text = text.replace('<geom type="sphere" size="0.04" mass="0.1"/>',
                        '<geom type="sphere" size="0.04" mass="0.1"/><site name="{side}_heel" pos="-0.03 0 -0.03"/>')
    text = text.replace("{side}_heel", "left_heel", 1).replace("{side}_heel", "right_heel", 1)
    text = text.replace('<sensor>', '<tendon><spatial name="cord"><site site="t1"/><site site="left_heel"/>'
                        '</spatial></tendon>\n  <sensor><accelerometer name="acc" site="imu"/>'
                        '<tendonpos name="cord_length" tendon="cord"/>')
    path = tmp_path / "sited.xml"
    path.write_text(text)
    c = load_character_from_mjcf(path)
    # imu and the unnamed site go (with the accelerometer); heels are contact
    # points by name, t1 carries the tendon; the feet get their contact points.
    assert sorted(c.contacts) == ["left_foot", "left_heel", "right_foot", "right_heel", "t1"]
    assert names(c.model, "sensor", "nsensor") == ["cord_length"]
    kept = load_character_from_mjcf(path, keep_sites=True)
    assert sorted(kept.contacts) == ["imu", "left_foot", "left_heel", "right_foot", "right_heel", "site2", "t1"]
    assert names(kept.model, "sensor", "nsensor") == ["acc", "cord_length"]


def test_creature_turns_to_face_x(tmp_path):
    c = load_character_from_mjcf(critter(tmp_path, facing_minus_y=True))
    d = c.make_data()
    assert d.xpos[c.body_id("left_leg")][1] == pytest.approx(0.1)
    assert d.xpos[c.body_id("right_leg")][1] == pytest.approx(-0.1)
    assert sorted(c.contacts) == ["left_foot", "right_foot"]
    assert c.contact_positions(c.rest_qpos)["left_foot"][2] == pytest.approx(0.0, abs=1e-12)
    unturned = load_character_from_mjcf(critter(tmp_path, facing_minus_y=True), face_x=False)
    assert unturned.make_data().xpos[unturned.body_id("left_leg")][0] == pytest.approx(0.1)


WELDED = """<mujoco>
  <worldbody>
    <body pos="0 0 1">
      <geom type="box" size="0.1 0.1 0.1" mass="1"/>
      <body pos="0 0 -0.1"><joint axis="0 1 0"/><geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02"/></body>
    </body>
  </worldbody>
  <keyframe><key name="bent" qpos="0.5"/></keyframe>
</mujoco>
"""


def test_unnamed_welded_root_gets_names_a_free_joint_and_keyframe_values(tmp_path):
    path = tmp_path / "welded.xml"
    path.write_text(WELDED)
    c = load_character_from_mjcf(path, rest="bent")
    assert list(c.labels) == ["body0", "body1"] and list(c.joints) == ["body0_free", "joint0"]
    assert c.name == "welded"  # the file stem: the model has no name
    assert c.model.geom("ground").id >= 0  # no floor in the file: one is added
    # Bent 0.5 rad, the arm's tip (0.3 m long, r = 0.02 m, hinged 0.1 m below the
    # root) is the lowest point and now touches the ground; the key got the root's 7 values.
    z_root = 0.1 + 0.3 * math.sin(0.5) + 0.02
    np.testing.assert_allclose(c.model.key_qpos[0], [0, 0, z_root, 1, 0, 0, 0, 0.5], atol=1e-12)
    np.testing.assert_allclose(c.rest_qpos, c.model.key_qpos[0])
    welded = load_character_from_mjcf(path, free_root=False)
    assert welded.nq == 1


BAD_FILES = {
    "mismatched.xml": ("<mujoco>\n  <worldbody>\n    <body name=\"a\">\n      <geom size=\"0.1\"/>\n"
                       "    </bod>\n  </worldbody>\n</mujoco>\n", "line 3: malformed XML: mismatched element <body>"),
    "attribute.xml": ("<mujoco>\n  <worldbody>\n    <body name=\"a\">\n      <geom size=\"0.1\" bogus=\"3\"/>\n"
                      "    </body>\n  </worldbody>\n</mujoco>\n", "line 4: unrecognized attribute: 'bogus' in <geom>"),
    "compile.xml": ("<mujoco>\n  <worldbody>\n    <body name=\"a\">\n      <joint/>\n      <geom type=\"box\" "
                    "size=\"0.1\"/>\n    </body>\n  </worldbody>\n</mujoco>\n",
                    "line 5: size 1 must be positive in geom"),
    "broken.urdf": ("<robot name=\"r\">\n  <link name=\"base\"/>\n\n\n  <joint name=\"j\" type=\"revolute\">"
                    "<parent link=\"base\"/><child link=\"nope\"/></joint>\n</robot>\n",
                    "line 5: URDF joint parent or child missing in <joint>"),
}


@pytest.mark.parametrize("filename", list(BAD_FILES))
def test_invalid_files_give_one_line_with_file_and_line(tmp_path, filename):
    text, message = BAD_FILES[filename]
    path = tmp_path / filename
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_character_from_mjcf(path)
    assert str(err.value) == f"{path}: {message}"


def test_argument_errors(tmp_path):
    with pytest.raises(GaitforgeError) as err:
        load_character_from_mjcf(tmp_path / "none.xml")
    assert str(err.value) == f"{tmp_path / 'none.xml'}: no such file"
    with pytest.raises(GaitforgeError) as err:
        load_character_from_mjcf(critter(tmp_path), rest="stand")
    assert str(err.value) == (f"{tmp_path / 'critter.xml'}: rest='stand' names no pose "
                              "(choose from qpos0, keyframe, spring or a keyframe (crouch))")
    with pytest.raises(GaitforgeError) as err:
        load_character_from_mjcf(URDF, rest="keyframe")
    assert str(err.value) == (f"{URDF}: rest='keyframe' names no pose (choose from qpos0, keyframe, spring); "
                              "the model has no keyframe")
    with pytest.raises(GaitforgeError) as err:
        load_character_from_mjcf(URDF, default_stiffness=-1.0)
    assert str(err.value) == "default_stiffness must be a finite number >= 0 N m/rad, got -1.0"
    with pytest.raises(GaitforgeError) as err:
        load_character_from_mjcf(URDF, replace_stiffness="yes")
    assert str(err.value) == "replace_stiffness must be True, False or None, got 'yes'"


# ------------------------------------------------------ dm_control models
def _suite() -> Path | None:
    spec = importlib.util.find_spec("dm_control")
    return Path(list(spec.submodule_search_locations)[0]) / "suite" if spec else None


needs_dm_control = pytest.mark.skipif(_suite() is None, reason="dm_control is not installed "
                                      "(pip install dm_control; only its MJCF files are used)")


@pytest.fixture(scope="module")
def dog():
    return load_character_from_mjcf(_suite() / "dog.xml")


@needs_dm_control
def test_dm_control_dog(dog):
    original = mujoco.MjModel.from_xml_path(str(_suite() / "dog.xml"))
    ball = original.body("ball").id
    assert (dog.nq, dog.nv) == (original.nq - 7, original.nv - 6)  # the tennis ball is gone
    assert dog.mass == pytest.approx(original.body_mass.sum() - original.body_mass[ball])
    sides = [lab.side for lab in dog.labels.values()]
    assert (sides.count("left"), sides.count("right")) == (11, 11)
    assert dog.labels["upper_leg_L"] == BodyLabel("left", "hip", "rear")
    assert dog.labels["hand_R"] == BodyLabel("right", "hand", "front")
    assert dog.labels["Ca_7"].role == "tail" and dog.labels["C_3"].role == "neck"
    # Sensor sites (tail tip, touch zones, force anchors) and their sensors are
    # gone: the contact points are the four feet.
    feet = dog.contact_positions(dog.rest_qpos)
    assert sorted(feet) == ["front_left_foot", "front_right_foot", "rear_left_foot", "rear_right_foot"]
    assert dog.model.nsensor == 2  # of 13: only the torso velocity and momentum sensors use no site
    assert all(abs(p[2]) < 1e-3 for p in feet.values())  # the file's rear paws float 0.16 mm
    assert feet["front_left_foot"][0] > 0 > feet["rear_left_foot"][0] and feet["front_left_foot"][1] > 0


@needs_dm_control
def test_dm_control_dog_springs_are_replaced_by_the_layout(dog):
    k = {n: dog.stiffness[j.dof.start] for n, j in dog.joints.items() if j.kind == "hinge"}
    leg = k["knee_L"]  # the file has 0.1 N m/rad here: a tone for actuators
    assert leg > 1.0
    limbs = ("hip_L_extend", "ankle_L", "toe_L", "elbow_R", "wrist_R", "finger_R")
    assert [k[n] / leg for n in limbs] == pytest.approx([1.0] * len(limbs))
    assert k["scapula_L_extend"] / leg == pytest.approx(2.0)  # scapula and upper arm: both "shoulder"
    assert k["L_3_extend"] / leg == pytest.approx(7 * BACK_FACTOR)  # 7 lumbar vertebrae in a row
    assert k["C_3_extend"] / leg == pytest.approx(7.0) and k["Ca_10_bend"] / leg == pytest.approx(21.0)
    kept = load_character_from_mjcf(_suite() / "dog.xml", replace_stiffness=False, keep_sites=True)
    original = mujoco.MjModel.from_xml_path(str(_suite() / "dog.xml"))
    k_kept = kept.model.jnt_stiffness.reshape(kept.model.njnt, -1)[:, 0]
    k_file = original.jnt_stiffness.reshape(original.njnt, -1)[:, 0]
    for j in range(original.njnt):  # every joint already has a spring: all kept
        if original.jnt_bodyid[j] != original.body("ball").id:
            assert k_kept[kept.model.joint(original.joint(j).name).id] == pytest.approx(k_file[j], rel=1e-9)
    assert {"tail_tip", "sole_L", "palm_R", "front_left_foot"} <= set(kept.contacts)
    assert kept.model.nsensor == original.nsensor == 13


@needs_dm_control
def test_dm_control_cmu_humanoid_faces_x():
    c = load_character_from_mjcf(_suite() / "humanoid_CMU.xml")
    assert (c.nq, c.nv) == (63, 62) and c.mass == pytest.approx(51.845941, abs=1e-5)
    roles = [lab.role for lab in c.labels.values()]
    assert [roles.count(r) for r in ("foot", "toe", "hand", "finger", "head")] == [2, 2, 2, 4, 1]
    d = c.make_data()
    x = {n: d.xpos[c.body_id(n)] for n in ("lfoot", "ltoes", "lfemur", "rfemur")}
    assert x["ltoes"][0] > x["lfoot"][0]  # toes point forward (+x)
    assert x["lfemur"][1] > 0 > x["rfemur"][1]  # left is +y
    feet = c.contact_positions(c.rest_qpos)
    assert sorted(feet) == ["left_foot", "right_foot"]  # hands are up; the touch-sensor sites are gone
    assert feet["left_foot"][1] > 0 > feet["right_foot"][1]
    assert abs(feet["left_foot"][2]) < 1e-9 and c.extent()[0] == pytest.approx(0.0, abs=1e-9)
    for _ in range(100):
        mujoco.mj_step(c.model, d)
    assert np.isfinite(d.qpos).all()

"""BVH skeleton import: a hand-written biped (cm, y up) checked against the
independent ``bvh`` reader and hand-computed capsule masses, a round trip
through gaitforge's own BVH export, facing and units, and exact errors."""
from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError, SpecError
from gaitforge.io.bvh import bvh_text
from gaitforge.io.import_bvh import creature_from_bvh_nodes, load_creature_from_bvh, parse_bvh
from gaitforge.motion.clip import MotionClip

BVH = Path(__file__).parent / "data" / "tiny_biped.bvh"
TEXT = BVH.read_text()


@pytest.fixture(scope="module")
def biped():
    return load_creature_from_bvh(BVH)


def test_parser_agrees_with_the_independent_bvh_reader():
    bvh = pytest.importorskip("bvh")
    ref = bvh.Bvh(TEXT)
    nodes = parse_bvh(TEXT, "tiny")
    assert [n.name for n in nodes] == ref.get_joints_names()
    for n in nodes:
        assert list(n.offset) == list(ref.joint_offset(n.name))
        assert list(n.channels) == list(ref.joint_channels(n.name))
        parent = ref.joint_parent(n.name)
        assert (nodes[n.parent].name if n.parent >= 0 else None) == (parent.name if parent else None)
    assert ref.nframes == 2
    np.testing.assert_array_equal(nodes[4].end_sites, [[0.0, 0.0, 6.0]])  # LeftToeBase


def test_skeleton_axes_units_and_joints(biped):
    bones = {b.name: b for b in biped.bones}
    assert len(bones) == 20 and biped.bones[0].name == "Hips"
    # cm detected (the skeleton spans 164 units); file X (left) -> y, Y (up) -> z, Z (forward) -> x.
    assert bones["Hips"].pos == (0.0, 0.0, 0.9)
    assert bones["LeftUpLeg"].pos == (0.0, 0.1, 0.0)
    assert bones["LeftToeBase"].pos == pytest.approx((0.12, 0.0, -0.05))
    assert bones["Hips"].joint.type == "free"
    assert {b.joint.type for b in biped.bones[1:]} == {"ball"}
    c = Character.from_spec(biped)
    assert (c.nq, c.nv) == (7 + 19 * 4, 6 + 19 * 3)
    # Top: head end site 1.65 m above the file's zero plus its capsule's cap
    # (0.15 m / 4); bottom: the foot capsule (r = 0.13 m / 4) at the toe base, 0.01 m up.
    assert c.height == pytest.approx(1.65 + 0.15 / 4 + (0.13 / 4 - 0.01), abs=1e-9)


LABELS = {
    "Hips": ("center", "pelvis", None), "LeftUpLeg": ("left", "hip", "rear"), "LeftLeg": ("left", "knee", "rear"),
    "LeftFoot": ("left", "foot", "rear"), "LeftToeBase": ("left", "toe", "rear"),
    "RightUpLeg": ("right", "hip", "rear"), "RightLeg": ("right", "knee", "rear"),
    "RightFoot": ("right", "foot", "rear"), "RightToeBase": ("right", "toe", "rear"),
    "Spine": ("center", "spine", None), "Neck": ("center", "neck", None), "Head": ("center", "head", None),
    "LeftShoulder": ("left", "shoulder", "front"), "LeftArm": ("left", "shoulder", "front"),
    "LeftForeArm": ("left", "elbow", "front"), "LeftHand": ("left", "hand", "front"),
    "RightShoulder": ("right", "shoulder", "front"), "RightArm": ("right", "shoulder", "front"),
    "RightForeArm": ("right", "elbow", "front"), "RightHand": ("right", "hand", "front"),
}


def test_labels_from_joint_names(biped):
    assert {b.name: (b.side, b.role, b.limb) for b in biped.bones} == LABELS


def test_mass_is_uniform_density_capsules_to_every_child_and_end_site(biped):
    bvh = pytest.importorskip("bvh")
    ref = bvh.Bvh(TEXT)
    radius = 0.04 * 1.64  # 4 % of the 164 cm span
    segments = [np.array(ref.joint_offset(n)) for n in ref.get_joints_names()[1:]]
    segments += [np.array([0, 0, 6.0]), np.array([0, 0, 6.0]), np.array([0, 15.0, 0]),
                 np.array([0, -8.0, 0]), np.array([0, -8.0, 0])]  # the five end sites
    mass = 0.0
    for s in segments:
        length = np.linalg.norm(s) / 100
        r = min(radius, length / 4)
        mass += 1000.0 * (math.pi * r * r * length + 4 / 3 * math.pi * r ** 3)
    assert Character.from_spec(biped).mass == pytest.approx(mass, rel=1e-9)
    assert mass == pytest.approx(68.484, abs=0.001)


def test_feet_stand_on_the_ground_and_springs_rest_in_the_file_pose(biped):
    assert [(p.name, p.bone) for p in biped.contacts] == [("left_foot", "LeftFoot"), ("right_foot", "RightFoot")]
    c = Character.from_spec(biped)
    feet = c.contact_positions(c.rest_qpos)
    np.testing.assert_allclose(feet["left_foot"], [0.12, 0.1, 0.0], atol=1e-12)  # front end of the foot capsule
    d = c.make_data()
    assert np.abs(d.qfrc_spring).max() == 0.0
    assert (c.stiffness[6:] > 0).all()
    for _ in range(250):
        mujoco.mj_step(c.model, d)
    assert np.isfinite(d.qpos).all()


def test_uniform_stiffness_radius_scale_and_overrides(tmp_path):
    labels = tmp_path / "labels.yaml"
    labels.write_text("labels:\n  Head: {role: neck}\n")
    spec = load_creature_from_bvh(BVH, radius=0.002, density=500.0, scale=0.001, default_stiffness=5.0,
                                  labels_file=labels, name="mini")
    assert spec.name == "mini" and spec.bones[0].pos == pytest.approx((0.0, 0.0, 0.09))
    assert {b.joint.stiffness for b in spec.bones[1:]} == {5.0}
    assert {b.density for b in spec.bones} == {500.0}
    assert max(s.radius for b in spec.bones for s in b.shapes) == 0.002
    assert spec.bone("Head").role == "neck"


def test_facing_turns_the_skeleton_so_left_is_plus_y(tmp_path):
    # The same biped facing file +X with its left on file -Z.
    lines = []
    for line in TEXT.splitlines():
        words = line.split()
        if words[:1] == ["OFFSET"]:
            x, y, z = map(float, words[1:])
            line = line[:line.index("OFFSET")] + f"OFFSET {z:.2f} {y:.2f} {-x:.2f}"
        lines.append(line)
    path = tmp_path / "turned.bvh"
    path.write_text("\n".join(lines) + "\n")
    turned = load_creature_from_bvh(path)
    assert turned.bone("LeftUpLeg").pos == pytest.approx((0.0, 0.1, 0.0))
    assert turned.bone("LeftToeBase").pos == pytest.approx((0.12, 0.0, -0.05))
    as_is = load_creature_from_bvh(path, face_x=False)
    assert as_is.bone("LeftUpLeg").pos == pytest.approx((-0.1, 0.0, 0.0))  # file -Z is gaitforge -x


def test_round_trip_through_gaitforge_bvh_export():
    human = Character.from_spec(registry.build("human"))
    clip = MotionClip(fps=30.0, qpos=human.rest_qpos[None], character_name=human.name)
    text = bvh_text(human, clip, units="cm")
    nodes = parse_bvh(text, "human.bvh")
    imported = Character.from_spec(creature_from_bvh_nodes(nodes, "human"))
    d_in, d_ref = imported.make_data(), human.make_data()

    def joint_point(c, d, body):
        b = c.body_id(body)
        return d.xanchor[c.model.body_jntadr[b]] if c.model.body_jntnum[b] and b != 1 else d.xpos[b]

    root_in, root_ref = joint_point(imported, d_in, "pelvis"), joint_point(human, d_ref, "pelvis")
    for body in human.bodies:
        np.testing.assert_allclose(joint_point(imported, d_in, body) - root_in,
                                   joint_point(human, d_ref, body) - root_ref, atol=1e-7, err_msg=body)
    same = [b for b in human.bodies if imported.labels[b] == human.labels[b]]
    assert len(same) == 21  # all but the thorax (spine by hand, trunk by name)


def _broken(tmp_path, old: str, new: str, count: int = 1) -> Path:
    path = tmp_path / "broken.bvh"
    assert old in TEXT
    path.write_text(TEXT.replace(old, new, count))
    return path


@pytest.mark.parametrize("old, new, message", [
    ("HIERARCHY", "HIERARCH", "line 1: expected 'HIERARCHY', got 'HIERARCH'"),
    ("  OFFSET 10.00 0.00 0.00", "  OFFSET 10.00 zero 0.00", "line 8: expected a number (OFFSET), got 'zero'"),
    ("CHANNELS 3 Zrotation Xrotation Yrotation", "CHANNELS 3 Zrotation Xrotation Wrotation",
     "line 9: unknown channel 'Wrotation' (choose from Xposition, Yposition, Zposition, Xrotation, "
     "Yrotation, Zrotation)"),
    ("JOINT RightUpLeg", "JOINT LeftUpLeg", "line 30: duplicate joint name 'LeftUpLeg'"),
    ("    End Site", "    End Sight", "line 22: expected 'Site', got 'Sight'"),
    ("Frames: 2", "Frames: 3", "line 126: 3 frames declared, found 2"),
    ("\n0 0 0", "\n0 0", "line 125: expected 63 values per frame, got 62"),
    ("\n1 90 2", "\n1 ninety 2", "line 126: expected a number, got 'ninety'"),
    ("MOTION", "ROOT Extra", "line 122: only one ROOT per file is supported"),
])
def test_errors_name_file_and_line(tmp_path, old, new, message):
    path = _broken(tmp_path, old, new)
    with pytest.raises(SpecError) as err:
        load_creature_from_bvh(path)
    assert str(err.value) == f"{path}: {message}"


def test_truncated_file_and_argument_errors(tmp_path):
    path = tmp_path / "cut.bvh"
    path.write_text(TEXT[:TEXT.index("JOINT RightUpLeg")])
    with pytest.raises(SpecError) as err:
        load_creature_from_bvh(path)
    assert str(err.value) == f"{path}: line 29: unexpected end of the hierarchy, expected JOINT, End Site or '}}'"
    with pytest.raises(GaitforgeError) as err:
        load_creature_from_bvh(tmp_path / "none.bvh")
    assert str(err.value) == f"{tmp_path / 'none.bvh'}: no such file"
    with pytest.raises(GaitforgeError) as err:
        load_creature_from_bvh(BVH, up="x")
    assert str(err.value) == "unknown up axis 'x' (choose from y, z)"
    with pytest.raises(GaitforgeError) as err:
        load_creature_from_bvh(BVH, radius=0.0)
    assert str(err.value) == "radius must be a positive number, got 0.0"

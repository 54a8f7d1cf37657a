"""CreatureSpec validation, YAML/JSON round trips and exact error messages."""
import math
import textwrap

import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.serialize import spec_from_dict, spec_to_dict
from gaitforge.creatures.spec import Bone, CreatureSpec, Joint, Shape
from gaitforge.errors import GaitforgeError, SpecError
from gaitforge.io.spec_files import dump_spec, load_spec, parse_spec_text, save_spec

GOOD = textwrap.dedent("""\
    name: stick
    bones:
      - name: body
        parent: null
        joint: {type: free}
        shapes:
          - {kind: box, half_sizes: [0.2, 0.05, 0.05]}
      - name: leg
        parent: body
        pos: [0.1, 0, -0.05]
        joint: {type: hinge, axis: [0, 1, 0], stiffness: 5.0, range: [-1, 1]}
        shapes:
          - {kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0, 0, -0.2]}
        role: foot
        limb: front
    """)


def test_good_yaml_loads():
    spec = parse_spec_text(GOOD, "stick.yaml")
    assert spec.bone_names == ("body", "leg")
    assert spec.bone("leg").joint.range == (-1.0, 1.0)


@pytest.mark.parametrize("name", registry.names())
def test_yaml_and_json_round_trip_is_exact(name, tmp_path):
    spec = registry.build(name)
    for suffix in (".yaml", ".json"):
        path = tmp_path / f"{name}{suffix}"
        save_spec(spec, path)
        again = load_spec(path)
        assert again == spec
        save_spec(again, path)
        assert load_spec(path) == spec


def test_dict_round_trip_writes_only_non_defaults():
    spec = parse_spec_text(GOOD, "x")
    d = spec_to_dict(spec)
    assert "friction" not in d and d["bones"][0]["parent"] is None
    assert spec_from_dict(d) == spec


def _error(text: str) -> str:
    with pytest.raises(SpecError) as info:
        parse_spec_text(text, "bad.yaml")
    return str(info.value)


def _edit(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


@pytest.mark.parametrize("text, message", [
    ("name: [unclosed\n", "bad.yaml: line 2, column 1: malformed YAML: expected ',' or ']', but got '<stream end>'"),
    (_edit("type: hinge", "type: hingee"),
     "bad.yaml: bones[1].joint.type: unknown joint type 'hingee' "
     "(choose from ball, fixed, free, hinge, planar, slide)"),
    (_edit("role: foot", "role: foot\n    colour: red"),
     "bad.yaml: bones[1].colour: unknown key 'colour' (valid keys: name, parent, shapes, joint, pos, quat, "
     "density, mass, inertial, side, role, limb, rgba)"),
    (_edit("radius: 0.02", "radius: -0.02"), "bad.yaml: bones[1].shapes[0].radius: must be positive, got -0.02"),
    (_edit("role: foot", "role: foot\n    mass: .nan"), "bad.yaml: bones[1].mass: must be a finite number, got nan"),
    (_edit("parent: body", "parent: torso"), "bad.yaml: bones[1].parent: unknown parent bone 'torso'"),
    (_edit("name: leg", "name: body"), "bad.yaml: bones[1].name: duplicate bone name 'body' (also bones[0])"),
    (_edit("role: foot", "role: paw"),
     "bad.yaml: bones[1].role: unknown role 'paw' (choose from ankle, elbow, finger, foot, hand, head, hip, "
     "knee, knuckle, neck, pelvis, shoulder, spine, tail, toe, trunk, wrist)"),
    (_edit("limb: front", "limb: middle"), "bad.yaml: bones[1].limb: unknown limb 'middle' (choose from front, rear)"),
    (_edit("range: [-1, 1]", "range: [1, -1]"),
     "bad.yaml: bones[1].joint.range: lower limit must be below upper limit, got (1.0, -1.0)"),
    (_edit("kind: box", "kind: cone"),
     "bad.yaml: bones[0].shapes[0].kind: unknown shape kind 'cone' (choose from box, capsule, ellipsoid, sphere)"),
    (_edit("half_sizes: [0.2, 0.05, 0.05]", "half_sizes: [0.2, 0.05]"),
     "bad.yaml: bones[0].shapes[0].half_sizes: must be a list of 3 numbers, got (0.2, 0.05)"),
    ("- just\n- a list\n", "bad.yaml: must be a mapping, got list ['just', 'a list']"),
])
def test_bad_input_names_file_field_and_value(text, message):
    assert _error(text) == message


def test_cycle_in_bone_tree_is_reported():
    leg = Bone("leg", "foot", (Shape("sphere", radius=0.1),))
    foot = Bone("foot", "leg", (Shape("sphere", radius=0.1),))
    root = Bone("body", None, (Shape("sphere", radius=0.1),), Joint("free"))
    with pytest.raises(SpecError) as info:
        CreatureSpec("c", (root, leg, foot))
    assert str(info.value) == "bones[1].parent: cycle in the bone tree: leg -> foot -> leg"


def test_spec_is_frozen():
    spec = parse_spec_text(GOOD, "x")
    with pytest.raises(Exception):
        spec.name = "other"  # type: ignore[misc]


def test_missing_file_is_one_line(tmp_path):
    with pytest.raises(GaitforgeError) as info:
        load_spec(tmp_path / "nope.yaml")
    assert str(info.value) == f"{tmp_path / 'nope.yaml'}: no such file"


def test_dump_is_valid_yaml_text():
    text = dump_spec(parse_spec_text(GOOD, "x"))
    assert text.startswith("name: stick\n")
    assert math.isclose(parse_spec_text(text, "y").bone("leg").joint.stiffness, 5.0)

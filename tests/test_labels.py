"""Label inference from bone names, label overrides and the choice of feet."""
from __future__ import annotations

import math

import pytest

from gaitforge.creatures.character import BodyLabel
from gaitforge.creatures.labels import (
    apply_label_overrides, check_label_overrides, choose_feet, facing_yaw, infer_labels, role_of, tokens,
)
from gaitforge.errors import SpecError

L, R = "left", "right"

# name -> (side, role, limb) for names from common skeletons, one name at a time.
NAMED = {
    # Mixamo / Blender / CMU BVH
    "mixamorig:LeftUpLeg": (L, "hip", "rear"), "RightLeg": (R, "knee", "rear"),
    "LeftFoot": (L, "foot", "rear"), "RightToeBase": (R, "toe", "rear"),
    "LeftShoulder": (L, "shoulder", "front"), "RightArm": (R, "shoulder", "front"),
    "LeftForeArm": (L, "elbow", "front"), "RightHand": (R, "hand", "front"),
    "LeftHandIndex1": (L, "finger", "front"), "Hips": ("center", "pelvis", None),
    "Spine2": ("center", "spine", None), "Neck": ("center", "neck", None), "Head": ("center", "head", None),
    "hand.L": (L, "hand", "front"), "thigh.R.001": (R, "hip", "rear"), "LHipJoint": (L, "hip", "rear"),
    "RThumb": (R, "finger", "front"), "lft_ankle": (L, "ankle", "rear"),
    # CMU humanoid (dm_control)
    "lfemur": (L, "hip", "rear"), "rtibia": (R, "knee", "rear"), "lfoot": (L, "foot", "rear"),
    "rtoes": (R, "toe", "rear"), "lclavicle": (L, "shoulder", "front"), "rhumerus": (R, "shoulder", "front"),
    "lradius": (L, "elbow", "front"), "rwrist": (R, "wrist", "front"), "lfingers": (L, "finger", "front"),
    "lowerback": ("center", "spine", None), "upperneck": ("center", "neck", None),
    "thorax": ("center", "trunk", None), "root": ("center", "pelvis", None),
    # dm_control dog
    "upper_leg_L": (L, "hip", "rear"), "lower_leg_R": (R, "knee", "rear"), "toe_L": (L, "toe", "rear"),
    "scapula_R": (R, "shoulder", "front"), "upper_arm_L": (L, "shoulder", "front"),
    "lower_arm_L": (L, "elbow", "front"), "finger_R": (R, "finger", "front"), "skull": ("center", "head", None),
    "L_3": ("center", "spine", None), "C_5": ("center", "neck", None), "Ca_12": ("center", "tail", None),
    # legged robots (Unitree, ANYmal)
    "FL_hip": (L, "hip", "front"), "RR_calf": (R, "knee", "rear"), "FR_foot": (R, "foot", "front"),
    "LH_SHANK": (L, "knee", "rear"), "RF_THIGH": (R, "hip", "front"), "base": ("center", "trunk", None),
    # dm_control cheetah (planar: legs on the midline, glued f / b for front / back)
    "bthigh": ("center", "hip", "rear"), "fshin": ("center", "knee", "front"), "ffoot": ("center", "foot", "front"),
    # explicit limb words beat arm/leg words
    "front_left_thigh": (L, "hip", "front"), "hind_right_paw": (R, "foot", "rear"),
    "LeftForeFoot": (L, "foot", "front"),
}


@pytest.mark.parametrize("name", list(NAMED))
def test_single_names(name):
    assert infer_labels([name])[name] == BodyLabel(*NAMED[name])


def test_tokens_split_separators_camel_case_and_digits():
    assert tokens("mixamorig:LeftHandThumb1") == ["mixamorig", "left", "hand", "thumb", "1"]
    assert tokens("LHipJoint") == ["l", "hip", "joint"]
    assert tokens("FL_calf") == ["fl", "calf"]


@pytest.mark.parametrize("name", ["lowerback", "lumbar", "radius", "root", "leg", "Spring1", "ribbon",
                                  "hand", "head", "foot", "fingers", "back", "base"])
def test_no_side_or_limb_from_words_that_merely_start_with_a_prefix_letter(name):
    label = infer_labels([name])[name]
    assert (label.side, label.limb) == ("center", None)


def test_digit_names_are_fingers_only_on_a_hand():
    assert role_of("RightHandRing2") == "finger" and role_of("LeftHandMiddle1") == "finger"
    assert role_of("spine_middle") == "spine" and role_of("ring_3") is None


def test_short_words_match_whole_tokens_only():
    assert role_of("ships") is None  # no "hip"
    assert role_of("hips") == "pelvis"
    assert role_of("lowerneck") == "neck"  # 5+ letter keywords also match inside a token


def test_children_inherit_side_and_limb():
    parents = {"body": None, "left_arm": "body", "link3": "left_arm", "tail": "body"}
    labels = infer_labels(list(parents), parents=parents)
    assert labels["link3"] == BodyLabel("left", None, "front")
    assert labels["tail"] == BodyLabel("center", "tail", None)


def _quadruped(front_x: float, front_z: float = 0.0):
    """Two chains per side named hip/knee without front or rear words; chain
    'a' sits at (front_x, ., front_z), chain 'b' at the origin."""
    parents, pos = {"body": None}, {"body": (0.0, 0.0, 0.0)}
    for side, y in (("l", 0.1), ("r", -0.1)):
        for chain, x, z in (("a", front_x, front_z), ("b", 0.0, 0.0)):
            parents[f"hip_{chain}_{side}"] = "body"
            parents[f"knee_{chain}_{side}"] = f"hip_{chain}_{side}"
            pos[f"hip_{chain}_{side}"] = (x, y, z)
            pos[f"knee_{chain}_{side}"] = (x, y, z - 0.2)
    return list(parents), parents, pos


def test_front_and_rear_from_positions_when_names_do_not_say():
    names, parents, pos = _quadruped(front_x=0.4)
    labels = infer_labels(names, pos, parents)
    assert {n: labels[n].limb for n in names if n != "body"} == {
        "hip_a_l": "front", "knee_a_l": "front", "hip_b_l": "rear", "knee_b_l": "rear",
        "hip_a_r": "front", "knee_a_r": "front", "hip_b_r": "rear", "knee_b_r": "rear"}
    # Without positions, hip and knee are leg words: everything is rear.
    assert {labels.limb for labels in infer_labels(names, parents=parents).values()} == {None, "rear"}
    # An upright biped: the higher chain is the front one (its arms).
    names, parents, pos = _quadruped(front_x=-0.4, front_z=0.5)
    assert infer_labels(names, pos, parents)["knee_a_r"].limb == "front"


def test_explicit_limb_words_beat_positions():
    parents = {"body": None, "front_left_hip": "body", "rear_left_hip": "body"}
    pos = {"body": (0, 0, 0), "front_left_hip": (-0.3, 0.1, 0), "rear_left_hip": (0.3, 0.1, 0)}
    labels = infer_labels(list(parents), pos, parents)
    assert labels["front_left_hip"].limb == "front" and labels["rear_left_hip"].limb == "rear"


# ------------------------------------------------------------- overrides
def test_overrides_replace_only_the_given_fields():
    labels = {"a": BodyLabel("left", "hip", "rear"), "b": BodyLabel()}
    doc = check_label_overrides({"labels": {"a": {"role": "knee"}, "b": {"side": "right", "limb": "front"}}})
    out = apply_label_overrides(labels, doc)
    assert out == {"a": BodyLabel("left", "knee", "rear"), "b": BodyLabel("right", None, "front")}
    cleared = apply_label_overrides(labels, check_label_overrides({"labels": {"a": {"role": None}}}))
    assert cleared["a"] == BodyLabel("left", None, "rear")


@pytest.mark.parametrize("doc, message", [
    ({"labels": {"a": {"role": "paws"}}},
     "f.yaml: labels.a.role: unknown role 'paws' (choose from ankle, elbow, finger, foot, hand, head, hip, "
     "knee, knuckle, neck, pelvis, shoulder, spine, tail, toe, trunk, wrist)"),
    ({"labels": {"a": {"limb": "middle"}}}, "f.yaml: labels.a.limb: unknown limb 'middle' (choose from front, rear)"),
    ({"labels": {"a": {"side": None}}}, "f.yaml: labels.a.side: unknown side None (choose from center, left, right)"),
    ({"labels": {"a": {"colour": "red"}}},
     "f.yaml: labels.a.colour: unknown field 'colour' (valid fields: side, role, limb)"),
    ({"label": {}}, "f.yaml: label: unknown key 'label' (valid keys: labels)"),
    ({"labels": {"a": "foot"}}, "f.yaml: labels.a: must be a mapping of side, role, limb, got 'foot'"),
    (["a"], "f.yaml: must be a mapping with the key 'labels', got list"),
])
def test_override_document_errors(doc, message):
    with pytest.raises(SpecError) as err:
        check_label_overrides(doc, "f.yaml")
    assert str(err.value) == message


def test_unknown_body_lists_few_bodies_and_suggests_among_many():
    few = {"a": BodyLabel(), "b": BodyLabel()}
    with pytest.raises(SpecError) as err:
        apply_label_overrides(few, {"c": {"role": "foot"}}, "f.yaml")
    assert str(err.value) == "f.yaml: labels.c: unknown body 'c' (valid bodies: a, b)"
    many = {f"bone{i}": BodyLabel() for i in range(20)} | {"lfemur": BodyLabel()}
    with pytest.raises(SpecError) as err:
        apply_label_overrides(many, {"lfemr": {"role": "hip"}}, "f.yaml")
    assert str(err.value) == "f.yaml: labels.lfemr: unknown body 'lfemr' (did you mean 'lfemur'?)"


# ------------------------------------------------------------------ feet
def _labels(**kw):
    return {n: BodyLabel(*v) for n, v in kw.items()}


def test_quadruped_feet_get_limb_and_side_names():
    labels = _labels(body=("center", "trunk", None), fl=("left", "foot", "front"), fr=("right", "foot", "front"),
                     rl=("left", "foot", "rear"), rr=("right", "foot", "rear"))
    parents = {n: (None if n == "body" else "body") for n in labels}
    lowest = {"body": 0.3, "fl": 0.0, "fr": 0.001, "rl": 0.0, "rr": 0.0}
    assert choose_feet(labels, lowest, parents, 0.05) == {
        "front_left_foot": "fl", "front_right_foot": "fr", "rear_left_foot": "rl", "rear_right_foot": "rr"}


def test_biped_hands_in_the_air_are_not_feet_and_the_lowest_body_of_a_foot_carries_it():
    labels = _labels(pelvis=("center", "pelvis", None), lfoot=("left", "foot", "rear"),
                     ltoe=("left", "toe", "rear"), rfoot=("right", "foot", "rear"),
                     lhand=("left", "hand", "front"), rhand=("right", "hand", "front"))
    parents = {"pelvis": None, "lfoot": "pelvis", "ltoe": "lfoot", "rfoot": "pelvis",
               "lhand": "pelvis", "rhand": "pelvis"}
    lowest = {"pelvis": 0.9, "lfoot": 0.02, "ltoe": 0.0, "rfoot": 0.0, "lhand": 0.8, "rhand": 0.8}
    assert choose_feet(labels, lowest, parents, 0.17) == {"left_foot": "ltoe", "right_foot": "rfoot"}


def test_a_limb_without_foot_words_stands_on_its_deepest_body():
    labels = _labels(base=("center", "trunk", None), l1=("left", "hip", "rear"), l2=("left", "knee", "rear"),
                     r1=("right", "hip", "rear"), r2=("right", "knee", "rear"))
    parents = {"base": None, "l1": "base", "l2": "l1", "r1": "base", "r2": "r1"}
    lowest = {"base": 0.4, "l1": 0.2, "l2": 0.0, "r1": 0.2, "r2": 0.0}
    assert choose_feet(labels, lowest, parents, 0.05) == {"left_foot": "l2", "right_foot": "r2"}


def test_names_of_the_built_in_dog_give_back_its_hand_written_labels():
    # The dog builder labels its 31 bones by hand; inference sees only names,
    # parents and rest positions.
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character

    spec = registry.build("dog")
    c = Character.from_spec(spec)
    d = c.make_data()
    names = [b.name for b in spec.bones]
    labels = infer_labels(names, [d.xpos[c.body_id(n)] for n in names], {b.name: b.parent for b in spec.bones})
    assert labels == {b.name: BodyLabel(b.side, b.role, b.limb) for b in spec.bones}


def test_joined_tokens_never_match_in_part():
    assert role_of("shank_left") == "knee"  # "shankleft" holds "ankle"


def test_facing_yaw_turns_the_left_side_to_plus_y():
    labels = _labels(a=("left", None, None), b=("right", None, None), c=("center", None, None))
    for left_dir, yaw in (((1, 0), math.pi / 2), ((0, 1), 0.0), ((0, -1), math.pi), ((-1, 0), -math.pi / 2)):
        pos = {"a": (left_dir[0], left_dir[1], 0.3), "b": (-left_dir[0], -left_dir[1], 0.3), "c": (5, 5, 5)}
        assert facing_yaw(labels, pos) == pytest.approx(yaw)
    assert facing_yaw({"c": BodyLabel()}, {"c": (0, 0, 0)}) == 0.0

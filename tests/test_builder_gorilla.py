"""The knuckle-walking gorilla (Wang 2011 ch. 3.5.1): structure, mass, stance
geometry, labels, symmetry, contacts, passive standing and the YAML round trip."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest
from scipy.spatial import ConvexHull

from gaitforge.creatures import Character, spec_from_dict, spec_to_dict
from gaitforge.creatures.builders.gorilla import gorilla
from gaitforge.creatures.spec import ROLES
from gaitforge.io.spec_files import dump_spec, parse_spec_text

ARM = ("upper_arm", "forearm", "hand", "fingers")
LEG = ("thigh", "shank", "foot", "toes")
CONTACTS = ("front_left_knuckle", "front_right_knuckle", "rear_left_foot", "rear_right_foot")


@pytest.fixture(scope="module")
def spec():
    return gorilla()


@pytest.fixture(scope="module")
def char(spec):
    return Character.from_spec(spec)


@pytest.fixture(scope="module")
def rest(char):
    return char.make_data()


def _pos(char, data, body):
    return data.xpos[char.body_id(body)].copy()


def test_link_count_and_joint_types(spec, char):
    assert spec.name == "gorilla"
    assert len(spec.bones) == 21 and char.model.nbody == 22  # + world
    types = {b.name: b.joint.type for b in spec.bones}
    assert types["pelvis"] == "free" and spec.bones[0].name == "pelvis"
    for side in ("left", "right"):
        assert types[f"upper_arm_{side}"] == types[f"thigh_{side}"] == "ball"
        for name in ARM[1:] + LEG[1:]:
            assert types[f"{name}_{side}"] == "hinge"
    assert all(s.kind == "box" for b in spec.bones for s in b.shapes)


def test_total_mass_is_157_kg(char):
    assert char.mass == pytest.approx(157.0, rel=1e-9)


def test_box_inertia_is_the_solid_cuboid(spec, char):
    # Wang 2011 ch. 4.1.4: I = m (b² + c²) / 12 about each axis; the finger box is axis aligned.
    a, b, c = (2 * h for h in spec.bone("fingers_left").shapes[0].half_sizes)
    i = char.body_id("fingers_left")
    m = char.model.body_mass[i]
    expected = sorted(m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b]))
    assert np.allclose(sorted(char.model.body_inertia[i]), expected, rtol=1e-9)


def test_shoulder_and_hip_heights(char, rest):
    assert char.extent()[0] == pytest.approx(0.0, abs=1e-9)  # ground_clearance 0
    for side in ("left", "right"):
        assert _pos(char, rest, f"upper_arm_{side}")[2] == pytest.approx(1.10, abs=0.02)
        assert _pos(char, rest, f"thigh_{side}")[2] == pytest.approx(0.70, abs=0.02)


def test_arms_longer_than_legs_and_shoulders_wider_than_hips(char, rest):
    def chain(bodies, contact):
        pts = [_pos(char, rest, b) for b in bodies] + [rest.site_xpos[char.contacts[contact]]]
        return sum(np.linalg.norm(q - p) for p, q in zip(pts, pts[1:]))

    arm = chain([f"{n}_left" for n in ARM], "front_left_knuckle")
    leg = chain([f"{n}_left" for n in LEG[:3]], "rear_left_foot")
    assert arm > 1.2 * leg
    shoulders = np.linalg.norm(_pos(char, rest, "upper_arm_left") - _pos(char, rest, "upper_arm_right"))
    hips = np.linalg.norm(_pos(char, rest, "thigh_left") - _pos(char, rest, "thigh_right"))
    assert shoulders > 1.5 * hips


def test_left_and_right_mirror_exactly(spec, char, rest):
    m = char.model
    mirror = np.array([1.0, -1.0, 1.0])
    for name in ARM + LEG:
        left, right = char.body_id(f"{name}_left"), char.body_id(f"{name}_right")
        assert m.body_mass[right] == pytest.approx(m.body_mass[left], rel=1e-9)
        assert np.allclose(m.body_inertia[right], m.body_inertia[left], rtol=1e-9)
        assert np.allclose(rest.xpos[right], rest.xpos[left] * mirror, atol=1e-12)
        assert np.allclose(rest.xipos[right], rest.xipos[left] * mirror, atol=1e-12)
        jl, jr = spec.bone(f"{name}_left").joint, spec.bone(f"{name}_right").joint
        # Axial vectors: a y (flexion) axis stays +y on both sides.
        assert jl.axis == jr.axis and jl.stiffness == jr.stiffness and jl.damping == jr.damping
    assert abs(char.com()[1]) < 1e-12


def test_labels(spec, char):
    for bone in spec.bones:
        assert bone.role in ROLES
        base, _, side = bone.name.rpartition("_")
        if side in ("left", "right"):
            assert bone.side == side
            assert bone.limb == ("front" if base in ARM else "rear")
        else:
            assert bone.side == "center" and bone.limb is None
    assert char.bodies_labeled(role="knuckle", limb="front") == ["fingers_left", "fingers_right"]
    assert char.bodies_labeled(role="foot", limb="rear") == ["foot_left", "foot_right"]
    assert char.bodies_labeled(role="pelvis") == ["pelvis"]


def test_contacts_touch_the_ground_at_rest(spec, char, rest):
    names = [c.name for c in spec.contacts]
    assert names[:4] == list(CONTACTS)
    by_name = {c.name: c.bone for c in spec.contacts}
    assert by_name["front_left_knuckle"] == "fingers_left" and by_name["rear_right_foot"] == "foot_right"
    for name in names:
        assert rest.site_xpos[char.contacts[name]][2] == pytest.approx(0.0, abs=1e-9), name


def test_com_over_support_polygon(spec, char, rest):
    pts = np.array([rest.site_xpos[char.contacts[c.name]][:2] for c in spec.contacts])
    hull = ConvexHull(pts)
    com = char.com()[:2]
    # equations: n·p + b <= 0 inside; the distance to the nearest edge must be ample.
    margin = -(hull.equations[:, :2] @ com + hull.equations[:, 2]).max()
    assert margin > 0.10
    # Upper body heavy: the COM sits nearer the knuckles than the feet (Wang 2011 ch. 3.3.1).
    knuckle_x = rest.site_xpos[char.contacts["front_left_knuckle"]][0]
    foot_x = rest.site_xpos[char.contacts["rear_left_foot"]][0]
    assert com[0] > 0.5 * (knuckle_x + foot_x)


def _stand(char, seconds=2.0, stiffness_scale=1.0):
    model = char.model
    # Damping is proportional to stiffness in the builder, so scale both.
    saved = model.jnt_stiffness.copy(), model.dof_damping.copy()
    model.jnt_stiffness[:] = saved[0] * stiffness_scale
    model.dof_damping[:] = saved[1] * stiffness_scale
    try:
        d = char.make_data()
        ids = [char.body_id("pelvis"), char.body_id("chest")]
        z0, R0, sites0 = d.xpos[ids, 2].copy(), d.xmat[ids].copy(), d.site_xpos.copy()
        for _ in range(int(round(seconds / model.opt.timestep))):
            mujoco.mj_step(model, d)
    finally:
        model.jnt_stiffness[:], model.dof_damping[:] = saved
    tilt = [np.degrees(np.arccos(np.clip((np.trace(a.reshape(3, 3).T @ b.reshape(3, 3)) - 1) / 2, -1, 1)))
            for a, b in zip(R0, d.xmat[ids])]
    slide = np.linalg.norm((d.site_xpos - sites0)[:, :2], axis=1)
    return d, d.xpos[ids, 2] / z0, np.array(tilt), slide


def test_stands_passively_for_two_seconds(char):
    d, height_ratio, tilt, slide = _stand(char)
    assert np.all(np.isfinite(d.qpos))
    assert np.all(np.abs(height_ratio - 1) < 0.02), height_ratio  # measured: 0.33 % and 0.57 %
    assert np.all(tilt < 2.0), tilt  # measured: < 0.5 deg
    assert np.all(slide < 0.02), slide  # measured: <= 1.04 cm
    assert np.all(d.site_xpos[:, 2] < 0.005)  # knuckles and soles still on the ground
    assert np.linalg.norm(d.qvel) < 0.05  # settled


def test_standing_relies_on_the_springs(char):
    # Control for the test above: with a fifth of the springs the gorilla collapses
    # (measured: the pelvis sinks by 21 %).
    _, height_ratio, _, _ = _stand(char, stiffness_scale=0.2)
    assert height_ratio[0] < 0.9


def test_yaml_round_trip(spec):
    assert spec_from_dict(spec_to_dict(spec)) == spec
    assert parse_spec_text(dump_spec(spec), "gorilla.yaml") == spec

"""The Raibert & Hodgins 1991 creatures: Table 3 reproduced exactly in the spec
and in the compiled MuJoCo model, geometry, labels, and short simulations."""
import math

import mujoco
import numpy as np
import pytest

from gaitforge.creatures.builders import raibert
from gaitforge.creatures.character import BodyLabel, Character
from gaitforge.creatures.serialize import spec_from_dict, spec_to_dict
from gaitforge.creatures.stance import com_support_margin
from gaitforge.io.spec_files import dump_spec, parse_spec_text

BUILDERS = {"raibert_biped": raibert.raibert_biped, "raibert_quadruped": raibert.raibert_quadruped,
            "kangaroo": raibert.raibert_kangaroo}
TABLE_KEY = {"raibert_biped": "biped", "raibert_quadruped": "quadruped", "kangaroo": "kangaroo"}
MIN_INERTIA = 1e-9  # kg m^2: what the compiler puts for a zero principal moment


@pytest.fixture(scope="module", params=list(BUILDERS))
def creature(request):
    spec = BUILDERS[request.param]()
    return spec, Character.from_spec(spec)


def _table_link(creature_name: str, bone_name: str) -> raibert.Link:
    """The Table 3 row a bone was built from ("front_left_upper_leg" -> "upper_leg")."""
    links = raibert.TABLE3[TABLE_KEY[creature_name]].links
    for key in links:
        if bone_name == key or bone_name.endswith("_" + key):
            return links[key]
    raise KeyError(bone_name)


def _expected_inertia(name: str, link: raibert.Link) -> tuple[float, float, float]:
    if name == "kangaroo":  # sagittal moment on y; axisymmetric link along x
        return (0.1 * link.inertia[0], link.inertia[0], link.inertia[0])
    return link.inertia


def test_table3_transcription():
    # A second, independent copy of Raibert & Hodgins 1991, Table 3, as printed:
    # (length, mass centre, mass, moments); offsets from the trunk mass centre.
    printed = {
        "biped": {"trunk": (None, None, 23.1, (.17, .17, .30)),
                  "upper_leg": (.20, (.095,), 1.4, (.018, .017, .0014)),
                  "lower_leg": (.63, (.22,), .64, (.02, .02, .00018))},
        "quadruped": {"trunk": (None, None, 10.0, (.54, 2.35, 2.39)),
                      "upper_leg": (.41, (.2,), 1.5, (.043, .043, 0)),
                      "lower_leg": (.4, (.2,), 1.0, (.0035, .0035, 0))},
        "kangaroo": {"trunk": (None, None, 3.67, (.034,)), "thigh": (.13, (.064,), 1.62, (.0039,)),
                     "shin": (.26, (.105,), .60, (.0033,)), "foot": (.174, (.082,), .14, (.00038,)),
                     "tail1": (.166, (.079,), .24, (.00058,)), "tail2": (.166, (.071,), .14, (.00033,)),
                     "tail3": (.166, (.076,), .069, (.00016,)), "head": (.13, (.04, .04), .33, (.00046,))},
    }
    for creature, rows in printed.items():
        table = raibert.TABLE3[creature].links
        assert list(table) == list(rows)
        for name, (length, mc, mass, inertia) in rows.items():
            assert table[name] == raibert.Link(mass, inertia, length, mc)
    assert dict(raibert.TABLE3["biped"].offsets) == {"hip": (0.0, 0.072, 0.0)}
    assert dict(raibert.TABLE3["quadruped"].offsets) == {"hip": (0.39, 0.12, 0.0)}
    # Kangaroo [x z]; the tail's printed +.2 is read as behind the trunk.
    assert dict(raibert.TABLE3["kangaroo"].offsets) == {"hip": (-.11, 0.0), "head": (.21, 0.0),
                                                       "tail": (-.2, 0.0)}


def test_names_and_dofs(creature):
    spec, c = creature
    assert spec.name in BUILDERS
    expected = {"raibert_biped": (14, 17), "raibert_quadruped": (22, 23), "kangaroo": (10, 10)}
    assert (c.nv, c.nq) == expected[spec.name]
    kinds = {j.name: j.kind for j in c.joints.values()}
    if spec.name == "kangaroo":
        assert kinds == {"trunk": "planar", **{b: "hinge" for b in spec.bone_names[1:]}}
    else:
        hip = "ball" if spec.name == "raibert_biped" else "gimbal"
        for name, kind in kinds.items():
            assert kind == {"trunk": "free", "upper": hip, "lower": "slide"}[
                "trunk" if name == "trunk" else name.split("_")[-2]]


def test_every_bone_has_the_exact_table_mass_properties(creature):
    spec, c = creature
    m = c.model
    used = set()
    for bone in spec.bones:
        link = _table_link(spec.name, bone.name)
        used.add(link)
        assert bone.inertial.mass == link.mass
        assert bone.inertial.inertia == _expected_inertia(spec.name, link)
        # Compiled: mass exactly, inertia tensor (rebuilt from MuJoCo's principal
        # axes) to 1e-12 of its largest moment, zeros clamped to 1e-9.
        i = m.body(bone.name).id
        assert m.body_mass[i] == pytest.approx(link.mass, rel=1e-12, abs=0)
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, m.body_iquat[i])
        R = R.reshape(3, 3)
        tensor = R @ np.diag(m.body_inertia[i]) @ R.T
        expected = np.diag(np.maximum(_expected_inertia(spec.name, link), MIN_INERTIA))
        np.testing.assert_allclose(tensor, expected, rtol=0, atol=1e-12 * expected.max())
    assert used == set(raibert.TABLE3[TABLE_KEY[spec.name]].links.values())
    # Totals by hand from Table 3: 23.1 + 2 (1.4 + .64); 10 + 4 (1.5 + 1); the kangaroo's eight links.
    total = {"raibert_biped": 27.18, "raibert_quadruped": 20.0, "kangaroo": 6.809}[spec.name]
    assert c.mass == pytest.approx(total, rel=1e-12)


def test_quadruped_keeps_the_table_zero_in_the_spec():
    spec = raibert.raibert_quadruped()
    assert spec.bone("rear_right_lower_leg").inertial.inertia == (0.0035, 0.0035, 0.0)
    m = Character.from_spec(spec).model
    assert sorted(m.body_inertia[m.body("front_left_upper_leg").id]) == [MIN_INERTIA, 0.043, 0.043]


@pytest.mark.parametrize("name, legs, hip", [("raibert_biped", ("left", "right"), (0.0, 0.072, 0.0)),
                                              ("raibert_quadruped", ("front_left", "front_right", "rear_left",
                                                                     "rear_right"), (0.39, 0.12, 0.0))])
def test_robot_hips_link_lengths_and_mass_centres(name, legs, hip):
    spec = BUILDERS[name]()
    table = raibert.TABLE3[TABLE_KEY[name]].links
    up, low = table["upper_leg"], table["lower_leg"]
    assert spec.bone("trunk").inertial.com == (0.0, 0.0, 0.0)  # trunk frame = trunk mass centre
    hips = {spec.bone(f"{leg}_upper_leg").pos for leg in legs}
    assert hips == {(sx * hip[0], sy * hip[1], 0.0) for sx in ((1, -1) if hip[0] else (1,)) for sy in (1, -1)}
    c = Character.from_spec(spec)
    for leg in legs:
        upper, lower = spec.bone(f"{leg}_upper_leg"), spec.bone(f"{leg}_lower_leg")
        assert upper.inertial.com == (0.0, 0.0, -up.mass_center[0])
        assert lower.inertial.com == (0.0, 0.0, -low.mass_center[0])
        assert lower.pos == (0.0, 0.0, -up.length)
        contact = next(p for p in spec.contacts if p.bone == lower.name)
        assert contact.name == f"{leg}_foot" and contact.pos == (0.0, 0.0, -low.length)
        # At rest the foot tip is the table's total leg length below the hip, on the ground.
        hip_world = c.world_points(c.rest_qpos, [upper.name], np.zeros((1, 3)))[0]
        foot = c.contact_positions(c.rest_qpos)[contact.name]
        assert hip_world - foot == pytest.approx([0.0, 0.0, up.length + low.length], abs=1e-12)
        assert foot[2] == pytest.approx(0.0, abs=1e-12)
        j = lower.joint
        assert (j.type, j.axis, j.rest) == ("slide", (0.0, 0.0, -1.0), 0.0)  # relaxed at table length


def test_leg_springs_follow_table_2_stance_durations():
    biped = raibert.raibert_biped().bone("left_lower_leg").joint
    quad = raibert.raibert_quadruped().bone("rear_left_lower_leg").joint
    # k = m pi^2 / T^2: biped run (27.18 kg, 0.18 s), quadruped trot pair (10 kg per leg, 0.09 s).
    assert biped.stiffness == pytest.approx(27.18 * math.pi ** 2 / 0.18 ** 2, rel=1e-12)
    assert quad.stiffness == pytest.approx(10.0 * math.pi ** 2 / 0.09 ** 2, rel=1e-12)
    assert biped.damping == pytest.approx(0.2 * math.sqrt(biped.stiffness * 27.18), rel=1e-12)


def test_kangaroo_offsets_lengths_and_mass_centres():
    spec = raibert.raibert_kangaroo()
    L = raibert.TABLE3["kangaroo"].links
    assert raibert.TABLE3["kangaroo"].offsets["tail"] == (-0.2, 0.0)  # printed [.2 0], read as rearward
    expect_pos = {"thigh": (-0.11, 0.0, 0.0), "tail1": (-0.2, 0.0, 0.0), "head": (0.21, 0.0, 0.0),
                  "shin": (0.13, 0.0, 0.0), "foot": (0.26, 0.0, 0.0), "tail2": (0.166, 0.0, 0.0),
                  "tail3": (0.166, 0.0, 0.0)}
    for name, pos in expect_pos.items():
        assert spec.bone(name).pos == pos
    for name, link in L.items():
        com = spec.bone(name).inertial.com
        assert com == ((0.04, 0.0, 0.04) if name == "head" else
                       (0.0, 0.0, 0.0) if name == "trunk" else (link.mass_center[0], 0.0, 0.0))
    c = Character.from_spec(spec)
    cp = c.contact_positions(c.rest_qpos)
    # Foot flat on the ground; toe and heel a foot length apart (less the sole's rounding).
    assert cp["foot"][2] == pytest.approx(0.0, abs=1e-12) and cp["heel"][2] == pytest.approx(0.0, abs=1e-12)
    assert cp["foot"][0] - cp["heel"][0] == pytest.approx(L["foot"].length - raibert.KANGAROO_FOOT_RADIUS)
    # Hinge chain lengths in the world: hip -> knee -> ankle.
    pts = c.world_points(c.rest_qpos, ["thigh", "shin", "foot"], np.zeros((3, 3)))
    assert np.linalg.norm(pts[1] - pts[0]) == pytest.approx(0.13, abs=1e-12)
    assert np.linalg.norm(pts[2] - pts[1]) == pytest.approx(0.26, abs=1e-12)
    assert np.all(np.abs(pts[:, 1]) < 1e-15)  # planar: everything in y = 0
    # The whole-body mass centre lies over the foot, strictly between heel and toe.
    x = c.com()[0]
    assert cp["heel"][0] + 0.03 < x < cp["foot"][0] - 0.03
    assert com_support_margin(c) == pytest.approx(0.0, abs=1e-12)


def test_kangaroo_springs():
    spec = raibert.raibert_kangaroo()
    c = Character.from_spec(spec)
    ankle = spec.bone("foot").joint
    assert ankle.stiffness == pytest.approx(6.809 * math.pi ** 2 / 0.11 ** 2 * 0.174 ** 2, rel=1e-12)
    assert ankle.stiffness == max(b.joint.stiffness for b in spec.bones[1:])  # the energy store
    # Each tail spring gives the (rigid) tail beyond it the hopping frequency, 1 / 0.35 s:
    # checked against MuJoCo's own joint-space inertia at the rest pose.
    d = c.make_data()
    M = np.zeros((c.nv, c.nv))
    mujoco.mj_fullM(c.model, d, M)
    for name, moment in zip(("tail1", "tail2", "tail3"), raibert.kangaroo_tail_moments()):
        dof = c.joints[name].dof.start
        assert M[dof, dof] == pytest.approx(moment, rel=1e-12)
        freq = math.sqrt(spec.bone(name).joint.stiffness / M[dof, dof]) / (2 * math.pi)
        assert freq == pytest.approx(1 / 0.35, rel=1e-12)


def test_labels_and_symmetry(creature):
    spec, c = creature
    if spec.name == "kangaroo":
        roles = {"trunk": "trunk", "thigh": "hip", "shin": "knee", "foot": "foot", "tail1": "tail",
                 "tail2": "tail", "tail3": "tail", "head": "head"}
        assert {b: lab.role for b, lab in c.labels.items()} == roles
        assert all(lab.side == "center" for lab in c.labels.values())
        assert c.bodies_labeled(limb="rear") == ["thigh", "shin", "foot"]
        assert set(c.contacts) == {"foot", "heel"}
        return
    legs = ("left", "right") if spec.name == "raibert_biped" else ("front_left", "front_right", "rear_left",
                                                                   "rear_right")
    assert set(c.contacts) == {f"{leg}_foot" for leg in legs}
    assert c.labels["trunk"].role == "trunk"
    for leg in legs:
        limb = "rear" if spec.name == "raibert_biped" else leg.split("_")[0]
        side = leg.split("_")[-1]
        assert c.labels[f"{leg}_upper_leg"] == BodyLabel(side, "hip", limb)
        assert c.labels[f"{leg}_lower_leg"] == BodyLabel(side, "foot", limb)
    left = sum(c.model.body_mass[c.body_id(b)] for b in c.bodies_labeled(side="left"))
    right = sum(c.model.body_mass[c.body_id(b)] for b in c.bodies_labeled(side="right"))
    assert left > 0 and abs(left - right) <= 1e-9 * left
    # Mirror-image rest pose: the mass centre is on the sagittal plane, above the feet's middle.
    assert c.com()[:2] == pytest.approx([0.0, 0.0], abs=1e-12)


def _stand(c: Character, seconds: float, shove=(0.0, 0.0, 0.0)):
    d = c.make_data()
    d.qvel[:3] = shove
    z0, R0 = d.xpos[1, 2], d.xmat[1].reshape(3, 3).copy()
    for _ in range(int(round(seconds / c.model.opt.timestep))):
        mujoco.mj_step(c.model, d)
    R = d.xmat[1].reshape(3, 3) @ R0.T
    tilt = math.degrees(math.acos(np.clip((np.trace(R) - 1) / 2, -1, 1)))
    return d.xpos[1, 2] - z0, tilt, d


def test_quadruped_stands_passively():
    c = Character.from_spec(raibert.raibert_quadruped())
    dz, tilt, d = _stand(c, 2.0)
    # Sinks 4 mm (leg springs and contact), stays level.
    assert -0.01 < dz < 0.0 and tilt < 0.5 and np.all(np.isfinite(d.qpos))
    dz, tilt, _ = _stand(c, 2.0, shove=(0.0, 0.3, 0.0))  # a sideways shove of 0.3 m/s
    assert abs(dz) < 0.01 and tilt < 3.0


def test_quadruped_with_weak_hips_falls(monkeypatch):
    # The standing test has teeth: at 10 N m/rad the same shove folds the legs.
    monkeypatch.setattr(raibert, "HIP_STIFFNESS", 10.0)
    dz, _, _ = _stand(Character.from_spec(raibert.raibert_quadruped()), 2.0, shove=(0.0, 0.3, 0.0))
    assert dz < -0.3


@pytest.mark.parametrize("name", ["raibert_biped", "kangaroo", "raibert_quadruped"])
def test_drop_from_30cm_stays_sane(name):
    c = Character.from_spec(BUILDERS[name]())
    m = c.model
    m.opt.enableflags |= mujoco.mjtEnableBit.mjENBL_ENERGY
    d = c.make_data()
    root = c.joints["trunk"]
    d.qpos[root.qpos.start + (2 if root.kind == "free" else 1)] += 0.3  # z of the free or planar root
    mujoco.mj_forward(m, d)
    e0, energies, lowest = float(d.energy.sum()), [], math.inf
    for _ in range(int(round(1.0 / m.opt.timestep))):
        mujoco.mj_step(m, d)
        energies.append(float(d.energy.sum()))
        lowest = min(lowest, float(d.xpos[1:, 2].min()))
    assert np.all(np.isfinite(d.qpos))
    assert lowest > -0.05
    assert max(energies) <= e0 + 1e-9 * e0  # springs, damping and contact never add energy
    assert energies[-1] < e0 - 0.5 * c.mass * 9.81 * 0.3  # landing dissipated at least half the drop


def test_yaml_round_trip(creature):
    spec, _ = creature
    assert spec_from_dict(spec_to_dict(spec)) == spec
    assert parse_spec_text(dump_spec(spec), "x.yaml") == spec

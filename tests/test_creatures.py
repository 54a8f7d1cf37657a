"""The same invariants over every built-in creature of the registry."""
import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.creatures.inertia import bone_mass_properties
from gaitforge.creatures.stance import com_support_margin, simulate_stand, support_points
from gaitforge.errors import UnknownNameError

NAMES = registry.names()


@pytest.fixture(scope="module", params=NAMES)
def creature(request):
    entry = registry.entry(request.param)
    spec = entry.build()
    return entry, spec, Character.from_spec(spec)


def test_compiles_with_expected_dofs(creature):
    entry, spec, c = creature
    assert c.nv == entry.dofs
    assert c.model.nbody - 1 == len(spec.bones)
    assert np.all(np.isfinite(c.rest_qpos))


def test_total_mass_is_sum_of_bones(creature):
    _, spec, c = creature
    expected = sum(bone_mass_properties(b).mass for b in spec.bones)
    assert c.mass == pytest.approx(expected, rel=1e-12)


def test_left_right_mass_symmetry(creature):
    _, spec, c = creature
    left = {(b.role, b.limb): bone_mass_properties(b).mass for b in spec.bones if b.side == "left"}
    right = {(b.role, b.limb): bone_mass_properties(b).mass for b in spec.bones if b.side == "right"}
    assert sorted(left) == sorted(right)
    total_l, total_r = sum(left.values()), sum(right.values())
    assert abs(total_l - total_r) <= 1e-9 * max(total_l, 1e-12)


def test_rest_pose_touches_ground(creature):
    _, spec, c = creature
    assert c.extent()[0] == pytest.approx(spec.ground_clearance or 0.0, abs=1e-9)
    assert len(support_points(c)) >= 2


def test_com_above_support(creature):
    _, _, c = creature
    margin = com_support_margin(c)
    # Inside the support polygon; a line-like support (the worm) must pass under the COM.
    assert margin > -1e-6


def test_stands_or_lands(creature):
    entry, _, c = creature
    if entry.stands_passively:
        r = simulate_stand(c, 2.0)
        assert r.finite
        assert 0.9 < r.height_ratio < 1.1, r
        assert r.tilt_deg < 10.0, r
    else:
        r = simulate_stand(c, 1.0, drop=0.3)
        assert r.finite
        assert r.lowest_body_z > -0.05, r


def test_spring_reference_is_rest_pose(creature):
    _, _, c = creature
    d = c.make_data()
    d.qvel[:] = 0
    mujoco.mj_passive(c.model, d)
    # At rest no spring pulls: passive forces vanish except on the constrained ring's closure.
    assert np.max(np.abs(d.qfrc_spring)) < 1e-9


def test_unknown_creature_lists_names():
    with pytest.raises(UnknownNameError) as info:
        registry.entry("unicorn")
    assert str(info.value) == f"unknown creature 'unicorn' (built-in creatures: {', '.join(NAMES)})"


def test_unknown_body_lists_bodies():
    c = Character.from_spec(registry.build("worm"))
    with pytest.raises(UnknownNameError) as info:
        c.body_id("head")
    assert str(info.value).startswith("unknown body 'head' in worm (valid bodies: link0, link1,")


def test_rest_extent_follows_a_new_rest_pose():
    """The rest pose's extent is cached, but a rest_qpos assigned later is
    measured anew (the perturbed-start tests assign one)."""
    c = Character.from_spec(registry.build("dog"))
    low, high = c.extent()
    assert c.extent() == (low, high)
    q = c.rest_qpos.copy()
    q[2] += 0.1                                   # the free root 10 cm higher
    c.rest_qpos = q
    new_low, new_high = c.extent()
    assert new_low == pytest.approx(low + 0.1, abs=1e-12) and new_high == pytest.approx(high + 0.1, abs=1e-12)
    assert c.extent(q) == (new_low, new_high)

"""Stiffness tuning: closed-form static sag against analytic answers, confirmed in MuJoCo."""
import dataclasses
import math

import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.builders.kit import capsule, sphere
from gaitforge.creatures.character import Character
from gaitforge.creatures.spec import Bone, CreatureSpec, Inertial, Joint
from gaitforge.modal.tuning import (TuningError, simulate_sag, static_sag, support_bodies,
                                    tune_stiffness)

G = 9.81
BOUND = math.radians(5.0)


def _arm(links, kind="hinge", stiffness=(10.0,), base_z=1.0):
    """A welded base with a horizontal chain of point-like links along +x.

    links: (mass [kg], centre of mass distance [m], length [m]) per link;
    stiffness: N m/rad per joint.
    """
    bones = [Bone("base", None, (sphere(0.03),), Joint("fixed"), pos=(0, 0, base_z))]
    parent, at = "base", 0.0
    for i, ((mass, com, length), k) in enumerate(zip(links, stiffness)):
        name = f"link{i}"
        bones.append(Bone(name, parent, (), Joint(kind, axis=(0, 1, 0), stiffness=k), pos=(at, 0, 0),
                          inertial=Inertial(mass, com=(com, 0, 0), inertia=(1e-6, 1e-6, 1e-6))))
        parent, at = name, length
    return Character.from_spec(CreatureSpec("arm", tuple(bones)))


def test_single_link_sag_is_mgd_over_k():
    m, d, k = 2.0, 0.4, 10.0
    c = _arm([(m, d, 0.5)], stiffness=(k,))
    dq = static_sag(c)
    assert abs(dq[0]) == pytest.approx(m * G * d / k, rel=1e-9)
    assert dq[0] > 0  # +y rotation turns +x toward −z: the link droops
    r = tune_stiffness(c)
    assert r.linear_scale == pytest.approx(m * G * d / (k * BOUND), rel=1e-9)
    # The simulation carries the cosine of the droop angle (0.4 % at 5°) and contact-free dynamics.
    assert r.scale == pytest.approx(r.linear_scale, rel=0.02)
    assert r.confirmed and (1 - 0.05) * BOUND <= r.simulated_deviation <= BOUND
    assert r.sag_deg["link0"] == pytest.approx(5.0 * r.linear_scale / r.scale, rel=1e-9)
    assert r.supports == ()


def test_ball_joint_sags_like_a_hinge():
    m, d, k = 1.5, 0.3, 4.0
    c = _arm([(m, d, 0.5)], kind="ball", stiffness=(k,))
    dq = static_sag(c)
    np.testing.assert_allclose(dq, [0.0, m * G * d / k, 0.0], atol=1e-12)


def test_two_link_chain_matches_statics():
    (m1, d1, l1), (m2, d2) = (1.0, 0.2, 0.4), (0.5, 0.15)
    k1, k2 = 30.0, 5.0
    c = _arm([(m1, d1, l1), (m2, d2, 0.3)], stiffness=(k1, k2))
    dq = static_sag(c)
    np.testing.assert_allclose(dq, [(m1 * G * d1 + m2 * G * (l1 + d2)) / k1, m2 * G * d2 / k2], rtol=1e-9)
    # The sag scales exactly as 1/s.
    np.testing.assert_allclose(static_sag(c, 4.0), dq / 4.0, rtol=1e-12)


def test_loop_stands_on_its_bottom_link_and_holds_in_simulation():
    c = Character.from_spec(registry.build("loop"))
    stiffness_before = c.model.jnt_stiffness.copy()
    assert support_bodies(c) == ("link0",)
    r = tune_stiffness(c)
    assert r.confirmed
    assert 0.95 * BOUND <= r.simulated_deviation <= BOUND
    # The linear estimate (welded bottom link, rigid ground) is close to what MuJoCo needs.
    assert r.linear_scale == pytest.approx(r.scale, rel=0.25)
    # Independent re-run at the chosen scale: within the bound; at 70 % of it: not.
    def worst(s):
        return max(np.linalg.norm(simulate_sag(c, s)[j.dof]) for j in c.joints.values() if j.kind == "hinge")

    assert worst(r.scale) <= BOUND
    assert worst(0.7 * r.scale) > BOUND
    # The ring sags symmetrically about its vertical axis: hinge i mirrors hinge 17 − i.
    assert r.sag_deg["link4"] == pytest.approx(r.sag_deg["link13"], rel=1e-6)
    np.testing.assert_array_equal(c.model.jnt_stiffness, stiffness_before)


def test_worm_lying_flat_needs_no_stiffness():
    c = Character.from_spec(registry.build("worm"))
    assert support_bodies(c) == tuple(f"link{i}" for i in range(16))
    r = tune_stiffness(c, min_scale=1e-3)
    assert r.linear_scale == pytest.approx(0.0, abs=1e-9)
    assert r.scale == 1e-3 and r.confirmed and r.simulations == 1
    assert r.simulated_deviation < math.radians(0.1)


def test_slide_joint_sags_by_mg_over_k_against_its_own_bound():
    m, k = 2.0, 1000.0
    base = Bone("base", None, (sphere(0.03),), Joint("fixed"), pos=(0, 0, 1.0))
    piston = Bone("piston", "base", (), Joint("slide", axis=(0, 0, 1), stiffness=k),
                  inertial=Inertial(m, inertia=(1e-4, 1e-4, 1e-4)))
    c = Character.from_spec(CreatureSpec("piston", (base, piston)))
    r = tune_stiffness(c, max_slide=0.01)
    assert r.linear_scale == pytest.approx(m * G / (k * 0.01), rel=1e-9)
    assert r.scale == pytest.approx(r.linear_scale, rel=0.05)
    assert r.confirmed and r.simulated_slide_sag["piston"] <= 0.01
    assert r.slide_sag["piston"] == pytest.approx(m * G / (k * r.scale), rel=1e-9)
    assert r.sag_deg == {} and r.max_slide == 0.01


def test_a_creature_that_tips_over_is_not_confirmed():
    """A pole standing on its rounded end with an arm out to one side falls
    however stiff the arm's hinge is."""
    pole = Bone("pole", None, (capsule((0, 0, 0), (0, 0, 1.0), 0.02),), Joint("free"))
    arm = Bone("arm", "pole", (capsule((0, 0, 0), (0.3, 0, 0), 0.02),),
               Joint("hinge", axis=(0, 1, 0), stiffness=50.0), pos=(0, 0, 0.9))
    r = tune_stiffness(Character.from_spec(CreatureSpec("pole", (pole, arm))), max_simulations=3)
    assert r.fell and not r.confirmed
    assert r.simulations == 3


def test_bound_is_configurable():
    c = _arm([(1.0, 0.25, 0.5)], stiffness=(10.0,))
    r2 = tune_stiffness(c, math.radians(2.0))
    r5 = tune_stiffness(c, math.radians(5.0))
    assert r2.linear_scale == pytest.approx(2.5 * r5.linear_scale, rel=1e-9)
    assert r2.simulated_deviation <= math.radians(2.0)


def test_result_is_frozen():
    r = tune_stiffness(_arm([(1.0, 0.25, 0.5)]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.scale = 2.0
    with pytest.raises(TypeError):
        r.sag_deg["link0"] = 0.0


def test_errors():
    floating = CreatureSpec("balloon", (
        Bone("body", None, (sphere(0.1),), Joint("free"), pos=(0, 0, 2.0)),
        Bone("arm", "body", (sphere(0.05, pos=(0.2, 0, 0)),), Joint("hinge", stiffness=1.0), pos=(0.1, 0, 0))),
        ground_clearance=None)
    with pytest.raises(TuningError) as exc:
        tune_stiffness(Character.from_spec(floating))
    assert str(exc.value) == ("balloon: no body touches the ground in the rest pose, "
                              "so its weight has nothing to rest on")
    limp = _arm([(1.0, 0.2, 0.4), (0.5, 0.1, 0.3)], stiffness=(10.0, 0.0))
    with pytest.raises(TuningError) as exc:
        tune_stiffness(limp)
    assert str(exc.value) == ("arm: the supported creature can move without bending a spring "
                              "(joints with zero stiffness: link1)")
    with pytest.raises(TuningError) as exc:
        tune_stiffness(limp, -1.0)
    assert str(exc.value) == "the maximum joint deviation must be a positive angle, got -1.0"

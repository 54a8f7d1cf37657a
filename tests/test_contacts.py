"""Ground contacts by explicit pairs (``CreatureSpec.contact_pairs``) against
collision filtering: the same contacts and the same runs, and the contact
parameter helpers act on both."""
import dataclasses

import mujoco
import numpy as np
import pytest

from gaitforge.control.raibert import catalog
from gaitforge.creatures import contacts, registry
from gaitforge.creatures.character import Character
from gaitforge.creatures.spec import SpecError

RH91 = ("raibert_biped", "raibert_quadruped", "kangaroo")


def both(name):
    """(filtered, paired) characters of one built-in creature."""
    spec = registry.build(name)
    return (Character.from_spec(dataclasses.replace(spec, contact_pairs=False)),
            Character.from_spec(dataclasses.replace(spec, contact_pairs=True)))


def contacts_when_pressed(model, qpos, depth=0.05):
    """(geom1, geom2) of each contact with the creature pushed ``depth`` [m] into the ground."""
    d = mujoco.MjData(model)
    d.qpos[:] = qpos
    d.qpos[2 if model.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE else 1] -= depth
    mujoco.mj_forward(model, d)
    return sorted((int(c.geom[0]), int(c.geom[1])) for c in d.contact[:d.ncon])


@pytest.mark.parametrize("name", RH91)
def test_pairs_give_the_same_contacts_as_filtering(name):
    filtered, paired = both(name)
    assert filtered.model.npair == 0 and paired.model.npair == len(contacts.contact_geoms(filtered.model))
    assert contacts.contact_geoms(filtered.model) == contacts.contact_geoms(paired.model)
    assert not paired.model.geom_contype.any() and not paired.model.geom_conaffinity.any()
    pressed = contacts_when_pressed(paired.model, paired.rest_qpos)
    assert pressed and pressed == contacts_when_pressed(filtered.model, filtered.rest_qpos)


def test_the_rh91_builders_use_pairs_and_other_creatures_do_not():
    assert all(registry.build(n).contact_pairs for n in RH91)
    assert not registry.build("dog").contact_pairs


@pytest.mark.parametrize("key, gait, speed", [("biped", "run", 1.5), ("quadruped", "trot", 1.5),
                                              ("kangaroo", "hop", 3.0)])
def test_runs_are_identical_with_pairs(monkeypatch, key, gait, speed):
    """Two seconds of each controller with each contact formulation: the
    same floating-point trajectory."""
    build = registry.build
    finals = []
    for pairs in (False, True):
        monkeypatch.setattr(registry, "build", lambda n, p=pairs: dataclasses.replace(build(n), contact_pairs=p))
        _, rollout = catalog.simulate(key, gait, speed, 2.0)
        assert rollout.contact.any(axis=1).sum() > 10  # the feet did meet the ground
        finals.append(rollout.clip.qpos)
    np.testing.assert_array_equal(finals[0], finals[1])


def test_parameter_helpers_reach_pairs_and_geoms():
    filtered, paired = both("raibert_biped")
    for character in (filtered, paired):
        m = character.model
        foot = [g for g in contacts.contact_geoms(m) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE]
        contacts.set_torsional_friction(m, foot, 0.02)
        contacts.set_time_constant(m, 0.01)
        contacts.scale_contact_lengths(m, 2.0, 1.5)
        d = mujoco.MjData(m)
        d.qpos[:] = character.rest_qpos
        d.qpos[2] -= 0.01
        mujoco.mj_forward(m, d)
        on_feet = [c for c in d.contact[:d.ncon] if set(c.geom.tolist()) & set(foot)]
        assert len(on_feet) == 2
        for c in on_feet:
            assert c.dim == 4 and c.friction[2] == pytest.approx(0.04)  # 0.02 m torsion, lengths x 2
            assert c.solref[0] == pytest.approx(0.015)  # 0.01 s, times x 1.5
        contacts.disable_contacts(m, foot)
        mujoco.mj_forward(m, d)
        assert not any(set(c.geom.tolist()) & set(foot) for c in d.contact[:d.ncon])


def test_contact_pairs_must_be_a_bool():
    spec = registry.build("kangaroo")
    with pytest.raises(SpecError, match=r"^contact_pairs: must be true or false, got 1$"):
        dataclasses.replace(spec, contact_pairs=1)

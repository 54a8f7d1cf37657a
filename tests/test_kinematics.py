"""Forward kinematics of whole clips (gaitforge.creatures.kinematics) against
MuJoCo's own ``mj_kinematics``, pose by pose: every built-in creature and the
imported dm_control models, at random poses far from rest (unnormalized ball
and free quaternions included), and a model with a mocap body, which is left
to MuJoCo."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.creatures.kinematics import body_frames, supported
from gaitforge.io.import_mjcf import load_character_from_mjcf
from tests.test_imported_gaits import _suite


def _reference(model, q):
    d = mujoco.MjData(model)
    xpos, xmat = np.empty((len(q), model.nbody, 3)), np.empty((len(q), model.nbody, 9))
    for t, pose in enumerate(q):
        d.qpos[:] = pose
        mujoco.mj_kinematics(model, d)
        xpos[t], xmat[t] = d.xpos, d.xmat
    return xpos, xmat.reshape(len(q), model.nbody, 3, 3)


def _characters():
    out = [pytest.param(n, id=n) for n in registry.names()]
    if _suite() is not None:
        out += [pytest.param("dm:" + f, id="dm_control-" + f) for f in ("dog.xml", "humanoid_CMU.xml")]
    return out


@pytest.mark.parametrize("name", _characters())
def test_body_frames_agree_with_mj_kinematics(name):
    c = (load_character_from_mjcf(_suite() / name[3:]) if name.startswith("dm:")
         else Character.from_spec(registry.build(name)))
    m = c.model
    assert supported(m)
    rng = np.random.default_rng(7)
    q = np.tile(c.rest_qpos, (50, 1)) + rng.normal(0.0, 0.7, (50, m.nq))   # quaternions off unit length too
    want_pos, want_mat = _reference(m, q)
    pos, mat = body_frames(m, q)
    np.testing.assert_allclose(pos, want_pos, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mat, want_mat, rtol=0, atol=1e-12)
    # a prefix of the bodies is the same prefix
    pos3, _ = body_frames(m, q, 3)
    np.testing.assert_array_equal(pos3, pos[:, :3])
    # and the character's points and centre of mass use it
    from gaitforge.motion.grounding import centres_of_mass
    w = m.body_mass[1:] / m.body_mass[1:].sum()
    want_com = np.einsum("b,tbi->ti", w, want_pos[:, 1:] + np.einsum("tbij,bj->tbi", want_mat[:, 1:],
                                                                       m.body_ipos[1:]))
    np.testing.assert_allclose(centres_of_mass(c, q), want_com, rtol=0, atol=1e-12)


def test_a_model_with_mocap_bodies_falls_back_to_mujoco():
    xml = """<mujoco><worldbody>
      <body name="target" mocap="true" pos="1 0 0"><geom size="0.1"/></body>
      <body name="torso" pos="0 0 1"><freejoint/><geom size="0.1" mass="1"/>
        <body name="arm" pos="0.2 0 0"><joint type="hinge" axis="0 1 0"/><geom size="0.05" mass="0.5"/></body>
      </body></worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    assert not supported(m)
    c = Character.__new__(Character)
    c.model = m
    q = np.tile(m.qpos0, (4, 1))
    q[:, 7] = [0.0, 0.5, 1.0, 1.5]
    want_pos, want_mat = _reference(m, q)
    pos, mat = Character.body_frames(c, q)
    np.testing.assert_array_equal(pos, want_pos)
    np.testing.assert_array_equal(mat, want_mat)


def test_poses_of_the_wrong_size_are_refused():
    """The compiled pass reads qpos without bounds checks: a wrong shape is an error, not garbage."""
    from gaitforge.errors import GaitforgeError

    c = Character.from_spec(registry.build("dog"))
    with pytest.raises(GaitforgeError, match=rf"^body frames: qpos must have shape \(frames, {c.nq}\) and nbody "
                                             rf"be 1 to {c.model.nbody}, got \(2, 5\) and {c.model.nbody}$"):
        body_frames(c.model, np.zeros((2, 5)))
    with pytest.raises(GaitforgeError, match="got \\(1, 103\\) and 99"):
        body_frames(c.model, c.rest_qpos[None], 99)

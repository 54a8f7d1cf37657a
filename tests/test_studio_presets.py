"""Rest-pose presets: made from each creature's own modes (no table per
creature), they lower the trunk by their share of its height over the feet,
keep it level with the feet on the ground, and the session's modes are
computed again about the new pose."""
from __future__ import annotations

import numpy as np
import pytest

import gaitforge.api as gf
from gaitforge.errors import GaitforgeError
from gaitforge.motion.grounding import lowest_heights
from gaitforge.studio import presets
from gaitforge.studio.session import Session


@pytest.mark.parametrize("creature", ["dog", "gorilla", "raibert_quadruped", "human", "human_run", "raibert_biped",
                                      "kangaroo"])
def test_presets_lower_a_trunk_that_keeps_its_orientation_onto_feet_flat_on_the_ground(creature):
    """Every contact point stays on the ground (a foot's heel and toe both:
    no foot tips), the trunk drops by the preset's share of its height and
    keeps its rest orientation. (Without the fit's step halving the human's
    crouch stood on one heel with the other foot's toe 11 cm up.)"""
    ch = gf.creature(creature)
    basis = gf.modes(ch)
    m = ch.model
    sites = list(ch.contacts.values())
    names = [m.body(int(b)).name for b in m.site_bodyid[sites]]
    frames, rest_rot = (a[0] for a in ch.body_frames(ch.rest_qpos[None]))
    height = frames[1, 2] - np.mean(ch.world_points(ch.rest_qpos[None], names, m.site_pos[sites])[0, :, 2])
    assert np.array_equal(presets.preset_pose(ch, basis, "stand"), ch.rest_qpos)
    for name in ("crouch", "deep crouch"):
        q = presets.preset_pose(ch, basis, name)
        xpos, xmat = ch.body_frames(q[None])
        drop = frames[1, 2] - xpos[0, 1, 2]
        assert drop == pytest.approx(presets.PRESETS[name] * height, rel=0.01), (name, drop, height)
        assert np.abs(xmat[0, 1] - rest_rot[1]).max() < 0.01        # the trunk keeps its orientation
        feet = ch.world_points(q[None], names, m.site_pos[sites])[0, :, 2]
        assert np.abs(feet).max() < 1e-3, (name, dict(zip(names, feet)))  # every contact point down
        assert abs(float(lowest_heights(ch, q[None])[0])) < 1e-6     # grounded


def test_a_preset_becomes_the_rest_pose_and_the_modes_follow():
    s = Session("dog")
    try:
        s.compute_modes()
        before = s.basis.frequencies.copy()
        s.set_rest_pose("crouch")
        assert s.rest_pose == "crouch" and s.character is not s.built
        assert np.allclose(s.character.model.qpos_spring, s.character.rest_qpos)
        assert np.array_equal(s.pose(), s.character.rest_qpos)
        assert s.basis is not None and not np.allclose(s.basis.frequencies, before)
        assert np.allclose(s.basis.rest_qpos, s.character.rest_qpos)
        s.start_physics(drive_recipe=False)                     # the springs hold the crouch
        s.play(False)
        s.physics.advance(1.0)
        trunk = s.physics.body_position(1)[2]
        rest = s.character.body_frames(s.character.rest_qpos[None])[0][0, 1, 2]
        stand = s.built.body_frames(s.built.rest_qpos[None])[0][0, 1, 2]
        assert abs(trunk - rest) < 0.5 * abs(stand - rest), (trunk, rest, stand)
        s.set_rest_pose("stand")
        assert s.character is s.built
        with pytest.raises(GaitforgeError, match="rest pose 'sit' unknown"):
            s.set_rest_pose("sit")
    finally:
        s.close()


@pytest.mark.parametrize("creature", ["dog", "human", "gorilla"])
def test_a_crouch_is_its_own_mirror_image(creature):
    """Fitted with the symmetric modes only, a crouch of a mirror-symmetric
    creature is one too: the mirror map of the crouched creature exists and
    its modes are symmetric or antisymmetric (a crouch fitted with every
    mode was 2 mm off the midline, and every mode then read as 'n/a')."""
    from gaitforge.modal.symmetry import mirror_matrix

    ch = gf.creature(creature)
    crouched = presets.with_rest_pose(ch, presets.preset_pose(ch, gf.modes(ch), "deep crouch"))
    P = mirror_matrix(crouched)
    U = gf.modes(crouched).shapes
    off = np.minimum(np.linalg.norm(P @ U - U, axis=0), np.linalg.norm(P @ U + U, axis=0))
    assert off.max() < 1e-6 * np.linalg.norm(U, axis=0).min()


@pytest.mark.parametrize("creature, gaits", [("dog", ("walk", "trot", "bound")), ("human", ("walk", "run"))])
def test_each_gait_is_suggested_about_a_crouch_and_reads_as_itself(creature, gaits):
    s = Session(creature)
    try:
        s.compute_modes()
        for pose in ("crouch", "deep crouch"):
            s.set_rest_pose(pose)
            for gait in gaits:
                s.choose_gait(gait)
                assert s.gait_report()[2] == gait, (pose, gait)
    finally:
        s.close()

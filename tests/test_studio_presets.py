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


# the human's 20 lowest modes make a lopsided crouch (one heel lifts): the drop is looser there
@pytest.mark.parametrize("creature, tolerance", [("dog", 0.1), ("gorilla", 0.1), ("raibert_quadruped", 0.1),
                                                 ("human", 0.3)])
def test_presets_lower_a_level_trunk_onto_grounded_feet(creature, tolerance):
    ch = gf.creature(creature)
    basis = gf.modes(ch)
    frames = ch.body_frames(ch.rest_qpos[None])[0][0]
    feet = [ch.model.site_bodyid[s] for s in ch.contacts.values()]
    height = frames[1, 2] - np.mean([ch.world_points(ch.rest_qpos[None], [ch.model.body(int(b)).name],
                                                     ch.model.site_pos[[s]])[0, 0, 2]
                                     for b, s in zip(feet, ch.contacts.values())])
    assert np.array_equal(presets.preset_pose(ch, basis, "stand"), ch.rest_qpos)
    for name in ("crouch", "deep crouch"):
        q = presets.preset_pose(ch, basis, name)
        xpos, xmat = ch.body_frames(q[None])
        drop = frames[1, 2] - xpos[0, 1, 2]
        assert drop == pytest.approx(presets.PRESETS[name] * height, rel=tolerance), (name, drop, height)
        assert xmat[0, 1, 2, 2] > 0.99                         # the trunk stays level
        assert abs(float(lowest_heights(ch, q[None])[0])) < 1e-6  # grounded


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

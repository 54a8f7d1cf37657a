"""The paper's examples (Kry09 Fig. 3) as presets: each one synthesizes, is the
gait it names, and the constrained ones hold their constraint in the clip."""
import math

import mujoco
import numpy as np
import pytest

from gaitforge.errors import GaitforgeError
from gaitforge.io.clipfiles import clip_kinematics
from gaitforge.modal import compute_modes
from gaitforge.motion import heuristics, presets
from gaitforge.motion.footfall import detect_footfalls
from gaitforge.motion.metrics import classify_gait, gait_metrics
from gaitforge.motion.synthesis import synthesize

# Footfall classes measured on the presets' clips. Left out: the jumping
# jacks (the weight shift makes the feet land one after the other).
EXPECTED = {"dog-trot": "trot", "dog-amble": "unknown", "dog-gallop": "gallop", "human-walk": "walk",
            "human-run": "run", "human-jumping": "hop", "human-run-stable-head": "run",
            "human-pushing-cart": "walk"}
FLYING = {"trot", "gallop", "run", "hop"}  # every contact point off the ground for a while; walks never


@pytest.fixture(scope="module")
def clips():
    out = {}
    for name in presets.names():
        p = presets.get(name)
        c = presets.character(p)
        basis = presets.basis(p, c)
        recipe = presets.build(name, c, basis)
        out[name] = (c, basis, recipe, synthesize(c, basis, recipe, 3.0, 60.0))
    return out


@pytest.mark.parametrize("name", presets.names())
def test_every_preset_synthesizes(clips, name):
    c, basis, recipe, clip = clips[name]
    p = presets.get(name)
    assert recipe.name == name and recipe.creature == p.creature and recipe.rest_pose == p.rest_pose
    assert recipe.constraints == p.constraints
    assert c.name == p.pose and clip.n_frames == 180 and np.isfinite(clip.qpos).all()
    assert all(t.mode < basis.count for t in recipe.terms)
    if name in EXPECTED:
        m = gait_metrics(c, clip, detect_footfalls(c, clip))
        assert classify_gait(m) == EXPECTED[name]
        low = np.array([min(p[2] for p in c.contact_positions(q).values()) for q in clip.qpos])
        if EXPECTED[name] in FLYING:
            assert (low > 0.001).mean() > 0.05
        elif EXPECTED[name] == "walk":
            assert low.max() < 1e-9


def _head_turn(c, clip):
    """Largest angle [deg] between the head's orientation in any frame and the first."""
    R = clip_kinematics(c, clip.qpos)[1][:, c.body_id("head")]
    cos = (np.einsum("ij,tij->t", R[0], R) - 1.0) / 2.0
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))).max())


def test_stable_head_run_keeps_the_head_still(clips):
    c, basis, recipe, clip = clips["human-run-stable-head"]
    assert recipe.constraints == ("lock:head",)
    assert any(k.name == "lock:head" for k in basis.constraints)
    free = clips["human-run"]
    assert _head_turn(c, clip) < 1.0            # degrees, over the whole clip
    # The same run without the lock nods and sways as its modes move it, until the pipeline's
    # steady step (motion.steady) holds the head.
    c, basis, recipe = free[:3]
    assert _head_turn(c, synthesize(c, basis, recipe, 3.0, 60.0, steady=False)) > 3.0
    assert _head_turn(c, free[3]) < 1.0


def _hands(c, clip):
    pos = clip_kinematics(c, clip.qpos)[0]
    return pos[:, c.body_id("left_hand")] - pos[:, c.body_id("right_hand")]


def test_cart_pushing_keeps_the_hands_on_one_handle(clips):
    c, basis, recipe, clip = clips["human-pushing-cart"]
    assert recipe.constraints == ("loop:left_hand:right_hand",)
    gap = np.ptp(np.linalg.norm(_hands(c, clip), axis=1))
    # The loop holds the hands' distance [m] to first order in the modal
    # amplitudes (second-order drift remains): no constrained mode changes
    # their distance to first order, while the free modes do.
    assert gap < 0.02
    d, jl, jr = c.make_data(), np.zeros((3, c.nv)), np.zeros((3, c.nv))
    left, right = d.xpos[c.body_id("left_hand")], d.xpos[c.body_id("right_hand")]
    mujoco.mj_jacBody(c.model, d, jl, None, c.body_id("left_hand"))
    mujoco.mj_jacBody(c.model, d, jr, None, c.body_id("right_hand"))
    n = (left - right) / np.linalg.norm(left - right)
    apart = lambda shapes: np.abs(n @ (jl - jr) @ shapes)  # noqa: E731 [m per unit coordinate]
    free = compute_modes(c, count=heuristics.POOL)
    assert apart(basis.shapes).max() < 1e-9 < 0.01 < apart(free.shapes).max()


def test_jumping_jacks_posture_offset_shifts_the_weight(clips):
    c, basis, recipe, clip = clips["human-jumping-jacks"]
    offsets = [t for t in recipe.terms if t.offset != 0.0]
    assert len(offsets) == 1 and offsets[0].amplitude == 0.0 and offsets[0].frequency == 0.0
    pos = clip_kinematics(c, clip.qpos)[0]
    feet_mid = 0.5 * (pos[:, c.body_id("left_foot"), 1] + pos[:, c.body_id("right_foot"), 1])
    shift = np.mean(pos[:, c.body_id("pelvis"), 1] - feet_mid)
    plain = synthesize(c, basis, heuristics.suggest(c, "jumping_jacks", basis), 3.0, 60.0)
    pos0 = clip_kinematics(c, plain.qpos)[0]
    shift0 = np.mean(pos0[:, c.body_id("pelvis"), 1] - 0.5 * (pos0[:, c.body_id("left_foot"), 1]
                                                                + pos0[:, c.body_id("right_foot"), 1]))
    assert abs(shift0) < 0.005 and abs(shift) > 0.02   # pelvis over one foot [m]


def test_unknown_preset_lists_the_presets():
    with pytest.raises(GaitforgeError) as err:
        presets.get("cat-trot")
    assert str(err.value) == f"unknown preset 'cat-trot' (presets: {', '.join(presets.names())})"
    assert math.isfinite(presets.OFFSET_ROTATION)


def test_the_jump_preset_is_animated_grounded_not_pinned(tmp_path):
    """``animate human-jumping`` (pinning by default) grounds the jump and
    does not pin its feet: the stance holding's IK, asked to hold both feet
    and the root, turned the forearms and head round and round (a clip the
    result check refused)."""
    import gaitforge as gf
    from gaitforge.cli.main import main

    assert presets.get("human-jumping").pinned is False
    out = tmp_path / "j.npz"
    assert main(["animate", "human-jumping", "--seconds", "2", "-o", str(out)]) == 0
    human = gf.creature("human")
    assert gf.gait_class(gf.load(out, human), human) == "hop"

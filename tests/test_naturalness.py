"""Issue 28: the naturalness measures, the steady head, and the natural default speed of ``animate``."""
from __future__ import annotations

import mujoco
import numpy as np
import pytest

from gaitforge import api
from gaitforge.cli.main import main
from gaitforge.motion.footfall import detect_footfalls, feet_of
from gaitforge.motion.metrics import classify_gait, gait_metrics
from gaitforge.motion.naturalness import naturalness, spread
from gaitforge.motion.steady import HEAD_CHAIN, TRUNK_CHAIN, chain_dofs, steady


def test_spread_is_the_5_to_95_percentile_range():
    assert spread(np.arange(101.0)) == pytest.approx(90.0)
    assert np.isnan(spread(np.zeros(0)))


def test_the_rest_pose_has_no_spread():
    char = api.creature("human")
    n = naturalness(char, np.repeat(char.rest_qpos[None], 5, axis=0))
    assert n.head_pitch == n.head_yaw == n.trunk_sway == n.pelvis_rotation == 0.0
    assert set(n.ranges) == {"hip", "knee", "ankle", "shoulder"}


def test_chains_are_found_by_labels():
    dog = api.creature("dog")
    head, dofs = chain_dofs(dog, HEAD_CHAIN)
    assert head == dog.body_id("head") and len(dofs) == 12          # four ball joints: neck1-3, head
    assert chain_dofs(dog, TRUNK_CHAIN)[0] is None                   # the dog's trunk is its root body
    human = api.creature("human")
    chest, dofs = chain_dofs(human, TRUNK_CHAIN)
    assert chest == human.body_id("chest") and len(dofs) == 9        # lumbar, thorax, chest


# Measured at the typical Froude number (docs/validation/natural_motion.md): head pitch and yaw
# [°] with the steady step, and without it (before issue 28).
STEADIER = {("dog", "walk"): (32, 23, 71, 81), ("dog", "trot"): (9, 6, 28, 21), ("dog", "gallop"): (29, 9, 94, 21),
            ("human", "walk"): (23, 14, 15, 15)}


@pytest.mark.parametrize("creature, gait", list(STEADIER))
def test_heads_are_steadier_and_the_gait_unchanged(creature, gait):
    made = api.animation(creature, gait, froude=api.TYPICAL, seconds=2)
    n = naturalness(made.character, made.clip.qpos)
    pitch, yaw, _, _ = STEADIER[creature, gait]
    assert n.head_pitch < pitch + 8.0 and n.head_yaw < yaw + 8.0
    ff = detect_footfalls(made.character, made.clip, feet_of(made.character))
    assert classify_gait(gait_metrics(made.character, made.clip, ff)) == gait


def _legs(character) -> list[tuple[str, str, list[int]]]:
    """(foot, top, qpos indices) of each leg: its foot body, the body that
    hangs it on the trunk or pelvis, and the coordinates of the joints below
    that top (the top's own joint excluded)."""
    m = character.model
    out = []
    for f in (f.body for f in feet_of(character)):
        b, below = character.body_id(f), []
        while character.labels[m.body(int(m.body_parentid[b])).name].role not in ("trunk", "pelvis"):
            for j in range(int(m.body_jntadr[b]), int(m.body_jntadr[b] + m.body_jntnum[b])):
                n = 4 if int(m.jnt_type[j]) == 1 else 1
                below += range(int(m.jnt_qposadr[j]), int(m.jnt_qposadr[j]) + n)
            b = int(m.body_parentid[b])
        out.append((f, m.body(b).name, below))
    return out


def test_steady_moves_no_foot_where_the_trunk_is_not_the_root():
    """The human's trunk and head are held by the spine's and neck's joints
    (above the pelvis, its root), which carry no leg: the steadying moves no
    foot at all, in every frame."""
    made = api.animation("human", "walk", speed=1.3, seconds=1)
    c, loose = made.character, made.clip.qpos.copy()
    # the clip is steadied already: its lower spine twisted ±0.3 rad first, so there is work to do
    m, twist = c.model, 0.3 * np.sin(np.linspace(0.0, 4.0 * np.pi, len(loose)))
    a = int(m.jnt_qposadr[m.body_jntadr[c.body_id("lumbar")]])
    for t, w in enumerate(twist):
        mujoco.mju_mulQuat(loose[t, a:a + 4], loose[t, a:a + 4].copy(), [np.cos(w / 2), 0.0, 0.0, np.sin(w / 2)])
    held = steady(c, loose)
    chest = c.body_id("chest")
    turned = [c.body_frames(q, chest + 1)[1][:, chest] for q in (loose, held)]
    assert np.abs(turned[1] - turned[0]).max() > 0.2                 # it turned the chest back
    feet = [f.body for f in feet_of(c)]
    a = c.world_points(loose, feet, np.zeros((len(feet), 3)))
    b = c.world_points(held, feet, np.zeros((len(feet), 3)))
    assert np.abs(a - b).max() < 1e-9


def test_steadying_a_root_trunk_carries_the_legs_unbent():
    """The dog's trunk is its root body: steadying its heading turns the
    root about world z (motion.steady._steady_root), so the front legs,
    which hang on it, are carried round with it (5.6 mm at most here, at a
    trot of 2 m/s); the pipeline steadies before the grounding and the
    holding, which then put the stance feet where they belong. What the
    steadying must not do is bend a leg: no joint below the shoulder or hip
    changes, each foot moves exactly as the top of its leg (within 1e-6 m:
    the pelvis the rear legs hang on is turned back by three Gauss-Newton
    steps, to 4e-7 m at the feet), and that top moves no more than the
    root's turn carries it (its horizontal distance from the root's origin
    times the heading change; no height), give or take 0.1 mm (where the
    same steps put the pelvis back: 0.011 mm here)."""
    made = api.animation("dog", "trot", speed=2.0, seconds=1)
    c, loose = made.character, made.clip.qpos.copy()
    held = steady(c, loose)
    root = c.body_id(c.bodies[0])
    _, before = c.body_frames(loose, root + 1)
    _, after = c.body_frames(held, root + 1)
    turn = np.einsum("tij,tkj->tik", after[:, root], before[:, root])   # R_after R_beforeᵀ
    yaw = np.abs(np.arctan2(turn[:, 1, 0], turn[:, 0, 0]))
    assert yaw.max() > 1e-3                                          # the heading was turned
    origin = c.world_points(loose, [c.bodies[0]], np.zeros((1, 3)))[:, 0]
    moved = 0.0
    for foot, top, below in _legs(c):
        np.testing.assert_array_equal(held[:, below], loose[:, below], err_msg=foot)
        a = c.world_points(loose, [foot, top], np.zeros((2, 3)))
        b = c.world_points(held, [foot, top], np.zeros((2, 3)))
        d_foot, d_top = b[:, 0] - a[:, 0], b[:, 1] - a[:, 1]
        assert np.abs(d_foot - d_top).max() < 1e-6, foot
        reach = np.linalg.norm((a[:, 1] - origin)[:, :2], axis=1)
        assert np.all(np.linalg.norm(d_top[:, :2], axis=1) <= yaw * reach + 1e-4), foot
        assert np.abs(d_top[:, 2]).max() < 1e-4, foot
        moved = max(moved, float(np.abs(d_foot).max()))
    assert moved < 0.01


def _speed_line(out: str) -> float:
    import re

    return float(re.search(r"speed ([0-9.]+) m/s", out).group(1))


@pytest.mark.slow
def test_animate_gait_defaults_to_its_typical_froude(tmp_path, capsys):
    assert main(["animate", "dog", "--gait", "trot", "--seconds", "2", "--quiet", "-o", str(tmp_path / "a.npz")]) == 0
    natural = _speed_line(capsys.readouterr().out)
    assert 1.49 <= natural <= 2.99                                   # the dog's measured trot range
    assert main(["animate", "dog", "--gait", "trot", "--kry09", "--seconds", "2", "--quiet",
                 "-o", str(tmp_path / "b.npz")]) == 0
    assert _speed_line(capsys.readouterr().out) < natural


def test_kry09_needs_a_gait(tmp_path, capsys):
    assert main(["animate", "dog", "--kry09", "-o", str(tmp_path / "a.npz")]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: --kry09 picks the Kry09 clip of a gait: give --gait GAIT "
                                       "(or a preset)\n")

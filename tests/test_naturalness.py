"""Issue 28: the naturalness measures, the steady head, and the natural default speed of ``animate``."""
from __future__ import annotations

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


def test_steady_head_moves_no_foot():
    made = api.animation("dog", "trot", speed=2.0, seconds=1)
    loose = made.clip.qpos.copy()
    held = steady(made.character, loose)
    feet = [f.body for f in feet_of(made.character)]
    a = made.character.world_points(loose, feet, np.zeros((len(feet), 3)))
    b = made.character.world_points(held, feet, np.zeros((len(feet), 3)))
    assert np.abs(a - b).max() < 1e-9


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

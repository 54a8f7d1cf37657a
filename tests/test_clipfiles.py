"""NPZ / CSV clip files, the shared exporter checks and the extension dispatcher.

The clip builders at the top (``gadget``, ``smooth_clip``) are also used by the
other exporter tests (test_export_bvh / gltf / video).
"""
from __future__ import annotations

import csv

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from gaitforge.creatures import registry
from gaitforge.creatures.builders.kit import box, capsule, ellipsoid, quat_axis_angle, sphere
from gaitforge.creatures.character import Character
from gaitforge.creatures.spec import Bone, CreatureSpec, Joint
from gaitforge.errors import GaitforgeError
from gaitforge.io.clipfiles import load_npz, qpos_columns, save_csv, save_motion, save_npz
from gaitforge.motion.clip import MotionClip


# ------------------------------------------------------------- test clips
def gadget() -> Character:
    """A small creature with every joint kind exporters must handle: free root,
    ball, hinge (about z and y), slide, a three-hinge ball (unequal stiffness)
    and bones whose rest frames are turned away from the world axes."""
    bones = (
        Bone("pelvis", None, (box((0.1, 0.06, 0.04)),), Joint("free")),
        Bone("spine", "pelvis", (capsule((0, 0, 0), (0.12, 0, 0), 0.03),), Joint("ball", stiffness=2.0),
             pos=(0.1, 0, 0.02), quat=quat_axis_angle((0, 1, 0), -0.5)),
        Bone("head", "spine", (sphere(0.04, pos=(0.04, 0, 0)),), Joint("hinge", axis=(0, 0, 1), stiffness=1.0),
             pos=(0.12, 0, 0), side="center", role="head"),
        Bone("tail", "pelvis", (ellipsoid((0.06, 0.02, 0.02), pos=(-0.06, 0, 0)),),
             Joint("slide", axis=(1, 0, 0), stiffness=50.0), pos=(-0.1, 0, 0), rgba=(0.2, 0.7, 0.3, 1.0)),
        Bone("leg", "pelvis", (capsule((0, 0, 0), (0, 0, -0.12), 0.02),), Joint("hinge", stiffness=1.0),
             pos=(0, 0.06, -0.04), quat=quat_axis_angle((1, 0, 0), 0.35), side="left"),
        Bone("foot", "leg", (box((0.04, 0.02, 0.01), pos=(0.02, 0, -0.01)),),
             Joint("ball", stiffness=(1.0, 2.0, 3.0)), pos=(0, 0, -0.12), side="left", role="foot"),
    )
    return Character.from_spec(CreatureSpec("gadget", bones))


def worm() -> Character:
    return Character.from_spec(registry.build("worm"))


def smooth_clip(character: Character, n_frames: int = 60, fps: float = 30.0, turn: float = 2.0) -> MotionClip:
    """Smooth motion of every joint: the root walks along +x at 0.3 m/s while
    turning ``turn`` rad/s about z (so its heading crosses ±180° in 2 s) and
    rocking; balls follow rotation vectors of sinusoids, hinges and slides sine waves."""
    t = np.arange(n_frames) / fps
    q = np.tile(character.rest_qpos, (n_frames, 1))
    for k, j in enumerate(character.joints.values()):
        a = j.qpos.start
        w = 2 * np.pi * (0.7 + 0.13 * k)
        if j.kind == "free":
            q[:, a] += 0.3 * t
            q[:, a + 1] += 0.05 * np.sin(w * t)
            q[:, a + 2] += 0.02 * np.sin(2 * w * t)
            rot = Rotation.from_euler("ZYX", np.column_stack([turn * t, 0.2 * np.sin(w * t), 0.25 * np.cos(w * t)]))
            q[:, a + 3:a + 7] = (rot * Rotation.from_quat(q[0, a + 3:a + 7], scalar_first=True)).as_quat(
                scalar_first=True)
        elif j.kind == "ball":
            rv = np.column_stack([0.4 * np.sin(w * t), 0.3 * np.cos(w * t + 1), 0.5 * np.sin(0.5 * w * t)])
            q[:, a:a + 4] = Rotation.from_rotvec(rv).as_quat(scalar_first=True)
        elif j.kind == "slide":
            q[:, a] += 0.03 * np.sin(w * t)
        else:  # hinge, gimbal (three hinges), planar
            for i in range(j.qpos.stop - a):
                q[:, a + i] += 0.6 * np.sin(w * t + i)
    return MotionClip(fps, q, character.name)


# ------------------------------------------------------------------- NPZ
def test_npz_round_trip_is_exact(tmp_path):
    ch = gadget()
    clip = smooth_clip(ch, 25, fps=24.0)
    path = tmp_path / "gadget.npz"
    save_npz(ch, clip, path)
    back = load_npz(path, ch)
    assert back == clip  # fps, name and every qpos bit
    with np.load(path) as z:
        assert list(z["joint_names"]) == list(ch.joints) == ["pelvis", "spine", "head", "tail", "leg", "foot"]
        assert str(z["character_name"]) == "gadget"
        assert list(z["columns"]) == qpos_columns(ch)


def test_npz_load_checks_the_character(tmp_path):
    path = tmp_path / "gadget.npz"
    save_npz(gadget(), smooth_clip(gadget(), 3), path)
    with pytest.raises(GaitforgeError) as exc:
        load_npz(path, worm())
    assert str(exc.value) == "motion clip has 17 coordinates per frame but worm has nq = 22"


def test_npz_load_errors(tmp_path):
    with pytest.raises(GaitforgeError) as exc:
        load_npz(tmp_path / "missing.npz")
    assert str(exc.value) == f"{tmp_path / 'missing.npz'}: no such file"
    other = tmp_path / "other.npz"
    np.savez(other, qpos=np.zeros((2, 3)))
    with pytest.raises(GaitforgeError) as exc:
        load_npz(other)
    assert str(exc.value) == f"{other}: not a gaitforge motion file (missing 'format')"


# ------------------------------------------------------------------- CSV
def test_csv_header_and_values(tmp_path):
    ch = gadget()
    clip = smooth_clip(ch, 10)
    path = tmp_path / "gadget.csv"
    save_csv(ch, clip, path)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["time", "root_x", "root_y", "root_z", "root_qw", "root_qx", "root_qy", "root_qz",
                       "spine_qw", "spine_qx", "spine_qy", "spine_qz", "head", "tail", "leg",
                       "foot_rx", "foot_ry", "foot_rz"]
    table = np.array(rows[1:], dtype=float)
    assert table.shape == (10, 1 + ch.nq)
    np.testing.assert_allclose(table[:, 0], clip.times, rtol=1e-9)
    np.testing.assert_allclose(table[:, 1:], clip.qpos, rtol=1e-9, atol=1e-12)


def test_worm_columns_name_every_hinge():
    cols = qpos_columns(worm())
    assert cols[:7] == ["root_x", "root_y", "root_z", "root_qw", "root_qx", "root_qy", "root_qz"]
    assert cols[7:] == [f"link{i}" for i in range(1, 16)]


# --------------------------------------------------------- shared errors
def test_wrong_character_is_refused_and_nothing_written(tmp_path):
    clip = smooth_clip(gadget(), 4)
    for name in ("a.npz", "a.csv"):
        with pytest.raises(GaitforgeError) as exc:
            save_motion(worm(), clip, tmp_path / name)
        assert str(exc.value) == "motion clip has 17 coordinates per frame but worm has nq = 22"
    renamed = MotionClip(30.0, smooth_clip(worm(), 4).qpos, "snake")
    with pytest.raises(GaitforgeError) as exc:
        save_csv(worm(), renamed, tmp_path / "b.csv")
    assert str(exc.value) == "motion clip was made for 'snake', not for 'worm'"
    assert list(tmp_path.iterdir()) == []


def test_unknown_extension_lists_the_valid_ones(tmp_path):
    ch = worm()
    with pytest.raises(GaitforgeError) as exc:
        save_motion(ch, smooth_clip(ch, 2), tmp_path / "clip.fbx")
    assert str(exc.value) == (f"{tmp_path / 'clip.fbx'}: unknown motion file extension '.fbx' "
                              "(valid: .bvh, .csv, .gif, .glb, .mp4, .npz)")
    with pytest.raises(GaitforgeError) as exc:
        save_npz(ch, smooth_clip(ch, 2), tmp_path / "clip.csv")
    assert str(exc.value) == f"{tmp_path / 'clip.csv'}: unknown NPZ file extension '.csv' (valid: .npz)"
    assert list(tmp_path.iterdir()) == []


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    ch = worm()
    path = tmp_path / "w.npz"
    save_npz(ch, smooth_clip(ch, 3), path)
    before = path.read_bytes()

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", boom)
    with pytest.raises(OSError):
        save_npz(ch, smooth_clip(ch, 5), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["w.npz"]

"""BVH export: golden hierarchy, round trip through the independent ``bvh``
package (PyPI) with every rotation order, and the error paths."""
from __future__ import annotations

import numpy as np
import pytest
from bvh import Bvh
from scipy.spatial.transform import Rotation

from gaitforge.errors import GaitforgeError
from gaitforge.io.bvh import ROTATION_ORDERS, save_bvh
from gaitforge.motion.clip import MotionClip
from test_clipfiles import gadget, smooth_clip, worm

# The y-up axes the file promises, written out independently of the exporter:
# gaitforge forward (x) -> BVH Z, left (y) -> BVH X, up (z) -> BVH Y.
TO_BVH = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], float)

GOLDEN_HIERARCHY = """\
HIERARCHY
ROOT pelvis
{
\tOFFSET 0.000000 0.000000 0.000000
\tCHANNELS 6 Xposition Yposition Zposition Yrotation Zrotation Xrotation
\tJOINT spine
\t{
\t\tOFFSET 0.000000 2.000000 10.000000
\t\tCHANNELS 3 Yrotation Zrotation Xrotation
\t\tJOINT head
\t\t{
\t\t\tOFFSET 0.000000 5.753106 10.530991
\t\t\tCHANNELS 3 Yrotation Zrotation Xrotation
\t\t\tEnd Site
\t\t\t{
\t\t\t\tOFFSET 0.000000 1.917702 3.510330
\t\t\t}
\t\t}
\t}
\tJOINT tail
\t{
\t\tOFFSET 0.000000 0.000000 -10.000000
\t\tCHANNELS 6 Xposition Yposition Zposition Yrotation Zrotation Xrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0.000000 0.000000 -6.000000
\t\t}
\t}
\tJOINT leg
\t{
\t\tOFFSET 6.000000 -4.000000 0.000000
\t\tCHANNELS 3 Yrotation Zrotation Xrotation
\t\tJOINT foot
\t\t{
\t\t\tOFFSET 4.114774 -11.272473 0.000000
\t\t\tCHANNELS 3 Yrotation Zrotation Xrotation
\t\t\tEnd Site
\t\t\t{
\t\t\t\tOFFSET 0.342898 -0.939373 2.000000
\t\t\t}
\t\t}
\t}
}
MOTION
Frames: 3
Frame Time: 0.04166667
"""


def test_golden_hierarchy_in_centimetres(tmp_path):
    ch = gadget()
    path = tmp_path / "gadget.bvh"
    save_bvh(ch, smooth_clip(ch, 3, fps=24.0), path, rotation_order="YZX", units="cm")
    text = path.read_text()
    assert text.startswith(GOLDEN_HIERARCHY)
    rows = text[len(GOLDEN_HIERARCHY):].splitlines()
    assert [len(r.split()) for r in rows] == [6 + 3 + 3 + 6 + 3 + 3] * 3


def _mujoco_pose(ch, qpos, scale):
    """Expected world rotations (T, nbody, 3, 3) away from rest and joint points
    (T, nbody, 3), in BVH axes and units, computed with MuJoCo directly."""
    m = ch.model
    R, P = [], []
    rest = ch.make_data()
    W0 = rest.xmat.reshape(-1, 3, 3).copy()
    for q in qpos:
        d = ch.make_data(q)
        W = d.xmat.reshape(-1, 3, 3)
        R.append(TO_BVH @ W @ np.swapaxes(W0, 1, 2) @ TO_BVH.T)
        # A joint sits at its (first) MuJoCo joint's anchor, fixed in the body.
        local = [m.jnt_pos[m.body_jntadr[b]] if m.body_jntnum[b] and m.body_parentid[b] else np.zeros(3)
                 for b in range(m.nbody)]
        P.append(scale * (TO_BVH @ (d.xpos + np.einsum("bij,bj->bi", W, local)).T).T)
    return np.array(R), np.array(P)


def _reread(path):
    """Forward kinematics of a BVH file read with the ``bvh`` package: world
    rotation (T, 3, 3) and position (T, 3) of every joint, by name."""
    mocap = Bvh(path.read_text())
    rot, pos = {}, {}
    for name in mocap.get_joints_names():
        channels = mocap.joint_channels(name)
        values = np.array(mocap.frames_joint_channels(name, channels))
        local = np.tile(np.eye(3), (len(values), 1, 1))
        for k, ch in enumerate(channels):  # first listed = outermost turn
            if ch.endswith("rotation"):
                local = local @ Rotation.from_euler(ch[0].lower(), values[:, [k]], degrees=True).as_matrix()
        if "Xposition" in channels:
            translation = values[:, [channels.index(f"{a}position") for a in "XYZ"]]
        else:
            translation = np.tile(mocap.joint_offset(name), (len(values), 1))
        parent = mocap.joint_parent(name)
        if parent is None:
            rot[name], pos[name] = local, translation
        else:
            Rp = rot[parent.name]
            rot[name] = Rp @ local
            pos[name] = pos[parent.name] + np.einsum("tij,tj->ti", Rp, translation)
    return mocap, rot, pos


@pytest.mark.parametrize("make, order", [(gadget, o) for o in ROTATION_ORDERS] + [(worm, "ZXY"), (worm, "YXZ")],
                         ids=[f"gadget-{o}" for o in ROTATION_ORDERS] + ["worm-ZXY", "worm-YXZ"])
def test_round_trip_through_the_bvh_package(tmp_path, make, order):
    ch = make()
    clip = smooth_clip(ch, 60, fps=30.0)  # 2 s: the root turns 4 rad, past ±180°
    units, scale = ("cm", 100.0) if order in ("XZY", "ZYX") else ("m", 1.0)
    path = tmp_path / "clip.bvh"
    save_bvh(ch, clip, path, rotation_order=order, units=units)
    mocap, rot, pos = _reread(path)
    assert mocap.nframes == 60 and mocap.frame_time == pytest.approx(1 / 30, abs=1e-8)
    bodies = [ch.model.body(i).name for i in range(1, ch.model.nbody)]
    assert mocap.get_joints_names() == bodies
    R, P = _mujoco_pose(ch, clip.qpos, scale)
    worst_angle = worst_dist = 0.0
    for b, name in enumerate(bodies, start=1):
        err = Rotation.from_matrix(np.swapaxes(rot[name], 1, 2) @ R[:, b]).magnitude()
        worst_angle = max(worst_angle, float(err.max()))
        worst_dist = max(worst_dist, float(np.abs(pos[name] - P[:, b]).max()) / scale)
    assert worst_angle < 1e-4  # rad, every joint and frame
    assert worst_dist < 1e-5  # m (6 decimals written)


def test_rest_pose_is_all_zero_rotations_and_channels_are_continuous(tmp_path):
    ch = gadget()
    rest = MotionClip(30.0, np.tile(ch.rest_qpos, (2, 1)), "gadget")
    save_bvh(ch, rest, tmp_path / "rest.bvh")
    mocap = Bvh((tmp_path / "rest.bvh").read_text())
    for name in mocap.get_joints_names():
        rotations = [c for c in mocap.joint_channels(name) if c.endswith("rotation")]
        assert np.allclose(mocap.frames_joint_channels(name, rotations), 0.0, atol=1e-6)
    # Turning 4 rad about the vertical makes the root's Y angle (the middle
    # angle of XYZ) pass 90° and 180°: the written angles still move smoothly
    # instead of flipping X and Z by 180° or wrapping by 360°.
    q = smooth_clip(ch, 60).qpos.copy()
    q[:, 3:7] = Rotation.from_euler("z", 2.0 * np.arange(60)[:, None] / 30.0).as_quat(scalar_first=True)
    save_bvh(ch, MotionClip(30.0, q, "gadget"), tmp_path / "turn.bvh", rotation_order="XYZ")
    mocap = Bvh((tmp_path / "turn.bvh").read_text())
    angles = np.array(mocap.frames_joint_channels("pelvis", ["Xrotation", "Yrotation", "Zrotation"]))
    np.testing.assert_allclose(angles[:, 1], np.degrees(2.0 * np.arange(60) / 30.0), atol=1e-5)
    np.testing.assert_allclose(angles[:, [0, 2]], 0.0, atol=1e-5)


def test_errors_leave_no_file(tmp_path):
    ch = gadget()
    clip = smooth_clip(ch, 3)
    path = tmp_path / "x.bvh"
    with pytest.raises(GaitforgeError) as exc:
        save_bvh(ch, clip, path, rotation_order="XYX")
    assert str(exc.value) == "unknown BVH rotation order 'XYX' (choose from XYZ, XZY, YXZ, YZX, ZXY, ZYX)"
    with pytest.raises(GaitforgeError) as exc:
        save_bvh(ch, clip, path, units="mm")
    assert str(exc.value) == "unknown BVH units 'mm' (choose from m, cm)"
    with pytest.raises(GaitforgeError) as exc:
        save_bvh(worm(), clip, path)
    assert str(exc.value) == "motion clip has 17 coordinates per frame but worm has nq = 22"
    with pytest.raises(GaitforgeError) as exc:
        save_bvh(ch, clip, tmp_path / "x.txt")
    assert str(exc.value) == f"{tmp_path / 'x.txt'}: unknown BVH file extension '.txt' (valid: .bvh)"
    assert list(tmp_path.iterdir()) == []

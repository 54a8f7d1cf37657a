"""glTF (.glb) export: the Khronos validator must find zero errors; a GLB
reader written here (struct + json, not the writing library) rebuilds every
node's world pose per frame and every geom's place, which must match MuJoCo;
the primitive meshes are closed, outward facing and of the right volume."""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from gaitforge.errors import GaitforgeError
from gaitforge.io import meshes
from gaitforge.io.gltf import glb_document, save_glb
from test_clipfiles import gadget, smooth_clip, worm

ROOT = Path(__file__).resolve().parents[1]
VALIDATE = ROOT / "tools" / "gltf_validate.mjs"
INSTALL = "npm install --prefix tools --no-save --no-package-lock gltf-validator@2.0.0-dev.3.10"
# glTF axes written out independently of the exporter: forward x -> +z, left y -> +x, up z -> +y.
TO_GLTF = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], float)


def validate(*paths: Path) -> list[dict]:
    """Khronos glTF-Validator reports, one per file (needs node and the npm package)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the Khronos glTF validator runs on node")
    if not (ROOT / "tools" / "node_modules" / "gltf-validator").is_dir():
        pytest.fail(f"the Khronos glTF validator is missing; install it with: {INSTALL}")
    run = subprocess.run(["node", str(VALIDATE), *map(str, paths)], capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()]


def read_glb(path: Path) -> tuple[dict, bytes]:
    data = path.read_bytes()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert (magic, version, length) == (b"glTF", 2, len(data))
    n_json, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    doc = json.loads(data[20:20 + n_json])
    n_bin, kind = struct.unpack_from("<I4s", data, 20 + n_json)
    assert kind == b"BIN\0"
    return doc, data[28 + n_json:28 + n_json + n_bin]


def accessor(doc: dict, blob: bytes, index: int) -> np.ndarray:
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    dtype = {5126: np.float32, 5123: np.uint16, 5125: np.uint32}[acc["componentType"]]
    width = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}[acc["type"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    return np.frombuffer(blob, dtype, acc["count"] * width, start).reshape(acc["count"], width).astype(float)


def world_poses(doc: dict, blob: bytes, frames: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per node name: world rotation (T, 3, 3) and translation (T, 3) from the animation."""
    anim = doc["animations"][0]
    local = {}
    for channel in anim["channels"]:
        sampler = anim["samplers"][channel["sampler"]]
        assert sampler["interpolation"] == "LINEAR"
        local[(channel["target"]["node"], channel["target"]["path"])] = accessor(doc, blob, sampler["output"])
    parent = {c: i for i, n in enumerate(doc["nodes"]) for c in n.get("children", [])}
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def pose(i):
        if i not in out:
            R = Rotation.from_quat(local[(i, "rotation")]).as_matrix()  # x, y, z, w
            t = local[(i, "translation")]
            if i in parent:
                Rp, tp = pose(parent[i])
                R, t = Rp @ R, tp + np.einsum("tij,tj->ti", Rp, t)
            out[i] = (R, t)
        return out[i]

    return {doc["nodes"][i]["name"]: pose(i) for i in range(len(doc["nodes"]))}


@pytest.mark.parametrize("make", [gadget, worm], ids=["gadget", "worm"])
def test_glb_matches_mujoco_and_passes_the_khronos_validator(tmp_path, make):
    ch = make()
    clip = smooth_clip(ch, 40, fps=25.0)
    path = tmp_path / f"{ch.name}.glb"
    save_glb(ch, clip, path)
    [report] = validate(path)
    assert report["numErrors"] == 0, report["messages"]
    print(f"validator {report['validator']}: {report['numWarnings']} warnings, {report['numInfos']} infos",
          [m["code"] for m in report["messages"]])

    doc, blob = read_glb(path)
    m = ch.model
    assert [n["name"] for n in doc["nodes"]] == [m.body(b).name for b in range(1, m.nbody)]
    times = doc["accessors"][doc["animations"][0]["samplers"][0]["input"]]
    assert times["min"] == [0.0] and times["max"] == [pytest.approx(clip.duration, rel=1e-6)]
    poses = world_poses(doc, blob, clip.n_frames)
    worst_r = worst_t = worst_geom = 0.0
    for t, q in enumerate(clip.qpos):
        d = ch.make_data(q)
        for b in range(1, m.nbody):
            R, x = poses[m.body(b).name]
            W = TO_GLTF @ d.xmat[b].reshape(3, 3) @ TO_GLTF.T
            worst_r = max(worst_r, Rotation.from_matrix(R[t].T @ W).magnitude())
            worst_t = max(worst_t, np.abs(x[t] - TO_GLTF @ d.xpos[b]).max())
            mesh = doc["nodes"][b - 1].get("mesh")
            if mesh is None:
                continue
            # Every primitive is symmetric about its geom's centre: the vertex mean must land on geom_xpos.
            geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b]
            for g, prim in zip(geoms, doc["meshes"][mesh]["primitives"]):
                centre = accessor(doc, blob, prim["attributes"]["POSITION"]).mean(axis=0)
                worst_geom = max(worst_geom, np.abs(x[t] + R[t] @ centre - TO_GLTF @ d.geom_xpos[g]).max())
    assert worst_r < 1e-6 and worst_t < 1e-6 and worst_geom < 1e-5  # rad, m, m (float32 storage)


def test_materials_carry_the_geom_colours(tmp_path):
    ch = gadget()
    save_glb(ch, smooth_clip(ch, 2), tmp_path / "g.glb")
    doc, _ = read_glb(tmp_path / "g.glb")
    colours = {tuple(round(c, 6) for c in mat["pbrMetallicRoughness"]["baseColorFactor"]) for mat in doc["materials"]}
    expected = {tuple(round(float(c), 6) for c in ch.model.geom_rgba[g]) for g in range(ch.model.ngeom)
                if ch.model.geom_bodyid[g] > 0}
    assert colours == expected and (0.2, 0.7, 0.3, 1.0) in colours


def test_validator_catches_a_broken_file(tmp_path):
    """The check above is only worth something if the validator really runs."""
    ch = worm()
    doc = glb_document(ch, smooth_clip(ch, 5))
    doc.accessors[doc.animations[0].samplers[0].input].max = [99.0]  # wrong bound of the time input
    broken = tmp_path / "broken.glb"
    broken.write_bytes(b"".join(doc.save_to_bytes()))
    [report] = validate(broken)
    assert report["numErrors"] >= 1
    assert "ACCESSOR_MAX_MISMATCH" in [msg["code"] for msg in report["messages"]]


@pytest.mark.parametrize("mesh, volume", [
    (meshes.sphere(0.3), 4 / 3 * np.pi * 0.3 ** 3),
    (meshes.capsule(0.1, 0.25), np.pi * 0.1 ** 2 * 0.5 + 4 / 3 * np.pi * 0.1 ** 3),
    (meshes.cylinder(0.2, 0.1), np.pi * 0.2 ** 2 * 0.2),
    (meshes.ellipsoid((0.1, 0.2, 0.3)), 4 / 3 * np.pi * 0.1 * 0.2 * 0.3),
    (meshes.box((0.1, 0.2, 0.3)), 8 * 0.1 * 0.2 * 0.3),
], ids=["sphere", "capsule", "cylinder", "ellipsoid", "box"])
def test_primitive_meshes_are_closed_and_face_outward(mesh, volume):
    p = mesh.positions[mesh.triangles]  # (m, 3 corners, 3)
    cross = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    assert np.linalg.norm(cross, axis=1).min() > 1e-8  # no degenerate triangles
    # Signed volume by the divergence theorem: positive only with counter-clockwise outer faces.
    signed = np.einsum("ij,ij->i", p[:, 0], cross).sum() / 6
    assert signed == pytest.approx(volume, rel=0.03)
    # Each face's winding agrees with its corners' normals.
    assert (np.einsum("ij,ikj->ik", cross, mesh.normals[mesh.triangles]) > 0).all()
    np.testing.assert_allclose(np.linalg.norm(mesh.normals, axis=1), 1.0)
    # Closed: every edge is shared by exactly two triangles, once in each direction
    # (checked on positions, since flat-shaded corners are duplicated).
    key = {tuple(np.round(v, 9)): i for i, v in enumerate(mesh.positions[::-1])}
    ids = np.array([[key[tuple(np.round(v, 9))] for v in tri] for tri in p])
    edges = [(a, b) for t in ids for a, b in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0]))]
    assert sorted(edges) == sorted((b, a) for a, b in edges)


def test_errors_leave_no_file(tmp_path):
    ch = gadget()
    with pytest.raises(GaitforgeError) as exc:
        save_glb(ch, smooth_clip(ch, 2), tmp_path / "g.gltf")
    assert str(exc.value) == f"{tmp_path / 'g.gltf'}: unknown glTF file extension '.gltf' (valid: .glb)"
    with pytest.raises(GaitforgeError) as exc:
        save_glb(worm(), smooth_clip(ch, 2), tmp_path / "g.glb")
    assert str(exc.value) == "motion clip has 17 coordinates per frame but worm has nq = 22"
    assert list(tmp_path.iterdir()) == []

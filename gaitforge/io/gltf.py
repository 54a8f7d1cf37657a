"""glTF 2.0 binary (.glb) export of a motion clip: rigid meshes on animated nodes.

- One node per MuJoCo body, nested like the bodies; each node's frame is its
  body's frame, so the body's geoms become one mesh (one primitive per geom,
  triangulated by :mod:`gaitforge.io.meshes`) that moves rigidly with it.
- Axes: glTF is y up and faces +z. gaitforge's forward (+x) maps to +z, its left
  (+y) to +x and up (+z) to +y (``clipfiles.Y_UP``), lengths stay in metres.
- Static node transforms hold the rest pose (``character.rest_qpos``); one
  animation named after the clip's character carries, for every node, a
  translation and a rotation channel (quaternions x, y, z, w) sampled at every
  frame with LINEAR interpolation. Quaternion signs are kept continuous so
  interpolation takes the short way.
- Materials: one per distinct geom colour (MuJoCo ``geom_rgba``, or the geom's
  material colour), non-metallic; translucent colours blend.
"""
from __future__ import annotations

import os

import mujoco
import numpy as np
import pygltflib as gl
from scipy.spatial.transform import Rotation

from gaitforge.version import __version__
from gaitforge.creatures.character import Character
from gaitforge.io.atomic import write_bytes
from gaitforge.io.clip_checks import Y_UP, check_clip, check_extension, clip_kinematics
from gaitforge.io.meshes import geom_mesh
from gaitforge.motion.clip import MotionClip

_VISIBLE_GROUPS = 3  # MuJoCo's viewer shows geom groups 0-2 by default; 3+ hold collision proxies
_DEFAULT_RGBA = (0.5, 0.5, 0.5, 1.0)


class _Packer:
    """Packs arrays into the single binary buffer and registers their accessors."""

    def __init__(self, doc: gl.GLTF2):
        self.doc = doc
        self.blob = bytearray()

    def add(self, array: np.ndarray, kind: str, target: int | None = None, bounds: bool = False) -> int:
        """Append ``array`` (count, k) or (count,); return its accessor index."""
        component = {np.dtype(np.float32): gl.FLOAT, np.dtype(np.uint16): gl.UNSIGNED_SHORT,
                     np.dtype(np.uint32): gl.UNSIGNED_INT}[array.dtype]
        raw = np.ascontiguousarray(array).tobytes()
        self.doc.bufferViews.append(gl.BufferView(buffer=0, byteOffset=len(self.blob), byteLength=len(raw),
                                                  target=target))
        self.blob += raw + b"\0" * (-len(raw) % 4)  # keep every view 4-byte aligned
        flat = array.reshape(len(array), -1)
        acc = gl.Accessor(bufferView=len(self.doc.bufferViews) - 1, componentType=component,
                          count=len(array), type=kind)
        if bounds:  # required for POSITION and animation inputs; exact float32 values
            acc.min = [float(x) for x in flat.min(axis=0)]
            acc.max = [float(x) for x in flat.max(axis=0)]
        self.doc.accessors.append(acc)
        return len(self.doc.accessors) - 1


def _geom_rgba(model: mujoco.MjModel, g: int) -> tuple[float, ...]:
    rgba = tuple(float(x) for x in model.geom_rgba[g])
    mat = int(model.geom_matid[g])
    if mat >= 0 and np.allclose(rgba, _DEFAULT_RGBA):  # MuJoCo then draws the material's colour
        rgba = tuple(float(x) for x in model.mat_rgba[mat])
    return tuple(min(max(c, 0.0), 1.0) for c in rgba)


def _add_mesh(doc: gl.GLTF2, pack: _Packer, model: mujoco.MjModel, body: int,
              materials: dict[tuple[float, ...], int]) -> int | None:
    """One mesh for the visible geoms of ``body`` (vertices in glTF axes), or None."""
    primitives = []
    for g in range(model.body_geomadr[body], model.body_geomadr[body] + model.body_geomnum[body]):
        if model.geom_group[g] >= _VISIBLE_GROUPS or model.geom_rgba[g][3] == 0:
            continue
        mesh = geom_mesh(model, g)
        if mesh is None or not len(mesh.triangles):
            continue
        rgba = _geom_rgba(model, g)
        if rgba not in materials:
            materials[rgba] = len(doc.materials)
            doc.materials.append(gl.Material(
                name=f"rgba_{len(materials) - 1}", alphaMode="BLEND" if rgba[3] < 1 else "OPAQUE",
                pbrMetallicRoughness=gl.PbrMetallicRoughness(baseColorFactor=list(rgba), metallicFactor=0.0,
                                                             roughnessFactor=0.8)))
        index_type = np.uint16 if len(mesh.positions) < 65535 else np.uint32
        attributes = gl.Attributes(
            POSITION=pack.add((mesh.positions @ Y_UP.T).astype(np.float32), gl.VEC3, gl.ARRAY_BUFFER, bounds=True),
            NORMAL=pack.add((mesh.normals @ Y_UP.T).astype(np.float32), gl.VEC3, gl.ARRAY_BUFFER))
        indices = pack.add(mesh.triangles.reshape(-1).astype(index_type), gl.SCALAR, gl.ELEMENT_ARRAY_BUFFER)
        primitives.append(gl.Primitive(attributes=attributes, indices=indices, material=materials[rgba]))
    if not primitives:
        return None
    doc.meshes.append(gl.Mesh(name=model.body(body).name or f"body{body}", primitives=primitives))
    return len(doc.meshes) - 1


def node_transforms(character: Character, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every body's transform relative to its parent body, in glTF axes.

    qpos: (T, nq). Returns translations (T, nbody - 1, 3) [m] and unit
    quaternions (T, nbody - 1, 4) ordered x, y, z, w, signs continuous over
    time. Top-level bodies are given relative to the world.
    """
    m = character.model
    pos, mat = clip_kinematics(character, qpos)
    parent = m.body_parentid[1:]
    Rp_T = np.swapaxes(mat[:, parent], -1, -2)
    # Local rotation Y·(Wpᵀ W)·Yᵀ and translation Y·Wpᵀ (x − xp): the body
    # transform relative to its parent, written in y-up axes.
    rot = Y_UP @ (Rp_T @ mat[:, 1:]) @ Y_UP.T
    trans = np.einsum("ij,tnjk,tnk->tni", Y_UP, Rp_T, pos[:, 1:] - pos[:, parent])
    quat = Rotation.from_matrix(rot.reshape(-1, 3, 3)).as_quat().reshape(len(pos), -1, 4)
    flips = np.sum(quat[1:] * quat[:-1], axis=-1) < 0  # q and -q: same turn, take the near one
    sign = np.concatenate([np.ones((1, quat.shape[1])), np.cumprod(np.where(flips, -1.0, 1.0), axis=0)])
    return trans, quat * sign[..., None]


def glb_document(character: Character, clip: MotionClip) -> gl.GLTF2:
    """The glTF document (with its binary blob set) that :func:`save_glb` writes."""
    check_clip(character, clip)
    m = character.model
    doc = gl.GLTF2(asset=gl.Asset(version="2.0", generator=f"gaitforge {__version__}"))
    pack = _Packer(doc)
    materials: dict[tuple[float, ...], int] = {}
    rest_t, rest_q = node_transforms(character, character.rest_qpos[None])
    for b in range(1, m.nbody):
        doc.nodes.append(gl.Node(name=m.body(b).name or f"body{b}", mesh=_add_mesh(doc, pack, m, b, materials),
                                 translation=[float(x) for x in rest_t[0, b - 1]],
                                 rotation=[float(x) for x in rest_q[0, b - 1]]))
    for b in range(1, m.nbody):
        p = int(m.body_parentid[b])
        if p > 0:
            doc.nodes[p - 1].children.append(b - 1)
    roots = [b - 1 for b in range(1, m.nbody) if m.body_parentid[b] == 0]
    doc.scenes.append(gl.Scene(name=character.name, nodes=roots))
    doc.scene = 0

    trans, quat = node_transforms(character, clip.qpos)
    times = pack.add(clip.times.astype(np.float32), gl.SCALAR, bounds=True)
    samplers, channels = [], []
    for node in range(m.nbody - 1):
        for path, values, kind in (("translation", trans[:, node], gl.VEC3), ("rotation", quat[:, node], gl.VEC4)):
            out = pack.add(values.astype(np.float32), kind)
            samplers.append(gl.AnimationSampler(input=times, output=out, interpolation="LINEAR"))
            channels.append(gl.AnimationChannel(sampler=len(samplers) - 1,
                                                target=gl.AnimationChannelTarget(node=node, path=path)))
    doc.animations.append(gl.Animation(name=clip.character_name or character.name, samplers=samplers,
                                       channels=channels, extras={"fps": clip.fps}))
    doc.buffers.append(gl.Buffer(byteLength=len(pack.blob)))
    doc.set_binary_blob(bytes(pack.blob))
    return doc


def save_glb(character: Character, clip: MotionClip, path: str | os.PathLike) -> None:
    """Write ``clip`` as a binary glTF 2.0 file (``.glb``), atomically.

    Raises :class:`GaitforgeError` if the clip does not fit the character or
    the extension is not ``.glb``; no file is written then.
    """
    check_extension(path, (".glb",), "glTF")
    check_clip(character, clip)
    write_bytes(path, b"".join(glb_document(character, clip).save_to_bytes()))

"""BVH (Biovision hierarchy) export of a motion clip.

Skeleton: one BVH joint per MuJoCo body, rooted at the character's root body;
leaf bodies end in an ``End Site`` at the far tip of their shapes. A joint sits
at the anchor of its body's (first) MuJoCo joint, the root at the root body's
origin.

Conventions of the written file (documented here because BVH has none):

- Axes: y up. gaitforge's forward (+x) becomes BVH +Z, its left (+y) BVH +X
  and its up (+z) BVH +Y (``clipfiles.Y_UP``) — the usual mocap layout
  (character faces +Z, left hand on +X). Blender's importer defaults
  (forward -Z, up Y) then stand it upright facing Blender's -Y, the way
  Blender characters face the front view.
- Lengths in metres by default (``units="cm"`` writes centimetres).
- Rest pose is world aligned: every OFFSET is the rest displacement between a
  joint and its parent in world axes, and a joint's rotation is its body's
  rotation away from the rest orientation, relative to its parent's. The rest
  pose therefore reads as all-zero rotations.
- Rotation channels in degrees, in the chosen Euler order; ``ZXY`` means the
  channels ``Zrotation Xrotation Yrotation`` and the local rotation matrix
  Rz·Rx·Ry (the first channel is the outermost turn), as Blender, Maya and
  MotionBuilder read them. Angles are kept continuous over time (no 360°
  jumps, no 180° flips when the middle angle passes ±90°).
- The root has 6 channels (position first). Bodies whose place in their parent
  can change (slide joints, or hinges at different anchors) also get
  ``Xposition Yposition Zposition`` channels holding the full local
  translation, which replaces the OFFSET (as Blender's importer reads it).
"""
from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass

import mujoco
import numpy as np
from scipy.spatial.transform import Rotation

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.io.atomic import write_text
from gaitforge.io.clip_checks import Y_UP, check_clip, check_extension, clip_kinematics
from gaitforge.motion.clip import MotionClip

ROTATION_ORDERS = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
UNITS = {"m": 1.0, "cm": 100.0}
_END_SITE_FALLBACK = 0.01  # m along +Y for leaves without shapes to point at


@dataclass(frozen=True)
class BvhJoint:
    """One joint of the written skeleton: ``body`` (MuJoCo body id), ``parent``
    (index into the joint list, -1 for the root), ``offset`` (3,) and
    ``end_site`` (3,) or None, in file units and y-up axes; ``has_position``:
    whether it carries position channels."""

    name: str
    body: int
    parent: int
    offset: np.ndarray
    has_position: bool
    end_site: np.ndarray | None


def _check_order(rotation_order: str) -> None:
    if rotation_order not in ROTATION_ORDERS:
        raise GaitforgeError(f"unknown BVH rotation order {rotation_order!r} "
                             f"(choose from {', '.join(ROTATION_ORDERS)})")


def _check_units(units: str) -> None:
    if units not in UNITS:
        raise GaitforgeError(f"unknown BVH units {units!r} (choose from {', '.join(UNITS)})")


def _bodies_depth_first(model: mujoco.MjModel) -> list[int]:
    """Body ids below the single top-level body, parents before children (depth first)."""
    tops = [b for b in range(1, model.nbody) if model.body_parentid[b] == 0]
    if len(tops) != 1:
        names = ", ".join(model.body(b).name or f"body{b}" for b in tops)
        raise GaitforgeError(f"BVH needs exactly one root body, the model has {len(tops)}: {names}")
    children = {b: [c for c in range(1, model.nbody) if model.body_parentid[c] == b and c != b]
                for b in range(model.nbody)}
    order, stack = [], [tops[0]]
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children[b]))
    return order


def _names(model: mujoco.MjModel, bodies: list[int]) -> list[str]:
    """BVH joint names: body names with whitespace replaced, made unique."""
    out: list[str] = []
    for b in bodies:
        base = re.sub(r"\s+", "_", model.body(b).name) or f"body{b}"
        name, k = base, 1
        while name in out:
            k += 1
            name = f"{base}_{k}"
        out.append(name)
    return out


def _moves_in_parent(model: mujoco.MjModel, b: int) -> bool:
    """Whether body ``b``'s joint point can move relative to its parent body."""
    jids = range(model.body_jntadr[b], model.body_jntadr[b] + model.body_jntnum[b])
    kinds = {int(model.jnt_type[j]) for j in jids}
    if kinds & {mujoco.mjtJoint.mjJNT_SLIDE, mujoco.mjtJoint.mjJNT_FREE}:
        return True
    anchors = [model.jnt_pos[j] for j in jids]
    return any(np.linalg.norm(a - anchors[0]) > 1e-12 for a in anchors[1:])


def _joint_points(model: mujoco.MjModel, bodies: list[int], pos: np.ndarray, mat: np.ndarray) -> np.ndarray:
    """World positions (T, J, 3) [m] of the BVH joints: the root body's origin,
    else the point fixed in the body at its first MuJoCo joint's anchor (MuJoCo's
    ``xanchor`` stays behind when a slide joint moves; this point moves along)."""
    local = np.array([np.zeros(3) if i == 0 or model.body_jntnum[b] == 0 else model.jnt_pos[model.body_jntadr[b]]
                      for i, b in enumerate(bodies)])
    return pos[:, bodies] + np.einsum("tnij,nj->tni", mat[:, bodies], local)


def _tip(model: mujoco.MjModel, data: mujoco.MjData, b: int, origin: np.ndarray) -> np.ndarray | None:
    """The point of body ``b``'s shapes farthest from ``origin`` (world, rest): geom
    centres and capsule/cylinder end points; None if the body has no geoms."""
    points = []
    for g in range(model.body_geomadr[b], model.body_geomadr[b] + model.body_geomnum[b]):
        c, axis = data.geom_xpos[g], data.geom_xmat[g].reshape(3, 3)[:, 2]
        points.append(c)
        if model.geom_type[g] in (mujoco.mjtGeom.mjGEOM_CAPSULE, mujoco.mjtGeom.mjGEOM_CYLINDER):
            half = model.geom_size[g][1]
            points += [c + half * axis, c - half * axis]
    if not points:
        return None
    far = max(points, key=lambda p: float(np.linalg.norm(p - origin)))
    return far if np.linalg.norm(far - origin) > 1e-9 else None


def bvh_skeleton(character: Character, units: str = "m") -> list[BvhJoint]:
    """The skeleton :func:`save_bvh` writes for ``character`` (rest pose = ``rest_qpos``)."""
    _check_units(units)
    m, s = character.model, UNITS[units]
    bodies = _bodies_depth_first(m)
    P0 = _joint_points(m, bodies, *clip_kinematics(character, character.rest_qpos))[0]
    rest = character.make_data()
    index = {b: i for i, b in enumerate(bodies)}
    joints = []
    for i, (b, name) in enumerate(zip(bodies, _names(m, bodies))):
        parent = -1 if i == 0 else index[int(m.body_parentid[b])]
        offset = np.zeros(3) if i == 0 else s * Y_UP @ (P0[i] - P0[parent])
        end = None
        if not any(m.body_parentid[c] == b for c in range(1, m.nbody) if c != b):
            tip = _tip(m, rest, b, P0[i])
            end = s * (Y_UP @ (tip - P0[i]) if tip is not None else np.array([0.0, _END_SITE_FALLBACK, 0.0]))
        joints.append(BvhJoint(name, b, parent, offset, i > 0 and _moves_in_parent(m, b), end))
    return joints


def bvh_frames(character: Character, clip: MotionClip, joints: list[BvhJoint],
               rotation_order: str = "ZXY", units: str = "m") -> np.ndarray:
    """The MOTION values (T, channels) for ``joints`` (from :func:`bvh_skeleton`):
    per joint, position channels (file units) if it has them, then the three
    rotation angles [deg] in ``rotation_order``."""
    check_clip(character, clip)
    _check_order(rotation_order)
    _check_units(units)
    m, s = character.model, UNITS[units]
    bodies = [j.body for j in joints]
    pos, mat = clip_kinematics(character, clip.qpos)
    mat0 = clip_kinematics(character, character.rest_qpos)[1]
    P = np.einsum("ij,tnj->tni", Y_UP, _joint_points(m, bodies, pos, mat))
    # Rotation of every body away from its rest orientation, in y-up axes: Y W W0ᵀ Yᵀ.
    G = Y_UP @ mat[:, bodies] @ np.swapaxes(mat0[:, bodies], -1, -2) @ Y_UP.T
    columns = []
    for i, j in enumerate(joints):
        if j.parent < 0:
            local, translation = G[:, i], s * P[:, i]
        else:
            Gp_T = np.swapaxes(G[:, j.parent], -1, -2)
            local = Gp_T @ G[:, i]
            translation = s * np.einsum("tij,tj->ti", Gp_T, P[:, i] - P[:, j.parent])
        if j.parent < 0 or j.has_position:
            columns.append(translation)
        with warnings.catch_warnings():
            # At gimbal lock scipy still returns an exact triple (third angle 0).
            warnings.filterwarnings("ignore", message="Gimbal lock detected")
            euler = Rotation.from_matrix(local).as_euler(rotation_order, degrees=True)
        columns.append(_continuous(euler))
    return np.concatenate(columns, axis=1)


def _continuous(euler: np.ndarray) -> np.ndarray:
    """Euler angles (T, 3) [deg] made continuous over time, so that keyframe
    interpolation in an animation tool follows the motion. Each frame takes,
    of the two equivalent Tait-Bryan triples (a, b, c) and
    (a + 180, 180 - b, c + 180), each shifted by whole turns, the one nearest
    the previous frame; a middle angle past ±90° thus no longer flips the
    other two by 180°."""
    out = euler.copy()
    for t in range(1, len(out)):
        alt = out[t] + (180.0, 0.0, 180.0)
        alt[1] = 180.0 - out[t, 1]
        best = None
        for cand in (out[t], alt):
            cand = cand + 360.0 * np.round((out[t - 1] - cand) / 360.0)
            if best is None or np.sum((cand - out[t - 1]) ** 2) < np.sum((best - out[t - 1]) ** 2):
                best = cand
        out[t] = best
    return out


def _channels(j: BvhJoint, rotation_order: str) -> str:
    names = (["Xposition", "Yposition", "Zposition"] if j.parent < 0 or j.has_position else [])
    names += [f"{axis}rotation" for axis in rotation_order]
    return f"CHANNELS {len(names)} {' '.join(names)}"


def _fmt(v: np.ndarray) -> str:
    # Rounding first (and adding 0.0) writes "0.000000" rather than "-0.000000".
    return " ".join(f"{x:.6f}" for x in np.round(v, 6) + 0.0)


def bvh_text(character: Character, clip: MotionClip, rotation_order: str = "ZXY", units: str = "m") -> str:
    """The whole BVH file as text (see the module docstring for conventions)."""
    check_clip(character, clip)
    _check_order(rotation_order)
    joints = bvh_skeleton(character, units)
    values = bvh_frames(character, clip, joints, rotation_order, units)
    children: dict[int, list[int]] = {i: [] for i in range(-1, len(joints))}
    for i, j in enumerate(joints):
        children[j.parent].append(i)
    lines = ["HIERARCHY"]

    def emit(i: int, depth: int) -> None:
        j, pad = joints[i], "\t" * depth
        lines.extend([f"{pad}{'ROOT' if j.parent < 0 else 'JOINT'} {j.name}", f"{pad}{{",
                      f"{pad}\tOFFSET {_fmt(j.offset)}", f"{pad}\t{_channels(j, rotation_order)}"])
        for c in children[i]:
            emit(c, depth + 1)
        if j.end_site is not None:
            lines.extend([f"{pad}\tEnd Site", f"{pad}\t{{", f"{pad}\t\tOFFSET {_fmt(j.end_site)}", f"{pad}\t}}"])
        lines.append(f"{pad}}}")

    emit(0, 0)
    lines += ["MOTION", f"Frames: {clip.n_frames}", f"Frame Time: {clip.dt:.8f}"]
    lines += [_fmt(row) for row in values]
    return "\n".join(lines) + "\n"


def save_bvh(character: Character, clip: MotionClip, path: str | os.PathLike,
             rotation_order: str = "ZXY", units: str = "m") -> None:
    """Write ``clip`` as a BVH file (atomically).

    rotation_order: one of XYZ, XZY, YXZ, YZX, ZXY, ZYX. units: ``m`` or ``cm``.
    Raises :class:`GaitforgeError` if the clip does not fit the character, the
    order, units or extension (``.bvh``) is unknown; no file is written then.
    """
    check_extension(path, (".bvh",), "BVH")
    write_text(path, bvh_text(character, clip, rotation_order, units))

"""What every motion exporter shares (:mod:`gaitforge.io.clipfiles`,
:mod:`~gaitforge.io.bvh`, :mod:`~gaitforge.io.gltf`, :mod:`~gaitforge.io.video`):
the clip/character check, the check of a clip before it is written, the file
extension check, the z-up → y-up axis map and forward kinematics over a clip.
It imports no exporter, so the exporters and the dispatch by extension
(:func:`gaitforge.io.clipfiles.save_motion`) form no import cycle."""
from __future__ import annotations

import os
from pathlib import Path

import mujoco
import numpy as np

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.motion.clip import MotionClip

__all__ = ["MAX_SPEED", "MAX_TURNS", "REACH_BASE", "Y_UP", "check_clip", "check_extension", "check_result",
           "clip_kinematics"]

# gaitforge is z up, x forward, y left. BVH tools and glTF are y up; glTF (and
# most motion-capture skeletons) face +z with the character's left on +x. The
# proper rotation below maps gaitforge world vectors v to y-up ones as Y_UP @ v:
# forward x → +z, left y → +x, up z → +y.
Y_UP = np.array([[0.0, 1.0, 0.0],
                 [0.0, 0.0, 1.0],
                 [1.0, 0.0, 0.0]])


# ------------------------------------------------------------ shared checks
def check_clip(character: Character, clip: MotionClip) -> None:
    """Raise :class:`GaitforgeError` unless ``clip`` holds ``character``'s coordinates."""
    clip.check_character(character)
    if clip.character_name and clip.character_name != character.name:
        raise GaitforgeError(f"motion clip was made for {clip.character_name!r}, not for {character.name!r}")


MAX_TURNS = 2.0        # a joint (other than the root's) may turn this many turns from its rest angle
REACH_BASE = 100.0     # [m] how far a clip's coordinates may go, plus MAX_SPEED × its duration
MAX_SPEED = 50.0       # [m/s] faster than any creature moves


def check_result(character: Character, clip: MotionClip, what: str = "motion") -> None:
    """Raise :class:`ResultError` (exit 1: the run failed) for a clip no gait
    makes, before it is written: a non-root hinge more than :data:`MAX_TURNS`
    turns from its rest angle, or a position (free root, slide joints)
    beyond :data:`REACH_BASE` m plus :data:`MAX_SPEED` × the clip's
    duration. (Finite values are the clip's own invariant.)"""
    from gaitforge.errors import ResultError

    check_clip(character, clip)
    m, q = character.model, clip.qpos
    rest = np.asarray(character.rest_qpos, float)
    reach = REACH_BASE + MAX_SPEED * clip.duration
    root = next((b for b in range(1, m.nbody) if m.body_parentid[b] == 0), 1)
    for j in range(m.njnt):
        kind, adr = int(m.jnt_type[j]), int(m.jnt_qposadr[j])
        if kind == mujoco.mjtJoint.mjJNT_FREE:
            columns = q[:, adr:adr + 3]
            limit, unit = reach, "m"
        elif kind == mujoco.mjtJoint.mjJNT_SLIDE:
            columns = q[:, adr:adr + 1]
            limit, unit = reach, "m"
        elif kind == mujoco.mjtJoint.mjJNT_HINGE and m.jnt_bodyid[j] != root:
            columns = q[:, adr:adr + 1] - rest[adr]
            limit, unit = MAX_TURNS * 2 * np.pi, "rad"
        else:
            continue
        worst = np.abs(columns).max(axis=1)
        bad = np.flatnonzero(worst > limit)
        if bad.size:
            f = int(bad[0])
            name = m.joint(j).name or f"joint {j}"
            size = float(worst[f])
            how = (f"turns {size:.3g} rad ({size / (2 * np.pi):.3g} turns) from its rest angle, more than {MAX_TURNS:g}"
                   " turns" if unit == "rad" else f"reaches {size:.3g} m, beyond the {limit:.3g} m a "
                   f"{clip.duration:.3g} s clip can cover")
            raise ResultError(f"{character.name} {what}: {name!r} {how} (at {f / clip.fps:.2f} s); no gait does "
                              "that: the inputs are out of range, nothing written")


def check_extension(path: str | os.PathLike, valid: tuple[str, ...], what: str) -> str:
    """The lower-case extension of ``path`` if it is one of ``valid``, else an error listing them."""
    ext = Path(path).suffix.lower()
    if ext not in valid:
        shown = repr(ext) if ext else "(none)"
        raise GaitforgeError(f"{path}: unknown {what} file extension {shown} (valid: {', '.join(valid)})")
    return ext


def clip_kinematics(character: Character, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Forward kinematics of every frame.

    qpos: (T, nq) or (nq,). Returns body positions (T, nbody, 3) [m] and body
    rotation matrices (T, nbody, 3, 3) (body → world), in gaitforge's world
    frame; index 0 is MuJoCo's world body.
    """
    m = character.model
    frames = np.atleast_2d(qpos)
    pos = np.empty((len(frames), m.nbody, 3))
    mat = np.empty((len(frames), m.nbody, 3, 3))
    d = mujoco.MjData(m)
    for t, q in enumerate(frames):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        pos[t], mat[t] = d.xpos, d.xmat.reshape(-1, 3, 3)
    return pos, mat

"""Motion clips as plain data files (NPZ, CSV), and what every exporter shares.

NPZ holds a :class:`MotionClip` exactly (float64 ``qpos``, fps, character
name) plus the character's joint names and column names, and reads back into
a :class:`MotionClip`. CSV is for spreadsheets and plotting tools: one header
row, then one row per frame: ``time`` [s] followed by every ``qpos`` entry
under a name built from the character's joints (see :func:`qpos_columns`).

What every exporter shares (the clip/character check, the file extension
check, the z-up → y-up axis map and forward kinematics over a clip) is in
:mod:`gaitforge.io.clip_checks`, re-exported here. :func:`save_motion` picks
the writer from the file extension.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

import numpy as np

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.io.atomic import atomic_path
from gaitforge.io.clip_checks import (MAX_SPEED, MAX_TURNS, REACH_BASE, Y_UP, check_clip, check_extension,
                                      check_result, clip_kinematics)
from gaitforge.motion.clip import MotionClip

__all__ = ["EXPORT_EXTENSIONS", "MAX_FPS", "MAX_SPEED", "MAX_TURNS", "NPZ_FORMAT", "REACH_BASE", "Y_UP",
           "check_clip", "check_extension", "check_result", "clip_kinematics", "load_npz", "qpos_columns",
           "save_csv", "save_motion", "save_npz"]

NPZ_FORMAT = "gaitforge-motion-1"
EXPORT_EXTENSIONS = (".bvh", ".csv", ".gif", ".glb", ".mp4", ".npz")
MAX_FPS = 10000.0  # frames per second a clip file may have

# ------------------------------------------------------------ column names
def qpos_columns(character: Character) -> list[str]:
    """A name for every ``qpos`` entry (nq names), from the character's joints.

    The free root: ``root_x, root_y, root_z`` [m] and ``root_qw .. root_qz``
    (orientation quaternion w, x, y, z). Hinge and slide joints: the joint name
    [rad or m]. Ball joints: ``NAME_qw .. NAME_qz``. Joints compiled as several
    MuJoCo joints (planar roots, three-hinge balls): the MuJoCo joint names.
    """
    m = character.model
    names = [f"q{i}" for i in range(m.nq)]
    root_taken = False
    for j in character.joints.values():
        start = j.qpos.start
        if j.kind == "free":
            top = int(m.body_parentid[character.model.body(j.body).id]) == 0
            prefix = "root" if top and not root_taken else j.name
            root_taken = root_taken or prefix == "root"
            names[start:start + 7] = [f"{prefix}_{c}" for c in ("x", "y", "z", "qw", "qx", "qy", "qz")]
        elif j.kind == "ball":
            names[start:start + 4] = [f"{j.name}_{c}" for c in ("qw", "qx", "qy", "qz")]
        elif len(j.mj_joints) > 1:
            for jid in j.mj_joints:
                names[int(m.jnt_qposadr[jid])] = m.joint(jid).name
        else:
            names[start] = j.name
    return names


# -------------------------------------------------------------------- files
def save_npz(character: Character, clip: MotionClip, path: str | os.PathLike) -> None:
    """Write ``clip`` as NPZ (atomically): fps, qpos (T, nq) float64, character
    name, joint names and qpos column names. :func:`load_npz` reads it back
    exactly (a clip without a character name comes back named after ``character``)."""
    check_clip(character, clip)
    check_extension(path, (".npz",), "NPZ")
    with atomic_path(path) as tmp, open(tmp, "wb") as f:
        np.savez(f, format=np.array(NPZ_FORMAT), fps=np.array(clip.fps), qpos=clip.qpos,
                 character_name=np.array(character.name), joint_names=np.array(list(character.joints), dtype=str),
                 columns=np.array(qpos_columns(character), dtype=str))


def load_npz(path: str | os.PathLike, character: Character | None = None) -> MotionClip:
    """Read a clip written by :func:`save_npz`.

    With ``character``, also check that the file's character name, joint
    names and ``qpos`` size match it (:class:`GaitforgeError` otherwise).
    """
    from gaitforge.io.files import check_file

    p = Path(path)
    check_file(p, "motion file")
    _check_members(p)
    try:
        with np.load(p, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise GaitforgeError(f"{p}: no such file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError):
        # numpy's own message would suggest allow_pickle, an unsafe step
        raise GaitforgeError(f"{p}: not a gaitforge motion file (expected the .npz that gaitforge writes)") \
            from None
    for key in ("format", "fps", "qpos", "character_name", "joint_names"):
        if key not in data:
            raise GaitforgeError(f"{p}: not a gaitforge motion file (missing {key!r})")
    if str(data["format"])[:80] != NPZ_FORMAT:
        raise GaitforgeError(f"{p}: unsupported motion file format {str(data['format'])[:40]!r} "
                             f"(expected {NPZ_FORMAT})")
    fps, qpos = data["fps"], data["qpos"]
    if fps.shape != () or fps.dtype.kind not in "fiu" or qpos.dtype.kind not in "fiu":
        raise GaitforgeError(f"{p}: fps or qpos is not numeric; {_NOT_A_CLIP}")
    if not (np.isfinite(fps) and 0 < float(fps) <= MAX_FPS):
        raise GaitforgeError(f"{p}: fps {float(fps):g} is not a number above 0 up to {MAX_FPS:g}")
    try:
        clip = MotionClip(float(fps), qpos, str(data["character_name"]))
    except GaitforgeError as exc:
        raise GaitforgeError(f"{p}: {exc}") from None
    if character is not None:
        check_clip(character, clip)
        saved, expected = [str(n) for n in data["joint_names"]], list(character.joints)
        if saved != expected:
            raise GaitforgeError(f"{p}: joints {', '.join(saved)} do not match {character.name}'s joints "
                                 f"{', '.join(expected)}")
    return clip


_MEMBERS = {"format", "fps", "qpos", "character_name", "joint_names", "columns"}
_NOT_A_CLIP = "not a gaitforge motion file (expected the .npz that gaitforge writes)"


def _check_members(p: Path) -> None:
    """Refuse an NPZ whose arrays would be larger than a motion file may be
    (a zip bomb: a few kilobytes that unpack to gigabytes) or of a kind a
    clip never holds, from the zip directory and each array's header,
    before any array is read."""
    from gaitforge.io.files import MAX_BYTES

    limit = MAX_BYTES["motion file"]
    try:
        with zipfile.ZipFile(p) as z:
            infos = z.infolist()
            if len(infos) > 2 * len(_MEMBERS):
                raise GaitforgeError(f"{p}: {_NOT_A_CLIP}")
            total = 0
            for info in infos:
                name = info.filename.removesuffix(".npy")
                if name not in _MEMBERS:
                    continue  # np.load never reads it
                total += info.file_size
                if info.file_size > limit or total > limit:
                    raise GaitforgeError(f"{p}: its arrays unpack to more than the {limit // 2 ** 20} MiB a motion "
                                         "file may hold; refused without unpacking them")
                with z.open(info) as f:
                    version = np.lib.format.read_magic(f)
                    read = {(1, 0): np.lib.format.read_array_header_1_0,
                            (2, 0): np.lib.format.read_array_header_2_0}.get(version)
                    if read is None:
                        raise ValueError(f"npy version {version}")
                    shape, _, dtype = read(f, max_header_size=10000)
                count = int(np.prod(shape, dtype=object)) if shape else 1
                if dtype.hasobject or count * max(dtype.itemsize, 1) > info.file_size:
                    raise GaitforgeError(f"{p}: {name}: its header promises {count:,} values of {dtype} in "
                                         f"{info.file_size:,} bytes; {_NOT_A_CLIP}")
    except GaitforgeError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError,
            RuntimeError, TypeError):
        raise GaitforgeError(f"{p}: {_NOT_A_CLIP}") from None


def save_csv(character: Character, clip: MotionClip, path: str | os.PathLike) -> None:
    """Write ``clip`` as CSV (atomically): header ``time`` + :func:`qpos_columns`,
    then one row per frame (time [s], qpos values with 10 significant digits)."""
    check_clip(character, clip)
    check_extension(path, (".csv",), "CSV")
    table = np.column_stack([clip.times, clip.qpos])
    with atomic_path(path) as tmp:
        np.savetxt(tmp, table, fmt="%.10g", delimiter=",", header=",".join(["time"] + qpos_columns(character)),
                   comments="", encoding="utf-8")


def save_motion(character: Character, clip: MotionClip, path: str | os.PathLike, **options) -> None:
    """Write ``clip`` in the format named by the extension of ``path``:
    ``.bvh``, ``.csv``, ``.gif``, ``.glb``, ``.mp4`` or ``.npz``. ``options``
    go to the writer (e.g. ``rotation_order`` for BVH, ``width`` for video)."""
    ext = check_extension(path, EXPORT_EXTENSIONS, "motion")
    check_result(character, clip)
    if ext == ".bvh":
        from gaitforge.io.bvh import save_bvh
        save_bvh(character, clip, path, **options)
    elif ext == ".glb":
        from gaitforge.io.gltf import save_glb
        save_glb(character, clip, path, **options)
    elif ext in (".mp4", ".gif"):
        from gaitforge.io.video import save_video
        save_video(character, clip, path, **options)
    else:
        (save_npz if ext == ".npz" else save_csv)(character, clip, path, **options)

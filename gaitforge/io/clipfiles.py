"""Motion clips as plain data files (NPZ, CSV), and what every exporter shares.

NPZ holds a :class:`MotionClip` exactly (float64 ``qpos``, fps, character
name) plus the character's joint names and column names, and reads back into
a :class:`MotionClip`. CSV is for spreadsheets and plotting tools: one header
row, then one row per frame: ``time`` [s] followed by every ``qpos`` entry
under a name built from the character's joints (see :func:`qpos_columns`).

Shared by the exporters here: the clip/character check, the file extension
check, the z-up → y-up axis map and forward kinematics over a clip.
:func:`save_motion` picks the writer from the file extension.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path

import mujoco
import numpy as np

from gaitforge.creatures.character import Character
from gaitforge.errors import GaitforgeError
from gaitforge.io.atomic import atomic_path
from gaitforge.motion.clip import MotionClip

NPZ_FORMAT = "gaitforge-motion-1"
EXPORT_EXTENSIONS = (".bvh", ".csv", ".gif", ".glb", ".mp4", ".npz")
MAX_FPS = 10000.0  # frames per second a clip file may have

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

"""Import creatures people already have as MJCF or URDF, through MuJoCo's own
compiler (``mujoco.MjSpec.from_file``), as a :class:`Character`.

What the import does to the model, in this order:

1. Props: trees hanging from the world that move, other than the creature
   (the heaviest moving tree), are removed with the cameras, lights, sensors,
   actuators, equalities and keyframe entries that refer to them
   (dm_control's dog ships a tennis ball). Static world geoms (floor, walls)
   stay. ``keep_props=True`` keeps everything.
2. Root: a creature whose root body has no joint (every URDF) gets a free
   joint (``free_root=False`` keeps it welded). URDF files keep their fixed
   links as bodies (``fusestatic`` off), so feet and label overrides keep the
   link names people know. Unnamed bodies, joints and sites get names.
3. Labels: inferred from body names (:mod:`gaitforge.creatures.labels`), then
   the override file (:func:`load_label_overrides`), if any.
4. Facing (``face_x``): the root turns about the vertical so that the
   creature's left (mean of left-labelled bodies minus mean of right ones)
   points along +y, hence forward along +x (the CMU humanoid faces -y).
5. Ground (``ground_clearance``, free roots only): the root moves vertically
   so the lowest colliding point of the rest pose sits this high [m]. A ground
   plane (friction 1) is added when the world has no plane or height field.
6. Springs: each hinge and ball joint without stiffness gets Kry09's layout
   (:func:`~gaitforge.creatures.imported.layout_stiffness`: one stiffness
   for limbs, neck and tail, five times that for the back, vertebra chains
   stiffened by their length), or ``default_stiffness`` [N m/rad] if given;
   every joint does if one of the file's springs cannot hold its own limb
   out (:func:`~gaitforge.creatures.imported.weak_springs`: the tone of a
   model meant for actuators, as dm_control's dog and CMU humanoid have).
   ``replace_stiffness`` True / False forces / forbids the latter. The rest
   pose (``rest``) is every joint's spring reference (``qpos_spring``);
   ``rest="spring"`` takes the file's own references as the rest pose.
7. Sites: gaitforge takes every site for a contact point, so the file's
   other sites (sensor mounts: a tail tip, touch zones) go, with the sensors
   that use them (:func:`~gaitforge.creatures.imported.remove_sites`).
   ``keep_sites=True`` keeps them.
8. Feet: a site at the lowest rest point of each standing foot, named by
   :func:`gaitforge.creatures.labels.choose_feet` (an existing site of that
   name is left as it is).

Actuators stay (controls default to zero) but nothing in gaitforge drives
them. Other keyframes are kept as authored.
"""
from __future__ import annotations

import math
import os
import re
from pathlib import Path

import mujoco
import numpy as np

from gaitforge.creatures.character import Character
from gaitforge.creatures.imported import (  # noqa: F401  (default_joint_stiffness: used by import_bvh)
    STIFFNESS_FACTOR, default_joint_stiffness, dof_counts, foot_sites, layout_stiffness, lowest_point, parents,
    remove_props, remove_sites, subtrees, weak_springs)
from gaitforge.creatures.labels import apply_label_overrides, check_label_overrides, facing_yaw, infer_labels
from gaitforge.errors import CompileError, GaitforgeError, SpecError

RESTS = ("qpos0", "keyframe", "spring")
# Plain ints: numpy integers never compare equal to MuJoCo's enum members inside `in`.
_FREE, _BALL, _SLIDE, _HINGE = (int(mujoco.mjtJoint.mjJNT_FREE), int(mujoco.mjtJoint.mjJNT_BALL),
                                int(mujoco.mjtJoint.mjJNT_SLIDE), int(mujoco.mjtJoint.mjJNT_HINGE))
_PLANE, _HFIELD = int(mujoco.mjtGeom.mjGEOM_PLANE), int(mujoco.mjtGeom.mjGEOM_HFIELD)


# ------------------------------------------------------------------ files
def load_label_overrides(path: str | os.PathLike) -> dict[str, dict]:
    """Read a label override file ``labels: {body: {side, role, limb}}`` (YAML,
    safe loader); errors name the file, the field and the value."""
    from gaitforge.io.documents import parse_text
    from gaitforge.io.files import read_text

    p = Path(path)
    data = parse_text(read_text(p, "label file"), str(p))
    return check_label_overrides(data, str(p))


def mujoco_file_error(path, exc: Exception) -> SpecError:
    """One-line error for a model file MuJoCo refused: ``FILE: line N: what``."""
    text = str(exc).strip()
    line = re.search(r"[Ll]ine(?: number)?\s*=?\s*(\d+)", text)
    if text.startswith("XML parse error"):
        kind = re.search(r"XML_ERROR_(\w+)", text)
        what = "malformed XML" + (f": {kind.group(1).lower().replace('_', ' ')}" if kind else "")
        element = re.search(r"name=(\S+)", text)
        what += f" <{element.group(1)}>" if element else ""
    else:
        what = text.splitlines()[0]
        while (m := re.match(r"(XML Error|Error|Schema violation|ParseXML):\s*", what)):
            what = what[m.end():]
        element = re.search(r"Element '(\w+)'", text)
        what += f" in <{element.group(1)}>" if element else ""
    return SpecError(f"line {line.group(1)}" if line else "", what, str(path))


# ------------------------------------------------------------- the import
def _unique(name: str, used: set[str]) -> str:
    while name in used:
        name += "_"
    used.add(name)
    return name


def _parse(path: Path) -> tuple[mujoco.MjSpec, mujoco.MjModel]:
    """Parse and compile the file as written (errors carry its line numbers);
    every body, joint and site named."""
    from gaitforge.io.model_limits import check_compiled, scan_model

    scan_model(path)  # a regular file of bounded size, and what it expands to, before MuJoCo reads it
    try:
        spec = mujoco.MjSpec.from_file(str(path))
        if path.suffix.lower() == ".urdf":
            spec.compiler.fusestatic = False
        for kind, items in (("body", spec.bodies[1:]), ("joint", spec.joints), ("site", spec.sites)):
            used = {e.name for e in items}
            for i, e in enumerate(items):
                e.name = e.name or _unique(f"{kind}{i}", used)
        model = spec.compile()
    except ValueError as exc:  # MuJoCo reports parse and compile failures as ValueError
        raise mujoco_file_error(path, exc) from None
    check_compiled(model, path)
    _check_magnitudes(model, path)
    return spec, model


def _check_magnitudes(model: mujoco.MjModel, path: Path) -> None:
    """Refuse what MuJoCo compiles but no analysis can use: non-finite or
    absurd placements, sizes and masses (the same ranges as creature files),
    naming the first body or geom at fault."""
    from gaitforge.creatures.spec import MASS, REACH, SIZE

    for b in range(1, model.nbody):
        name = model.body(b).name
        for what, values, ok in (("position", model.body_pos[b], lambda v: abs(v) <= REACH),
                                 ("orientation", model.body_quat[b], lambda v: True),
                                 ("mass", [model.body_mass[b]], lambda v: v == 0 or MASS[0] <= v <= MASS[1]),
                                 ("inertia", model.body_inertia[b], lambda v: v <= 1e9)):
            if not all(np.isfinite(v) and ok(v) for v in values):
                shown = ", ".join(f"{v:g}" for v in values)
                raise GaitforgeError(f"{path}: body {name!r}: {what} ({shown}) is not finite or out of range")
    for g in range(model.ngeom):
        if model.geom_bodyid[g] == 0:
            continue  # the world's own geoms (a floor plane) are not the creature's
        size = model.geom_size[g]
        if not np.all(np.isfinite(size)) or np.any(size > SIZE[1]):
            name = model.geom(g).name or f"geom {g} of body {model.body(int(model.geom_bodyid[g])).name!r}"
            raise GaitforgeError(f"{path}: {name}: size ({', '.join(f'{v:g}' for v in size)}) is not finite "
                                 "or out of range")


def _rest_vector(model: mujoco.MjModel, rest: str, path: Path) -> np.ndarray:
    keys = [model.key(i).name for i in range(model.nkey)]
    if rest == "qpos0":
        return model.qpos0.copy()
    if rest == "spring":
        return model.qpos_spring.copy()
    if rest == "keyframe" and model.nkey:
        return model.key_qpos[0].copy()
    if rest in keys and rest:
        return model.key_qpos[keys.index(rest)].copy()
    named = f" or a keyframe ({', '.join(k for k in keys if k)})" if any(keys) else ""
    raise GaitforgeError(f"{path}: rest={rest!r} names no pose (choose from {', '.join(RESTS)}{named})"
                         + ("; the model has no keyframe" if rest == "keyframe" else ""))


def _yaw_matrix(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _quat_mul(a, b) -> np.ndarray:
    out = np.zeros(4)
    mujoco.mju_mulQuat(out, np.asarray(a, float), np.asarray(b, float))
    return out


def _add_ground(spec: mujoco.MjSpec, model: mujoco.MjModel, creature_geoms: list[int]) -> None:
    flat = (_PLANE, _HFIELD)
    if any(model.geom_bodyid[g] == 0 and int(model.geom_type[g]) in flat for g in range(model.ngeom)):
        return
    bits = 0
    for g in creature_geoms:
        bits |= int(model.geom_contype[g]) | int(model.geom_conaffinity[g])
    ground = spec.worldbody.add_geom(name=_unique("ground", {g.name for g in spec.geoms}),
                                     type=mujoco.mjtGeom.mjGEOM_PLANE, size=[50, 50, 0.05], rgba=[0.45, 0.5, 0.55, 1])
    ground.friction = [1.0, 0.005, 0.0001]
    ground.contype = ground.conaffinity = bits or 1
    if not model.nlight:
        spec.worldbody.add_light(name=_unique("sun", {x.name for x in spec.lights}), pos=[0, 0, 6],
                                 dir=[0, 0.3, -1], type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL, castshadow=False)


def _turn_and_lift(spec, model, creature: int, root_joints: list[int], *, yaw: float, dz: float,
                   add_free: bool, rest_is_qpos0: bool) -> None:
    """Turn the root body by ``yaw`` about +z, raise it by ``dz`` (unless the
    root is free and the rest pose is not ``qpos0``: then the rest pose's own
    root coordinates move instead), and give it a free joint if asked
    (keyframes get its 7 values)."""
    root = spec.body(model.body(creature).name)
    if root.frame is not None:  # a root inside a <frame> stays where it is
        return
    root.alt.type = mujoco.mjtOrientation.mjORIENTATION_QUAT
    root.quat = _quat_mul(_yaw_quat(yaw), model.body_quat[creature])
    has_free = bool(root_joints) and int(model.jnt_type[root_joints[0]]) == _FREE
    if not has_free or rest_is_qpos0:
        root.pos = model.body_pos[creature] + [0.0, 0.0, dz]
    if add_free:
        root.add_freejoint(name=_unique(f"{root.name}_free", {j.name for j in spec.joints}))
        before = [j for j in range(model.njnt) if model.jnt_bodyid[j] < creature]
        at_q, at_v = (sum(dof_counts(model.jnt_type[j])[i] for j in before) for i in (0, 1))
        for k in spec.keys:
            if len(k.qpos):
                k.qpos = np.insert(np.array(k.qpos), at_q, np.concatenate([root.pos, root.quat]))
            if len(k.qvel):
                k.qvel = np.insert(np.array(k.qvel), at_v, np.zeros(6))


def _yaw_quat(yaw: float) -> np.ndarray:
    return np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])


def _set_springs(spec, model, rest0: np.ndarray, joints: list[int], k_new: np.ndarray, replace: bool) -> None:
    """Default stiffness where there is none (or everywhere with ``replace``);
    hinge and slide spring references at the rest pose."""
    k_old = model.jnt_stiffness.reshape(model.njnt, -1)[:, 0]
    for j in joints:
        sj, kind = spec.joint(model.joint(j).name), int(model.jnt_type[j])
        if kind in (_HINGE, _BALL) and (replace or k_old[j] == 0):
            sj.stiffness[0] = k_new[j]
            sj.springdamper = [0.0, 0.0]  # it would recompute the stiffness at compile time
        if kind in (_HINGE, _SLIDE):
            unit = 180.0 / math.pi if kind == _HINGE and spec.compiler.degree else 1.0
            sj.springref = rest0[model.jnt_qposadr[j]] * unit


def _final_rest(final, model, rest0: np.ndarray, joints: list[int], root_joints: list[int],
                yaw: float, dz: float) -> np.ndarray:
    """The rest pose (nq,) in the final model's coordinates; ball springs are
    pointed at it (hinges and slides already are, through ``springref``)."""
    q, kept = final.qpos0.copy(), {model.joint(i).name for i in joints}
    for j in range(final.njnt):
        if final.joint(j).name not in kept:
            continue  # a prop kept by keep_props, or the free joint added to the root
        j0, kind = model.joint(final.joint(j).name).id, int(final.jnt_type[j])
        a, a0, n = final.jnt_qposadr[j], model.jnt_qposadr[j0], dof_counts(kind)[0]
        q[a:a + n] = rest0[a0:a0 + n]
        if kind == _FREE and j0 in root_joints:
            q[a + 2] += dz
            q[a + 3:a + 7] = _quat_mul(_yaw_quat(yaw), rest0[a0 + 3:a0 + 7])
        elif kind == _BALL:
            final.qpos_spring[a:a + n] = q[a:a + n]
    return q


def load_character_from_mjcf(path: str | os.PathLike, labels_file: str | os.PathLike | None = None,
                             default_stiffness: float | None = None, *, replace_stiffness: bool | None = None,
                             rest: str = "qpos0", free_root: bool = True, keep_props: bool = False,
                             keep_sites: bool = False, face_x: bool = True,
                             ground_clearance: float | None = 0.0, name: str | None = None) -> Character:
    """Import an MJCF (``.xml``) or URDF (``.urdf``) file as a :class:`Character`
    (see the module notes for every change made to the model).

    default_stiffness: None for Kry09's layout (:func:`layout_stiffness`), or
    one value [N m/rad] for every hinge and ball joint that gets a default.
    replace_stiffness: True gives the default to every hinge and ball joint,
    False only to those without stiffness, None (default) to every one if a
    spring of the file is too weak to hold its own limb (:func:`weak_springs`),
    else only to those without. rest: the rest pose — ``qpos0``, ``keyframe``
    (the first one), ``spring`` (the model's own spring references) or a
    keyframe name. keep_props / keep_sites: keep the props / the file's sites
    that are no contact points. name: defaults to the model name or the file
    stem. Invalid files raise :class:`SpecError` with the file and line.
    """
    p = Path(path)
    if default_stiffness is not None and not (math.isfinite(default_stiffness) and default_stiffness >= 0):
        raise GaitforgeError(f"default_stiffness must be a finite number >= 0 N m/rad, got {default_stiffness!r}")
    if replace_stiffness not in (None, True, False):
        raise GaitforgeError(f"replace_stiffness must be True, False or None, got {replace_stiffness!r}")
    overrides = load_label_overrides(labels_file) if labels_file is not None else {}
    source = str(labels_file) if labels_file is not None else None
    spec, model = _parse(p)
    roots = [i for i in range(1, model.nbody) if model.body_parentid[i] == 0]
    if not roots:
        raise GaitforgeError(f"{p}: the model has no bodies")
    moving = sorted({int(model.body_rootid[model.jnt_bodyid[j]]) for j in range(model.njnt)})
    creature = max(moving or roots, key=lambda r: model.body_subtreemass[r])
    props = [] if keep_props else [r for r in moving if r != creature]
    data = mujoco.MjData(model)
    data.qpos[:] = rest0 = _rest_vector(model, rest, p)
    mujoco.mj_kinematics(model, data)

    inside = subtrees(model)
    bodies = [int(b) for b in np.flatnonzero(inside[creature])]
    names, tree = [model.body(b).name for b in bodies], parents(model, bodies)
    labels = apply_label_overrides(infer_labels(names, parents=tree), overrides, source)
    yaw = facing_yaw(labels, dict(zip(names, data.xpos[bodies]))) if face_x else 0.0
    pivot = data.xpos[creature]
    turned = (data.xpos[bodies] - pivot) @ _yaw_matrix(yaw).T + pivot
    labels = apply_label_overrides(infer_labels(names, turned, tree), overrides, source)

    joints = [j for j in range(model.njnt) if inside[creature, model.jnt_bodyid[j]]]
    k_new = (layout_stiffness(model, data, labels, joints) if default_stiffness is None
             else np.full(model.njnt, float(default_stiffness)))
    replace = bool(weak_springs(model, data, joints)) if replace_stiffness is None else replace_stiffness
    _set_springs(spec, model, rest0, joints, k_new, replace)
    geoms = [g for g in range(model.ngeom) if inside[creature, model.geom_bodyid[g]]]
    solid = [g for g in geoms if model.geom_contype[g] or model.geom_conaffinity[g]] or geoms
    root_joints = [j for j in joints if model.jnt_bodyid[j] == creature]
    add_free = free_root and not root_joints
    dz = 0.0
    if (add_free or root_joints and int(model.jnt_type[root_joints[0]]) == _FREE) and ground_clearance is not None:
        dz = ground_clearance - min((lowest_point(model, data, g)[2] for g in solid), default=0.0)
    _turn_and_lift(spec, model, creature, root_joints, yaw=yaw, dz=dz, add_free=add_free,
                   rest_is_qpos0=rest == "qpos0")
    if not keep_sites:
        remove_sites(spec, model, inside[creature])
    existing = {s.name for s in spec.sites}
    for site, body, local in foot_sites(model, data, labels, bodies):
        if site not in existing:
            spec.body(body).add_site(name=site, pos=local, size=[0.01, 0, 0], rgba=[1, 0.9, 0.1, 1])
    _add_ground(spec, model, geoms)
    if props:
        remove_props(spec, model, props)
    q = _final_rest(_compile_final(spec, p, props), model, rest0, joints, root_joints, yaw, dz)
    # Compiled again with the rest pose as keyframe "rest" (as built-in creatures have).
    spec.add_key(name=_unique("rest", {k.name for k in spec.keys}), qpos=q)
    final = _compile_final(spec, p, props)
    _final_rest(final, model, rest0, joints, root_joints, yaw, dz)  # ball springs of the new model
    # MuJoCo names a model without a name attribute "MuJoCo Model": use the file stem then.
    label = spec.modelname if spec.modelname not in ("", "MuJoCo Model") else p.stem
    return Character(final, q, name=name or label, labels=labels, mjspec=spec)


def _compile_final(spec: mujoco.MjSpec, path: Path, props: list[int]) -> mujoco.MjModel:
    try:
        return spec.compile()
    except ValueError as exc:
        hint = " (keep_props=True keeps the props)" if props else ""
        raise CompileError(f"{path}: MuJoCo could not compile the imported model: "
                           f"{str(exc).splitlines()[0]}{hint}") from None

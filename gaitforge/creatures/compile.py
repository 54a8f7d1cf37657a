"""Compile a :class:`CreatureSpec` into a MuJoCo model through ``mujoco.MjSpec``.

What the compiled model holds:
- a ground plane (friction from the spec) and a light;
- one body per bone with explicit mass properties (ours, see ``inertia``);
- joint springs whose reference is the rest pose (``springref`` /
  ``qpos_spring``), damping, armature and limits;
- creature geoms collide with the ground only (no self-collision): by
  collision filtering, or (``contact_pairs``) one explicit geom pair each,
  with the parameters filtering would have mixed (see ``contacts``);
- a site per contact point; fixed tendons for coupling springs; equality
  constraints for the extra constraints marked ``simulate``;
- a keyframe ``rest`` holding the rest ``qpos``.

Joint names: a bone's joint is named after the bone. Joints that compile to
several MuJoCo joints get suffixes: ``planar`` → ``NAME_x``, ``NAME_z``,
``NAME_ry``; a ball with unequal per-axis stiffness → hinges ``NAME_rx``,
``NAME_ry``, ``NAME_rz`` (equivalent to first order about the rest pose).
"""
from __future__ import annotations

import math
from typing import Any

import mujoco
import numpy as np

from gaitforge.errors import CompileError
from gaitforge.creatures.inertia import bone_mass_properties
from gaitforge.creatures.spec import Bone, CreatureSpec

_GEOM_TYPES = {
    "box": mujoco.mjtGeom.mjGEOM_BOX,
    "capsule": mujoco.mjtGeom.mjGEOM_CAPSULE,
    "ellipsoid": mujoco.mjtGeom.mjGEOM_ELLIPSOID,
    "sphere": mujoco.mjtGeom.mjGEOM_SPHERE,
}
_CREATURE_CONTYPE, _GROUND_CONTYPE = 1, 2
_MIN_INERTIA = 1e-9  # kg m^2: MuJoCo rejects exactly zero principal moments
_BONE_RGBA = {"left": (0.85, 0.45, 0.30, 1.0), "right": (0.30, 0.55, 0.85, 1.0),
              "center": (0.80, 0.78, 0.70, 1.0)}


def mujoco_joint_names(bone: Bone) -> list[str]:
    """Names of the MuJoCo joints a bone's joint compiles to (empty if fixed)."""
    j = bone.joint
    if j.type == "fixed":
        return []
    if j.type == "planar":
        return [f"{bone.name}_x", f"{bone.name}_z", f"{bone.name}_ry"]
    if j.type == "ball" and len(set(j.stiffness3)) > 1:
        return [f"{bone.name}_rx", f"{bone.name}_ry", f"{bone.name}_rz"]
    return [bone.name]


def _add_joints(body, bone: Bone) -> None:
    j = bone.joint
    names = mujoco_joint_names(bone)
    if j.type == "free":
        body.add_freejoint(name=bone.name)
        return
    if j.type == "fixed":
        return
    if j.type == "planar":
        kinds = [(mujoco.mjtJoint.mjJNT_SLIDE, (1, 0, 0)), (mujoco.mjtJoint.mjJNT_SLIDE, (0, 0, 1)),
                 (mujoco.mjtJoint.mjJNT_HINGE, (0, 1, 0))]
        for name, (kind, axis) in zip(names, kinds):
            mj = body.add_joint(name=name, type=kind, axis=axis)
            mj.armature = j.armature
        return
    if j.type == "ball" and len(names) == 3:
        rest = j.rest if isinstance(j.rest, tuple) else (0.0, 0.0, 0.0)
        for name, hinge_axis, k, r in zip(names, np.eye(3), j.stiffness3, rest):
            mj = body.add_joint(name=name, type=mujoco.mjtJoint.mjJNT_HINGE, axis=hinge_axis)
            mj.stiffness[0], mj.damping[0], mj.armature, mj.springref = k, j.damping, j.armature, r
        return
    kind = {"hinge": mujoco.mjtJoint.mjJNT_HINGE, "slide": mujoco.mjtJoint.mjJNT_SLIDE,
            "ball": mujoco.mjtJoint.mjJNT_BALL}[j.type]
    mj = body.add_joint(name=bone.name, type=kind, axis=np.asarray(j.axis) / np.linalg.norm(j.axis))
    mj.stiffness[0] = j.stiffness3[0] if j.type == "ball" else j.stiffness
    mj.damping[0] = j.damping
    mj.armature = j.armature
    if j.type != "ball":
        mj.springref = j.rest
    if j.range is not None:
        mj.limited = mujoco.mjtLimited.mjLIMITED_TRUE
        mj.range = j.range


def _add_body(parent, bone: Bone, friction: float):
    body = parent.add_body(name=bone.name, pos=bone.pos, quat=bone.quat)
    mp = bone_mass_properties(bone)
    evals, evecs = np.linalg.eigh(mp.inertia)
    inertia = np.maximum(evals, _MIN_INERTIA)
    full = evecs @ np.diag(inertia) @ evecs.T
    body.explicitinertial = True
    body.mass = mp.mass
    body.ipos = mp.com
    body.fullinertia = [full[0, 0], full[1, 1], full[2, 2], full[0, 1], full[0, 2], full[1, 2]]
    _add_joints(body, bone)
    rgba = bone.rgba or _BONE_RGBA[bone.side]
    for i, s in enumerate(bone.shapes):
        g = body.add_geom(name=f"{bone.name}_g{i}", type=_GEOM_TYPES[s.kind])
        if s.kind == "capsule":
            g.size = [s.radius, 0, 0]
            g.fromto = s.fromto
        else:
            g.pos, g.quat = s.pos, s.quat
            g.size = {"box": s.half_sizes, "ellipsoid": s.radii, "sphere": (s.radius, 0, 0)}[s.kind]
        g.rgba = rgba
        g.friction = [friction, 0.005, 0.0001]
        g.contype, g.conaffinity = (_CREATURE_CONTYPE, _GROUND_CONTYPE) if s.contact else (0, 0)
        g.mass = 0.0
    return body


def _decorate(spec: mujoco.MjSpec, friction: float) -> None:
    tex = spec.add_texture(name="grid", type=mujoco.mjtTexture.mjTEXTURE_2D,
                           builtin=mujoco.mjtBuiltin.mjBUILTIN_CHECKER, width=256, height=256)
    tex.rgb1, tex.rgb2 = [0.32, 0.36, 0.40], [0.26, 0.29, 0.33]
    sky = spec.add_texture(name="sky", type=mujoco.mjtTexture.mjTEXTURE_SKYBOX,
                           builtin=mujoco.mjtBuiltin.mjBUILTIN_GRADIENT, width=64, height=64)
    sky.rgb1, sky.rgb2 = [0.62, 0.72, 0.85], [0.95, 0.96, 0.98]
    mat = spec.add_material(name="grid")
    mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = "grid"
    mat.texrepeat = [4, 4]  # squares per metre (texuniform): a visible scale for speed
    mat.texuniform = True
    mat.reflectance = 0.05
    floor = spec.worldbody.add_geom(name="ground", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[50, 50, 0.05])
    floor.material = "grid"
    floor.friction = [friction, 0.005, 0.0001]
    floor.contype, floor.conaffinity = _GROUND_CONTYPE, _CREATURE_CONTYPE
    spec.worldbody.add_light(name="sun", pos=[0, 0, 6], dir=[0, 0.3, -1], type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL,
                             castshadow=False)
    spec.visual.headlight.ambient = [0.35, 0.35, 0.35]
    spec.visual.headlight.diffuse = [0.5, 0.5, 0.5]


def _pair_with_ground(mj: mujoco.MjSpec, friction: float) -> None:
    """Replace collision filtering by a ground pair per contact geom. The
    pair repeats what MuJoCo would mix from the two geoms (same friction,
    default solref/solimp, condim 3)."""
    ground = next(g for g in mj.geoms if g.name == "ground")
    for g in mj.geoms:
        if g is ground or not (g.contype or g.conaffinity):
            continue
        g.contype = g.conaffinity = 0
        pair = mj.add_pair(geomname1="ground", geomname2=g.name, condim=3)
        pair.friction = [friction, friction, 0.005, 0.0001, 0.0001]
    ground.contype = ground.conaffinity = 0


def build_mjspec(spec: CreatureSpec, root_pos=None) -> mujoco.MjSpec:
    """The MuJoCo ``MjSpec`` of a creature (not yet compiled)."""
    mj = mujoco.MjSpec()
    mj.modelname = spec.name
    mj.option.timestep = spec.timestep
    mj.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    # Elliptic friction cones with a high impedance ratio stop the slow creep
    # of feet under load that pyramidal cones allow (measured on the gorilla:
    # 2.75 cm of knuckle slide in 10 s drops to 0.18 cm).
    mj.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    mj.option.impratio = 10.0
    mj.compiler.degree = False
    _decorate(mj, spec.friction)
    bodies: dict[str, Any] = {}  # mujoco.MjsBody by bone name
    for bone in spec.bones:
        parent = mj.worldbody if bone.parent is None else bodies[bone.parent]
        bodies[bone.name] = _add_body(parent, bone, spec.friction)
    if spec.contact_pairs:
        _pair_with_ground(mj, spec.friction)
    if root_pos is not None:
        bodies[spec.bones[0].name].pos = root_pos
    for c in spec.contacts:
        bodies[c.bone].add_site(name=c.name, pos=c.pos, size=[0.01, 0, 0], rgba=[1, 0.9, 0.1, 1])
    for s in spec.springs:
        t = mj.add_tendon(name=s.name)
        t.stiffness[0] = s.stiffness
        t.springlength = [s.rest, s.rest]
        for joint, coef in s.joints:
            t.wrap_joint(joint, coef)
    for con in spec.constraints:
        if not con.simulate:
            continue
        if con.kind == "lock":
            # A weld to the world would also pin the position; orientation-only
            # locks shape the modal analysis but are not simulated.
            continue
        other = con.other if con.kind == "loop" else "world"
        anchors = [np.asarray(con.point, float)]
        if con.axis is not None:  # hinge closure: two ball sockets along the axis
            axis = np.asarray(con.axis, float) / np.linalg.norm(con.axis)
            anchors = [anchors[0] - 0.02 * axis, anchors[0] + 0.02 * axis]
        for i, a in enumerate(anchors):
            eq = mj.add_equality(name=f"{con.name}_{i}" if len(anchors) > 1 else con.name,
                                 type=mujoco.mjtEq.mjEQ_CONNECT, objtype=mujoco.mjtObj.mjOBJ_BODY,
                                 name1=con.bone, name2=other)
            eq.data[:3] = a
    return mj


def _compile(mj: mujoco.MjSpec, name: str) -> mujoco.MjModel:
    try:
        return mj.compile()
    except ValueError as exc:  # MuJoCo reports compile failures as ValueError
        raise CompileError(f"creature {name!r}: MuJoCo could not compile it: {exc}") from None


def rest_qpos(spec: CreatureSpec, model: mujoco.MjModel) -> np.ndarray:
    """The rest pose as a ``qpos`` (nq,): ``qpos0`` with each joint's ``rest``
    offset applied (ball rests as quaternions from their rotation vectors)."""
    q = model.qpos0.copy()
    for bone in spec.bones:
        j = bone.joint
        names = mujoco_joint_names(bone)
        if j.type in ("hinge", "slide"):
            q[model.jnt_qposadr[model.joint(names[0]).id]] = j.rest
        elif j.type == "ball" and isinstance(j.rest, tuple):
            if len(names) == 3:
                for name, r in zip(names, j.rest):
                    q[model.jnt_qposadr[model.joint(name).id]] = r
            else:
                adr = model.jnt_qposadr[model.joint(names[0]).id]
                quat = np.zeros(4)
                mujoco.mju_axisAngle2Quat(quat, np.asarray(j.rest) / max(np.linalg.norm(j.rest), 1e-300),
                                          float(np.linalg.norm(j.rest)))
                q[adr:adr + 4] = quat
    return q


def vertical_extent(model: mujoco.MjModel, data: mujoco.MjData) -> tuple[float, float]:
    """Lowest and highest z [m] over the creature's geoms (after ``mj_kinematics``)."""
    low, high = math.inf, -math.inf
    for g in range(model.ngeom):
        if model.geom_bodyid[g] == 0:
            continue
        R = data.geom_xmat[g].reshape(3, 3)
        z, size = data.geom_xpos[g][2], model.geom_size[g]
        kind = model.geom_type[g]
        if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
            reach = size[0]
        elif kind == mujoco.mjtGeom.mjGEOM_CAPSULE or kind == mujoco.mjtGeom.mjGEOM_CYLINDER:
            reach = abs(R[2, 2]) * size[1] + size[0]
        elif kind == mujoco.mjtGeom.mjGEOM_BOX:
            reach = float(np.abs(R[2, :]) @ size)
        elif kind == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
            reach = float(np.linalg.norm(R[2, :] * size))
        else:  # meshes and others: MuJoCo's bounding sphere
            reach = model.geom_rbound[g]
        low, high = min(low, z - reach), max(high, z + reach)
    return low, high


def compile_spec(spec: CreatureSpec) -> tuple[mujoco.MjModel, np.ndarray, mujoco.MjSpec]:
    """Compile ``spec``; return (model, rest qpos (nq,), the MjSpec it came from).

    With ``ground_clearance`` set, the root is first compiled where the spec
    puts it, then moved vertically so the lowest rest point is that high.
    """
    mj = build_mjspec(spec)
    model = _compile(mj, spec.name)
    q = rest_qpos(spec, model)
    root = spec.bones[0]
    if spec.ground_clearance is not None and root.joint.type in ("free", "planar"):
        data = mujoco.MjData(model)
        data.qpos[:] = q
        mujoco.mj_kinematics(model, data)
        dz = spec.ground_clearance - vertical_extent(model, data)[0]
        pos = np.asarray(root.pos, float) + [0.0, 0.0, dz]
        mj = build_mjspec(spec, root_pos=pos)
        model = _compile(mj, spec.name)
        q = rest_qpos(spec, model)
    _set_ball_spring_rests(spec, model, q)
    key = mj.add_key(name="rest", qpos=q)
    del key
    model = _compile(mj, spec.name)
    _set_ball_spring_rests(spec, model, q)
    return model, q, mj


def _set_ball_spring_rests(spec: CreatureSpec, model: mujoco.MjModel, q: np.ndarray) -> None:
    """Ball springs pull toward ``qpos_spring``; point it at the rest rotation."""
    for bone in spec.bones:
        if bone.joint.type == "ball" and isinstance(bone.joint.rest, tuple):
            names = mujoco_joint_names(bone)
            if len(names) == 1:
                adr = model.jnt_qposadr[model.joint(names[0]).id]
                model.qpos_spring[adr:adr + 4] = q[adr:adr + 4]


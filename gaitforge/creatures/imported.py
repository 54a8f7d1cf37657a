"""Model geometry for imported skeletons (MJCF, URDF, BVH): default joint
springs, the lowest point of a geom, where the standing feet touch, and the
removal of what an imported model carries that is no part of the creature
(props, sensor sites).

Springs. Kry et al. 2009 (§3, Figure 3) keep their quadruped's legs softer
than its back: one value for every joint and five times that for the spine
(ten for their human); gaitforge's built-in dog does the same.
:func:`layout_stiffness` gives imported skeletons that layout,
k_j = s · n_j · b_j, with

- b_j = :data:`BACK_FACTOR` for joints of the back (centre-line bodies
  other than neck, head and tail), 1 elsewhere;
- n_j the number of jointed bodies in a row that share the joint's body
  label (side, role, limb): rigs that split one anatomical joint into a
  chain of n small ones (dm_control's dog has 7 lumbar, 7 cervical and 21
  caudal vertebrae) give each n times the stiffness, so that the chain
  bends as much as one joint of the paper's models would (springs in series
  add their compliances). Without it a long tail or neck of soft joints
  takes the lowest modes, and the legs' modes fall out of the few that
  gait heuristics look at;
- s [N m/rad] the smallest scale at which every joint still holds its own
  subtree out against gravity within 1/``factor`` rad, s = factor ·
  maxⱼ mⱼ g ℓⱼ / (n_j b_j) (see :func:`own_weight_torque`), so no joint is
  softer than :func:`default_joint_stiffness` makes it.

Shapes of vibration modes do not depend on the overall scale s, only their
frequencies do.
"""
from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

import mujoco
import numpy as np

from gaitforge.creatures.character import BodyLabel
from gaitforge.creatures.labels import choose_feet
from gaitforge.constants import GRAVITY  # used when the model's gravity is off

STIFFNESS_FACTOR = 10.0  # k ≥ factor · m g ℓ: a limb held out sags by at most ~1/factor rad
BACK_FACTOR = 5.0  # back joints are this much stiffer than the others (Kry09 Fig. 3: "spine ×5")
_NOT_BACK = ("neck", "head", "tail")  # centre-line roles that are no back
FOOT_TOLERANCE = 0.1  # a foot stands if it reaches within this fraction of the height of the lowest point
CONTACT_SITE = re.compile(r"(^|[_.\-])(foot|heel|toe|knuckle)$", re.IGNORECASE)  # site names kept as contact points
# Plain ints: numpy integers never compare equal to MuJoCo's enum members inside `in`.
_FREE, _BALL, _HINGE = (int(mujoco.mjtJoint.mjJNT_FREE), int(mujoco.mjtJoint.mjJNT_BALL),
                        int(mujoco.mjtJoint.mjJNT_HINGE))
_G = mujoco.mjtGeom
_SPHERE, _CAPSULE, _ELLIPSOID, _CYLINDER, _BOX, _MESH = (
    int(_G.mjGEOM_SPHERE), int(_G.mjGEOM_CAPSULE), int(_G.mjGEOM_ELLIPSOID), int(_G.mjGEOM_CYLINDER),
    int(_G.mjGEOM_BOX), int(_G.mjGEOM_MESH))


# ---------------------------------------------------------------- springs
def subtrees(model: mujoco.MjModel) -> np.ndarray:
    """(nbody, nbody) bool: ``[b, i]`` when body i hangs from body b (or is b)."""
    n = model.nbody
    inside = np.eye(n, dtype=bool)
    for i in range(1, n):
        p = i
        while p > 0:
            p = int(model.body_parentid[p])
            inside[p, i] = True
    return inside


def own_weight_torque(model: mujoco.MjModel, data: mujoco.MjData) -> np.ndarray:
    """m g ℓ (njnt,) [N m] of hinge and ball joints (0 for others): the
    largest gravity torque the subtree hanging from the joint can put on it.

    m [kg] is the subtree's mass, g the model's gravity (9.81 m/s² if off)
    and ℓ [m] the RMS distance of that mass from the joint anchor,
    ℓ² = Σ (mᵢ|cᵢ − p|² + tr Iᵢ / 2) / m (bodies i with centre cᵢ and central
    inertia Iᵢ). Uses ``data.xipos`` / ``xanchor``: call ``mj_kinematics`` at
    the rest pose first.
    """
    g = float(np.linalg.norm(model.opt.gravity)) or GRAVITY
    inside = subtrees(model)
    spread = model.body_inertia.sum(axis=1) / 2.0  # Σ over the body of mass · |r − c|²
    tau = np.zeros(model.njnt)
    for j in range(model.njnt):
        if int(model.jnt_type[j]) not in (_HINGE, _BALL):
            continue
        sub = inside[model.jnt_bodyid[j]]
        m = float(model.body_mass[sub].sum())
        if m <= 0:
            continue
        r2 = np.sum((data.xipos[sub] - data.xanchor[j]) ** 2, axis=1)
        tau[j] = m * g * math.sqrt(float((model.body_mass[sub] * r2 + spread[sub]).sum()) / m)
    return tau


def default_joint_stiffness(model: mujoco.MjModel, data: mujoco.MjData,
                            factor: float = STIFFNESS_FACTOR) -> np.ndarray:
    """Spring stiffness (njnt,) [N m/rad] that holds each subtree on its own:
    k = factor · m g ℓ (:func:`own_weight_torque`). A limb held horizontal
    sags at most about 1/factor rad; each subtree alone swings at
    √(factor g / ℓ) rad/s (pendulum-like)."""
    return factor * own_weight_torque(model, data)


def chain_lengths(model: mujoco.MjModel, labels: Mapping[str, BodyLabel]) -> dict[int, int]:
    """Body id → n: the most jointed bodies along one parent-to-child path
    through the run of bodies that share its label (side, role, limb) and
    hang one from the next (bodies without a role form no runs). Parallel
    branches (fingers of one hand) do not add up."""
    def key(b: int):
        lab = labels.get(model.body(b).name)
        return (lab.side, lab.role, lab.limb) if lab is not None and lab.role else None

    top: dict[int, int] = {}
    depth: dict[int, int] = {}
    for b in range(1, model.nbody):  # parents come before children
        p = int(model.body_parentid[b])
        same = p > 0 and key(b) is not None and key(p) == key(b)
        top[b] = top[p] if same else b
        depth[b] = (depth[p] if same else 0) + int(model.body_jntnum[b] > 0)
    longest: dict[int, int] = {}
    for b, t in top.items():
        longest[t] = max(longest.get(t, 1), depth[b])
    return {b: longest[t] for b, t in top.items()}


def layout_stiffness(model: mujoco.MjModel, data: mujoco.MjData, labels: Mapping[str, BodyLabel],
                     joints: Sequence[int], factor: float = STIFFNESS_FACTOR,
                     back: float = BACK_FACTOR) -> np.ndarray:
    """Kry09's stiffness layout (module notes) for the hinge and ball joints
    among ``joints`` (ids): (njnt,) [N m/rad], 0 elsewhere. Call
    ``mj_kinematics`` at the rest pose first."""
    tau = own_weight_torque(model, data)
    runs = chain_lengths(model, labels)
    rel = np.zeros(model.njnt)
    for j in joints:
        b = int(model.jnt_bodyid[j])
        lab = labels.get(model.body(b).name, BodyLabel())
        if int(model.jnt_type[j]) in (_HINGE, _BALL):
            rel[j] = runs[b] * (back if lab.side == "center" and lab.role not in _NOT_BACK else 1.0)
    held = rel > 0
    if not held.any():
        return rel
    scale = factor * float(np.max(tau[held] / rel[held]))
    return scale * rel if scale > 0 else rel


def weak_springs(model: mujoco.MjModel, data: mujoco.MjData, joints: Sequence[int]) -> list[str]:
    """Names of hinge and ball joints among ``joints`` whose spring is too
    weak to hold their own subtree out within a radian (0 < k < m g ℓ): the
    passive tone of a model meant to be driven by actuators (dm_control's dog
    has 0.1 N m/rad at its knees), not springs that carry the creature."""
    k = model.jnt_stiffness.reshape(model.njnt, -1)[:, 0]
    tau = own_weight_torque(model, data)
    return [model.joint(j).name for j in joints if int(model.jnt_type[j]) in (_HINGE, _BALL)
            and 0 < k[j] < tau[j]]


# ---------------------------------------------------------- model cleanup
def dof_counts(kind: int) -> tuple[int, int]:
    """(nq, nv) of a joint of MuJoCo type ``kind``."""
    return {_FREE: (7, 6), _BALL: (4, 3)}.get(int(kind), (1, 1))


def remove_props(spec: mujoco.MjSpec, model: mujoco.MjModel, props: list[int]) -> None:
    """Delete the prop trees (world-child body ids) and everything naming them."""
    inside = subtrees(model)
    gone = np.asarray(inside[props].any(axis=0))
    names = {model.body(b).name for b in np.flatnonzero(gone)}
    jids = [j for j in range(model.njnt) if gone[model.jnt_bodyid[j]]]
    names |= {model.joint(j).name for j in jids}
    names |= {model.geom(g).name for g in range(model.ngeom) if gone[model.geom_bodyid[g]]}
    names |= {model.site(s).name for s in range(model.nsite) if gone[model.site_bodyid[s]]}
    names.discard("")
    qdel = [model.jnt_qposadr[j] + i for j in jids for i in range(dof_counts(model.jnt_type[j])[0])]
    vdel = [model.jnt_dofadr[j] + i for j in jids for i in range(dof_counts(model.jnt_type[j])[1])]
    adel = [i for i, a in enumerate(spec.actuators) if a.target in names]
    doomed = [spec.actuators[i] for i in adel]
    doomed += [c for c in [*spec.cameras, *spec.lights] if c.targetbody in names]
    doomed += [s for s in spec.sensors if s.objname in names or s.refname in names]
    doomed += [e for e in spec.equalities if e.name1 in names or e.name2 in names]
    doomed += [e for e in spec.excludes if e.bodyname1 in names or e.bodyname2 in names]
    doomed += [e for e in spec.pairs if e.geomname1 in names or e.geomname2 in names]
    for element in doomed:
        spec.delete(element)
    for p in props:
        spec.delete(spec.body(model.body(p).name))
    for k in spec.keys:  # only now: MuJoCo checks keyframe sizes while deleting
        for field, drop in (("qpos", qdel), ("qvel", vdel), ("ctrl", adel)):
            if len(getattr(k, field)) and drop:
                setattr(k, field, np.delete(np.array(getattr(k, field)), drop))


def remove_sites(spec: mujoco.MjSpec, model: mujoco.MjModel, inside: np.ndarray) -> None:
    """Delete the creature's sites (``inside``: its bodies, (nbody,) bool) that
    are no contact points, with the sensors that use them. gaitforge takes
    every site for a contact point; sites named like one (:data:`CONTACT_SITE`)
    and sites that tendons, actuators or equalities use are kept."""
    used = set(model.wrap_objid[model.wrap_type == int(mujoco.mjtWrap.mjWRAP_SITE)].tolist())
    on_site = model.actuator_trntype == int(mujoco.mjtTrn.mjTRN_SITE)
    used |= set(model.actuator_trnid[on_site].ravel().tolist())
    on_site = model.eq_objtype == int(mujoco.mjtObj.mjOBJ_SITE)
    used |= set(model.eq_obj1id[on_site].tolist()) | set(model.eq_obj2id[on_site].tolist())
    names = {model.site(i).name for i in range(model.nsite) if inside[model.site_bodyid[i]]
             and i not in used and not CONTACT_SITE.search(model.site(i).name)}
    for element in [s for s in spec.sensors if s.objname in names or s.refname in names]:
        spec.delete(element)
    for n in names:
        spec.delete(spec.site(n))


# ------------------------------------------------------------------- feet
def lowest_point(model: mujoco.MjModel, data: mujoco.MjData, g: int) -> np.ndarray:
    """World point (3,) [m] where geom ``g`` reaches lowest (after
    ``mj_kinematics``); a flat bottom gives its centre."""
    R, c = data.geom_xmat[g].reshape(3, 3), data.geom_xpos[g]
    size, kind = model.geom_size[g], int(model.geom_type[g])
    ez = np.array([0.0, 0.0, 1.0])
    if kind == _SPHERE:
        return c - size[0] * ez
    if kind == _ELLIPSOID:
        A = R * size
        v = A.T @ ez
        return c - A @ v / np.linalg.norm(v)
    if kind in (_CAPSULE, _CYLINDER):
        ends = c + np.outer([-1.0, 1.0], R[:, 2] * size[1])
        if kind == _CAPSULE:
            pts = ends - size[0] * ez
        else:  # lowest rim point of each end disc
            rim = ez - (ez @ R[:, 2]) * R[:, 2]
            n = np.linalg.norm(rim)
            pts = ends - (size[0] * rim / n if n > 1e-12 else 0.0)
    elif kind == _BOX:
        signs = np.array(np.meshgrid([-1, 1], [-1, 1], [-1, 1])).reshape(3, -1).T
        pts = c + (signs * size) @ R.T
    elif kind == _MESH:
        mid = model.geom_dataid[g]
        v = model.mesh_vert[model.mesh_vertadr[mid]:model.mesh_vertadr[mid] + model.mesh_vertnum[mid]]
        pts = c + v @ R.T
    else:
        return c - model.geom_rbound[g] * ez
    return pts[pts[:, 2] <= pts[:, 2].min() + 1e-6].mean(axis=0)


def parents(model: mujoco.MjModel, bodies: Sequence[int]) -> dict[str, str | None]:
    """Body name → parent body name (None under the world) for ``bodies`` (ids)."""
    return {model.body(b).name: (model.body(int(model.body_parentid[b])).name
                                 if model.body_parentid[b] else None) for b in bodies}


def foot_sites(model: mujoco.MjModel, data: mujoco.MjData, labels: Mapping[str, BodyLabel],
               bodies: Sequence[int]) -> list[tuple[str, str, np.ndarray]]:
    """Contact points of the standing feet among ``bodies`` (ids) at the pose
    in ``data`` (after ``mj_kinematics``): (name, body, point (3,) [m, body
    frame]) at the lowest point of the foot's colliding geoms (all geoms if
    none of the bodies collide)."""
    geoms = [g for g in range(model.ngeom) if model.geom_bodyid[g] in bodies]
    solid = [g for g in geoms if model.geom_contype[g] or model.geom_conaffinity[g]]
    low: dict[int, tuple[float, np.ndarray]] = {}
    for g in solid or geoms:
        p = lowest_point(model, data, g)
        b = int(model.geom_bodyid[g])
        if b not in low or p[2] < low[b][0]:
            low[b] = (float(p[2]), p)
    if not low:
        return []
    tops = [data.geom_xpos[g][2] + model.geom_rbound[g] for g in solid or geoms]
    height = max(tops) - min(z for z, _ in low.values())
    lowest = {model.body(b).name: z for b, (z, _) in low.items()}
    out = []
    for name, body in choose_feet(labels, lowest, parents(model, bodies), FOOT_TOLERANCE * height).items():
        b = model.body(body).id
        local = data.xmat[b].reshape(3, 3).T @ (low[b][1] - data.xpos[b])
        out.append((name, body, local))
    return out

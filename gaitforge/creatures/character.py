"""The runtime creature every later layer takes: a compiled MuJoCo model plus
labels, a DOF map, the rest pose and the joint stiffness.

A :class:`Character` is built from a :class:`CreatureSpec` (``from_spec``) or
from any MuJoCo model (``from_model``: imported MJCF / URDF), so nothing
downstream depends on where the creature came from.
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

import mujoco
import numpy as np

from gaitforge.errors import UnknownNameError
from gaitforge.creatures.compile import compile_spec, mujoco_joint_names, vertical_extent
from gaitforge.creatures.spec import Constraint, CreatureSpec


@dataclass(frozen=True)
class BodyLabel:
    """What a body is: ``side`` (left/right/center), ``role`` (foot, knee, ...,
    or None), ``limb`` (front/rear or None)."""

    side: str = "center"
    role: str | None = None
    limb: str | None = None


@dataclass(frozen=True)
class JointDofs:
    """Where one creature joint lives in MuJoCo's state vectors.

    kind: free, planar, hinge, slide, ball, or ``gimbal`` (a ball joint
    compiled as three hinges). ``qpos`` / ``dof`` are slices into ``qpos``
    (nq,) and ``qvel`` (nv,); ``mj_joints`` the MuJoCo joint ids.
    """

    name: str
    kind: str
    body: str
    qpos: slice
    dof: slice
    mj_joints: tuple[int, ...]

    @property
    def ndof(self) -> int:
        return self.dof.stop - self.dof.start


_MJ_KIND = {mujoco.mjtJoint.mjJNT_FREE: "free", mujoco.mjtJoint.mjJNT_BALL: "ball",
            mujoco.mjtJoint.mjJNT_HINGE: "hinge", mujoco.mjtJoint.mjJNT_SLIDE: "slide"}


def _joint_dofs(model: mujoco.MjModel, name: str, kind: str, ids: list[int]) -> JointDofs:
    q0 = int(model.jnt_qposadr[ids[0]])
    d0 = int(model.jnt_dofadr[ids[0]])
    last = ids[-1]
    nq_last = {0: 7, 1: 4}.get(int(model.jnt_type[last]), 1)
    nv_last = {0: 6, 1: 3}.get(int(model.jnt_type[last]), 1)
    body = model.body(int(model.jnt_bodyid[ids[0]])).name
    return JointDofs(name, kind, body, slice(q0, int(model.jnt_qposadr[last]) + nq_last),
                     slice(d0, int(model.jnt_dofadr[last]) + nv_last), tuple(ids))


_KINEMATICS = threading.local()


def scratch_data(model: mujoco.MjModel, purpose: str) -> mujoco.MjData:
    """A reusable MjData per model, thread and ``purpose`` (each purpose
    its own, so that one user's object is never overwritten by another's
    calls). Allocating a fresh one costs ~0.8 ms (MuJoCo's arena), more
    than a short clip's kinematics or a modal analysis's setup."""
    caches = getattr(_KINEMATICS, "data", None)
    if caches is None:
        caches = _KINEMATICS.data = {}
    cache = caches.setdefault(purpose, weakref.WeakKeyDictionary())
    d = cache.get(model)
    if d is None:
        d = cache[model] = mujoco.MjData(model)
    return d


def kinematics_data(model: mujoco.MjModel) -> mujoco.MjData:
    """The scratch MjData for forward kinematics (:func:`scratch_data`).
    Only for code that sets qpos, computes and reads the result before
    calling anything else that may use it."""
    return scratch_data(model, "kinematics")


class Character:
    """A creature ready for analysis and simulation.

    Attributes: ``name``; ``model`` (``mujoco.MjModel``); ``spec`` (the
    :class:`CreatureSpec`, or None for imported models); ``labels`` (body name →
    :class:`BodyLabel`); ``joints`` (joint name → :class:`JointDofs`, in DOF
    order); ``contacts`` (contact point name → site id); ``constraints``;
    ``rest_qpos`` (nq,); ``stiffness`` (nv,) per-DOF joint stiffness [N m/rad or
    N/m]; ``stiffness_matrix`` (nv, nv) including coupling springs; ``damping`` (nv,).
    Arrays are read-only; copy before changing them.
    """

    def __init__(self, model: mujoco.MjModel, rest_qpos: np.ndarray, *, name: str,
                 labels: Mapping[str, BodyLabel] | None = None,
                 joints: Mapping[str, JointDofs] | None = None,
                 constraints: tuple[Constraint, ...] = (),
                 spec: CreatureSpec | None = None, mjspec: mujoco.MjSpec | None = None):
        self.name = name
        self.model = model
        self.spec = spec
        self.mjspec = mjspec
        self.constraints = tuple(constraints)
        bodies = [model.body(i).name for i in range(1, model.nbody)]
        given = dict(labels or {})
        self.labels = MappingProxyType({b: given.get(b, BodyLabel()) for b in bodies})
        self.joints = MappingProxyType(dict(joints) if joints is not None else self._joints_from_model())
        self.contacts = MappingProxyType({model.site(i).name: i for i in range(model.nsite)})
        self.rest_qpos = self._frozen(np.asarray(rest_qpos, float).copy())
        self._rest_extent: tuple[np.ndarray, tuple[float, float]] | None = None  # (the pose it is of, extent)
        per_joint = model.jnt_stiffness.reshape(model.njnt, -1) if model.njnt else np.zeros((0, 1))
        self.stiffness = self._frozen(per_joint[model.dof_jntid, 0].copy())
        self.damping = self._frozen(model.dof_damping.copy())
        self.stiffness_matrix = self._frozen(self._stiffness_matrix())

    # ----------------------------------------------------------- construction
    @classmethod
    def from_spec(cls, spec: CreatureSpec) -> "Character":
        """Compile a :class:`CreatureSpec` (see ``compile.compile_spec``)."""
        model, rest, mj = compile_spec(spec)
        labels = {b.name: BodyLabel(b.side, b.role, b.limb) for b in spec.bones}
        joints = {}
        for bone in spec.bones:
            names = mujoco_joint_names(bone)
            if not names:
                continue
            kind = "gimbal" if bone.joint.type == "ball" and len(names) == 3 else bone.joint.type
            joints[bone.name] = _joint_dofs(model, bone.name, kind, [model.joint(n).id for n in names])
        return cls(model, rest, name=spec.name, labels=labels, joints=joints,
                   constraints=spec.constraints, spec=spec, mjspec=mj)

    @classmethod
    def from_model(cls, model: mujoco.MjModel, *, name: str | None = None,
                   labels: Mapping[str, BodyLabel] | None = None,
                   rest_qpos: np.ndarray | None = None,
                   constraints: tuple[Constraint, ...] = ()) -> "Character":
        """Wrap an existing MuJoCo model (e.g. imported MJCF); rest pose
        defaults to ``qpos_spring``, each MuJoCo joint is one creature joint."""
        rest = model.qpos_spring.copy() if rest_qpos is None else rest_qpos
        return cls(model, rest, name=name or model.names[:model.names.index(b"\0")].decode() or "model",
                   labels=labels, constraints=constraints)

    def _joints_from_model(self) -> dict[str, JointDofs]:
        m = self.model
        out = {}
        for j in range(m.njnt):
            name = m.joint(j).name or f"joint{j}"
            out[name] = _joint_dofs(m, name, _MJ_KIND[int(m.jnt_type[j])], [j])
        return out

    @staticmethod
    def _frozen(a: np.ndarray) -> np.ndarray:
        a.flags.writeable = False
        return a

    def _stiffness_matrix(self) -> np.ndarray:
        K = np.diag(self.stiffness)
        m = self.model
        if m.ntendon:
            d = self.make_data()
            J = np.zeros((m.ntendon, m.nv))
            # mujoco 4 stores tendon Jacobians sparsely, with the pattern in the model.
            mujoco.mju_sparse2dense(J, d.ten_J, m.ten_J_rownnz, m.ten_J_rowadr, m.ten_J_colind)
            K += J.T @ (m.tendon_stiffness.reshape(m.ntendon, -1)[:, :1] * J)
        return K

    # ----------------------------------------------------------------- basics
    @property
    def nq(self) -> int:
        return self.model.nq

    @property
    def nv(self) -> int:
        return self.model.nv

    @property
    def bodies(self) -> tuple[str, ...]:
        return tuple(self.labels)

    @property
    def mass(self) -> float:
        """Total mass [kg]."""
        return float(self.model.body_mass[1:].sum())

    def body_id(self, name: str) -> int:
        """MuJoCo id of body ``name``; the error lists the valid bodies."""
        if name not in self.labels:
            raise UnknownNameError(f"unknown body {name!r} in {self.name} (valid bodies: {', '.join(self.bodies)})")
        return self.model.body(name).id

    def bodies_labeled(self, *, role: str | None = None, side: str | None = None,
                       limb: str | None = None) -> list[str]:
        """Body names whose labels match every given criterion, in model order."""
        return [b for b, lab in self.labels.items()
                if (role is None or lab.role == role) and (side is None or lab.side == side)
                and (limb is None or lab.limb == limb)]

    def make_data(self, qpos: np.ndarray | None = None) -> mujoco.MjData:
        """A fresh ``MjData`` at ``qpos`` (default: rest) with kinematics and
        positions computed (``mj_forward``)."""
        d = mujoco.MjData(self.model)
        d.qpos[:] = self.rest_qpos if qpos is None else qpos
        mujoco.mj_forward(self.model, d)
        return d

    def extent(self, qpos: np.ndarray | None = None) -> tuple[float, float]:
        """Lowest and highest point [m] of the creature at ``qpos`` (default rest;
        the rest pose's is computed once per rest pose: a new ``rest_qpos``
        assigned is measured again)."""
        if qpos is None and self._rest_extent is not None and self._rest_extent[0] is self.rest_qpos:
            return self._rest_extent[1]
        d = kinematics_data(self.model)
        d.qpos[:] = self.rest_qpos if qpos is None else qpos
        mujoco.mj_kinematics(self.model, d)
        out = vertical_extent(self.model, d)
        if qpos is None:
            self._rest_extent = (self.rest_qpos, out)
        return out

    @property
    def height(self) -> float:
        """Standing height [m]: top of the rest pose above the ground."""
        return float(self.extent()[1])

    def com(self, qpos: np.ndarray | None = None) -> np.ndarray:
        """Centre of mass (3,) [m] at ``qpos`` (default rest)."""
        d = kinematics_data(self.model)
        d.qpos[:] = self.rest_qpos if qpos is None else qpos
        mujoco.mj_kinematics(self.model, d)
        mujoco.mj_comPos(self.model, d)
        return d.subtree_com[0].copy()

    def body_frames(self, qpos: np.ndarray, nbody: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """World frames of bodies 0 … nbody − 1 (default all) at poses qpos
        (T, nq): positions (T, nbody, 3) [m] and rotation matrices
        (T, nbody, 3, 3), MuJoCo's ``xpos`` and ``xmat`` (all frames in one
        compiled pass, :mod:`gaitforge.creatures.kinematics`, where the
        model allows; else ``mj_kinematics`` frame by frame)."""
        from gaitforge.creatures.kinematics import body_frames, supported

        m = self.model
        nb = int(m.nbody) if nbody is None else int(nbody)
        if supported(m):
            return body_frames(m, qpos, nb)
        d = kinematics_data(m)
        xpos, xmat = np.empty((len(qpos), nb, 3)), np.empty((len(qpos), nb, 3, 3))
        for t, q in enumerate(qpos):
            d.qpos[:] = q
            mujoco.mj_kinematics(m, d)
            xpos[t], xmat[t] = d.xpos[:nb], d.xmat[:nb].reshape(nb, 3, 3)
        return xpos, xmat

    def world_points(self, qpos: np.ndarray, bodies: list[str], local: np.ndarray) -> np.ndarray:
        """World positions of points fixed in bodies.

        qpos: (nq,) or (T, nq); bodies: n body names; local: (n, 3) points in
        each body's frame [m]. Returns (n, 3) or (T, n, 3).
        """
        ids = np.array([self.body_id(b) for b in bodies], int)
        local = np.asarray(local, float).reshape(len(ids), 3)
        xpos, xmat = self.body_frames(np.atleast_2d(qpos), int(ids.max()) + 1 if len(ids) else 1)
        out = xpos[:, ids] + np.einsum("tnij,nj->tni", xmat[:, ids], local)
        return out if np.ndim(qpos) == 2 else out[0]

    def contact_positions(self, qpos: np.ndarray) -> dict[str, np.ndarray]:
        """World positions (3,) [m] of every contact point at ``qpos`` (nq,)."""
        d = mujoco.MjData(self.model)
        d.qpos[:] = qpos
        mujoco.mj_kinematics(self.model, d)
        return {name: d.site_xpos[i].copy() for name, i in self.contacts.items()}

    def __repr__(self) -> str:
        return (f"Character({self.name!r}, bodies={len(self.labels)}, joints={len(self.joints)}, "
                f"nv={self.nv}, mass={self.mass:.3g} kg)")

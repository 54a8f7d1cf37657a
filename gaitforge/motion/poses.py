"""Poses of Kry09 Eq. 4: modal displacements turned into joint coordinates.

Every frame's joint displacement from the rest pose θ0 is

    Δθ(t) = Σ_i [α_i sin(2π f̃_i t + γ_i) + β_i] φ_i        (Kry09 Eq. 4 with
                                                            the §4.3 offsets β_i)

where φ_i = RNu_i is elastic mode i of a :class:`ModalBasis` in joint space
(``basis.shapes[:, i]``). Displacements become poses the way MuJoCo
integrates velocities (``mj_integratePos``): hinge and slide coordinates add,
ball joints and the free root's orientation compose with the exponential map
of the rotation vector. :class:`JointLayout` does this for all frames at once
in numpy (no loop over frames).

Soft joint limits (Kry09 §4.2): a coordinate past its limit by d is pulled
back by d²/(d + Δθ_soft), i.e. left at d·Δθ_soft/(d + Δθ_soft) past it — never
more than Δθ_soft, with slope 1 where the limit is first crossed so nothing
pops. Hinges and slides use their range; ball joints with a cone limit apply
it to their rotation angle.

This is the first step of the motion pipeline (poses → ground → hold,
:func:`gaitforge.motion.synthesis.synthesize`); it knows nothing of the ground.
"""
from __future__ import annotations

import weakref

import mujoco
import numpy as np

from gaitforge.motion.recipe import GaitRecipe

__all__ = ["JointLayout", "layout", "modal_coordinates", "poses", "soft_limit_excess"]

_SMALL_ANGLE = 1e-6  # below this rotation angle [rad], sin(θ/2)/θ comes from its Taylor series


def soft_limit_excess(d: np.ndarray, delta: float | np.ndarray) -> np.ndarray:
    """How far past a limit a coordinate ends up when Eq. 4 puts it d > 0
    past: d − d²/(d + Δ) = dΔ/(d + Δ) (Kry09 §4.2); Δ = 0 clamps hard."""
    return d * delta / (d + delta)


def _exp_parts(vx, vy, vz):
    """Components w, x, y, z of exp(v) from the components of v (same shapes)."""
    th2 = vx * vx + vy * vy + vz * vz
    th = np.sqrt(th2)
    half = 0.5 * th
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.sin(half) / th
    small = th < _SMALL_ANGLE
    if np.any(small):  # sin(θ/2)/θ → 1/2 − θ²/48 as θ → 0 (and 0/0 at θ = 0)
        s = np.where(small, 0.5 - th2 / 48.0, s)
    return np.cos(half), s * vx, s * vy, s * vz


class JointLayout:
    """Where each kind of coordinate sits in ``qpos`` (nq,) and ``qvel`` (nv,).

    lin_q / lin_v: coordinates that integrate by addition (hinge, slide, the
    free joint's position); quat_q (n, 4) / quat_v (n, 3): orientations (ball
    joints, the free joint's quaternion) that integrate by q ⊗ exp(v) with v
    in the joint's local frame, as MuJoCo does. Limits: ``lim_q``, ``lim_lo``,
    ``lim_hi``, ``lim_rot`` (True: hinge [rad], False: slide [m]) for limited
    hinges and slides; ``cone_k`` (indices into the quaternion groups) and
    ``cone_max`` [rad] for limited ball joints.
    """

    def __init__(self, model: mujoco.MjModel):
        lin_q: list[int] = []
        lin_v: list[int] = []
        quat_q: list[range] = []
        quat_v: list[range] = []
        lim_q, lim_lo, lim_hi, lim_rot, cone_k, cone_max = [], [], [], [], [], []
        for j in range(model.njnt):
            kind, qa, va = int(model.jnt_type[j]), int(model.jnt_qposadr[j]), int(model.jnt_dofadr[j])
            limited = bool(model.jnt_limited[j])
            lo, hi = (float(x) for x in model.jnt_range[j])
            if kind == mujoco.mjtJoint.mjJNT_FREE:
                lin_q += range(qa, qa + 3)
                lin_v += range(va, va + 3)
                quat_q.append(range(qa + 3, qa + 7))
                quat_v.append(range(va + 3, va + 6))
            elif kind == mujoco.mjtJoint.mjJNT_BALL:
                if limited:
                    cone_k.append(len(quat_q))
                    cone_max.append(max(lo, hi))  # MuJoCo reads the larger range value as the cone angle
                quat_q.append(range(qa, qa + 4))
                quat_v.append(range(va, va + 3))
            else:
                if limited:
                    lim_q.append(qa)
                    lim_lo.append(lo)
                    lim_hi.append(hi)
                    lim_rot.append(kind == mujoco.mjtJoint.mjJNT_HINGE)
                lin_q.append(qa)
                lin_v.append(va)
        self.nq, self.nv = model.nq, model.nv
        self.lin_q, self.lin_v = np.array(lin_q, int), np.array(lin_v, int)
        self.quat_q = np.array(quat_q, int).reshape(-1, 4)
        self.quat_v = np.array(quat_v, int).reshape(-1, 3)
        self.lim_q, self.lim_lo, self.lim_hi = np.array(lim_q, int), np.array(lim_lo), np.array(lim_hi)
        self.lim_rot = np.array(lim_rot, bool)
        self.cone_k, self.cone_max = np.array(cone_k, int), np.array(cone_max)

    def integrate(self, q0: np.ndarray, dv: np.ndarray) -> np.ndarray:
        """Poses (T, nq) reached from q0 (nq,) by displacements dv (T, nv):
        ``mj_integratePos(model, q0, dv[t], 1)`` for every frame at once."""
        dv = np.asarray(dv, float)
        out = np.empty((dv.shape[0], self.nq))
        out[:, self.lin_q] = q0[self.lin_q] + dv[:, self.lin_v]
        if len(self.quat_q):
            # One (T, n) array per component: contiguous, so numpy's loops
            # run at full speed (3× faster than (T, n, 4) arrays here).
            b = q0[self.quat_q]
            bw, bx, by, bz = (b / np.linalg.norm(b, axis=-1, keepdims=True)).T
            ew, ex, ey, ez = _exp_parts(*(dv[:, self.quat_v[:, i]] for i in range(3)))
            # q0 ⊗ exp(v): a product of unit quaternions is unit to rounding
            # (~1e-16), so it needs no normalization after.
            qi = self.quat_q
            out[:, qi[:, 0]] = bw * ew - bx * ex - by * ey - bz * ez
            out[:, qi[:, 1]] = bw * ex + bx * ew + by * ez - bz * ey
            out[:, qi[:, 2]] = bw * ey - bx * ez + by * ew + bz * ex
            out[:, qi[:, 3]] = bw * ez + bx * ey - by * ex + bz * ew
        return out

    def soft_limits(self, qpos: np.ndarray, soft_angle: float, soft_length: float) -> np.ndarray:
        """Apply the soft limits in place to poses (T, nq); return them.
        soft_angle [rad]: Δθ_soft of hinges and ball cones; soft_length [m]: of slides."""
        if len(self.lim_q):
            x = qpos[:, self.lim_q]
            delta = np.where(self.lim_rot, soft_angle, soft_length)
            over = np.maximum(x - self.lim_hi, 0.0)
            under = np.maximum(self.lim_lo - x, 0.0)
            with np.errstate(invalid="ignore", divide="ignore"):
                x = np.where(over > 0, self.lim_hi + soft_limit_excess(over, delta), x)
                x = np.where(under > 0, self.lim_lo - soft_limit_excess(under, delta), x)
            qpos[:, self.lim_q] = x
        if len(self.cone_k):
            idx = self.quat_q[self.cone_k]
            q = qpos[:, idx]                                    # (T, n, 4)
            q = np.where(q[..., :1] < 0, -q, q)                 # the short way round: w ≥ 0
            s = np.linalg.norm(q[..., 1:], axis=-1)
            angle = 2.0 * np.arctan2(s, q[..., 0])
            over = angle - self.cone_max
            if np.any(over > 0):
                d = np.maximum(over, 0.0)
                with np.errstate(invalid="ignore", divide="ignore"):
                    new = np.where(over > 0, self.cone_max + soft_limit_excess(d, soft_angle), angle)
                axis = q[..., 1:] / np.where(s > 0, s, 1.0)[..., None]
                q = np.concatenate([np.cos(0.5 * new)[..., None], np.sin(0.5 * new)[..., None] * axis], axis=-1)
                qpos[:, idx] = q
        return qpos


_LAYOUTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def layout(character) -> JointLayout:
    """The :class:`JointLayout` of ``character``'s model (built once, cached)."""
    lay = _LAYOUTS.get(character)
    if lay is None:
        lay = _LAYOUTS[character] = JointLayout(character.model)
    return lay


def modal_coordinates(recipe: GaitRecipe, times: np.ndarray) -> np.ndarray:
    """Per-term coordinates (T, n_terms): α sin(2π f̃ t + γ) + β at ``times`` (T,) [s]."""
    t = np.asarray(times, float)[:, None]
    a = np.array([[x.amplitude, x.frequency, x.phase, x.offset] for x in recipe.terms]).T
    return a[0] * np.sin((2.0 * np.pi * a[1]) * t + a[2]) + a[3]


def poses(character, basis, recipe: GaitRecipe, times: np.ndarray, soft_limit: float = np.radians(10),
          soft_limit_slide: float = 0.01) -> np.ndarray:
    """Body-relative poses (T, nq) of ``recipe`` on ``basis`` at ``times``
    (T,) [s]: Eq. 4 integrated from the rest pose, with the soft limits
    (soft_limit [rad], soft_limit_slide [m]; see
    :func:`~gaitforge.motion.synthesis.synthesize`)."""
    lay = layout(character)
    coords = modal_coordinates(recipe, times)                              # (T, n_terms)
    phi = basis.shapes[:, [t.mode for t in recipe.terms]]                 # (nv, n_terms)
    qpos = lay.integrate(basis.rest_qpos, coords @ phi.T)                  # (T, nq)
    return lay.soft_limits(qpos, soft_limit, soft_limit_slide)


"""The joint drive of simulated modal control: what each joint's "muscle"
(its spring toward the moving reference, plus modal impulse torques) may do,
computed every physics step in one compiled pass.

MuJoCo applies the springs itself (passive forces toward ``qpos_spring`` and
the tendons' spring lengths, which the controller moves). This pass computes
the same spring torque f at the step's state — hinge and slide joints
k (q_ref − q), ball joints −k · subQuat(q, q_ref) (MuJoCo's formula), fixed
tendons −k_t (L − L_ref) on their joints — adds the impulse torque, limits
the sum (``physics.JointLimits``: |τ| ≤ τ_max; along the joint's motion at
most τ_max · (ω_max − |ω|) / (0.1 ω_max), so full torque up to 90 % of the
speed limit and none at it) and writes the difference τ − f to
``qfrc_applied`` on the joints' rows. The free joint's rows are never
written: nothing pushes the root; momentum changes through contacts (and
gravity) only.

The drive's power is (τ − f_rest) · q̇ with f_rest the springs' torque about
the rest pose (the conservative part the passive energy already counts).
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.jit import kernel
from gaitforge.errors import GaitforgeError
from gaitforge.sim.limits import TAPER  # one torque–speed envelope for every runner

# stats slots of :func:`drive_torques`
PEAK_TORQUE, PEAK_SPEED, PEAK_DEMAND, CLIPPED_STEPS, OVER_SPEED_STEPS = range(5)
N_STATS = 5


@kernel
def quat_velocity(qa0, qa1, qa2, qa3, qb0, qb1, qb2, qb3, out, k):  # pragma: no cover - compiled
    """out[k:k+3] ← the rotation vector r with qb ⊗ exp(r) = qa (MuJoCo's
    ``mju_subQuat``): the joint-frame angle-axis from qb to qa [rad]."""
    # q = conj(qb) ⊗ qa
    w = qb0 * qa0 + qb1 * qa1 + qb2 * qa2 + qb3 * qa3
    x = qb0 * qa1 - qb1 * qa0 - qb2 * qa3 + qb3 * qa2
    y = qb0 * qa2 + qb1 * qa3 - qb2 * qa0 - qb3 * qa1
    z = qb0 * qa3 - qb1 * qa2 + qb2 * qa1 - qb3 * qa0
    s = math.sqrt(x * x + y * y + z * z)
    if s < 1e-15:
        out[k] = out[k + 1] = out[k + 2] = 0.0
        return
    angle = 2.0 * math.atan2(s, w)
    if angle > math.pi:
        angle -= 2.0 * math.pi
    f = angle / s
    out[k], out[k + 1], out[k + 2] = x * f, y * f, z * f


@kernel
def drive_torques(qpos, qvel, spring, tendon_ref, hq, hd, hk, hrest, bq, bd, bk, brest, tcoef, tk, trest,
                  impulse, tau_max, w_max, applied, f, fr, stats):  # pragma: no cover - compiled
    """One step of the joint drive (module docstring). qpos (nq,), qvel (nv,),
    spring (nq,) the springs' reference; tendon_ref (nt, 2) the tendons' spring
    lengths (both ends of the band, set equal); hinges: qpos addresses hq, dof addresses hd, stiffness hk, rest
    angles hrest (h,); balls: qpos addresses bq, first dofs bd, stiffness bk
    (b,), rest quaternions brest (b, 4); tendons: coefficients tcoef (nt, h)
    on the hinges, stiffness tk and rest lengths trest (nt,); impulse (nv,)
    the impulse torque of this step; tau_max [N m], w_max [rad/s]; applied
    (nv,) ← τ − f on the joints' rows (others untouched); f, fr (nv,)
    scratch. stats (N_STATS,) updated in place. Returns the drive's power [W]."""
    for i in range(hq.shape[0]):
        d = hd[i]
        q = qpos[hq[i]]
        f[d] = hk[i] * (spring[hq[i]] - q)
        fr[d] = hk[i] * (hrest[i] - q)
    for t in range(tcoef.shape[0]):
        length = 0.0
        for i in range(hq.shape[0]):
            length += tcoef[t, i] * qpos[hq[i]]
        pull, pull_rest = -tk[t] * (length - tendon_ref[t, 0]), -tk[t] * (length - trest[t])
        for i in range(hq.shape[0]):
            c = tcoef[t, i]
            if c != 0.0:
                f[hd[i]] += c * pull
                fr[hd[i]] += c * pull_rest
    for j in range(bq.shape[0]):
        a, d = bq[j], bd[j]
        n = math.sqrt(qpos[a] ** 2 + qpos[a + 1] ** 2 + qpos[a + 2] ** 2 + qpos[a + 3] ** 2)
        q0, q1, q2, q3 = qpos[a] / n, qpos[a + 1] / n, qpos[a + 2] / n, qpos[a + 3] / n
        quat_velocity(q0, q1, q2, q3, spring[a], spring[a + 1], spring[a + 2], spring[a + 3], f, d)
        quat_velocity(q0, q1, q2, q3, brest[j, 0], brest[j, 1], brest[j, 2], brest[j, 3], fr, d)
        for k in range(3):
            f[d + k] *= -bk[j]
            fr[d + k] *= -bk[j]
    power = 0.0
    clipped = False
    over = False
    nh, nb = hq.shape[0], bq.shape[0]
    for i in range(nh + 3 * nb):
        d = hd[i] if i < nh else bd[(i - nh) // 3] + (i - nh) % 3
        tau = f[d] + impulse[d]
        w = qvel[d]
        demand = abs(tau)
        cap = tau_max
        if tau * w > 0.0:  # along the motion: the torque–speed envelope
            cap = tau_max * min(1.0, max(0.0, (w_max - abs(w)) / (TAPER * w_max)))
        if demand > cap:
            tau = cap if tau > 0.0 else -cap
            clipped = True
        if abs(w) > w_max:
            over = True
        applied[d] = tau - f[d]
        power += (tau - fr[d]) * w
        stats[0] = max(stats[0], abs(tau))
        stats[1] = max(stats[1], abs(w))
        stats[2] = max(stats[2], demand)
    if clipped:
        stats[3] += 1.0
    if over:
        stats[4] += 1.0
    return power


class JointDrive:
    """The per-step drive of one rollout (module docstring): built from a
    :class:`~gaitforge.control.modal.controller.ModalPlan`'s joints and the
    creature's springs; ``step(model, data, impulse)`` writes
    ``data.qfrc_applied`` and returns the drive's power [W]; ``stats`` holds
    peak |τ| [N m], peak |ω| [rad/s], peak demanded |τ| [N m], and the
    steps in which the torque was limited and in which a joint ran over its
    speed limit."""

    def __init__(self, character, plan, tau_max: float, w_max: float):
        m = character.model
        if not (math.isfinite(tau_max) and tau_max > 0 and math.isfinite(w_max) and w_max > 0):
            raise GaitforgeError(f"joint limits must be positive, got torque {tau_max!r}, speed {w_max!r}")
        stiff = m.jnt_stiffness
        self.hq = np.asarray(plan.hinge_qpos, np.int64)
        self.hd = np.asarray(plan.hinge_dof, np.int64)
        jnt_of_dof = m.dof_jntid
        self.hk = np.array([stiff[jnt_of_dof[d]] for d in self.hd], float)
        self.hrest = np.asarray(plan.rest[self.hq], float).copy()
        self.bq = np.asarray(plan.ball_qpos, np.int64)
        self.bd = np.array([m.jnt_dofadr[jnt_of_dof_adr(m, a)] for a in self.bq], np.int64)
        self.bk = np.array([stiff[jnt_of_dof_adr(m, a)] for a in self.bq], float)
        self.brest = np.ascontiguousarray(plan.rest_ball, float).reshape(-1, 4)
        self.tcoef = np.ascontiguousarray(plan.tendon_coef, float).reshape(m.ntendon, len(self.hq))
        self.tk = np.asarray(m.tendon_stiffness, float).reshape(-1).copy()[:m.ntendon]
        self.trest = np.asarray(plan.tendon_rest, float).copy()
        self.tau_max, self.w_max = float(tau_max), float(w_max)
        self._f, self._fr = np.zeros(m.nv), np.zeros(m.nv)
        self._zero = np.zeros(m.nv)
        self.stats = np.zeros(N_STATS)

    def reset(self) -> None:
        self.stats[:] = 0.0

    def step(self, model: mujoco.MjModel, data: mujoco.MjData, impulse: np.ndarray | None) -> float:
        """Write this step's joint torques into ``data.qfrc_applied``; returns the drive's power [W]."""
        return drive_torques(data.qpos, data.qvel, model.qpos_spring, model.tendon_lengthspring, self.hq, self.hd,
                             self.hk, self.hrest, self.bq, self.bd, self.bk, self.brest, self.tcoef, self.tk,
                             self.trest, self._zero if impulse is None else impulse, self.tau_max, self.w_max,
                             data.qfrc_applied, self._f, self._fr, self.stats)

    def spring_torque(self) -> np.ndarray:
        """f (nv,) of the last step: the springs' torque MuJoCo applies (joints' rows)."""
        return self._f.copy()


def jnt_of_dof_adr(model: mujoco.MjModel, qpos_adr: int) -> int:
    """The joint whose coordinates start at ``qpos_adr``."""
    hits = np.flatnonzero(model.jnt_qposadr == qpos_adr)
    if not len(hits):
        raise GaitforgeError(f"no joint starts at qpos address {qpos_adr}")
    return int(hits[0])

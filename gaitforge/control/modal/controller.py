"""Modal equilibrium-point control (Kry et al. 2009 §4.1).

The joint springs' reference pose follows a sum of modal vibrations:

    θ_ref(t) = θ0 + Σᵢ uᵢ (αᵢ sin(2π f̃ᵢ t + γᵢ) + βᵢ)

with uᵢ the elastic mode shapes of the analysis (joint space, mass
normalized; for a constrained creature such as the loop they already lie in
the constraint null space) and the springs' stiffness exactly the one that
analysis used. The controller writes ``model.qpos_spring`` (the runner gives
each rollout its own model copy) and, for coupling springs on fixed tendons
(the loop's closure spring), the tendons' spring lengths, so that the whole
stiffness K of the analysis pulls toward θ_ref; the springs' pull, with the
impulse torques, is limited per joint (:mod:`.drive`), and nothing but these
joint torques (and the joints' dampers) drives the creature.

Symbols: θ0 rest pose, uᵢ shape (nv,), αᵢ amplitude and βᵢ posture offset
(modal coordinates, kg^½ m), γᵢ phase [rad], f̃ᵢ frequency [Hz].
"""
from __future__ import annotations

import math

import mujoco
import numpy as np

from gaitforge.jit import kernel
from gaitforge.control.modal.impulses import ModalKicks
from gaitforge.errors import GaitforgeError
from gaitforge.motion.recipe import GaitRecipe


class ModalPlan:
    """What a modal controller needs, precomputed once per (character, recipe).

    hinge_qpos (h,) qpos addresses and hinge_dof (h,) dof addresses of the
    scalar (hinge/slide) joints; U (h, n) the terms' shapes on those dofs;
    ball_qpos (b,) qpos addresses of the ball joints, U_ball (b, 3, n) the
    shapes on their rotation-vector dofs, rest_ball (b, 4) their rest
    quaternions (w, x, y, z);
    alpha, omega [rad/s], gamma, beta (n,) per term; rest (nq,) θ0;
    tendon_coef (ntendon, h) fixed-tendon coefficients on those joints (the
    tendon's spring length follows its length at θ_ref); tendon_rest
    (ntendon,) the tendons' rest spring lengths; K (nv, nv) the analysed
    stiffness; character: the creature; free_dofs the free joints' dofs
    (no torque there); kicks: the recipe's modal impulses and
    initial conditions (:class:`ModalKicks`) or None when it has neither.
    """

    def __init__(self, character, basis, recipe: GaitRecipe):
        m = character.model
        if basis.shapes.shape[0] != m.nv:
            raise GaitforgeError(f"the modal basis has nv = {basis.shapes.shape[0]}, "
                                 f"{character.name} has nv = {m.nv}")
        for mode in recipe.modes:
            if mode >= basis.count:
                raise GaitforgeError(f"recipe {recipe.name!r} names mode {mode} but only "
                                     f"{basis.count} elastic modes were computed")
        if basis.stiffness_scale != 1.0:
            raise GaitforgeError(f"modal control needs modes of the simulated springs (stiffness_scale 1), "
                                 f"the basis has stiffness_scale {basis.stiffness_scale:g}")
        kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        scalar = [j for j in range(m.njnt) if int(m.jnt_type[j]) in kinds]
        ball = [j for j in range(m.njnt) if int(m.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_BALL)]
        modes = [t.mode for t in recipe.terms]
        # Ball joints: their spring reference is a quaternion, the rest orientation turned by the
        # rotation vector (3,) the modes give (in the joint's frame, as MuJoCo integrates them).
        self.ball_qpos = np.array([m.jnt_qposadr[j] for j in ball], dtype=int)
        self.ball_spring_index = (self.ball_qpos[:, None] + np.arange(4)).reshape(-1)  # their 4 qpos each
        ball_dofs = np.array([np.arange(m.jnt_dofadr[j], m.jnt_dofadr[j] + 3) for j in ball], dtype=int).reshape(-1, 3)
        self.U_ball = np.ascontiguousarray(basis.shapes[ball_dofs.reshape(-1)][:, modes]).reshape(
            len(ball), 3, len(modes))
        self.rest_ball = np.array([character.rest_qpos[a:a + 4] for a in self.ball_qpos], float).reshape(-1, 4)
        self.rest_ball_T = np.ascontiguousarray(self.rest_ball.T)  # (4, b): components w, x, y, z
        self.hinge_qpos = np.array([m.jnt_qposadr[j] for j in scalar], dtype=int)
        q = self.hinge_qpos
        # A contiguous block (the usual case) is written through a slice: cheaper than fancy indexing.
        self.hinge_index = (slice(int(q[0]), int(q[-1]) + 1) if len(q) and np.array_equal(q, np.arange(q[0], q[-1] + 1))
                            else q)
        self.hinge_dof = np.array([m.jnt_dofadr[j] for j in scalar], dtype=int)
        self.U = np.ascontiguousarray(basis.shapes[self.hinge_dof][:, modes])
        self.full_U = np.ascontiguousarray(basis.shapes[:, modes])
        self.alpha = np.array([t.amplitude for t in recipe.terms])
        self.omega = np.array([2.0 * math.pi * t.frequency for t in recipe.terms])
        self.gamma = np.array([t.phase for t in recipe.terms])
        self.beta = np.array([t.offset for t in recipe.terms])
        self.rest = np.asarray(character.rest_qpos, float).copy()
        self.rest_hinge = self.rest[self.hinge_qpos].copy()
        coef = np.zeros((m.ntendon, len(scalar)))
        col = {int(q): i for i, q in enumerate(self.hinge_qpos)}
        for tendon in range(m.ntendon):
            adr, num = m.tendon_adr[tendon], m.tendon_num[tendon]
            for w in range(adr, adr + num):
                if int(m.wrap_type[w]) != int(mujoco.mjtWrap.mjWRAP_JOINT):
                    raise GaitforgeError(f"tendon {tendon} of {character.name} is not a fixed (joint) tendon")
                coef[tendon, col[int(m.jnt_qposadr[m.wrap_objid[w]])]] = m.wrap_prm[w]
        self.tendon_coef = coef
        self.tendon_rest = m.tendon_lengthspring[:, 0].copy() if m.ntendon else np.zeros(0)
        self.K = np.asarray(character.stiffness_matrix, float)
        self.character = character
        free = [np.arange(m.jnt_dofadr[j], m.jnt_dofadr[j] + 6) for j in range(m.njnt)
                if int(m.jnt_type[j]) == int(mujoco.mjtJoint.mjJNT_FREE)]
        self.free_dofs = np.concatenate(free).astype(int) if free else np.zeros(0, int)
        self.kicks = ModalKicks(basis, recipe, self.free_dofs) if recipe.impulses or recipe.initial else None

    def modal_coords(self, t: float) -> np.ndarray:
        """Modal coordinates (n,) at time t [s]: α sin(ω t + γ) + β."""
        return self.alpha * np.sin(self.omega * t + self.gamma) + self.beta

    def displacement(self, t: float) -> np.ndarray:
        """Joint displacement (h,) of the spring reference on the scalar joints at t [s]."""
        return self.U @ self.modal_coords(t)

    def set_references(self, model: mujoco.MjModel, coords: np.ndarray) -> None:
        """Pull ``model``'s springs toward θ0 + Σ uᵢ cᵢ for modal coordinates
        ``coords`` (n,): the scalar joints' ``qpos_spring``, the coupling
        tendons' spring lengths and the ball joints' reference quaternions."""
        self.set_displacement(model, self.U @ coords, self.U_ball @ coords if len(self.ball_qpos) else None)

    def set_displacement(self, model: mujoco.MjModel, delta: np.ndarray, ball_vectors: np.ndarray | None,
                         out: np.ndarray | None = None) -> None:
        """Pull ``model``'s springs toward the rest pose displaced by
        ``delta`` (h,) on the scalar joints [rad or m] (the coupling tendons'
        spring lengths follow) and by rotation vectors ``ball_vectors``
        (b, 3) [rad] on the ball joints (None: no ball joints); ``out``
        (b, 4): room for the ball quaternions (allocated when None)."""
        model.qpos_spring[self.hinge_index] = self.rest_hinge + delta
        if self.tendon_coef.shape[0]:
            length = self.tendon_rest + self.tendon_coef @ delta
            model.tendon_lengthspring[:, 0] = length
            model.tendon_lengthspring[:, 1] = length
        if len(self.ball_qpos):
            quats = np.empty((len(self.ball_qpos), 4)) if out is None else out
            ball_quaternions(ball_vectors, self.rest_ball_T, quats)
            model.qpos_spring[self.ball_spring_index] = quats.reshape(-1)


@kernel
def modal_coordinates(alpha, omega, gamma, beta, e, t, out):  # pragma: no cover - compiled
    """out (n,) ← α e sin(ω t + γ) + β: the modal coordinates at t [s] with fade-in e."""
    for i in range(out.shape[0]):
        out[i] = alpha[i] * e * math.sin(omega[i] * t + gamma[i]) + beta[i]


@kernel
def ball_quaternions(v, rest_T, out):  # pragma: no cover - compiled (its .py_func is tested)
    """out (b, 4) ← rest ⊗ exp(v) (w, x, y, z) for rotation vectors v (b, 3)
    [rad] and rest quaternions given by component, rest_T (4, b). Summed in
    the order NumPy's einsum/cross used before (the same bits)."""
    for i in range(v.shape[0]):
        x, y, z = v[i, 0], v[i, 1], v[i, 2]
        angle = math.sqrt(x * x + y * y + z * z)
        half = 0.5 * angle
        k = math.sin(half) / angle if angle > 1e-12 else 0.5  # sin(θ/2)/θ → 1/2 as θ → 0
        c = math.cos(half)
        ex, ey, ez = x * k, y * k, z * k
        rw, rx, ry, rz = rest_T[0, i], rest_T[1, i], rest_T[2, i], rest_T[3, i]
        out[i, 0] = rw * c - ((rx * ex + rz * ez) + ry * ey)
        out[i, 1] = rw * ex + c * rx + (ry * ez - rz * ey)
        out[i, 2] = rw * ey + c * ry + (rz * ex - rx * ez)
        out[i, 3] = rw * ez + c * rz + (rx * ey - ry * ex)


class ModalController:
    """Open-loop modal equilibrium-point controller (Kry09 §4.1).

    Implements :class:`gaitforge.sim.Controller`: every physics step it moves
    the spring reference of every joint to θ0 + Σ uᵢ(αᵢ sin(2π f̃ᵢ t + γᵢ) + βᵢ)
    with t = ``data.time`` [s] and sets the joints' torques
    (:mod:`.drive`: the springs' pull plus impulse torques, limited; nothing
    on the free joint). ``ramp`` [s] fades the amplitudes in (smoothstep)
    to avoid a jolt at t = 0 (0: none).

    It runs with its creature's physics (``physics``: a
    :class:`~gaitforge.control.modal.physics.ModalPhysics`, default the
    creature's own entry; ``control_dt`` its step, ``prepare_model`` applies
    it to the run's model copy) and ``limits`` (its
    :class:`~gaitforge.control.modal.physics.JointLimits`).

    The recipe's initial conditions are applied to the state at ``reset``
    (the only write to the state); its modal impulses are torque pulses on
    the joints (:mod:`.impulses`) spread over ``physics.impulse_window``.

    After each rollout ``work`` holds the accumulated absolute mechanical
    work [J] of the drive, ∫ |(τ − f_rest)·q̇| dt over the steps (τ the
    joints' drive torque, f_rest the springs' pull about the rest pose), and
    ``drive.stats`` the peaks (:class:`~gaitforge.control.modal.drive.JointDrive`).
    """

    def __init__(self, plan: ModalPlan, *, ramp: float = 0.0, physics=None, timestep: float | None = None):
        from gaitforge.control.modal.drive import JointDrive
        from gaitforge.control.modal.physics import limits, physics_for

        if not (math.isfinite(ramp) and ramp >= 0):
            raise GaitforgeError(f"ramp must be a non-negative number of seconds, got {ramp!r}")
        self.plan = plan
        self.ramp = float(ramp)
        self.work = 0.0
        p = plan
        self.physics = (physics if physics is not None else physics_for(plan.character)).with_timestep(timestep)
        self.limits = limits(plan.character, self.physics)
        self.control_dt = self.physics.timestep
        f = float(np.min(p.omega[p.omega > 0])) / (2.0 * math.pi) if np.any(p.omega > 0) else 0.0
        self.period = 1.0 / f if f > 0 else math.inf  # s: the gait cycle (the lowest positive frequency)
        self.drive = JointDrive(plan.character, plan, self.limits.torque, self.limits.speed)
        # One shared frequency (the usual gait): α sin(ωt + γ) = α cos γ sin ωt + α sin γ cos ωt, so the
        # reference is R0 + e(t) (sin ωt S + cos ωt C) with (h,) vectors precomputed once.
        self._single = len(set(p.omega.tolist())) == 1
        a_cos, a_sin = p.alpha * np.cos(p.gamma), p.alpha * np.sin(p.gamma)
        self._w = float(p.omega[0])
        self._S, self._C = p.U @ a_cos, p.U @ a_sin
        self._R0 = p.rest_hinge + p.U @ p.beta
        self._a_cos, self._a_sin = a_cos, a_sin
        self._D0 = p.U @ p.beta
        # Preallocated operands of the per-tick products (a tuple operand costs a conversion each tick).
        self._w2, self._delta = np.zeros(2), np.zeros(len(p.hinge_qpos))
        self._kicks = p.kicks
        self._pulses: list[list] = []  # [torque (nv,), steps left] of the impulses being delivered
        self._pulse = np.zeros(plan.character.model.nv)

    @property
    def state(self) -> str:
        return "modal"

    def prepare_model(self, model: mujoco.MjModel) -> None:
        """Give the run's model copy this controller's physics (``sim.controller``)."""
        self.physics.apply(model)

    def reset(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        self.work = 0.0
        self.drive.reset()
        self._pulses = []
        # Views into this rollout's buffers, kept for the per-tick fast path.
        self._spring = model.qpos_spring[self.plan.hinge_index] if isinstance(self.plan.hinge_index, slice) else None
        self._SC = np.ascontiguousarray(np.column_stack([self._S, self._C]))
        coef = self.plan.tendon_coef
        self._tendons = model.tendon_lengthspring if coef.shape[0] else None
        # Per tendon, its spring length is T0 + ws TS + wc TC (Python floats: few tendons, cheaper than arrays).
        self._T = [(float(t0), float(ts), float(tc)) for t0, ts, tc in
                   zip(self.plan.tendon_rest + coef @ self._D0, coef @ self._S, coef @ self._C)]
        self._balls = len(self.plan.ball_qpos) > 0
        self._quats = np.empty((len(self.plan.ball_qpos), 4))
        self._coords = np.empty(len(self.plan.alpha))  # modal coordinates of the general path, per tick
        self._fast = self._single and self._spring is not None and not self._balls
        data.qfrc_applied[:] = 0.0
        if self._kicks is not None:
            self._kicks.reset()
            self._kicks.start(model, data)
        self._apply(model, 0.0)

    def _envelope(self, t: float) -> float:
        if self.ramp <= 0.0 or t >= self.ramp:
            return 1.0
        s = t / self.ramp
        return s * s * (3.0 - 2.0 * s)

    def _apply(self, model: mujoco.MjModel, t: float) -> tuple[float, float] | np.ndarray:
        """Set the reference at t [s]; returns the weights (e sin ωt, e cos ωt) of S and C
        (single frequency), or the modal coordinates (n,) otherwise."""
        p = self.plan
        e = self._envelope(t)
        if self._single:
            ws, wc = e * math.sin(self._w * t), e * math.cos(self._w * t)
            w2, delta = self._w2, self._delta
            w2[0], w2[1] = ws, wc
            np.dot(self._SC, w2, out=delta)
            if self._spring is not None:
                np.add(self._R0, delta, out=self._spring)
            else:
                model.qpos_spring[p.hinge_index] = self._R0 + delta
            if self._tendons is not None:  # both ends of each tendon's spring-length band
                lengths = self._tendons
                for i, (t0, ts, tc) in enumerate(self._T):
                    lengths[i, 0] = lengths[i, 1] = t0 + ws * ts + wc * tc
            if self._balls:
                self._set_balls(model, ws * self._a_cos + wc * self._a_sin + p.beta)
            return ws, wc
        c = self._coords
        modal_coordinates(p.alpha, p.omega, p.gamma, p.beta, e, t, c)
        p.set_references(model, c)
        return c

    def _set_balls(self, model: mujoco.MjModel, coords: np.ndarray) -> None:
        p = self.plan
        ball_quaternions(p.U_ball @ coords, p.rest_ball_T, self._quats)
        model.qpos_spring[p.ball_spring_index] = self._quats.reshape(-1)

    def compute(self, model: mujoco.MjModel, data: mujoco.MjData) -> None:
        t = data.time
        if self._fast:  # the common case inlined: one frequency, hinges in one block, no ball joints
            e = 1.0 if t >= self.ramp else self._envelope(t)
            ws, wc = e * math.sin(self._w * t), e * math.cos(self._w * t)
            w2, delta = self._w2, self._delta
            w2[0], w2[1] = ws, wc
            np.dot(self._SC, w2, out=delta)
            np.add(self._R0, delta, out=self._spring)
            if self._tendons is not None:  # both ends of each tendon's spring-length band
                lengths = self._tendons
                for i, (t0, ts, tc) in enumerate(self._T):
                    lengths[i, 0] = lengths[i, 1] = t0 + ws * ts + wc * tc
        else:
            self._apply(model, t)
        impulse = self._impulse(model, data, t) if self._kicks is not None else None
        self.work += abs(self.drive.step(model, data, impulse)) * self.control_dt

    def _impulse(self, model: mujoco.MjModel, data: mujoco.MjData, t: float) -> np.ndarray | None:
        """The impulse torque (nv,) of this step, or None: each impulse due
        now becomes a torque J / W held for the W = ``impulse_window`` that
        follows (whole steps, at least one)."""
        kicks = self._kicks
        assert kicks is not None
        if t + 1e-9 >= kicks.next:
            J = kicks.fire(model, data, t, self._envelope(t))
            if J is not None:
                steps = max(1, int(round(self.physics.impulse_window / self.control_dt)))
                self._pulses.append([J / (steps * self.control_dt), steps])
        if not self._pulses:
            return None
        pulse = self._pulse
        pulse[:] = 0.0
        for entry in self._pulses:
            pulse += entry[0]
            entry[1] -= 1
        self._pulses = [e for e in self._pulses if e[1] > 0]
        return pulse

    @property
    def peaks(self) -> dict[str, float]:
        """Peak drive torque [N m], peak joint speed [rad/s] and peak demanded
        torque [N m] of the last rollout, and the steps in which the torque
        was limited or a joint ran over its speed limit."""
        from gaitforge.control.modal.drive import CLIPPED_STEPS, OVER_SPEED_STEPS, PEAK_DEMAND, PEAK_SPEED, \
            PEAK_TORQUE

        s = self.drive.stats
        return {"torque": float(s[PEAK_TORQUE]), "speed": float(s[PEAK_SPEED]), "demand": float(s[PEAK_DEMAND]),
                "clipped_steps": float(s[CLIPPED_STEPS]), "over_speed_steps": float(s[OVER_SPEED_STEPS])}


def modal_controller(character, basis, recipe: GaitRecipe, *, ramp: float = 0.0, physics=None,
                     timestep: float | None = None) -> ModalController:
    """A :class:`ModalController` driving ``character`` with ``recipe``'s
    terms on ``basis`` (a :class:`ModalBasis` of that character), with
    ``physics`` (default: the creature's, ``physics.physics_for``) and its
    step replaced by ``timestep`` [s] when given."""
    return ModalController(ModalPlan(character, basis, recipe), ramp=ramp, physics=physics, timestep=timestep)

"""Live puppetry in physics (Kry 2012 §4.4; Kry09 §4.1 modal equilibrium control).

A :class:`PuppetSim` simulates the creature on its own thread, at its modal
physics' converged step (``control.modal.physics``: 0.25 ms for the dog),
under one lock. Every step the joints' spring references are

    θ_ref(t) = θ0 + Σᵢ uᵢ (αᵢ sin(2π f̃ᵢ t + γᵢ) + βᵢ) + Σ_p u_p x_p(t)

— the current recipe's terms plus two or three puppet modes p, whose
coordinates x_p [kg^½ m] follow the slider targets through a critically
damped low-pass filter (:class:`CriticalFilter`, time constant
:data:`FILTER_TAU`), so that targets arriving at ≤ 20 Hz move the springs
smoothly. The joints are driven by the modal controller's own limited drive
(``control.modal.drive.JointDrive``).
"""
from __future__ import annotations

import copy
import math

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.studio import library as lib
from gaitforge.studio.live import LiveSim

FILTER_TAU = 0.07       # [s] time constant of the slider filter (critically damped)
PUPPET_ROTATION = math.radians(30.0)  # [rad] largest joint rotation of a puppet mode at slider ±1
RAMP = 0.5              # [s] the recipe's amplitudes fade in over this long
DLS_DAMPING = 0.05      # [m] λ of the damped least squares that turns a dragged point into puppet targets
MAX_REACH = 0.15        # [m] the error a drag asks for at once (farther targets are approached in steps)
MAX_PUPPET = 1.5        # puppet targets stay within this many slider units
REACH_PERIOD = 0.05     # [s] of wall time between two reaches while a drag handle is held


class CriticalFilter:
    """x'' = ω²(target − x) − 2ω x' with ω = 1/τ: follows a step in target
    without overshoot, within 5 % after ≈ 4.7 τ. Arrays of any shape."""

    def __init__(self, shape, tau: float = FILTER_TAU):
        if not (math.isfinite(tau) and tau > 0):
            raise GaitforgeError(f"filter time constant must be positive, got {tau!r}")
        self.omega = 1.0 / tau
        self.x, self.v, self.target = np.zeros(shape), np.zeros(shape), np.zeros(shape)

    def step(self, dt: float) -> np.ndarray:
        """Advance by ``dt`` [s] (semi-implicit Euler; dt ≪ τ) and return x."""
        w = self.omega
        self.v += dt * (w * w * (self.target - self.x) - 2.0 * w * self.v)
        self.x += dt * self.v
        return self.x


class PuppetSim(LiveSim):
    """The simulated creature of physics mode (module docstring).

    character, basis (stiffness scale 1), recipe (or None: only the puppet
    modes), puppet: the elastic mode indices the puppet drives — the first
    few by sliders (:meth:`set_target`), all of them by dragging a body
    (:meth:`reach`; the studio gives it every computed mode: three low modes
    alone cannot place a paw). Thread-safe: every public method takes the lock."""

    max_catch_up = 0.05  # [s] of simulated time at most per loop turn (a slow machine falls behind, not over)
    thread_name = "gaitforge-puppet"

    def __init__(self, character, basis: lib.ModalBasis, recipe: lib.GaitRecipe | None, puppet: tuple[int, ...],
                 *, tau: float = FILTER_TAU):
        from gaitforge.control.modal.physics import limits, physics_for

        if basis.stiffness_scale != 1.0:
            raise GaitforgeError("physics needs modes of the creature's own springs (stiffness scale 1)")
        self.character, self.basis, self.puppet = character, basis, tuple(int(p) for p in puppet)
        self.physics = physics_for(character)
        self.limits = limits(character, self.physics)
        self.model = copy.deepcopy(character.model)
        self.physics.apply(self.model)
        self.data = mujoco.MjData(self.model)
        self.dt = float(self.model.opt.timestep)
        self.filter = CriticalFilter(len(self.puppet), tau)
        unit = [lib.peak_rotation(character, basis, (lib.GaitTerm(p, 0.0, 0.0, 0.0, 1.0),)) for p in self.puppet]
        self.scale = np.array([PUPPET_ROTATION / max(u, 1e-9) for u in unit])  # modal units per slider unit
        self._start_live()
        self.drive_recipe = recipe is not None
        self._next_reach = 0.0  # [s] perf_counter time of the next reach while a handle is held
        self.push_force = np.zeros(3)  # [N] applied at the root body while push_until > time
        self._push_until = -1.0
        self._push_body = 1
        self._goal: tuple[int, np.ndarray] | None = None
        self.set_recipe(recipe)
        self.reset()

    # ------------------------------------------------------------ configuration
    def set_recipe(self, recipe: lib.GaitRecipe | None) -> None:
        """Drive ``recipe``'s terms from now on (the state carries on)."""
        from gaitforge.control.modal.controller import ModalPlan
        from gaitforge.control.modal.drive import JointDrive

        terms = tuple(recipe.terms) if recipe is not None else ()
        puppet = tuple(lib.GaitTerm(p, 0.0, 0.0, 0.0) for p in self.puppet)
        full = lib.GaitRecipe(name=recipe.name if recipe else "puppet", creature=self.character.name,
                              terms=terms + puppet)
        plan = ModalPlan(self.character, self.basis, full)
        drive = JointDrive(self.character, plan, self.limits.torque, self.limits.speed)
        n = len(terms)
        with self.lock:
            self.plan, self.drive, self.n_recipe = plan, drive, n
            self._coords = np.zeros(len(full.terms))

    def set_target(self, index: int, value: float) -> None:
        """Puppet slider ``index`` to ``value`` ∈ [−1, 1] (±1: the mode turns
        a joint by :data:`PUPPET_ROTATION`)."""
        if not 0 <= index < len(self.puppet):
            raise GaitforgeError(f"puppet slider {index}: there are {len(self.puppet)}")
        if not (isinstance(value, (int, float)) and math.isfinite(value) and -1.0 <= value <= 1.0):
            raise GaitforgeError(f"puppet slider value must be from -1 to 1, got {value!r}")
        with self.lock:
            self.filter.target[index] = float(value) * self.scale[index]

    def reach(self, body: int, point, damping: float = DLS_DAMPING) -> float:
        """Drag-to-pose (Kry 2012 §4.4): set the puppet targets so that the
        origin of ``body`` moves toward ``point`` (3,) [m, world], by damped
        least squares on the puppet modes' effect on that point,
        Δx = Jᵀ (J Jᵀ + λ² I)⁻¹ e with J = J_body U_p (3 × k) at the current
        state and e the error (cut to :data:`MAX_REACH`). Called again as the
        mouse moves, it walks the targets toward the point. Returns |e| [m]
        before the step."""
        point = np.asarray(point, float).reshape(3)
        if not np.all(np.isfinite(point)):
            raise GaitforgeError(f"drag target must be a finite point, got {point!r}")
        with self.lock:
            m, d = self.model, self.data
            if not 0 < body < m.nbody:
                raise GaitforgeError(f"body {body}: the model has bodies 1 to {m.nbody - 1}")
            jacp = np.zeros((3, m.nv))
            mujoco.mj_jacBody(m, d, jacp, None, body)
            J = jacp @ self.basis.shapes[:, list(self.puppet)]
            e = point - d.xpos[body]
            dist = float(np.linalg.norm(e))
            if dist > MAX_REACH:
                e *= MAX_REACH / dist
            dx = J.T @ np.linalg.solve(J @ J.T + damping ** 2 * np.eye(3), e)
            limit = MAX_PUPPET * self.scale
            # from the reference the springs hold now (not the last target): no wind-up while physics lags
            self.filter.target[:] = np.clip(self.filter.x + dx, -limit, limit)
        return dist

    def hold(self, body: int, point) -> None:
        """While the mouse holds a drag handle: :meth:`reach` for ``point``
        again every :data:`REACH_PERIOD` of wall time on the simulation thread
        (closed loop: the targets stop where the body arrives)."""
        self.reach(body, point)
        self._goal = (int(body), np.asarray(point, float).reshape(3).copy())

    def release(self) -> None:
        """The handle was let go: the targets stay where they are."""
        self._goal = None

    def push(self, force: tuple[float, float, float], seconds: float = 0.2, body: int = 1) -> None:
        """Push ``body`` (default the root) at its centre of mass with ``force``
        [N] (world frame) for ``seconds`` of simulated time."""
        with self.lock:
            if not 0 < body < self.model.nbody:
                raise GaitforgeError(f"body {body}: the model has bodies 1 to {self.model.nbody - 1}")
            self.data.xfrc_applied[:] = 0.0
            self.push_force = np.asarray(force, float).reshape(3)
            self._push_body = int(body)
            self._push_until = self.data.time + float(seconds)

    def reset(self) -> None:
        """Back to the rest pose, at rest, time 0."""
        with self.lock:
            mujoco.mj_resetData(self.model, self.data)
            self.data.qpos[:] = self.character.rest_qpos
            mujoco.mj_forward(self.model, self.data)
            self.filter.x[:] = 0.0
            self.filter.v[:] = 0.0
            self._clear_record()

    # ------------------------------------------------------------ stepping
    def _references(self, t: float) -> None:
        p, c, m = self.plan, self._coords, self.model
        n = self.n_recipe
        e = 1.0 if t >= RAMP else (t / RAMP) ** 2 * (3.0 - 2.0 * t / RAMP)
        c[:n] = e * p.alpha[:n] * np.sin(p.omega[:n] * t + p.gamma[:n]) + p.beta[:n]
        c[n:] = self.filter.step(self.dt)
        p.set_references(m, c)

    def advance(self, seconds: float) -> int:
        """Simulate ``seconds`` [s] (whole steps) under the lock; returns the steps taken."""
        with self.lock:
            m, d = self.model, self.data
            steps = max(0, int(round(seconds / self.dt)))
            for _ in range(steps):
                self._references(d.time)
                self.drive.step(m, d, None)
                if d.time < self._push_until:
                    d.xfrc_applied[self._push_body, :3] = self.push_force
                elif self._push_until >= 0:
                    d.xfrc_applied[self._push_body, :3] = 0.0
                    self._push_until = -1.0
                mujoco.mj_step(m, d)
                self._record_frame()
            if not np.all(np.isfinite(d.qpos)):
                mujoco.mj_resetData(m, d)
                d.qpos[:] = self.character.rest_qpos
                mujoco.mj_forward(m, d)
        return steps

    def _each_turn(self, now: float) -> None:
        """While a drag handle is held: :meth:`reach` for it every :data:`REACH_PERIOD` of wall time."""
        goal = self._goal
        if goal is not None and now >= self._next_reach:
            self._next_reach = now + REACH_PERIOD
            self.reach(*goal)

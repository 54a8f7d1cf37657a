"""Simulate a modal controller with the existing runner
(:func:`gaitforge.sim.run`) and record what the controller and the physics
did: the motion clip, foot contacts and ground forces (from the runner), and
energy traces and divergence reports (added here).

Energy terms per record tick: kinetic T [J], potential V [J] (gravity plus
springs about their current reference, MuJoCo's ``mjENBL_ENERGY``) and the
cumulative absolute work W [J] the moving spring reference did
(:class:`ModalController.work`).

Divergence (the run stops and is reported with the time and the cause):
non-finite state, any MuJoCo warning raised during the run (e.g. "bad qacc",
after which MuJoCo silently resets the state), and energy blow-up (kinetic
energy above ``energy_limit`` [J]).
"""
from __future__ import annotations

import math
from typing import Any
from dataclasses import dataclass

import mujoco
import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.sim import Rollout, run

_WARNING_NAMES = {int(w): k.removeprefix("mjWARN_").lower() for k, w in mujoco.mjtWarning.__members__.items()
                  if k != "mjNWARNING"}


# Energy balance: the passive mechanical energy (kinetic + gravity + springs
# about the rest pose) may not rise above the work the moving reference put
# in by more than ENERGY_SLACK[0] m g L + ENERGY_SLACK[1] W.
ENERGY_SLACK = (0.05, 0.25)


@dataclass(frozen=True)
class Divergence:
    """Why and when a simulation stopped being trustworthy: time [s] of the
    first control tick at which it was noticed, and the cause."""

    time: float
    cause: str

    def __str__(self) -> str:
        return f"diverged at t = {self.time:.3f} s ({self.cause})"


@dataclass(frozen=True, eq=False)
class ModalRollout:
    """A recorded modal-control run.

    rollout: the runner's :class:`Rollout` (clip (T, nq), contact, grf);
    kinetic, potential, work (T,) [J] energy traces at the clip's frames;
    com (T, 3) [m] centre of mass; ground_contact (T, nbody - 1) bool: which
    body touches the ground (bodies in model order, world excluded);
    divergence: a :class:`Divergence` or None; body_length [m] the
    character's rest extent along x; scalar_qpos (h,) qpos addresses of
    the hinge/slide joints (for cycle measures).
    """

    rollout: Rollout
    kinetic: np.ndarray
    potential: np.ndarray
    work: np.ndarray
    com: np.ndarray
    ground_contact: np.ndarray
    divergence: Divergence | None
    body_length: float
    scalar_qpos: np.ndarray | None = None

    @property
    def clip(self):
        return self.rollout.clip

    @property
    def times(self) -> np.ndarray:
        return self.rollout.clip.times

    @property
    def ok(self) -> bool:
        """True when the run reached its end without diverging."""
        return self.divergence is None

    @property
    def fell(self) -> bool:
        """True when the run stopped because the creature fell (``upright``)."""
        from gaitforge.control.modal.falls import FELL

        return self.divergence is not None and self.divergence.cause.startswith(FELL)

    @property
    def displacement(self) -> np.ndarray:
        """Centre-of-mass travel (2,) [m] in the ground plane, last frame minus first."""
        return self.com[-1, :2] - self.com[0, :2]

    @property
    def distance(self) -> float:
        """Horizontal centre-of-mass travel [m] from the first to the last frame."""
        return float(np.hypot(*self.displacement))


def body_length(character) -> float:
    """Extent [m] of the character's geoms along x at the rest pose (world axes)."""
    m = character.model
    d = character.make_data()
    lo, hi = math.inf, -math.inf
    for g in range(m.ngeom):
        if m.geom_bodyid[g] == 0:
            continue
        center = d.geom_xpos[g] + d.geom_xmat[g].reshape(3, 3) @ m.geom_aabb[g, :3]
        half = np.abs(d.geom_xmat[g].reshape(3, 3)) @ m.geom_aabb[g, 3:]
        lo, hi = min(lo, center[0] - half[0]), max(hi, center[0] + half[0])
    return float(hi - lo)


class _Recorder:
    """Wraps a controller: samples energies every ``every`` ticks (aligned with
    the runner's records) and checks for divergence every tick."""

    def __init__(self, character, inner, every: int, energy_limit: float, initial, slack: tuple[float, float]):
        self.inner, self.every, self.limit, self.initial = inner, every, energy_limit, initial
        m = character.model
        kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        scalar = [j for j in range(m.njnt) if int(m.jnt_type[j]) in kinds]
        self.scalar_q = np.array([m.jnt_qposadr[j] for j in scalar], int)
        dofs = np.array([m.jnt_dofadr[j] for j in scalar], int)
        self.rest_q = np.asarray(character.rest_qpos)[self.scalar_q].copy()
        self.K = np.asarray(character.stiffness_matrix)[np.ix_(dofs, dofs)].copy()
        self.slack_abs, self.slack_rel = slack
        # (kinetic [J], potential [J], work [J], mass centre (3,) [m], bodies touching (nbody-1,), passive [J])
        self.samples: list[tuple[float, float, float, np.ndarray, np.ndarray, float]] = []
        self.divergence: Divergence | None = None
        self.data: Any = None  # the run's mujoco.MjData and MjModel, bound at reset
        self.model: Any = None
        self._tick = 0
        self._last_t = -math.inf
        self._warn = None

    @property
    def state(self) -> str:
        return self.inner.state

    def reset(self, model, data) -> None:
        model.opt.enableflags |= int(mujoco.mjtEnableBit.mjENBL_ENERGY)
        if self.initial is not None:
            qpos, qvel = self.initial
            data.qpos[:] = qpos
            data.qvel[:] = qvel
        self.inner.reset(model, data)
        mujoco.mj_forward(model, data)
        self.data, self.model = data, model
        self._tick = 0
        self._last_t = -math.inf
        self.samples.clear()
        self.divergence = None
        self._warn = data.warning.number.copy()

    def sample(self, data) -> None:
        # This state's kinematics, contacts and energies (mj_step's lag one step).
        mujoco.mj_fwdPosition(self.model, data)
        mujoco.mj_energyPos(self.model, data)
        mujoco.mj_energyVel(self.model, data)
        e = data.energy
        touch = np.zeros(self.model.nbody - 1, bool)
        body = self.model.geom_bodyid
        for i in range(data.ncon):
            b1, b2 = body[data.contact.geom1[i]], body[data.contact.geom2[i]]
            if b1 == 0 and b2 > 0:
                touch[b2 - 1] = True
            elif b2 == 0 and b1 > 0:
                touch[b1 - 1] = True
        dq = data.qpos[self.scalar_q] - self.rest_q
        gravity = -float(self.model.body_mass @ (data.xipos @ self.model.opt.gravity))
        passive = float(e[1]) + gravity + 0.5 * float(dq @ self.K @ dq)
        work = float(getattr(self.inner, "work", 0.0))
        self.samples.append((float(e[1]), float(e[0]), work, data.subtree_com[1].copy(), touch, passive))
        if self.divergence is None and self.samples:
            gain = passive - self.samples[0][5]
            if not math.isfinite(gain) or gain > work + self.slack(work):
                self.divergence = Divergence(float(data.time), f"energy blow-up: mechanical energy rose "
                                                               f"{gain:.4g} J, more than the {work:.4g} J put in")

    def slack(self, work: float) -> float:
        """Energy [J] the passive system may gain beyond the work put in
        (soft contacts and the per-tick work sum are not exact)."""
        return self.slack_abs + self.slack_rel * work

    def check(self, data) -> str | None:
        """The divergence reason, if any (also used as the runner's fall check)."""
        return None if self.divergence is None else self.divergence.cause

    def _scan(self, data, when: float) -> None:
        """Record the first new MuJoCo warning (if any) as the divergence at ``when`` [s]."""
        if self.divergence is not None:
            return
        warn = data.warning.number.copy()
        if np.any(warn != self._warn):
            i = int(np.argmax(warn != self._warn))
            self.divergence = Divergence(when, f"MuJoCo warning: {_WARNING_NAMES.get(i, i)}")

    def compute(self, model, data) -> None:
        t = data.time
        if t < self._last_t:  # MuJoCo reset the state after a bad step (it warns and restarts at t = 0)
            self._scan(data, self._last_t)
        if self._tick % self.every == 0:  # warnings and energies are checked at the record ticks
            self._scan(data, float(t))
            self.sample(data)
            if self.divergence is None:
                kinetic = self.samples[-1][0]
                if not math.isfinite(kinetic) or kinetic > self.limit:
                    self.divergence = Divergence(float(t), f"energy blow-up: kinetic energy {kinetic:.4g} J > "
                                                           f"{self.limit:g} J")
        self._tick += 1
        self._last_t = t
        self.inner.compute(model, data)


def simulate_modal(character, controller, seconds: float, *, control_dt: float = 0.002,
                   record_fps: float = 100.0, initial: tuple[np.ndarray, np.ndarray] | None = None,
                   energy_limit: float | None = None, upright: tuple[float, float] | None = None) -> ModalRollout:
    """Run ``controller`` (e.g. a :class:`ModalController`) on ``character``
    for ``seconds`` [s] with :func:`gaitforge.sim.run` and record energies.

    initial: (qpos (nq,), qvel (nv,)) start state (default: rest, at rest).
    energy_limit [J]: kinetic energy that counts as a blow-up (default
    100 · m g L, with m the mass, L the body length). A diverged run stops
    at the divergence; its report is in ``divergence``. upright:
    (min_height [m], max_tilt [rad]) of the root (``falls.upright_check``):
    a fall stops the run too and is reported as its divergence.
    """
    for label, v in (("seconds", seconds), ("control_dt", control_dt), ("record_fps", record_fps)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise GaitforgeError(f"{label} must be a positive finite number, got {v!r}")
    length = body_length(character)
    limit = 100.0 * character.mass * 9.81 * length if energy_limit is None else float(energy_limit)
    every = max(1, int(round(1.0 / (record_fps * control_dt))))
    mgl = character.mass * 9.81 * length
    rec = _Recorder(character, controller, every, limit, initial, (ENERGY_SLACK[0] * mgl, ENERGY_SLACK[1]))
    check = rec.check
    if upright is not None:
        from gaitforge.control.modal.falls import upright_check

        fallen = upright_check(character, *upright)

        def check(data):
            return rec.check(data) or fallen(data)
    rollout = run(character, rec, seconds, control_dt=control_dt, record_fps=record_fps, fall_check=check)
    n = rollout.clip.n_frames
    while len(rec.samples) < n:  # the runner records the final state without a control tick
        rec.sample(rec.data)
    kin, pot, work, com, touch, _ = zip(*rec.samples[:n])
    kin, pot, work, com = (np.array(x, float) for x in (kin, pot, work, com))
    divergence = rec.divergence
    if divergence is None and rollout.fall is not None:
        rec._scan(rec.data, rollout.fall.time)  # the runner stopped at MuJoCo's reset before our next tick
        divergence = rec.divergence or Divergence(rollout.fall.time, rollout.fall.reason)
    return ModalRollout(rollout, kin, pot, work, com.reshape(n, 3), np.array(touch, bool), divergence, length,
                        np.array(controller.plan.hinge_qpos) if hasattr(controller, "plan") else None)


def run_recipe(character, recipe, seconds: float, *, ramp: float = 0.5, basis=None, **kwargs) -> ModalRollout:
    """Simulate ``recipe`` (a :class:`GaitRecipe` whose terms drive modes of
    ``character``) for ``seconds`` [s]: computes the modal basis the recipe
    refers to (``gaitforge.motion.recipe.modes_for``) unless ``basis`` is
    given, builds a :class:`ModalController` with amplitude fade-in ``ramp``
    [s] and runs :func:`simulate_modal` (kwargs go there)."""
    from gaitforge.control.modal.controller import modal_controller
    from gaitforge.motion.recipe import check_basis, modes_for

    if basis is None:
        basis = modes_for(character, recipe)
    check_basis(recipe, basis, character)
    return simulate_modal(character, modal_controller(character, basis, recipe, ramp=ramp), seconds, **kwargs)

"""Simulate a modal controller with the existing runner
(:func:`gaitforge.sim.run`) and record what the controller and the physics
did: the motion clip, foot contacts and ground forces (from the runner), and
energy traces and divergence reports (added here).

Energy terms per record tick: kinetic T [J], potential V [J] (gravity plus
springs about their current reference, MuJoCo's ``mjENBL_ENERGY``) and the
cumulative absolute work W [J] the moving spring reference did
(:class:`ModalController.work`).

A divergence (the run stops and is reported with the time and the cause as a
``sim.events.RunEvent``):
non-finite state, any MuJoCo warning raised during the run (e.g. "bad qacc",
after which MuJoCo silently resets the state), and energy blow-up (kinetic
energy above ``energy_limit`` [J]).

Every tick (every physics step under a :class:`ModalController`) the
deepest penetration of a ground contact is tracked, with the geoms that
touched the ground; at each start of a gait cycle (the controller's
``period``) the whole state is kept for the cycle residual
(``measures.cycle_residual``).
"""
from __future__ import annotations

import math
from typing import Any
from dataclasses import dataclass

import mujoco
import numpy as np

from gaitforge.jit import kernel
from gaitforge.control.modal.physics import body_length
from gaitforge.errors import GaitforgeError
from gaitforge.sim import Rollout, run
from gaitforge.sim.contact_depth import geom_radius
from gaitforge.sim.events import DIVERGED, OVER_LIMIT, RunEvent
from gaitforge.constants import GRAVITY

_WARNING_NAMES = {int(w): k.removeprefix("mjWARN_").lower() for k, w in mujoco.mjtWarning.__members__.items()
                  if k != "mjNWARNING"}


# Energy balance: the passive mechanical energy (kinetic + gravity + springs
# about the rest pose) may not rise above the work the moving reference put
# in by more than ENERGY_SLACK[0] m g L + ENERGY_SLACK[1] W.
ENERGY_SLACK = (0.05, 0.25)
MAX_PENETRATION = 0.02  # m: no contact may sink deeper, whatever the geom


@dataclass(frozen=True, eq=False)
class ModalRollout:
    """A recorded modal-control run.

    rollout: the runner's :class:`Rollout` (clip (T, nq), contact, grf);
    kinetic, potential, work (T,) [J] energy traces at the clip's frames;
    com (T, 3) [m] centre of mass; ground_contact (T, nbody - 1) bool: which
    body touches the ground (bodies in model order, world excluded);
    divergence: why the run stopped early (``sim.events.RunEvent``: a
    fall, a divergence or a limit stop) or None; body_length [m] the
    character's rest extent along x; scalar_qpos (h,) qpos addresses of
    the hinge/slide joints (for cycle measures); qvel (T, nv) the
    velocities at the clip's frames; cycle_times (K,) [s], cycle_qpos (K,
    nq) and cycle_qvel (K, nv): the state at the first tick of each gait
    cycle (none without a period); penetration [m] the deepest any geom
    sank into the ground at any tick; contact_radius [m] the smallest
    radius (least half-extent) of a geom that touched the ground (inf:
    none did); peaks: the drive's peaks (``ModalController.peaks``; empty
    for another controller); limits: the joint limits it ran under
    (``physics.JointLimits``) or None; model and rest_qpos: the
    character's model and rest pose (what the state is measured against);
    period [s] the gait cycle the cycle states were kept at (inf: none);
    bases: how a contact-aware controller used its bases
    (``contact_bases.BasesReport``; None for one basis).
    """

    rollout: Rollout
    kinetic: np.ndarray
    potential: np.ndarray
    work: np.ndarray
    com: np.ndarray
    ground_contact: np.ndarray
    divergence: RunEvent | None
    body_length: float
    scalar_qpos: np.ndarray | None = None
    qvel: np.ndarray | None = None
    cycle_times: np.ndarray | None = None
    cycle_qpos: np.ndarray | None = None
    cycle_qvel: np.ndarray | None = None
    penetration: float = 0.0
    contact_radius: float = math.inf
    peaks: dict | None = None
    limits: Any = None
    model: Any = None
    rest_qpos: np.ndarray | None = None
    period: float = math.inf
    bases: Any = None

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
        return self.divergence is not None and self.divergence.fell

    @property
    def over_limit(self) -> bool:
        """True when the run stopped because a joint ran over its speed limit
        or a contact sank too deep (``strict_limits``)."""
        return self.divergence is not None and self.divergence.over_limit

    @property
    def displacement(self) -> np.ndarray:
        """Centre-of-mass travel (2,) [m] in the ground plane, last frame minus first."""
        return self.com[-1, :2] - self.com[0, :2]

    @property
    def distance(self) -> float:
        """Horizontal centre-of-mass travel [m] from the first to the last frame."""
        return float(np.hypot(*self.displacement))


@kernel
def ground_penetration(dist, geom, on_ground, touched):  # pragma: no cover - compiled
    """The deepest penetration [m] (≥ 0) among the contacts (dist (ncon,),
    geom (ncon, 2)) that involve a ground geom (``on_ground`` (ngeom,) bool);
    marks the other geom of each such contact in ``touched`` (ngeom,)."""
    deepest = 0.0
    for i in range(dist.shape[0]):
        a, b = geom[i, 0], geom[i, 1]
        if on_ground[a]:
            other = b
        elif on_ground[b]:
            other = a
        else:
            continue
        touched[other] = True
        if -dist[i] > deepest:
            deepest = -dist[i]
    return deepest


class _Recorder:
    """Wraps a controller: samples energies every ``every`` ticks (aligned with
    the runner's records), checks for divergence every tick, tracks ground
    penetration every tick and keeps the state at each cycle start. A
    ``ModalController`` ticks at every physics step, so its landings are read
    at their deepest step, as ``sim.contact_depth.ContactProbe`` reads the
    other runners'."""

    def __init__(self, character, inner, every: int, energy_limit: float, initial, slack: tuple[float, float]):
        self.inner, self.every, self.limit, self.initial = inner, every, energy_limit, initial
        self.period = float(getattr(inner, "period", math.inf))
        m = character.model
        self.on_ground = np.array([m.geom_bodyid[g] == 0 for g in range(m.ngeom)], bool)
        self.radius = np.array([geom_radius(m, g) for g in range(m.ngeom)], float)
        self.strict = False
        self.touched = np.zeros(m.ngeom, bool)
        self.penetration = 0.0
        self.cycles: list[tuple[float, np.ndarray, np.ndarray]] = []
        self._next_cycle = 0.0
        kinds = (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE))
        scalar = [j for j in range(m.njnt) if int(m.jnt_type[j]) in kinds]
        self.scalar_q = np.array([m.jnt_qposadr[j] for j in scalar], int)
        dofs = np.array([m.jnt_dofadr[j] for j in scalar], int)
        self.rest_q = np.asarray(character.rest_qpos)[self.scalar_q].copy()
        self.K = np.asarray(character.stiffness_matrix)[np.ix_(dofs, dofs)].copy()
        self.slack_abs, self.slack_rel = slack
        # (kinetic [J], potential [J], work [J], mass centre (3,) [m], bodies touching (nbody-1,), passive [J],
        #  qvel (nv,))
        self.samples: list[tuple[float, float, float, np.ndarray, np.ndarray, float, np.ndarray]] = []
        self.divergence: RunEvent | None = None
        self.data: Any = None  # the run's mujoco.MjData and MjModel, bound at reset
        self.model: Any = None
        self._tick = 0
        self._last_t = -math.inf
        self._warn = None

    @property
    def state(self) -> str:
        return self.inner.state

    @property
    def control_dt(self) -> float:
        from gaitforge.sim.controller import DEFAULT_CONTROL_DT

        return float(getattr(self.inner, "control_dt", DEFAULT_CONTROL_DT))

    def prepare_model(self, model) -> None:
        prepare = getattr(self.inner, "prepare_model", None)
        if prepare is not None:
            prepare(model)

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
        self.touched[:] = False
        self.penetration = 0.0
        self.cycles = []
        self._next_cycle = 0.0

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
        self.samples.append((float(e[1]), float(e[0]), work, data.subtree_com[1].copy(), touch, passive,
                             data.qvel.copy()))
        if self.divergence is None and self.samples:
            gain = passive - self.samples[0][5]
            if not math.isfinite(gain) or gain > work + self.slack(work):
                self.divergence = RunEvent(float(data.time), f"energy blow-up: mechanical energy rose {gain:.4g} J, "
                                           f"more than the {work:.4g} J put in", self.state, DIVERGED)

    def slack(self, work: float) -> float:
        """Energy [J] the passive system may gain beyond the work put in
        (soft contacts and the per-tick work sum are not exact)."""
        return self.slack_abs + self.slack_rel * work

    def allowed_penetration(self) -> float:
        """How deep [m] a contact may sink: half the radius of the thinnest
        geom that touched the ground so far, and at most ``MAX_PENETRATION``."""
        radius = self.radius[self.touched]
        return min(MAX_PENETRATION, 0.5 * float(radius.min())) if len(radius) else MAX_PENETRATION

    def check(self, data) -> RunEvent | None:
        """The divergence, if any (also used as the runner's fall check);
        with ``strict`` a joint over its speed limit or a contact sunk too deep
        stops the run too."""
        if self.divergence is None and self.strict:
            allowed = self.allowed_penetration()
            if self.penetration > allowed:
                self.divergence = RunEvent(float(data.time), f"a contact sank {1000 * self.penetration:.1f} mm, "
                                           f"deeper than {1000 * allowed:.1f} mm", self.state, OVER_LIMIT)
            peaks, limits = getattr(self.inner, "peaks", None), getattr(self.inner, "limits", None)
            if self.divergence is None and peaks is not None and limits is not None and peaks["over_speed_steps"]:
                self.divergence = RunEvent(float(data.time), f"a joint turned at {peaks['speed']:.0f} rad/s, over its "
                                           f"{limits.speed:g} rad/s limit", self.state, OVER_LIMIT)
        return self.divergence

    def _scan(self, data, when: float) -> None:
        """Record the first new MuJoCo warning (if any) as the divergence at ``when`` [s]."""
        if self.divergence is not None:
            return
        warn = data.warning.number.copy()
        if np.any(warn != self._warn):
            i = int(np.argmax(warn != self._warn))
            self.divergence = RunEvent(when, f"MuJoCo warning: {_WARNING_NAMES.get(i, i)}", self.state, DIVERGED)

    def compute(self, model, data) -> None:
        t = data.time
        if data.ncon:
            deepest = ground_penetration(data.contact.dist, data.contact.geom, self.on_ground, self.touched)
            if deepest > self.penetration:
                self.penetration = deepest
        if t + 1e-9 >= self._next_cycle:  # the first tick of a gait cycle: keep the state
            self.cycles.append((float(t), data.qpos.copy(), data.qvel.copy()))
            k = math.floor((t + 1e-9) / self.period) + 1 if math.isfinite(self.period) else math.inf
            self._next_cycle = k * self.period if math.isfinite(self.period) else math.inf
        if t < self._last_t:  # MuJoCo reset the state after a bad step (it warns and restarts at t = 0)
            self._scan(data, self._last_t)
        if self._tick % self.every == 0:  # warnings and energies are checked at the record ticks
            self._scan(data, float(t))
            self.sample(data)
            if self.divergence is None:
                kinetic = self.samples[-1][0]
                if not math.isfinite(kinetic) or kinetic > self.limit:
                    self.divergence = RunEvent(float(t), f"energy blow-up: kinetic energy {kinetic:.4g} J > "
                                               f"{self.limit:g} J", self.state, DIVERGED)
        self._tick += 1
        self._last_t = t
        self.inner.compute(model, data)


def simulate_modal(character, controller, seconds: float, *, control_dt: float | None = None,
                   record_fps: float = 100.0, initial: tuple[np.ndarray, np.ndarray] | None = None,
                   energy_limit: float | None = None, upright: tuple[float, float] | None = None,
                   strict_limits: bool = False, progress=None, perturb=None) -> ModalRollout:
    """Run ``controller`` (e.g. a :class:`ModalController`) on ``character``
    for ``seconds`` [s] with :func:`gaitforge.sim.run` and record energies.

    control_dt [s]: the control interval (default the controller's own:
    a :class:`ModalController` acts every step of its physics; 0.002 s for
    a controller that names none).
    initial: (qpos (nq,), qvel (nv,)) start state (default: rest, at rest).
    energy_limit [J]: kinetic energy that counts as a blow-up (default
    100 · m g L, with m the mass, L the body length). A diverged run stops
    at the divergence; its report is in ``divergence``. upright:
    (min_height [m], max_tilt [rad]) of the root (``falls.upright_check``):
    a fall stops the run too and is reported as its divergence.
    strict_limits: a joint over its speed limit or a contact deeper than
    half the radius of the thinnest geom touching the ground (at most
    ``MAX_PENETRATION``) stops the run too (checked every 20 ms), reported
    as an event of kind ``sim.events.OVER_LIMIT`` (how optimization keeps
    to the limits; a replay only reports them). progress, perturb: as in
    :func:`gaitforge.sim.run`.
    """
    from gaitforge.sim.controller import DEFAULT_CONTROL_DT

    if control_dt is None:
        control_dt = float(getattr(controller, "control_dt", DEFAULT_CONTROL_DT))
    for label, v in (("seconds", seconds), ("control_dt", control_dt), ("record_fps", record_fps)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
            raise GaitforgeError(f"{label} must be a positive finite number, got {v!r}")
    length = body_length(character)
    limit = 100.0 * character.mass * GRAVITY * length if energy_limit is None else float(energy_limit)
    every = max(1, int(round(1.0 / (record_fps * control_dt))))
    mgl = character.mass * GRAVITY * length
    rec = _Recorder(character, controller, every, limit, initial, (ENERGY_SLACK[0] * mgl, ENERGY_SLACK[1]))
    rec.strict = bool(strict_limits)
    check = rec.check
    if upright is not None:
        from gaitforge.control.modal.falls import upright_check

        fallen = upright_check(character, *upright)

        def check(data):
            return rec.check(data) or fallen(data)
    rollout = run(character, rec, seconds, control_dt=control_dt, record_fps=record_fps, fall_check=check,
                  progress=progress, perturb=perturb)
    n = rollout.clip.n_frames
    while len(rec.samples) < n:  # the runner records the final state without a control tick
        rec.sample(rec.data)
    kin, pot, work, com, touch, _, qvel = zip(*rec.samples[:n])
    kin, pot, work, com, qvel = (np.array(x, float) for x in (kin, pot, work, com, qvel))
    divergence = rec.divergence
    if divergence is None and rollout.fall is not None:
        rec._scan(rec.data, rollout.fall.time)  # the runner stopped at MuJoCo's reset before our next tick
        divergence = rec.divergence or rollout.fall
    m = character.model
    radius = min((geom_radius(m, int(g)) for g in np.flatnonzero(rec.touched)), default=math.inf)
    cycles = [c for c in rec.cycles if c[0] <= rollout.clip.times[-1] + 1e-9]
    peaks = getattr(controller, "peaks", None)
    return ModalRollout(rollout, kin, pot, work, com.reshape(n, 3), np.array(touch, bool), divergence, length,
                        np.array(controller.plan.hinge_qpos) if hasattr(controller, "plan") else None,
                        qvel.reshape(n, m.nv), np.array([c[0] for c in cycles], float),
                        np.array([c[1] for c in cycles], float).reshape(len(cycles), m.nq),
                        np.array([c[2] for c in cycles], float).reshape(len(cycles), m.nv),
                        rec.penetration, radius, dict(peaks) if peaks is not None else {},
                        getattr(controller, "limits", None), m, np.asarray(character.rest_qpos, float).copy(),
                        rec.period, getattr(controller, "report", None))


def kicked_start(character, basis, modes, sigma: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A perturbed start for :func:`run_recipe`'s ``initial``: (the rest
    pose (nq,), a velocity (nv,) along the elastic ``modes`` of ``basis``,
    each mode's speed drawn from N(0, σ²) [modal units/s] with ``seed``)."""
    modes = list(modes)
    rng = np.random.default_rng(seed)
    return character.rest_qpos.copy(), basis.shapes[:, modes] @ (sigma * rng.standard_normal(len(modes)))


def run_recipe(character, recipe, seconds: float, *, ramp: float = 0.5, basis=None, physics=None,
               timestep: float | None = None, contact_bases: bool | dict = False, **kwargs) -> ModalRollout:
    """Simulate ``recipe`` (a :class:`GaitRecipe` whose terms drive modes of
    ``character``) for ``seconds`` [s]: computes the modal basis the recipe
    refers to (``gaitforge.motion.recipe.modes_for``) unless ``basis`` is
    given, builds a :class:`ModalController` with amplitude fade-in ``ramp``
    [s], ``physics`` (default the creature's) and ``timestep`` [s] (default
    the physics' own) and runs :func:`simulate_modal` (kwargs go there).
    contact_bases: drive, in each contact state of the feet, the modes of
    the creature with those feet pinned (:mod:`.contact_bases`) instead of
    the one basis (a dict: also keep the stance bases there for the next
    run of the same creature and recipe modes)."""
    from gaitforge.control.modal.contact_bases import contact_aware_controller
    from gaitforge.control.modal.controller import ModalController, modal_controller
    from gaitforge.motion.recipe import check_basis, modes_for

    if basis is None:
        basis = modes_for(character, recipe)
    check_basis(recipe, basis, character)
    ctl: ModalController
    if contact_bases is not False:
        cache = contact_bases if isinstance(contact_bases, dict) else None
        ctl = contact_aware_controller(character, basis, recipe, ramp=ramp, physics=physics, timestep=timestep,
                                       cache=cache)
    else:
        ctl = modal_controller(character, basis, recipe, ramp=ramp, physics=physics, timestep=timestep)
    return simulate_modal(character, ctl, seconds, **kwargs)

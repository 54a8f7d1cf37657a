"""Standing under the balance controller (``control.modal.balance``), pushed
and tilted: the measurements of ``gaitforge balance``.

Pushes follow the project's push protocol (``sim.push``: survival is the
same ``Survival`` judged by ``sim.push.judge`` — root tilt under 30°, only
the feet touching, root above 70 % of its lowest unpushed height, for the
``after`` seconds after the push; limit = the largest force on a grid of 2 %
of body weight with every grid force below it survived), with two changes
a standing creature needs: the force may point forward (world +x) as well as
to the left (+y), and the push starts once, ``settle`` seconds in (standing
has no stride whose phases to spread the start over).

Tilt: the ground plane turns about the rest support centre, about the world
x axis (roll) or y axis (pitch), by ``amplitude`` · sin(2π t / ``period``)
from ``settle`` on — the environment moving, not the creature (the floor
geom's pose in the run's model copy). Judged like a push over the whole tilt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import mujoco
import numpy as np

from gaitforge.control.modal.balance import OFF, BalanceController, BalanceGains, balance_modes
from gaitforge.errors import GaitforgeError
from gaitforge.sim.batch import BatchEvaluator
from gaitforge.sim.push import SURVIVAL, PushCase, Survival, Verdict, grid, judge, push_body, reference_height, scan
from gaitforge.constants import GRAVITY

DIRECTIONS = {"lateral": (0.0, 1.0), "forward": (1.0, 0.0)}  # world (x, y) of the push: left, forward
GAIN_SETS = {"feedback": BalanceGains(), "none": OFF}


@dataclass(frozen=True)
class Standing:
    """A runner (``sim.push.PushCase``'s protocol) of ``creature`` standing
    under the balance controller; ``gains`` picks feedback or none
    (:data:`GAIN_SETS`) at each run; ``start_seed``: a perturbed start
    (``sim.starts.StartNoise``'s default: joints ± 0.01 rad, ground
    friction × 0.8–1.2) drawn from this seed (None: the rest pose)."""

    key: str
    gait: str = "stand"
    stands: bool = True
    speed_range: tuple[float, float] = (0.0, 0.0)
    gain_sets: tuple[str, ...] = tuple(GAIN_SETS)
    start_seed: int | None = None

    def build(self, gains: str, timestep: float | None = None):
        """(character, controller) of this creature with gain set ``gains``."""
        from gaitforge.creatures import registry
        from gaitforge.creatures.character import Character

        if gains not in GAIN_SETS:
            raise GaitforgeError(f"balance: unknown gain set {gains!r} (valid: {', '.join(GAIN_SETS)})")
        character = Character.from_spec(registry.build(self.key))
        ctl = BalanceController(character, balance_modes(character), GAIN_SETS[gains], timestep=timestep)
        return character, ctl

    def run(self, *, speed=None, seconds: float = 10.0, perturb=None, gains: str = "feedback",
            timestep: float | None = None, ground=None):
        """(character, rollout) standing for ``seconds`` [s]; ``perturb(t,
        data)`` may push; ``ground`` a :class:`TiltingGround` or None."""
        from gaitforge.control.modal.rollout import simulate_modal

        character, ctl = self.build(gains, timestep)
        initial = None
        if self.start_seed is not None:
            from gaitforge.sim.starts import StartNoise

            start = StartNoise().draw(self.start_seed, 0.0)
            start.apply_friction(character.model)
            d = mujoco.MjData(character.model)
            d.qpos[:] = character.rest_qpos
            start(character.model, d)
            initial = (d.qpos.copy(), d.qvel.copy())
        if ground is not None:
            ground.pivot = ctl_support(character)
            perturb = ground
        r = simulate_modal(character, _Environment(ctl, ground, perturb), seconds, perturb=perturb,
                           initial=initial)
        return character, r.rollout


def ctl_support(character) -> np.ndarray:
    """The rest support centre (3,) [m]: the mean contact point of the feet."""
    from gaitforge.sim.runner import foot_bodies

    m = character.model
    d = character.make_data()
    feet = set(foot_bodies(character).values())
    pts = [d.site_xpos[s] for s in character.contacts.values() if int(m.site_bodyid[s]) in feet]
    return np.mean(pts, axis=0)


class _Environment:
    """The wrapped controller, with what acts from outside: it hands the
    run's model to ``ground`` (a :class:`TiltingGround` or None) before the
    run, and its ``work`` [J] — the energy the run's energy check allows the
    creature to gain (``control.modal.rollout``) — adds the absolute work of
    ``perturb`` (a push or the ground, when it tracks one) to the drive's."""

    def __init__(self, inner, ground, perturb):
        self.inner, self.ground, self.perturb = inner, ground, perturb

    def __getattr__(self, name):
        return getattr(self.inner, name)

    @property
    def work(self) -> float:
        return float(self.inner.work) + float(getattr(self.perturb, "work", 0.0))

    def prepare_model(self, model) -> None:
        self.inner.prepare_model(model)
        if self.ground is not None:
            self.ground.attach(model)


class TiltingGround:
    """``perturb`` callback turning the ground plane(s) about ``pivot`` (3,)
    [m] (set by the runner) around world ``axis`` (0: x, roll; 1: y, pitch)
    by amplitude [rad] · sin(2π (t − start) / period) for t ≥ start [s]."""

    def __init__(self, axis: int, amplitude: float, period: float, start: float):
        self.axis, self.amplitude, self.period, self.start = axis, amplitude, period, start
        self.pivot = np.zeros(3)
        self.model = None

    def attach(self, model: mujoco.MjModel) -> None:
        self.model = model
        self.geoms = [g for g in range(model.ngeom) if model.geom_bodyid[g] == 0]
        self.pos0 = model.geom_pos[self.geoms].copy()
        self.quat0 = model.geom_quat[self.geoms].copy()
        # A geom compiled in its body's frame takes the body's pose and ignores geom_pos/geom_quat.
        model.geom_sameframe[self.geoms] = 0

    def angle(self, t: float) -> float:
        return 0.0 if t < self.start else self.amplitude * math.sin(2 * math.pi * (t - self.start) / self.period)

    def __call__(self, t: float, data) -> None:
        m = self.model
        if m is None:
            raise GaitforgeError("balance: the tilting ground was not attached to the run's model")
        a = self.angle(t)
        axis = np.zeros(3)
        axis[self.axis] = 1.0
        q = np.zeros(4)
        mujoco.mju_axisAngle2Quat(q, axis, a)
        R = np.zeros(9)
        mujoco.mju_quat2Mat(R, q)
        R = R.reshape(3, 3)
        for k, g in enumerate(self.geoms):
            m.geom_pos[g] = self.pivot + R @ (self.pos0[k] - self.pivot)
            out = np.zeros(4)
            mujoco.mju_mulQuat(out, q, self.quat0[k])
            m.geom_quat[g] = out


class DirectedPush:
    """``perturb`` callback: ``force`` [N] along world ``direction`` (x, y)
    on ``body`` during [start, start + duration) [s]; ``work`` [J] the
    absolute work it did (|F · v| of the body's centre of mass, summed over
    the ticks it was called at)."""

    def __init__(self, body: int, force: float, direction: tuple[float, float], start: float, duration: float):
        self.body, self.force, self.start, self.end = body, force, start, start + duration
        self.direction = np.array([direction[0], direction[1], 0.0])
        self.work = 0.0
        self._last = math.nan
        self._vel = np.zeros(6)

    def __call__(self, t: float, data) -> None:
        on = self.start <= t < self.end
        f = self.force * self.direction if on else np.zeros(3)
        if on and math.isfinite(self._last):
            mujoco.mj_objectVelocity(data.model, data, mujoco.mjtObj.mjOBJ_BODY, self.body, self._vel, 0)  # at its CoM
            self.work += abs(float(f @ self._vel[3:])) * (t - self._last)
        self._last = t
        data.xfrc_applied[self.body, :3] = f


class _Trial:
    """Picklable ``sim.batch`` problem: params (force [N], start [s]) → Verdict."""

    def __init__(self, case: PushCase, direction, body: int, reference: float, criteria: Survival):
        self.case, self.direction, self.body, self.reference, self.criteria = case, direction, body, reference, criteria

    def __call__(self, params, seed: int) -> Verdict:
        force, start = float(params[0]), float(params[1])
        c = self.case
        end = start + c.duration
        character, rollout = c.simulate(end + c.after, DirectedPush(self.body, force, self.direction, start,
                                                                    c.duration))
        return judge(character, rollout, end, end + c.after, self.reference, self.criteria, start=start)


@dataclass(frozen=True)
class PushLimit:
    """largest [N] survived with every grid force below it; failed [N] the
    first force not survived (inf: none up to the ceiling; 0: the unpushed
    run failed) and why, its verdict's reason; weight [N]; trials run."""

    direction: str
    gains: str
    largest: float
    failed: float
    why: str
    weight: float
    trials: int

    @property
    def relative(self) -> float:
        return self.largest / self.weight


def largest_push(case: PushCase, direction: str, *, step: float = 0.02, ceiling: float = 1.0,
                 criteria: Survival = SURVIVAL, workers: int | None = 1,
                 progress: Callable[[float, int], None] | None = None) -> PushLimit:
    """The largest push along ``direction`` (:data:`DIRECTIONS`) that
    ``case`` (a :class:`Standing` runner) survives, pushed once at
    ``case.settle`` (module docstring)."""
    if direction not in DIRECTIONS:
        raise GaitforgeError(f"balance: unknown push direction {direction!r} (valid: {', '.join(DIRECTIONS)})")
    if not (0 < step <= ceiling) or not math.isfinite(ceiling):
        raise GaitforgeError(f"balance: need 0 < step ≤ ceiling (fractions of body weight), got {step}, {ceiling}")
    since, until = case.settle + case.duration, case.settle + case.duration + case.after
    character, base = case.simulate(until)
    weight = float(character.model.body_subtreemass[1]) * GRAVITY
    if base.fall is not None:
        return PushLimit(direction, case.gains, 0.0, 0.0, f"unpushed: {base.fall}", weight, 1)
    reference = reference_height(character, base, since, until)
    verdict = judge(character, base, since, until, reference, criteria, start=case.settle)
    if not verdict.survived:
        return PushLimit(direction, case.gains, 0.0, 0.0, f"unpushed: {verdict.why(reference, criteria)}", weight, 1)
    trial = _Trial(case, DIRECTIONS[direction], push_body(character), reference, criteria)
    with BatchEvaluator(trial, workers=workers) as pool:
        def evaluate(pairs):
            return pool.map([np.array(p) for p in pairs], [0] * len(pairs))

        out = scan(evaluate, grid(weight, step, ceiling), [case.settle], chunk=pool.workers, progress=progress)
    why = out.verdicts[0].why(reference, criteria) if out.verdicts else ""
    return PushLimit(direction, case.gains, out.largest, out.failed, why, weight, 1 + out.trials)


@dataclass(frozen=True)
class TiltResult:
    """Standing on ground tilting about ``axis`` ("roll": world x, "pitch":
    y) by ± amplitude [°]: survived, and the verdict's peak root tilt [°]
    and why it failed ("" when it survived)."""

    axis: str
    gains: str
    amplitude: float
    survived: bool
    peak_tilt: float
    why: str


TILT_AXES = {"roll": 0, "pitch": 1}


def tilt(runner: Standing, gains: str, axis: str, amplitude_deg: float = 5.0, *, period: float = 20.0,
         settle: float = 3.0, cycles: float = 2.0, timestep: float | None = None,
         criteria: Survival = SURVIVAL) -> TiltResult:
    """Stand on ground tilting by ± ``amplitude_deg`` [°] about ``axis``
    (:data:`TILT_AXES`) for ``cycles`` periods of ``period`` [s] after
    ``settle`` [s]; judged over the tilt against the lowest root height of
    the first ``settle`` seconds."""
    if axis not in TILT_AXES:
        raise GaitforgeError(f"balance: unknown tilt axis {axis!r} (valid: {', '.join(TILT_AXES)})")
    ground = TiltingGround(TILT_AXES[axis], math.radians(amplitude_deg), period, settle)
    end = settle + cycles * period
    character, rollout = runner.run(seconds=end, gains=gains, timestep=timestep, ground=ground)
    reference = reference_height(character, rollout, 1.0, settle)
    v = judge(character, rollout, settle, end, reference, criteria, start=settle)
    return TiltResult(axis, gains, amplitude_deg, v.survived, v.peak_tilt, v.why(reference, criteria))


def standing_case(creature: str, gains: str, *, settle: float = 3.0, after: float = 5.0,
                  timestep: float | None = None, start_seed: int | None = None) -> PushCase:
    """The push case of ``creature`` standing with gain set ``gains``
    (``start_seed``: a perturbed start, :class:`Standing`)."""
    return PushCase(Standing(creature, start_seed=start_seed), 0.0, settle=settle, after=after, gains=gains,
                    timestep=timestep)


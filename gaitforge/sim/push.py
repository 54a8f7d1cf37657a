"""Push recovery (Wang 2011 §3.5.3, Table 3.1): the largest sideways push a
controller survives, for any simulated runner in the package.

Protocol: the creature walks (or runs) for ``settle`` seconds, a horizontal
force pointing to its left (world +y; every runner starts heading along +x)
acts on its pelvis (or root body) for ``duration`` = 0.5 s, and the run
goes on for ``after`` seconds; it survives when its fall check never fires.
The push starts at ``phases`` evenly spread points of one stride, and a
force counts as survived only when every phase survives. The largest such
force is found by bisection between 0 and ``ceiling`` × body weight, to
``resolution`` × body weight; survival is assumed to shrink with the force
(the search reports the edge it finds, checked at every phase).

Trials are independent simulations, run through ``sim.batch`` on every core
(or a Ray cluster), in a fixed order, so results do not depend on the
worker count.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.sim.batch import BatchEvaluator

THESIS_TABLE_3_1 = {  # N, Wang 2011 Table 3.1: largest push survived by the gorilla
    "ds_walk": {0.1: 200.0, 0.2: 180.0, 0.3: 170.0, 0.4: 150.0, 0.5: 110.0},
    "trot": {0.1: 220.0, 0.2: 190.0, 0.3: 185.0, 0.4: 165.0, 0.5: 150.0},
}


@dataclass(frozen=True)
class PushCase:
    """One cell of a push table: ``family`` ("skills" or "raibert"), the
    runner's ``creature`` key, its ``gait`` and ``speed`` [m/s]; times [s]."""

    family: str
    creature: str
    gait: str
    speed: float
    settle: float = 8.0
    duration: float = 0.5
    after: float = 5.0

    def simulate(self, seconds: float, perturb: Callable | None = None):
        """(character, rollout) of this case's runner, pushed by ``perturb``."""
        if self.family == "skills":
            from gaitforge.control.skills import catalog as skills
            return skills.simulate(self.creature, self.gait, self.speed, seconds, perturb=perturb)
        if self.family == "raibert":
            from gaitforge.control.raibert import catalog as raibert
            return raibert.simulate(self.creature, self.gait, self.speed, seconds, perturb=perturb)
        raise GaitforgeError(f"push: unknown controller family {self.family!r} (skills, raibert)")


THESIS_SPEEDS = tuple(THESIS_TABLE_3_1["ds_walk"])  # m/s, the speeds of Wang 2011 Table 3.1


def default_speeds(runner, gait: str, count: int = 5) -> list[float]:
    """The speeds [m/s] a push table covers when none are asked for: the
    thesis' 0.1 … 0.5 m/s where the gait's range holds them all (the
    gorilla), else ``count`` speeds spread evenly over the gait's range
    (rounded to 0.01 m/s; one speed for a gait with a single speed)."""
    lo, hi = runner.speed_range(gait)
    if lo - 1e-9 <= THESIS_SPEEDS[0] and THESIS_SPEEDS[-1] <= hi + 1e-9:
        return list(THESIS_SPEEDS)
    return sorted({round(float(v), 2) for v in np.linspace(lo, hi, count)})


def family_of(creature: str) -> str:
    """"skills" for the skills runners (dog, gorilla), "raibert" for the RH91
    runners; raises ``UnknownNameError`` listing them otherwise."""
    from gaitforge.control.skills import catalog as skills

    if creature in skills.RUNNERS:
        return "skills"
    from gaitforge.control.raibert import catalog as raibert
    from gaitforge.errors import UnknownNameError

    try:
        raibert.runner(creature)
    except UnknownNameError:
        names = [r.creature for r in raibert.RUNNERS.values()] + list(skills.RUNNERS)
        families = [k for k, r in raibert.RUNNERS.items() if k != r.creature]
        raise UnknownNameError(f"no simulated controller for {creature!r} (creatures with one: {', '.join(names)}; "
                               f"also by family: {', '.join(families)})") from None
    return "raibert"


def runner_of(creature: str):
    """The catalogue entry (``sim.catalog.Runner``) of any runner."""
    if family_of(creature) == "skills":
        from gaitforge.control.skills import catalog as skills
        return skills.runner(creature)
    from gaitforge.control.raibert import catalog as raibert
    return raibert.runner(creature)


def push_body(character) -> int:
    """The body pushed: the pelvis where there is one, else the root."""
    m = character.model
    for b in range(1, m.nbody):
        if m.body(b).name == "pelvis":
            return b
    return 1


class Push:
    """``perturb`` callback: ``force`` [N] along world +y on ``body`` during
    [start, start + duration) [s]."""

    def __init__(self, body: int, force: float, start: float, duration: float):
        self.body, self.force, self.start, self.end = body, force, start, start + duration

    def __call__(self, t: float, data) -> None:
        data.xfrc_applied[self.body, 1] = self.force if self.start <= t < self.end else 0.0


class PushTrial:
    """A picklable problem for ``sim.batch``: params = (force [N], start [s])
    → whether the creature survives."""

    def __init__(self, case: PushCase, body: int):
        self.case, self.body = case, body

    def __call__(self, params, seed: int) -> bool:
        force, start = float(params[0]), float(params[1])
        c = self.case
        _, rollout = c.simulate(start + c.duration + c.after, Push(self.body, force, start, c.duration))
        return rollout.fall is None


@dataclass(frozen=True)
class PushResult:
    """largest [N]: the largest force every phase survived (0: not even a
    tiny push, or the unpushed run falls); weight [N]: the body's weight;
    stride [s]; starts [s]: the push start times tried; trials: simulations
    run; failed [N]: the bisection's upper end, a force that some phase did
    not survive (inf when none was tried)."""

    case: PushCase
    largest: float
    weight: float
    stride: float
    starts: tuple[float, ...]
    trials: int
    failed: float = math.inf

    @property
    def relative(self) -> float:
        """The largest force as a fraction of body weight."""
        return self.largest / self.weight


def largest_push(case: PushCase, *, phases: int = 4, ceiling: float = 1.0, resolution: float = 0.01,
                 workers: int | None = None, ray: str | None = None,
                 progress: Callable[[int], None] | None = None) -> PushResult:
    """Search the largest push ``case`` survives (module docstring);
    ``progress(n)`` is called with the number of trials done after each round."""
    if phases < 1 or not (0 < resolution < ceiling):
        raise GaitforgeError(f"push: phases must be ≥ 1 and 0 < resolution < ceiling, got {phases}, "
                             f"{resolution}, {ceiling}")
    character, base = case.simulate(case.settle + case.duration + case.after)
    _check_sideways(character, case)
    weight = float(character.model.body_subtreemass[1]) * 9.81
    stride = _stride(character, base)
    starts = tuple(case.settle + k * stride / phases for k in range(phases))
    if base.fall is not None:
        return PushResult(case, 0.0, weight, stride, starts, 1, 0.0)
    lo, hi, trials, failed = 0.0, ceiling * weight, 1, math.inf
    with BatchEvaluator(PushTrial(case, push_body(character)), workers=workers, ray=ray) as pool:
        while hi - lo > resolution * weight:
            mid = 0.5 * (lo + hi)
            survived = pool.map([np.array([mid, s]) for s in starts], [0] * len(starts))
            trials += len(starts)
            if all(survived):
                lo = mid
            else:
                hi = failed = mid
            if progress is not None:
                progress(trials)
    return PushResult(case, lo, weight, stride, starts, trials, failed)


def _check_sideways(character, case: PushCase) -> None:
    """Refuse creatures the push cannot move sideways (planar models)."""
    import mujoco

    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    mujoco.mj_forward(m, d)
    jacp = np.zeros((3, m.nv))
    mujoco.mj_jacBodyCom(m, d, jacp, None, push_body(character))
    if not np.any(np.abs(jacp[1]) > 1e-9):
        raise GaitforgeError(f"push: {case.creature} moves in its sagittal plane only; a sideways push "
                             "cannot move it")


def _stride(character, rollout) -> float:
    """Stride duration [s] measured from the unpushed run's foot contacts
    (1 s when the feet never cycle, e.g. standing)."""
    from gaitforge.motion.footfall import footfalls_from_contacts
    from gaitforge.motion.metrics import gait_metrics

    keep = rollout.times >= 2.0
    if keep.sum() < 10:
        return 1.0
    # Debounced by 0.1 s: a planted foot that unloads for a moment is not a footfall.
    ff = footfalls_from_contacts(rollout.contact[keep], rollout.feet, times=rollout.times[keep] - 2.0,
                                 min_duration=0.1)
    clip = type(rollout.clip)(rollout.clip.fps, rollout.clip.qpos[keep], rollout.clip.character_name)
    try:
        T = gait_metrics(character, clip, ff).stride_duration
    except GaitforgeError:
        return 1.0
    return T if math.isfinite(T) and T > 0 else 1.0

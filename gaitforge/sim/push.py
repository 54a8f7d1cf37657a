"""Push recovery (Wang 2011 §3.5.3, Table 3.1): the largest sideways push a
controller survives, for any simulated runner in the package.

Protocol: the creature walks (or runs) for ``settle`` seconds, a horizontal
force pointing to its left (world +y; every runner starts heading along +x)
acts on its pelvis (or root body) for ``duration`` = 0.5 s, and the run
goes on for ``after`` seconds. The push starts at ``phases`` evenly spread
points of one stride, measured from the unpushed run's foot contacts.

Survival (:class:`Survival`: the thresholds, as data, the same for every
runner family) is judged over the ``after`` seconds after the push ends:

- the runner's own fall check never fires (the skills runners': a leg frame
  below half its standing height or tilted past 60°; the RH91 runners' own);
- the root body's tilt — the angle between the vertical and the axis that
  points up in the rest pose — stays under 30° (the gorilla's and the RH91
  runners' trunk, the dog's chest);
- nothing but the feet touches the ground: the bodies carrying the contact
  points the runner tracks as feet (``rollout.feet``: ``*_foot``,
  ``*_knuckle`` — the gorilla's curled fingers —, a hopper's ``foot``) and the
  bodies below them (toes); anything else (a hand, a knee, the trunk, a
  tail) is recorded by the runner (``rollout.other_contact``, sampled at
  each record tick — every control tick of the runners the push takes —
  so a touch between two ticks goes unseen) and fails;
- the root body stays above 70 % of its reference height: the lowest it
  comes in the unpushed run over the same window (the first phase's, from
  ``settle + duration`` to ``settle + duration + after``). The unpushed
  run's lowest point, not the rest pose's height, so the one definition
  holds for walkers (whose root bobs a little about its rest height) and
  for hoppers and runners whose root dips well below its rest height in
  stance (the RH91 biped's trunk, the kangaroo's).

The unpushed run must itself pass (else the limit is 0).

Limit: a force counts as survived only when every phase survives. Forces are
tried on a grid of ``step`` (2 %) of body weight, upward from one step, up to
``ceiling`` × body weight; the limit is the largest force below the first
one that some phase does not survive. Survival is not monotonic in the force
(the gorilla's DS walk at 0.3 m/s fails at one phase at some forces and
survives every phase at larger ones), so nothing is bisected and nothing
above the first failure is reported as survived; the first failing force and
its phases' verdicts are reported with the limit.

Trials are independent simulations run through ``sim.batch`` (every core,
or a Ray cluster) in a fixed order; a batch holds as many grid forces as
the workers can take, and only the trials up to the first failing force are
counted, so the limit, the verdicts and the trial count do not depend on the
worker count.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.sim.batch import BatchEvaluator
from gaitforge.constants import GRAVITY

THESIS_TABLE_3_1 = {  # N, Wang 2011 Table 3.1: largest push survived by the gorilla
    "ds_walk": {0.1: 200.0, 0.2: 180.0, 0.3: 170.0, 0.4: 150.0, 0.5: 110.0},
    "trot": {0.1: 220.0, 0.2: 190.0, 0.3: 185.0, 0.4: 165.0, 0.5: 150.0},
}
# Published largest pushes [N] per (runner, gait): {speed [m/s]: force}; the push table prints them beside ours.
PUBLISHED = {("gorilla", gait): forces for gait, forces in THESIS_TABLE_3_1.items()}


def published(creature: str, gait: str) -> dict[float, float]:
    """The published largest pushes {speed [m/s]: force [N]} of a runner's
    gait (:data:`PUBLISHED`; {} where none are published)."""
    return dict(PUBLISHED.get((creature, gait), {}))


@dataclass(frozen=True)
class Survival:
    """What surviving a push means (module docstring), judged over the
    ``after`` seconds after the push ends: max_tilt [°] the root body's
    tilt stays under; min_height the fraction of the reference height the
    root body stays above; feet_only: nothing but the feet may touch the
    ground. A fall reported by the runner's own check always fails."""

    max_tilt: float = 30.0
    min_height: float = 0.7
    feet_only: bool = True


SURVIVAL = Survival()  # the definition every push table uses


@dataclass(frozen=True)
class PushCase:
    """One cell of a push table: ``runner`` a controller registry entry
    (``control.entry.Entry``: anything with ``key``, ``gait``, ``stands``
    and ``run(speed=, seconds=, perturb=, gains=, timestep=)`` returning
    (character, rollout)) and its commanded ``speed`` [m/s]; times [s];
    ``gains`` one of the entry's gain sets; ``timestep`` [s] replaces the
    runner's physics step (None: its own)."""

    runner: Any
    speed: float
    settle: float = 8.0
    duration: float = 0.5
    after: float = 5.0
    gains: str = "ours"
    timestep: float | None = None

    @property
    def creature(self) -> str:
        """The runner's key (its creature's registry name)."""
        return str(self.runner.key)

    @property
    def gait(self) -> str:
        return str(self.runner.gait)

    def simulate(self, seconds: float, perturb: Callable | None = None):
        """(character, rollout) of this case's runner, pushed by ``perturb``."""
        character, rollout = self.runner.run(speed=self.speed, seconds=seconds, perturb=perturb, gains=self.gains,
                                             timestep=self.timestep)
        return character, rollout


THESIS_SPEEDS = tuple(THESIS_TABLE_3_1["ds_walk"])  # m/s, the speeds of Wang 2011 Table 3.1


def default_speeds(runner, count: int = 5) -> list[float]:
    """The speeds [m/s] a push table of ``runner`` (a registry entry: one
    gait) covers when none are asked for: the thesis' 0.1 … 0.5 m/s where
    the gait's range holds them all (the gorilla), else ``count`` speeds
    spread evenly over the gait's range (rounded to 0.01 m/s; one speed for
    a gait with a single speed)."""
    check_pushable(runner)
    lo, hi = runner.speed_range
    if lo - 1e-9 <= THESIS_SPEEDS[0] and THESIS_SPEEDS[-1] <= hi + 1e-9:
        return list(THESIS_SPEEDS)
    return sorted({round(float(v), 2) for v in np.linspace(lo, hi, count)})


def check_pushable(runner, standing: Sequence[str] = ()) -> None:
    """Refuse a runner that does not stand (a modal crawl: nothing balances,
    so a push has nothing to upset), naming ``standing``, the runners that
    do, where given."""
    if not runner.stands or runner.speed_range is None:
        names = f" (runners that stand: {', '.join(standing)})" if standing else ""
        raise GaitforgeError(f"push: {runner.key} {runner.gait} does not stand on legs, so there is no balance "
                             f"for a push to upset{names}")


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


def root_track(character, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(height [m], tilt [°]) of the root body at each pose of ``qpos``
    (T, nq): its origin's height and the angle between the vertical and its
    axis that points up in the rest pose (forward kinematics)."""
    import mujoco

    m = character.model
    d = mujoco.MjData(m)
    d.qpos[:] = character.rest_qpos
    mujoco.mj_kinematics(m, d)
    up = d.xmat[1].reshape(3, 3)[2].copy()  # world up in the root's frame at rest: Rᵀ e_z
    height, cos = np.empty(len(qpos)), np.empty(len(qpos))
    for k, q in enumerate(qpos):
        d.qpos[:] = q
        mujoco.mj_kinematics(m, d)
        height[k] = d.xpos[1][2]
        cos[k] = d.xmat[1].reshape(3, 3)[2] @ up
    return height, np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def _window(rollout, since: float, until: float) -> np.ndarray:
    t = rollout.times
    return (t >= since - 1e-9) & (t <= until + 1e-9)


def reference_height(character, rollout, since: float, until: float) -> float:
    """The lowest the root body comes in ``rollout`` over [since, until] [s]
    (the unpushed run: the height ``Survival.min_height`` is a fraction of)."""
    keep = _window(rollout, since, until)
    if not keep.any():
        raise GaitforgeError(f"push: the unpushed run has no record from {since:g} to {until:g} s")
    return float(root_track(character, rollout.clip.qpos[keep])[0].min())


@dataclass(frozen=True)
class Verdict:
    """One pushed run judged (``judge``): start [s] of the push; survived;
    peak_tilt [°] and min_height [m] of the root body over the window;
    foreign: a body other than the feet that touched the ground (None: none);
    fall: the runner's own fall check's report (None: none)."""

    start: float
    survived: bool
    peak_tilt: float
    min_height: float
    foreign: str | None = None
    fall: str | None = None

    def why(self, reference: float, criteria: Survival = SURVIVAL) -> str:
        """Why the run failed, in words ("" when it survived); ``reference``
        [m] the root body's reference height it was judged against."""
        out = []
        if self.fall is not None:
            out.append(self.fall)
        if self.foreign is not None:
            out.append(f"{self.foreign} on the ground")
        if self.peak_tilt >= criteria.max_tilt:
            out.append(f"root tilted {self.peak_tilt:.1f}°")
        if self.min_height <= criteria.min_height * reference:
            out.append(f"root down to {self.min_height:.2f} m")
        return "; ".join(out) or ("" if self.survived else "no record after the push")

    def as_dict(self) -> dict[str, Any]:
        """The verdict as JSON: start_s, survived, peak_tilt_deg,
        min_height_m, foreign_contact (a body name or null), fall (or null)."""
        return {"start_s": round(self.start, 4), "survived": self.survived,
                "peak_tilt_deg": round(self.peak_tilt, 2), "min_height_m": round(self.min_height, 4),
                "foreign_contact": self.foreign, "fall": self.fall}


def judge(character, rollout, since: float, until: float, reference: float, criteria: Survival = SURVIVAL,
          *, start: float = math.nan) -> Verdict:
    """Whether ``rollout`` survives over [since, until] [s] (``criteria``;
    the root body's height against ``criteria.min_height`` × ``reference``
    [m]); ``start`` [s]: the push start the verdict reports."""
    keep = _window(rollout, since, until)
    height, tilt = root_track(character, rollout.clip.qpos[keep])
    peak = float(tilt.max()) if len(tilt) else math.nan
    low = float(height.min()) if len(height) else math.nan
    foreign = None
    if criteria.feet_only:
        if rollout.other_contact is None:
            raise GaitforgeError("push: the rollout did not record contacts other than the feet'")
        touched = rollout.other_contact[keep]
        touched = touched[touched > 0]
        if len(touched):
            foreign = character.model.body(int(touched[0])).name
    fall = None if rollout.fall is None else str(rollout.fall)
    # A run stops early only where it falls or diverges (``fall``).
    survived = (fall is None and len(tilt) > 0 and foreign is None and peak < criteria.max_tilt
                and low > criteria.min_height * reference)
    return Verdict(start, bool(survived), peak, low, foreign, fall)


class PushTrial:
    """A picklable problem for ``sim.batch``: params = (force [N], start [s])
    → the pushed run's ``Verdict`` over the ``after`` seconds after the push
    (the root body's height against ``reference`` [m])."""

    def __init__(self, case: PushCase, body: int, reference: float, criteria: Survival = SURVIVAL):
        self.case, self.body, self.reference, self.criteria = case, body, reference, criteria

    def __call__(self, params, seed: int) -> Verdict:
        force, start = float(params[0]), float(params[1])
        c = self.case
        end = start + c.duration
        character, rollout = c.simulate(end + c.after, Push(self.body, force, start, c.duration))
        return judge(character, rollout, end, end + c.after, self.reference, self.criteria, start=start)


def grid(weight: float, step: float = 0.02, ceiling: float = 1.0) -> list[float]:
    """The forces [N] a scan tries: k × ``step`` × ``weight``, k = 1, 2, …
    up to ``ceiling`` × ``weight``, rounded to 0.1 N — so the force a table
    prints is the one tried, and ``push --force`` with it replays the same
    runs (a pushed run is chaotic: the gorilla's DS walk at 0.3 m/s pushed by
    184.82040000000003 N and by 184.8204 N peaks at 36° and 16°)."""
    count = int(math.floor(ceiling / step + 1e-9))
    return [round(k * step * weight, 1) for k in range(1, count + 1)]


@dataclass(frozen=True)
class Scan:
    """A grid scan's outcome: largest [N] survived by every phase with every
    force below it (0: not even the first); failed [N] the first force some
    phase did not survive (inf: none up to the ceiling) and verdicts, its
    phases'; trials counted up to it."""

    largest: float
    failed: float
    verdicts: tuple[Verdict, ...]
    trials: int


def scan(evaluate: Callable[[list[tuple[float, float]]], Sequence[Any]], forces: Sequence[float],
         starts: Sequence[float], *, chunk: int = 1,
         progress: Callable[[float, int], None] | None = None) -> Scan:
    """Scan ``forces`` upward, each at every start: ``evaluate(pairs)`` takes
    (force, start) pairs and returns their verdicts (anything with
    ``survived``) in order. ``chunk`` forces go to ``evaluate`` at once (to
    keep workers busy); what is evaluated past the first failure is dropped,
    so the outcome does not depend on ``chunk``. ``progress(force, trials)``
    is called after each force judged."""
    largest, trials = 0.0, 0
    n = len(starts)
    for i in range(0, len(forces), max(1, chunk)):
        block = list(forces[i:i + max(1, chunk)])
        verdicts = list(evaluate([(f, s) for f in block for s in starts]))
        for j, f in enumerate(block):
            mine = tuple(verdicts[j * n:(j + 1) * n])
            trials += n
            if progress is not None:
                progress(f, trials)
            if not all(v.survived for v in mine):
                return Scan(largest, f, mine, trials)
            largest = f
    return Scan(largest, math.inf, (), trials)


@dataclass(frozen=True)
class PushResult:
    """largest [N]: the largest force every phase survived, with every grid
    force below it (0: not even the first step, or the unpushed run fails);
    weight [N]: the body's weight; stride [s]; starts [s]: the push start
    times tried; trials: simulations counted (the unpushed run and the grid up
    to the first failure); failed [N]: the first grid force some phase did not
    survive (0: the unpushed run; inf: none up to the ceiling) and verdicts,
    its phases' (the unpushed run's, judged over the first phase's window,
    when it fails); reference [m]: the root body's reference height;
    criteria: the survival definition."""

    case: PushCase
    largest: float
    weight: float
    stride: float
    starts: tuple[float, ...]
    trials: int
    failed: float = math.inf
    verdicts: tuple[Verdict, ...] = ()
    reference: float = math.nan
    criteria: Survival = field(default=SURVIVAL)

    @property
    def relative(self) -> float:
        """The largest force as a fraction of body weight."""
        return self.largest / self.weight

    @property
    def failing_starts(self) -> tuple[float, ...]:
        """Push start times [s] that did not survive the failing force."""
        return tuple(v.start for v in self.verdicts if not v.survived)


@dataclass(frozen=True)
class ForceResult:
    """One force tried at every phase (``push_at``): survived when every
    phase did; verdicts, per phase; weight [N], stride [s], reference [m],
    criteria as in ``PushResult``."""

    case: PushCase
    force: float
    survived: bool
    verdicts: tuple[Verdict, ...]
    weight: float
    stride: float
    reference: float
    criteria: Survival = field(default=SURVIVAL)

    def as_dict(self) -> dict[str, Any]:
        """{"force", "survived", "phases": [Verdict.as_dict ...], "criteria":
        the thresholds with the height limit in metres}."""
        return {"force": self.force, "survived": self.survived,
                "phases": [v.as_dict() for v in self.verdicts],
                "criteria": {"max_tilt_deg": self.criteria.max_tilt,
                             "min_height_m": round(self.criteria.min_height * self.reference, 4),
                             "reference_height_m": round(self.reference, 4),
                             "feet_only": self.criteria.feet_only}}


def check_force(force) -> float:
    """``force`` [N] as a float; raises ``GaitforgeError`` unless it is a
    finite number ≥ 0."""
    if isinstance(force, bool) or not isinstance(force, (int, float, np.integer, np.floating)) \
            or not math.isfinite(force) or force < 0:
        raise GaitforgeError(f"push: force must be a finite number ≥ 0 [N], got {force!r}")
    return float(force)


@dataclass(frozen=True)
class Unpushed:
    """What the trials of a case share, from its unpushed run: weight [N],
    stride [s], push starts [s], the root body's reference height [m], the
    unpushed run's own verdict (over the first phase's window) and the body
    pushed."""

    weight: float
    stride: float
    starts: tuple[float, ...]
    reference: float
    base: Verdict
    body: int


def unpushed(case: PushCase, phases: int = 4, criteria: Survival = SURVIVAL) -> Unpushed:
    """Simulate ``case`` unpushed and measure what its trials share (``Unpushed``)."""
    if isinstance(phases, bool) or not isinstance(phases, (int, np.integer)) or phases < 1:
        raise GaitforgeError(f"push: phases must be a whole number ≥ 1, got {phases!r}")
    check_pushable(case.runner)
    since, until = case.settle + case.duration, case.settle + case.duration + case.after
    character, base = case.simulate(until)
    _check_sideways(character, case)
    weight = float(character.model.body_subtreemass[1]) * GRAVITY
    stride = _stride(character, base)
    starts = tuple(case.settle + k * stride / phases for k in range(phases))
    if base.fall is not None:
        return Unpushed(weight, stride, starts, math.nan, Verdict(case.settle, False, math.nan, math.nan,
                                                                fall=str(base.fall)), push_body(character))
    reference = reference_height(character, base, since, until)
    verdict = judge(character, base, since, until, reference, criteria, start=case.settle)
    return Unpushed(weight, stride, starts, reference, verdict, push_body(character))


def largest_push(case: PushCase, *, phases: int = 4, step: float = 0.02, ceiling: float = 1.0,
                 criteria: Survival = SURVIVAL, workers: int | None = None, ray: str | None = None,
                 progress: Callable[[float, int], None] | None = None) -> PushResult:
    """The largest push ``case`` survives (module docstring): grid forces
    ``step`` × body weight apart, scanned upward to ``ceiling`` × body
    weight; ``progress(force, trials)`` after each force judged."""
    if not (0 < step <= ceiling) or not math.isfinite(ceiling):
        raise GaitforgeError(f"push: need 0 < step ≤ ceiling (fractions of body weight), got {step}, {ceiling}")
    s = unpushed(case, phases, criteria)
    if not s.base.survived:
        return PushResult(case, 0.0, s.weight, s.stride, s.starts, 1, 0.0, (s.base,), s.reference, criteria)
    with BatchEvaluator(PushTrial(case, s.body, s.reference, criteria), workers=workers, ray=ray) as pool:
        def evaluate(pairs):
            return pool.map([np.array(p) for p in pairs], [0] * len(pairs))

        out = scan(evaluate, grid(s.weight, step, ceiling), s.starts, chunk=max(1, pool.workers // len(s.starts)),
                   progress=progress)
    return PushResult(case, out.largest, s.weight, s.stride, s.starts, 1 + out.trials, out.failed, out.verdicts,
                      s.reference, criteria)


def push_at(case: PushCase, force: float, *, phases: int = 4, criteria: Survival = SURVIVAL,
            workers: int | None = None, ray: str | None = None) -> ForceResult:
    """``case`` pushed by ``force`` [N] at every phase, each judged."""
    force = check_force(force)
    s = unpushed(case, phases, criteria)
    with BatchEvaluator(PushTrial(case, s.body, s.reference, criteria), workers=workers, ray=ray) as pool:
        verdicts = tuple(pool.map([np.array([force, t]) for t in s.starts], [0] * len(s.starts)))
    survived = s.base.survived and all(v.survived for v in verdicts)
    return ForceResult(case, force, survived, verdicts, s.weight, s.stride, s.reference, criteria)


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
    # Read as the ensembles read a gait (control.ensembles.footfall_class): airborne gaps under 0.1 s
    # filled (a planted foot that unloads for a moment has not taken a step), then contacts under
    # 0.05 s dropped. A 0.1 s filter on contacts dropped the RH91 trot's and bound's 0.08-0.1 s
    # stances and read their strides as 1-5 s, so the pushes were not spread over one stride.
    ff = footfalls_from_contacts(rollout.contact[keep], rollout.feet, times=rollout.times[keep] - 2.0,
                                 min_duration=0.05, min_gap=0.1)
    clip = type(rollout.clip)(rollout.clip.fps, rollout.clip.qpos[keep], rollout.clip.character_name)
    try:
        T = gait_metrics(character, clip, ff).stride_duration
    except GaitforgeError:
        return 1.0
    return T if math.isfinite(T) and T > 0 else 1.0

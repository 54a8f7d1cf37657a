"""CMA-ES by shooting over modal controller parameters, with the cyclic-motion
constraint handled by the method of multipliers (Nunes et al. 2012,
surveyed in Kry 2012 §4.5).

Outer iteration j minimizes the augmented Lagrangian

    L(x) = f(x) + λ_j c(x) + ½ μ_j c(x)²,   c(x) = max(0, r(x) − r_tol)

with a fresh CMA-ES started at the previous best, where f is the objective
(−distance [m], −speed [m/s] or the cost of transport) and r the cycle
residual (``control.modal.measures.cycle_residual``). Then
λ_{j+1} = λ_j + μ_j c(x_j*) and μ grows tenfold when c did not shrink to a
quarter. A diverged candidate scores ``FAILED`` and the search goes on.

Search space: z = x / scale with per-coordinate bounds
(``ModalProblem.layout.bounds``: amplitudes 0..4× the start's largest,
phases ±2π, period ½..2× the start's, …). Everything random
comes from the seed: CMA-ES samples with numpy's global generator, seeded
with ``seed + j`` when outer iteration j starts, and each candidate's
simulation gets a seed of its own (``candidate_seeds``).

Budget: outer iteration j gets (budget − evaluations so far) // (outer − j)
simulations (at least 2; a generation that starts below its share runs
whole), so the last one takes what remains. A generation starts only if it
fits in what is left of the budget, so the total never exceeds it; a budget
smaller than one generation is refused before anything runs.

Failure: the result is the best candidate that neither diverged nor fell.
When there is none, the run raises ``NotMetError`` naming how many diverged
and how many fell, so no recipe is made from a failed candidate.

Checkpoints hold data, not the optimizer: the run's identity and, per
generation, the points asked and their scores (:class:`Generation`;
``gaitforge.io.checkpoints.JsonCheckpoint``). CMA-ES is deterministic given
its seed and the values told to it, so a resumed run starts from scratch and
replays the record: it asks as before, checks that the points are the
recorded ones bit for bit, tells the recorded scores instead of simulating,
ends an outer iteration where the record does, then goes on live. A killed
run resumed with the same budget ends exactly as the uninterrupted run; a
larger budget reopens the record's last outer iteration and continues; a
budget already spent replays the record and returns its result.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field, fields
from typing import Callable, NamedTuple

import numpy as np

from gaitforge.control.modal.measures import CYCLIC_TOLERANCE
from gaitforge.errors import GaitforgeError, NotMetError
from gaitforge.optimize.problem import OBJECTIVES, Score
from gaitforge.sim.batch import candidate_seeds, check_work

FAILED = 1.0e3  # objective of a diverged or invalid candidate


@dataclass(frozen=True)
class Settings:
    """objective: distance | speed | cost; budget: total simulations; seed;
    outer: augmented-Lagrangian iterations; popsize (0: CMA-ES default);
    sigma0: initial step in scaled units; cyclic_tol: allowed cycle residual
    (default ``measures.CYCLIC_TOLERANCE``; inf: unconstrained); mu0: first
    penalty weight."""

    objective: str = "distance"
    budget: int = 200
    seed: int = 1
    outer: int = 3
    popsize: int = 0
    sigma0: float = 0.25
    cyclic_tol: float = CYCLIC_TOLERANCE
    mu0: float = 1.0

    def __post_init__(self) -> None:
        if self.objective not in OBJECTIVES:
            raise GaitforgeError(f"unknown objective {self.objective!r} (choose from {', '.join(OBJECTIVES)})")
        for name, lo, hi in (("budget", 2, 10 ** 7), ("seed", 0, 2 ** 32 - 1), ("outer", 1, 100),
                             ("popsize", 0, 10 ** 4)):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v <= hi:
                raise GaitforgeError(f"{name} must be an integer from {lo} to {hi}, got {v!r}")
        for name, v in (("sigma0", self.sigma0), ("mu0", self.mu0)):
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise GaitforgeError(f"{name} must be a positive finite number, got {v!r}")
        if not (isinstance(self.cyclic_tol, (int, float)) and self.cyclic_tol > 0 and not math.isnan(self.cyclic_tol)):
            raise GaitforgeError(f"cyclic_tol must be a positive number (inf: no constraint), got {self.cyclic_tol!r}")


def objective_value(score: Score, objective: str) -> float:
    """f of a candidate (smaller is better): −distance, −speed, or cost of transport (capped).
    A candidate that fell scores ½ FAILED (2 − survived): worse than any that
    stayed up, better than a diverged one, the later the fall the better."""
    if score.survived is not None:
        return 0.5 * FAILED * (2.0 - score.survived)
    if score.failed:
        return FAILED
    if objective == "distance":
        return -score.distance
    if objective == "speed":
        return -score.speed
    return min(score.cost_of_transport, FAILED)


def violation(score: Score, tol: float) -> float:
    """c(x) = max(0, r − r_tol) (0 for an unconstrained cycle) plus the
    avoided modes' excess over their barrier (``Score.barrier``) and the
    shortfall of the least travel (``Score.slow``); FAILED when diverged."""
    if score.failed:
        return FAILED
    cyclic = 0.0 if math.isinf(tol) else max(0.0, score.cycle_residual - tol)
    return cyclic + score.barrier + score.slow


@dataclass
class Result:
    """x (2k,) best parameters; score its :class:`Score`; f its objective;
    feasible: whether it met the cyclic constraint; evaluations done;
    history: one dict per CMA-ES generation (outer, evaluations, best_f,
    best_c, lam, mu); lam, mu the final multiplier and penalty weight."""

    x: np.ndarray
    score: Score
    f: float
    feasible: bool
    evaluations: int
    history: list = field(default_factory=list)
    lam: float = 0.0
    mu: float = 1.0


def _rank(entry) -> tuple:
    """Order of candidates for the result: feasible ones by f, then the least violating."""
    _, f, c = entry[:3]
    return (0, f) if c == 0.0 else (1, c, f)


class Generation(NamedTuple):
    """One CMA-ES generation as a checkpoint records it: outer iteration
    ``outer``, the points asked ``z`` (p, n) in the scaled search space and
    their scores (p,)."""

    outer: int
    z: np.ndarray
    scores: tuple[Score, ...]


def run_identity(problem, x0, settings: Settings) -> dict:
    """What a checkpoint must match to be resumed by this run, as plain data:
    the creature's name, the problem's layout and parameters, the start x0
    and every setting but the budget (a resumed run may raise it)."""
    layout = problem.layout
    return {"creature": problem.creature_name,
            "problem": {"layout": {"terms": [[int(m), float(r), float(b)] for m, r, b in layout.terms],
                                   "phase0": float(layout.phase0), "impulses": [int(m) for m in layout.impulses],
                                   "initial": [int(m) for m in layout.initial]},
                        "seconds": problem.seconds, "ramp": problem.ramp, "start_noise": problem.start_noise,
                        "heading": problem.heading,
                        "upright": None if problem.upright is None else [float(v) for v in problem.upright],
                        "physics": _physics_identity(problem),
                        "contact_bases": bool(getattr(problem, "contact_bases", False)),
                        "avoid": [int(m) for m in getattr(problem, "avoid", ())],
                        "barrier": float(getattr(problem, "barrier", 5.0)),
                        "min_travel": float(getattr(problem, "min_travel", 0.0))},
            "x0": np.asarray(x0, float).tolist(),
            "settings": {f.name: getattr(settings, f.name) for f in fields(settings) if f.name != "budget"}}


def _physics_identity(problem) -> dict | None:
    """What a candidate's physics is, as plain data: the steps it runs at,
    the contact model, the joint limits and whether they stop a run."""
    physics = getattr(problem, "physics", None)
    if physics is None:
        return None
    p = physics()
    return {"timesteps": [float(t) for t in problem.timesteps], "integrator": p.integrator,
            "solref": [float(v) for v in p.solref], "solimp": [float(v) for v in p.solimp],
            "length": p.length, "torque_limit": p.torque_limit, "speed_limit": p.speed_limit,
            "impulse_window": p.impulse_window, "strict_limits": bool(problem.strict_limits)}


def _strategy(cma, start, lower: np.ndarray, upper: np.ndarray, settings: Settings, j: int):
    """A fresh CMA-ES for outer iteration j, numpy's global generator seeded with seed + j."""
    seed = (int(settings.seed) + j) % 2 ** 32
    opts = {"bounds": [lower.tolist(), upper.tolist()], "seed": seed, "verbose": -9, "verb_log": 0, "verb_disp": 0}
    if seed == 0:  # cma reads seed 0 as "seed from the clock": seed numpy here and let cma leave it
        np.random.seed(0)
        opts["seed"] = math.nan
    if settings.popsize:
        opts["popsize"] = settings.popsize
    return cma.CMAEvolutionStrategy(np.clip(start, lower, upper).tolist(), settings.sigma0, opts)


def generation_size(settings: Settings, n: int) -> int:
    """Candidates per CMA-ES generation in an n-dimensional search: the
    setting, or CMA-ES's default 4 + ⌊3 ln n⌋."""
    return int(settings.popsize) if settings.popsize else 4 + int(3 * math.log(max(n, 1)))


def check_budget(settings: Settings, n: int, steps: float | None = None) -> None:
    """Refuse a budget smaller than one generation of an n-dimensional search
    (the population never overrides the budget), and one whose simulations
    of ``steps`` physics steps each (when given) are more than one job may
    run (``sim.batch.check_work``)."""
    if steps is not None:
        check_work(settings.budget, steps, "optimize (lower the budget or the seconds)")
    size = generation_size(settings, n)
    if size > settings.budget:
        raise GaitforgeError(f"budget {settings.budget} is smaller than one CMA-ES generation of {size} "
                             "simulations (popsize); raise the budget or lower the popsize")


def _failure(scores: list[Score], seconds: float) -> str:
    """One line saying how every candidate failed (``survived`` is the
    share of the ``seconds`` [s] horizon a fallen candidate stayed up)."""
    fell = [s.survived for s in scores if s.survived is not None]
    diverged = sum(s.failed for s in scores) - len(fell)
    parts = [f"{diverged} diverged"] if diverged else []
    if fell:
        parts.append(f"{len(fell)} fell (the longest stayed up {max(fell) * seconds:.2f} s)")
    return f"every one of the {len(scores)} candidates failed: {', '.join(parts)}; no result"


def _python(score: Score) -> Score:
    """``score`` with numpy scalars as Python numbers (what a checkpoint gives back)."""
    return Score._make(v.item() if isinstance(v, np.generic) else v for v in score)


def optimize(problem, x0: np.ndarray, settings: Settings, evaluator, *, checkpoint=None,
             progress: Callable[[int, int, float], None] | None = None) -> Result:
    """Minimize ``settings.objective`` of ``problem`` (a ``ModalProblem``) from ``x0``.

    evaluator: a started ``BatchEvaluator`` of ``problem``; checkpoint: an
    object with ``load(identity) -> list[Generation] | None``,
    ``save(identity, generations)`` and ``path`` (named in errors), e.g.
    ``gaitforge.io.checkpoints.JsonCheckpoint``: saved after every
    generation; the generations it holds are replayed first (see the module
    docstring); progress(evaluations, budget, best_f) after every generation,
    replayed ones included.
    """
    import cma

    x0 = np.asarray(x0, float)
    check_budget(settings, x0.size, getattr(problem, "steps", None))
    scale, lower, upper = problem.layout.bounds(x0)
    identity = run_identity(problem, x0, settings)
    record = (checkpoint.load(identity) if checkpoint is not None else None) or []
    generations: list[Generation] = list(record)
    replayed = 0  # generations of the record told so far
    evaluations, lam, mu = 0, 0.0, float(settings.mu0)
    last_c: float | None = None
    best = outer_best = None
    every: list[Score] = []  # each candidate's score, to say how they failed when none stands
    history: list[dict] = []
    start = (x0 / scale).tolist()
    for j in range(settings.outer):
        if replayed == len(record) and evaluations >= settings.budget:
            break
        es = _strategy(cma, start, lower, upper, settings, j)
        outer_start, outer_best = evaluations, None
        share = max(2, (settings.budget - outer_start) // (settings.outer - j))
        while True:
            gen = record[replayed] if replayed < len(record) else None
            if gen is not None and gen.outer != j:
                break  # the record ended outer iteration j here
            if gen is None and (evaluations - outer_start >= share or evaluations + es.popsize > settings.budget):
                break
            zs = es.ask()
            xs = [np.asarray(z) * scale for z in zs]
            if gen is not None:
                asked = np.array(zs, float)
                if asked.shape != gen.z.shape or not np.array_equal(asked.view(np.uint64), gen.z.view(np.uint64)):
                    raise GaitforgeError(f"{getattr(checkpoint, 'path', 'checkpoint')}: the checkpoint does not "
                                         f"replay on this setup (generation {replayed + 1} asks other points than "
                                         "it records: another version of cma or numpy?); remove it or drop --resume")
                scores = gen.scores
                replayed += 1
            else:
                seeds = candidate_seeds(settings.seed, evaluations, len(xs))
                scores = tuple(_python(s) for s in evaluator.map(xs, seeds))
            values = []
            for x, s in zip(xs, scores):
                f, c = objective_value(s, settings.objective), violation(s, settings.cyclic_tol)
                if s.survived is not None:  # fell: graded by how long it stayed up, no constraint term
                    L = f
                else:
                    L = f + lam * c + 0.5 * mu * c * c if not s.failed else FAILED + 0.5 * mu * FAILED
                values.append(L)
                entry = (float(L), float(f), float(c), x.tolist(), s)
                if outer_best is None or L < outer_best[0]:
                    outer_best = entry
                if not s.failed and (best is None or _rank(entry) < _rank(best)):
                    best = entry
                every.append(s)
            with warnings.catch_warnings():
                # cma takes a median of an empty list in small populations
                # ("Mean of empty slice"); nothing of ours to report.
                warnings.simplefilter("ignore", RuntimeWarning)
                es.tell(zs, values)
            evaluations += len(xs)
            assert outer_best is not None
            history.append({"outer": j, "evaluations": evaluations, "best_f": outer_best[1],
                            "best_c": outer_best[2], "lam": lam, "mu": mu})
            if gen is None:
                generations.append(Generation(j, np.array(zs, float), scores))
                if checkpoint is not None:
                    checkpoint.save(identity, generations)
            if progress is not None:
                progress(evaluations, settings.budget, outer_best[1])
        if outer_best is None:
            break  # no generation of this outer iteration fits in the budget left
        # Method of multipliers: update λ, μ from this outer iteration's best.
        c = outer_best[2]
        lam = lam + mu * c
        if last_c is not None and c > 0.25 * last_c:
            mu = mu * 10.0
        last_c = c
        start = (np.asarray(outer_best[3]) / scale).tolist()
    if replayed < len(record):
        raise GaitforgeError(f"{getattr(checkpoint, 'path', 'checkpoint')}: the checkpoint does not replay on this "
                             f"setup (it records outer iteration {record[replayed].outer}, but the run has "
                             f"{settings.outer}); remove it or drop --resume")
    if best is None:
        raise NotMetError(_failure(every, float(problem.seconds)))
    L, f, c, x, s = best
    return Result(np.asarray(x), s, f, c == 0.0 and not s.failed, evaluations, history, lam, mu)

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
comes from the seed: CMA-ES samples with numpy's global generator (``cma``
seeds it), whose state is saved in every checkpoint with the CMA-ES state,
so a resumed run continues exactly where the killed one stopped.
"""
from __future__ import annotations

import math
import pickle
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.optimize.problem import OBJECTIVES, Score
from gaitforge.sim.batch import candidate_seeds

FAILED = 1.0e3  # objective of a diverged or invalid candidate
CHECKPOINT_VERSION = 1


@dataclass(frozen=True)
class Settings:
    """objective: distance | speed | cost; budget: total simulations; seed;
    outer: augmented-Lagrangian iterations; popsize (0: CMA-ES default);
    sigma0: initial step in scaled units; cyclic_tol: allowed cycle residual
    (inf: unconstrained); mu0: first penalty weight."""

    objective: str = "distance"
    budget: int = 200
    seed: int = 1
    outer: int = 3
    popsize: int = 0
    sigma0: float = 0.25
    cyclic_tol: float = 1.0
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
    """c(x) = max(0, r − r_tol), 0 for an unconstrained run; FAILED when diverged."""
    if score.failed:
        return FAILED
    if math.isinf(tol):
        return 0.0
    return max(0.0, score.cycle_residual - tol)


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


def optimize(problem, x0: np.ndarray, settings: Settings, evaluator, *, checkpoint=None,
             progress: Callable[[int, int, float], None] | None = None) -> Result:
    """Minimize ``settings.objective`` of ``problem`` (a ``ModalProblem``) from ``x0``.

    evaluator: a started ``BatchEvaluator`` of ``problem``; checkpoint: an
    object with ``load() -> dict | None`` and ``save(dict)`` (e.g.
    ``gaitforge.io.checkpoints.PickleCheckpoint``), saved after every
    generation and resumed from when it holds a state of the same run;
    progress(evaluations, budget, best_f) after every generation.
    """
    import cma

    x0 = np.asarray(x0, float)
    scale, lower, upper = problem.layout.bounds(x0)
    signature = {"settings": settings, "x0": x0.tolist(), "problem": (problem.creature_name, problem.layout,
                                                                        problem.seconds, problem.ramp,
                                                                        problem.start_noise, problem.heading,
                                                                        problem.upright)}
    state = checkpoint.load() if checkpoint is not None else None
    if state is not None:
        if state.get("version") != CHECKPOINT_VERSION or state.get("signature") != signature:
            raise GaitforgeError("the checkpoint belongs to a different optimization run (other creature, "
                                 "settings or start); remove it or drop --resume")
        np.random.set_state(state["numpy_state"])
    else:
        state = {"version": CHECKPOINT_VERSION, "signature": signature, "outer": 0, "lam": 0.0,
                 "mu": float(settings.mu0), "evaluations": 0, "history": [], "es": None,
                 "best": None, "outer_best": None, "start": (x0 / scale).tolist()}
    per_outer = max(2, settings.budget // settings.outer)
    while state["outer"] < settings.outer and state["evaluations"] < settings.budget:
        j = state["outer"]
        if state["es"] is None:
            es = _strategy(cma, state["start"], lower, upper, settings, j)
            state["outer_best"] = None
            state["outer_start"] = state["evaluations"]
        else:
            es = pickle.loads(state["es"])
        lam, mu = state["lam"], state["mu"]
        while state["evaluations"] - state["outer_start"] < per_outer and state["evaluations"] < settings.budget:
            zs = es.ask()
            xs = [np.asarray(z) * scale for z in zs]
            seeds = candidate_seeds(settings.seed, state["evaluations"], len(xs))
            scores = evaluator.map(xs, seeds)
            values = []
            for x, s in zip(xs, scores):
                f, c = objective_value(s, settings.objective), violation(s, settings.cyclic_tol)
                if s.survived is not None:  # fell: graded by how long it stayed up, no constraint term
                    L = f
                else:
                    L = f + lam * c + 0.5 * mu * c * c if not s.failed else FAILED + 0.5 * mu * FAILED
                values.append(L)
                entry = (float(L), float(f), float(c), x.tolist(), s)
                if state["outer_best"] is None or L < state["outer_best"][0]:
                    state["outer_best"] = entry
                if not s.failed and (state["best"] is None or _rank(entry) < _rank(state["best"])):
                    state["best"] = entry
            es.tell(zs, values)
            state["evaluations"] += len(xs)
            ob = state["outer_best"]
            state["history"].append({"outer": j, "evaluations": state["evaluations"], "best_f": ob[1],
                                     "best_c": ob[2], "lam": lam, "mu": mu})
            state["es"] = pickle.dumps(es)
            state["numpy_state"] = np.random.get_state()
            if checkpoint is not None:
                checkpoint.save(state)
            if progress is not None:
                progress(state["evaluations"], settings.budget, ob[1])
        # Method of multipliers: update λ, μ from this outer iteration's best.
        ob = state["outer_best"]
        c = ob[2]
        prev = state.get("last_c")
        state["lam"] = lam + mu * c
        if prev is not None and c > 0.25 * prev:
            state["mu"] = mu * 10.0
        state["last_c"] = c
        state["start"] = (np.asarray(ob[3]) / scale).tolist()
        state["outer"] = j + 1
        state["es"] = None
        state["numpy_state"] = np.random.get_state()
        if checkpoint is not None:
            checkpoint.save(state)
    best = state["best"] or state["outer_best"]
    if best is None:
        raise GaitforgeError("the optimization evaluated no candidate")
    L, f, c, x, s = best
    return Result(np.asarray(x), s, f, c == 0.0 and not s.failed, state["evaluations"], state["history"],
                  state["lam"], state["mu"])

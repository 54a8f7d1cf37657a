"""The worm landscape (Kry 2012 §4.3, Fig. 4): distance travelled in a fixed
time over a grid of activation magnitude × phase difference, the first two
modes activated equally (α_1 = α_2 = a) at one frequency.

Each cell records the distance, whether the run diverged ("blew up") and
whether it became non-cyclic (cycle residual above the tolerance). Pure
computation; the heatmap and CSV are written by ``gaitforge.io.landscape_files``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from gaitforge.control.modal.measures import CYCLIC_TOLERANCE
from gaitforge.errors import GaitforgeError
from gaitforge.sim.batch import BatchEvaluator, candidate_seeds, check_work


@dataclass(frozen=True, eq=False)
class Landscape:
    """magnitudes (A,) modal amplitude a; phases (P,) [rad] phase of mode 2
    minus mode 1; distance (A, P) [m] horizontal CoM travel (0 where blew
    up); dx (A, P) [m] signed travel along x; residual (A, P) cycle residual;
    blew_up (A, P) bool; non_cyclic (A, P) bool (residual > tolerance, not
    blown up); frequency [Hz]; seconds [s]; tolerance."""

    creature: str
    magnitudes: np.ndarray
    phases: np.ndarray
    distance: np.ndarray
    dx: np.ndarray
    residual: np.ndarray
    blew_up: np.ndarray
    non_cyclic: np.ndarray
    frequency: float
    seconds: float
    tolerance: float

    def optimum(self, *, cyclic_only: bool = False) -> tuple[int, int]:
        """Grid indices (i, j) of the longest travel (optionally among the cyclic cells)."""
        d = np.where(self.blew_up | (self.non_cyclic if cyclic_only else False), -np.inf, self.distance)
        if not np.isfinite(d).any():
            raise GaitforgeError("no cell of the landscape qualifies")
        i, j = np.unravel_index(int(np.argmax(d)), d.shape)
        return int(i), int(j)

    def best_phase(self, i: int) -> float:
        """Phase [rad] with the longest travel at magnitude index ``i``."""
        d = np.where(self.blew_up[i], -np.inf, self.distance[i])
        return float(self.phases[int(np.argmax(d))])


def landscape(problem, magnitudes: np.ndarray, phases: np.ndarray, frequency: float, *, workers: int | None = None,
              ray: str | None = None, seed: int = 0, tolerance: float = CYCLIC_TOLERANCE,
              progress: Callable[[int], None] | None = None) -> Landscape:
    """Evaluate the grid magnitudes × phases with ``problem`` (a two-mode
    ``ModalProblem``) at ``frequency`` [Hz]."""
    if len(problem.modes) != 2:
        raise GaitforgeError(f"the landscape drives exactly two modes, the problem has {len(problem.modes)}")
    if not (math.isfinite(frequency) and frequency > 0):
        raise GaitforgeError(f"frequency must be a positive finite number, got {frequency!r}")
    A, P = np.asarray(magnitudes, float), np.asarray(phases, float)
    cands = [np.array([a, a, g, 1.0 / frequency]) for a in A for g in P]
    check_work(len(cands), problem.steps, "landscape (lower the grid or the seconds)")
    with BatchEvaluator(problem, workers=workers, ray=ray) as ev:
        scores = ev.map(cands, candidate_seeds(seed, 0, len(cands)), progress)
    shape = (len(A), len(P))
    blew = np.array([s.failed for s in scores]).reshape(shape)
    res = np.array([s.cycle_residual for s in scores]).reshape(shape)
    return Landscape(problem.creature_name, A, P, np.array([s.distance for s in scores]).reshape(shape),
                     np.array([s.dx for s in scores]).reshape(shape), res, blew, ~blew & (res > tolerance),
                     float(frequency), problem.seconds, float(tolerance))

"""Reproduce RH91 Table 2: run each experiment and put our measurements
beside the paper's two columns."""
from __future__ import annotations

from typing import NamedTuple

from gaitforge.control.raibert.catalog import RUNNERS, simulate
from gaitforge.control.raibert.measures import RunMeasures, measure_run
from gaitforge.control.raibert.table2 import TABLE2, Experiment
from gaitforge.creatures.character import Character
from gaitforge.sim.runner import Rollout

_KEY_OF = {r.creature: k for k, r in RUNNERS.items()}


class ReportLine(NamedTuple):
    experiment: str
    quantity: str
    real: float  # robot or animal
    paper: float  # the paper's animation
    ours: float | None  # None where we do not measure it


class ExperimentRun(NamedTuple):
    experiment: Experiment
    character: Character
    rollout: Rollout
    measures: RunMeasures | None  # None if the run fell before enough strides


def run_experiments(seconds: float = 30.0, settle: float = 10.0,
                    progress=None) -> list[ExperimentRun]:
    """Simulate every Table 2 experiment for ``seconds`` and measure the
    whole strides after ``settle`` seconds. ``progress(title)`` is called
    before each run."""
    out = []
    for exp in TABLE2:
        if progress is not None:
            progress(exp.title)
        character, rollout = simulate(_KEY_OF[exp.creature], exp.gait, exp.speed, seconds)
        measures = None if rollout.fall is not None else measure_run(character, rollout, exp.speed, settle)
        out.append(ExperimentRun(exp, character, rollout, measures))
    return out


def report_lines(runs: list[ExperimentRun]) -> list[ReportLine]:
    """One line per Table 2 row: the paper's columns and our measurement."""
    lines = []
    for r in runs:
        for row in r.experiment.rows:
            value = None if r.measures is None else getattr(r.measures, row.field)
            lines.append(ReportLine(r.experiment.title, row.label, row.real, row.animation,
                                    None if value is None else float(value)))
    return lines

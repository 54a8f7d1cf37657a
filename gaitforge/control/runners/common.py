"""What the family adapters share: entries from a legged family's catalogue
(``sim.catalog.Runner``, one entry per gait) and the default speed rule."""
from __future__ import annotations

from typing import Callable

from gaitforge.control.entry import Entry, Measures, Run
from gaitforge.sim.catalog import Runner


def default_speed(runner: Runner, gait: str) -> float:
    """A gait's speed [m/s] when none is asked: the runner's default speed
    when the gait holds it, else the middle of the gait's range (0 for
    standing). ``run dog --gait walk`` walks at 0.375 m/s, not at the trot's
    0.8 m/s that the walk cannot hold."""
    lo, hi = runner.speed_ranges[gait]
    if lo <= runner.default_speed <= hi:
        return float(runner.default_speed)
    return round((lo + hi) / 2, 3)


def catalogue_entries(runner: Runner, family: str, simulate: Callable, measure: Callable[[Run], Measures], *,
                      options: frozenset[str], gain_sets: tuple[str, ...] = ("ours",),
                      controller: Callable, stands: bool = True,
                      gait_graph: Callable | None = None) -> list[Entry]:
    """One entry per gait of ``runner``, keyed by its creature's registry
    name; its catalogue key, where it differs (``biped``), is an alias."""
    aliases = () if runner.key == runner.creature else (runner.key,)
    return [Entry(runner.creature, gait, family, runner.creature, (float(lo), float(hi)),
                  default_speed(runner, gait), stands, simulate, measure, default=gait == runner.default_gait,
                  aliases=aliases, options=options, gain_sets=gain_sets, gait_graph=gait_graph,
                  controller=controller)
            for gait, (lo, hi) in runner.speed_ranges.items()]

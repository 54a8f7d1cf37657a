"""What ``gaitforge balance`` measures for one creature: the largest lateral
and forward pushes survived standing, with the balance feedback and without
(the springs holding the rest pose), and whether it stands on ground tilting
slowly by ± a few degrees about either horizontal axis
(``control.modal.standing``)."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from gaitforge.control.modal.standing import (DIRECTIONS, GAIN_SETS, TILT_AXES, PushLimit, Standing, TiltResult,
                                              largest_push, standing_case, tilt)

GOAL = 1.5  # the feedback should survive pushes at least this many times larger


@dataclass(frozen=True)
class BalanceSettings:
    """after [s] judged after each push; settle [s] standing before it;
    step and ceiling of the force grid (fractions of body weight); tilt
    amplitude [°] and period [s] (one full period judged); timestep [s]
    replacing the physics step (None: the creature's modal physics)."""

    after: float = 5.0
    settle: float = 3.0
    step: float = 0.02
    ceiling: float = 1.0
    tilt_amplitude: float = 5.0
    tilt_period: float = 20.0
    timestep: float | None = None


@dataclass(frozen=True)
class BalanceReport:
    """creature; pushes {(direction, gains): PushLimit}; tilts {(axis,
    gains): TiltResult}; settings; modes: the balance modes' indices and
    frequencies [Hz]."""

    creature: str
    pushes: dict
    tilts: dict
    settings: BalanceSettings
    modes: tuple[tuple[int, float], ...]

    def ratio(self, direction: str) -> float:
        """Largest push with feedback over largest without (inf when the
        latter is 0 and the former is not; nan when both are)."""
        f1 = self.pushes[(direction, "feedback")].largest
        f0 = self.pushes[(direction, "none")].largest
        return f1 / f0 if f0 > 0 else (math.inf if f1 > 0 else math.nan)

    def as_dict(self) -> dict[str, Any]:
        """The JSON ``gaitforge balance --json`` writes."""
        def forces(gains: str) -> dict[str, float]:
            return {d: round(self.pushes[(d, gains)].largest, 1) for d in DIRECTIONS}

        def tilts(gains: str) -> dict[str, bool]:
            return {a: self.tilts[(a, gains)].survived for a in TILT_AXES}

        weight = next(iter(self.pushes.values())).weight
        s = self.settings
        return {"creature": self.creature, "weight_N": round(weight, 1),
                "push_with_feedback_N": forces("feedback"), "push_without_N": forces("none"),
                "ratio": {d: _finite(self.ratio(d)) for d in DIRECTIONS},
                "first_failing_N": {g: {d: _finite(self.pushes[(d, g)].failed) for d in DIRECTIONS}
                                    for g in GAIN_SETS},
                "tilt_deg": s.tilt_amplitude, "tilt_with_feedback": tilts("feedback"), "tilt_without": tilts("none"),
                "modes": [{"mode": i, "frequency_hz": round(f, 3)} for i, f in self.modes],
                "protocol": {"push_duration_s": 0.5, "settle_s": s.settle, "after_s": s.after,
                             "grid_step_of_weight": s.step, "ceiling_of_weight": s.ceiling,
                             "tilt_period_s": s.tilt_period, "timestep_s": s.timestep}}


def _finite(x: float) -> float | None:
    return None if not math.isfinite(x) else round(x, 3)


def measure(creature: str, settings: BalanceSettings = BalanceSettings(), *, workers: int | None = 1,
            progress: Callable[[str], None] | None = None) -> BalanceReport:
    """Measure ``creature`` (a registry name) standing: 4 push scans and 4
    tilt runs; ``progress(what)`` after each."""
    from gaitforge.control.modal.balance import balance_modes
    from gaitforge.creatures import registry
    from gaitforge.creatures.character import Character

    character = Character.from_spec(registry.build(creature))
    bm = balance_modes(character)  # refuses a creature without feet before any simulation
    modes = tuple((i, float(bm.basis.frequencies[i])) for i in bm.chosen)
    s = settings
    pushes: dict[tuple[str, str], PushLimit] = {}
    tilts: dict[tuple[str, str], TiltResult] = {}
    for gains in GAIN_SETS:
        case = standing_case(creature, gains, settle=s.settle, after=s.after, timestep=s.timestep)
        for d in DIRECTIONS:
            pushes[(d, gains)] = largest_push(case, d, step=s.step, ceiling=s.ceiling, workers=workers)
            if progress is not None:
                progress(f"{d} push, {gains}: {pushes[(d, gains)].largest:.1f} N")
        for axis in TILT_AXES:
            tilts[(axis, gains)] = tilt(Standing(creature), gains, axis, s.tilt_amplitude, period=s.tilt_period,
                                        settle=s.settle, cycles=1.0, timestep=s.timestep)
            if progress is not None:
                progress(f"{axis} tilt, {gains}: {'stood' if tilts[(axis, gains)].survived else 'fell'}")
    return BalanceReport(creature, pushes, tilts, s, modes)


STEPS = 2 * (len(DIRECTIONS) + len(TILT_AXES))  # progress calls of one ``measure``

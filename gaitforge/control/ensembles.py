"""Ensembles of perturbed starts: whether a runner's gait at a speed holds
from many slightly different beginnings, not just the one it was tuned on.

A single long rollout of a legged controller is chaotic: a last-bit change
(another BLAS kernel, another CPU) moves a fall from never to 30 s. So a
speed is trusted only when an ensemble of starts survives it, each start
drawn from ``sim.starts.StartNoise`` by its seed (``sim.starts`` says how).
The runners are the controller registry's (``control.registry``).

Trials are independent simulations run through ``sim.batch`` (local
processes or Ray), in seed order, so results do not depend on the workers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from gaitforge.errors import GaitforgeError
from gaitforge.sim.batch import BatchEvaluator
from gaitforge.sim.starts import PerturbedStart, StartNoise


@dataclass(frozen=True)
class Outcome:
    """One start's run: seed; fall [s] (nan: held to the end); speed [m/s]:
    mean forward speed over the second half of the run; gait: the class of
    its footfalls over that half (``motion.metrics.classify_gait`` on the
    simulated foot contacts, debounced 0.1 s; "" when they cannot be
    measured, e.g. after a fall); peak_drive, peak_joint_speed: the largest
    joint drive and joint speed as fractions of the controller's limits,
    clipped: the share of control ticks in which a drive was clipped
    (``sim.limits.LimitReport``; nan when the controller declares no limits)."""

    seed: int
    fall: float
    speed: float
    gait: str = ""
    peak_drive: float = math.nan
    peak_joint_speed: float = math.nan
    clipped: float = math.nan

    @property
    def held(self) -> bool:
        return math.isnan(self.fall)


class EnsembleTrial:
    """A picklable problem for ``sim.batch``: params = () ignored, seed →
    the (fall [s] or nan, speed [m/s], footfall class, peak drive, peak
    joint speed, share clipped) of ``runner``'s ``gait`` at ``speed`` from
    the start :class:`PerturbedStart` draws for that seed (:class:`Outcome`)."""

    def __init__(self, runner: str, gait: str, speed: float, seconds: float, noise: StartNoise,
                 timestep: float | None = None, gains: str = "ours"):
        self.runner, self.gait, self.speed, self.seconds = runner, gait, float(speed), float(seconds)
        self.noise, self.timestep, self.gains = noise, timestep, gains

    def __call__(self, params, seed: int) -> tuple[float, float, str, float, float, float]:
        character, rollout = simulate_perturbed(self.runner, self.gait, self.speed, self.seconds, self.noise, seed,
                                                timestep=self.timestep, gains=self.gains)
        t, x = rollout.times, rollout.clip.qpos[:, 0]
        half = t >= 0.5 * t[-1]
        speed = float((x[half][-1] - x[half][0]) / max(t[half][-1] - t[half][0], 1e-9)) if half.sum() > 1 else 0.0
        fall = math.nan if rollout.fall is None else float(rollout.fall.time)
        lim = rollout.limits
        peaks = ((lim.peak_torque, lim.peak_speed, lim.clipped / max(lim.ticks, 1)) if lim is not None
                 else (math.nan, math.nan, math.nan))
        return (fall, speed, (footfall_class(character, rollout, half) if math.isnan(fall) else "")) + peaks


def footfall_class(character, rollout, keep: np.ndarray) -> str:
    """The gait class of ``rollout``'s foot contacts over the frames ``keep``
    (airborne gaps under 0.1 s filled: a paw that skips for a moment has
    not taken a step; then contacts under 0.05 s dropped: the RH91 runners'
    stances last 0.08-0.1 s, and a 0.1 s filter on them read their bound and
    stiff-contact trot as no class); "" when unmeasurable."""
    from gaitforge.motion.footfall import footfalls_from_contacts
    from gaitforge.motion.metrics import classify_gait, gait_metrics

    times = rollout.times[keep]
    clip = type(rollout.clip)(rollout.clip.fps, rollout.clip.qpos[keep], rollout.clip.character_name)
    try:
        ff = footfalls_from_contacts(rollout.contact[keep], rollout.feet, times=times - times[0], min_duration=0.05,
                                     min_gap=0.1)
        return str(classify_gait(gait_metrics(character, clip, ff)))
    except GaitforgeError:
        return ""


def simulate_perturbed(runner, gait: str, speed: float, seconds: float, noise: StartNoise, seed: int, *,
                       timestep: float | None = None, perturb: Callable | None = None, gains: str = "ours"):
    """(character, rollout) of ``runner``'s ``gait`` (a controller registry
    key, ``control.registry``) at ``speed`` [m/s] from the start ``noise``
    draws for ``seed``; ``timestep`` [s] replaces the physics step the
    controller declares (None: its own); ``perturb(t, data)`` as in
    ``sim.run``; ``gains`` one of the runner's gain sets (its
    ``gain_sets``). The speed is not held to the gait's range, so that the
    ranges themselves can be measured beyond their ends."""
    from gaitforge.control import registry  # (lazily: the registry's runners import much)

    e = registry.entry(runner, gait)
    e.check_gains(gains)
    character, rollout, _ = e.simulate(e, speed, seconds, timestep=timestep, start=PerturbedStart(noise, seed, speed),
                                       perturb=perturb, gains=gains)
    return character, rollout


@dataclass(frozen=True)
class Ensemble:
    """The outcomes of one runner, gait and commanded speed [m/s]."""

    runner: str
    gait: str
    speed: float
    seconds: float
    outcomes: tuple[Outcome, ...]

    @property
    def held(self) -> int:
        """How many starts held to the end."""
        return sum(o.held for o in self.outcomes)

    @property
    def first_fall(self) -> float:
        """The earliest fall [s] (nan: none fell)."""
        falls = [o.fall for o in self.outcomes if not o.held]
        return min(falls) if falls else math.nan

    def gaits(self) -> dict[str, int]:
        """How many starts that held read as each gait class."""
        out: dict[str, int] = {}
        for o in self.outcomes:
            if o.held:
                out[o.gait or "unmeasured"] = out.get(o.gait or "unmeasured", 0) + 1
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))

    def peaks(self) -> tuple[float, float, float]:
        """The worst over the starts of (peak joint drive, peak joint speed,
        share of ticks clipped), each as in :class:`Outcome` (nan: no limits)."""
        def worst(values: list[float]) -> float:
            return max(values) if values and not any(math.isnan(v) for v in values) else math.nan
        return (worst([o.peak_drive for o in self.outcomes]), worst([o.peak_joint_speed for o in self.outcomes]),
                worst([o.clipped for o in self.outcomes]))

    def speed_error(self) -> float:
        """Largest relative miss of the commanded speed among the starts that
        held (nan: none held, or a speed of 0)."""
        v = [o.speed for o in self.outcomes if o.held]
        if not v or self.speed == 0:
            return math.nan
        return float(max(abs(s - self.speed) for s in v) / self.speed)


def ensemble(runner: str, gait: str, speed: float, *, starts: int = 20, seconds: float = 60.0,
             noise: StartNoise = StartNoise(), first_seed: int = 1, timestep: float | None = None,
             workers: int | None = None, ray: str | None = None,
             progress: Callable[[int], None] | None = None, gains: str = "ours") -> Ensemble:
    """Run ``starts`` perturbed starts (seeds ``first_seed`` …) of ``runner``'s
    ``gait`` at ``speed`` [m/s] for ``seconds`` each, under its gain set ``gains``."""
    if not (isinstance(starts, int) and 1 <= starts <= 10_000):
        raise GaitforgeError(f"starts must be an integer from 1 to 10000, got {starts!r}")
    if not (math.isfinite(seconds) and 0 < seconds <= 3600):
        raise GaitforgeError(f"seconds must be in (0, 3600], got {seconds!r}")
    seeds = list(range(first_seed, first_seed + starts))
    with BatchEvaluator(EnsembleTrial(runner, gait, speed, seconds, noise, timestep, gains), workers=workers,
                        ray=ray) as pool:
        results = pool.map([np.zeros(0)] * starts, seeds, progress=progress)
    return Ensemble(runner, gait, float(speed), float(seconds),
                    tuple(Outcome(s, *r) for s, r in zip(seeds, results)))

"""One entry of the controller registry (``control.registry``): a runnable
(creature, gait) of any controller family, with one call that simulates it.

What differs between families is data on the entry — its speed range (or
none: a modal gait sets its own speed), whether it stands (can be pushed),
which run options it takes, its gain sets — and two functions the family
supplies: ``simulate`` (build the creature and its controller, run them)
and ``measure`` (what to report about a run). Nothing outside the family's
adapter (``control.runners``) branches on a family, creature or gait name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, NamedTuple

import numpy as np

from gaitforge.errors import GaitforgeError, UnknownNameError

# Run options beyond the ones every entry takes (speed, seconds, timestep,
# initial, seed, progress, perturb): what a request for each says when an
# entry does not take it.
OPTION_WORDS = {
    "path": ("does not follow paths", "paths work for"),
    "scale": ("cannot be scaled", "scaling works for"),
    "turn_rate": ("does not turn on command", "turn_rate works for"),
    "schedule": ("takes no command schedule", "schedules work for"),
    "plots": ("has no gait graph to plot", "plots work for"),
}
UNSET = {"path": None, "scale": 1.0, "turn_rate": 0.0, "schedule": None, "plots": None}  # values that ask nothing


def check_speed(label: str, speed: float, speed_range: tuple[float, float]) -> float:
    """``speed`` [m/s] if it lies in ``speed_range`` (lo, hi); else a
    ``GaitforgeError`` naming the range (``label``: the runner and gait)."""
    lo, hi = speed_range
    if not lo - 1e-9 <= speed <= hi + 1e-9:
        raise GaitforgeError(f"{label}: speed {speed:g} m/s is outside its range {lo:g}–{hi:g} m/s")
    return float(speed)


def asks(option: str, value: Any) -> bool:
    """Whether ``value`` of run option ``option`` asks for something (a
    path, a scale other than 1, a turn, a schedule, plots)."""
    return value is not None and (UNSET[option] is None or value != UNSET[option])


class Measures(NamedTuple):
    """What a family reports about a run: title; rows of (quantity with its
    unit, value as text); notes: further lines (e.g. why nothing was
    measured)."""

    title: str
    rows: tuple[tuple[str, str], ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """A runnable (creature, gait).

    key: the catalogue name (the creature's registry name, e.g.
    ``raibert_biped``); aliases: other names accepted for it (``biped``);
    gait; family ("raibert", "skills", "modal": for listings only);
    creature: the registry creature simulated; speed_range (lo, hi) [m/s]:
    the commanded speeds it holds (None: it takes no commanded speed, its
    drive sets it); default_speed [m/s] (None with no range); stands: it
    balances on legs, so a sideways push can be judged
    (``sim.push``); default: the creature's default gait; options: the run
    options it takes beyond the common ones (:data:`OPTION_WORDS`);
    gain_sets: its named gain sets ("ours" first); gait_graph(entry, speed):
    (graph, limbs) of the gait graph its controller follows at ``speed``
    (None: none to plot); controller(entry, character, speed): the family's controller
    for the gait at ``speed`` [m/s] (for tools that step it themselves);
    simulate(entry, speed,
    seconds, *, timestep, start, progress, perturb, gains, **options) ->
    (character, rollout, detail): the family's run (``detail`` its own
    record, e.g. a ``ModalRollout``; ``start`` a
    ``sim.starts.PerturbedStart`` or None); measure(run) -> Measures.
    """

    key: str
    gait: str
    family: str
    creature: str
    speed_range: tuple[float, float] | None
    default_speed: float | None
    stands: bool
    simulate: Callable[..., tuple[Any, Any, Any]] = field(repr=False, compare=False)
    measure: Callable[["Run"], Measures] = field(repr=False, compare=False)
    default: bool = False
    aliases: tuple[str, ...] = ()
    options: frozenset[str] = frozenset()
    gain_sets: tuple[str, ...] = ("ours",)
    gait_graph: Callable[["Entry", float], Any] | None = field(default=None, repr=False, compare=False)
    controller: Callable[["Entry", Any, Any], Any] | None = field(default=None, repr=False, compare=False)

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the entry answers to: its key, then its aliases."""
        return (self.key, *self.aliases)

    @property
    def label(self) -> str:
        """``key gait``: how messages name the entry."""
        return f"{self.key} {self.gait}"

    def speed_for(self, speed: float | None) -> float | None:
        """The commanded speed [m/s] of a run asked for ``speed`` (None: the
        default): refused with a ``GaitforgeError`` naming the range when
        outside it, or when the entry takes no speed."""
        if self.speed_range is None:
            if speed is not None:
                raise GaitforgeError(f"{self.label} takes no speed: its drive sets how fast it goes "
                                     "(give no speed)")
            return None
        if speed is None:
            return self.default_speed
        return check_speed(self.label, speed, self.speed_range)

    def check_gains(self, gains: str) -> None:
        """Raise ``UnknownNameError`` unless ``gains`` is one of the entry's gain sets."""
        if gains not in self.gain_sets:
            raise UnknownNameError(f"{self.key} has no gain set {gains!r} (gain sets: {', '.join(self.gain_sets)})")

    def check_options(self, options: Mapping[str, Any], takers: Callable[[str], list[str]] | None = None) -> None:
        """Refuse a run option the entry does not take (one that asks for
        something), naming the runners that take it where ``takers(option)``
        says (``control.registry.check_options``)."""
        for name, value in options.items():
            if name not in OPTION_WORDS:
                raise GaitforgeError(f"run: unknown option {name!r} (valid: {', '.join(OPTION_WORDS)})")
            if name not in self.options and asks(name, value):
                cannot, works = OPTION_WORDS[name]
                who = f" ({works}: {', '.join(takers(name))})" if takers is not None else ""
                raise GaitforgeError(f"{self.key} {cannot}{who}")

    def physics(self, timestep: float | None = None):
        """The physics a run of the entry integrates with
        (``sim.physics.Physics``: step, integrator, solver, ground contact),
        as its controller prepares the model; ``timestep`` [s] replaces the
        step as ``run`` does."""
        from gaitforge.creatures import registry
        from gaitforge.creatures.character import Character
        from gaitforge.sim.controller import run_settings
        from gaitforge.sim.physics import Physics

        if self.controller is None:
            raise GaitforgeError(f"{self.label} builds no controller of its own to read the physics from")
        character = Character.from_spec(registry.build(self.creature))
        controller = self.controller(self, character, self.default_speed)
        return Physics.of(run_settings(controller, character.model, timestep=timestep).model)

    def run(self, *, speed: float | None = None, seconds: float = 10.0, timestep: float | None = None,
            initial=None, seed: int = 0, progress: Callable[[float], None] | None = None,
            perturb: Callable | None = None, gains: str = "ours", **options) -> "Run":
        """Simulate the entry for ``seconds`` [s] at ``speed`` [m/s] (None:
        its default; out of range: refused); ``timestep`` [s] replaces its
        physics step; ``initial`` (a ``sim.starts.StartNoise``: anything
        with ``draw(seed, speed)``) with ``seed`` draws a perturbed start
        (None: the rest pose, unperturbed);
        ``progress(t)`` about once per simulated second; ``perturb(t,
        data)`` may push the creature; ``gains`` one of its gain sets;
        ``options`` those it takes (``options``)."""
        commanded = self.speed_for(speed)
        self.check_gains(gains)
        self.check_options(options)
        start = None if initial is None else initial.draw(seed, commanded or 0.0)
        character, rollout, detail = self.simulate(self, commanded, seconds, timestep=timestep, start=start,
                                                   progress=progress, perturb=perturb, gains=gains, **options)
        return Run(character, rollout, self, commanded, detail, dict(options))


@dataclass(frozen=True, eq=False)
class Run:
    """A simulated run: the (possibly scaled) character, its rollout
    (``sim.Rollout``: clip, contacts, ``fall``), the entry that ran, the
    commanded speed [m/s] (None: the entry takes none) and the family's own
    record (``detail``: a ``ModalRollout`` for a modal gait, else None).
    Unpacks and indexes as the pair ``(character, rollout)``."""

    character: Any
    rollout: Any
    entry: Entry | None = None
    speed: float | None = None
    detail: Any = None
    options: Mapping[str, Any] = field(default_factory=dict)

    def __iter__(self) -> Iterator[Any]:
        return iter((self.character, self.rollout))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index):
        return (self.character, self.rollout)[index]

    def measures(self) -> Measures:
        """What the entry's family reports about this run, and for a run
        asked to turn or follow a path, its track (:func:`track_rows`)."""
        if self.entry is None:
            raise GaitforgeError("this run names no registry entry to measure it")
        m = self.entry.measure(self)
        return m._replace(rows=m.rows + track_rows(self)) if m.rows else m

    @property
    def path(self):
        """The path it was asked to follow (anything with ``waypoints`` (N, 2)
        [m] and ``loop``), or None."""
        return self.options.get("path")


TRACK_SETTLE = 1.0 / 3.0  # share of a run (at most 10 s) left out of its track as the start


def track_rows(run: Run) -> tuple[tuple[str, str], ...]:
    """Rows for a run asked to turn (``turn_rate``) or follow a path: the
    speed along its track, its yaw rate (with the commanded one) and, on a
    path, its mean and largest distance from the path; measured after the
    run settled (a third of it, at most 10 s). Other runs: none."""
    from gaitforge.sim.track import measure_track

    turn = float(run.options.get("turn_rate") or 0.0)
    path = run.path
    clip = run.rollout.clip
    if (not turn and path is None) or clip.n_frames < 3 or run.rollout.fall is not None:
        return ()
    settle = min(10.0, TRACK_SETTLE * clip.duration)
    t = measure_track(run.character, clip, settle, None if path is None else path.waypoints,
                      bool(getattr(path, "loop", False)))
    rows = [("speed along the track (m/s)", f"{t.path_speed:.3f}"),
            ("yaw rate (deg/s)", f"{np.degrees(t.yaw_rate):.1f}"
             + (f" (commanded {np.degrees(turn):.1f})" if turn else ""))]
    if t.path_error_mean is not None:
        rows += [("path error, mean (m)", f"{t.path_error_mean:.3f}"),
                 ("path error, largest (m)", f"{t.path_error_max:.3f}")]
    return tuple(rows)


def fmt(value: Any) -> str:
    """A measured value as table text: — for none, 4 significant digits."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    return f"{value:.4g}" if isinstance(value, float) else str(value)

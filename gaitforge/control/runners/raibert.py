"""The Raibert & Hodgins 1991 runners (``control.raibert.catalog``) as
registry entries: they follow waypoint paths where their catalogue says so
and run dynamically scaled by a length factor L (RH91 Table 1)."""
from __future__ import annotations

import math

from gaitforge.control.entry import Entry, Measures, Run, fmt
from gaitforge.control.raibert import catalog
from gaitforge.control.runners.common import catalogue_entries
from gaitforge.errors import GaitforgeError
from gaitforge.sim.runner import run


def simulate(entry: Entry, speed: float, seconds: float, *, timestep=None, start=None, progress=None, perturb=None,
             gains: str = "ours", path=None, scale: float = 1.0):
    """(character, rollout, desired speed [m/s]) of a run: ``speed`` is the
    unscaled desired speed, the scaled creature is asked for speed × √L
    (the detail returned), as asked even outside the gait's range (as the
    other families' entries; the commands check the range before); ``start``
    scales the friction of the run's model and moves its start state."""
    character, ctrl, model, dt = catalog.prepare(entry.key, entry.gait, speed, path=path, scale=scale,
                                                 timestep=timestep, clamp=False)
    if start is not None:
        start.apply_friction(model)
    rollout = run(character, ctrl, seconds, record_fps=min(100.0, 1.0 / dt), model=model, progress=progress,
                  perturb=perturb, initial=start)
    return character, rollout, speed * math.sqrt(scale)


def measure(r: Run) -> Measures:
    """RH91 Table 2's quantities of the run after it settled (the first 30 %,
    at most 5 s), against the desired speed the controller was given."""
    from gaitforge.control.raibert.measures import measure_run

    sim = r.rollout.clip.duration
    title = f"{r.character.name} {r.entry.gait if r.entry else ''} at {r.detail:g} m/s"
    try:
        m = measure_run(r.character, r.rollout, r.detail, min(5.0, 0.3 * sim))
    except GaitforgeError as exc:
        return Measures(title, (), (f"no measurements: {exc}",))
    return Measures(title, tuple((k.replace("_", " "), fmt(v)) for k, v in m.as_dict().items()))


def controller(entry: Entry, character, speed: float):
    """The catalogue's controller of ``entry``'s gait at ``speed`` [m/s]
    for ``character`` (its options at their defaults)."""
    r = catalog.runner(entry.key)
    assert r.make is not None
    return r.make(character, entry.gait, speed)


def entries() -> list[Entry]:
    out: list[Entry] = []
    for r in catalog.RUNNERS.values():
        options = frozenset({"scale"} if r.scalable else set()) | frozenset({"path"} if r.paths else set())
        out += catalogue_entries(r, "raibert", simulate, measure, options=options, controller=controller)
    return out

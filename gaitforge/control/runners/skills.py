"""Wang 2011's skills runners (``control.skills.catalog``: dog, gorilla) as
registry entries: they turn on command, follow waypoint paths, take a
schedule of commands and run under named gain sets."""
from __future__ import annotations

from gaitforge.control.entry import Entry, Measures, Run, check_speed
from gaitforge.control.runners.common import catalogue_entries
from gaitforge.control.skills import catalog
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.sim.runner import run

MIN_MEASURED = 4.0  # s: shorter runs are not measured (the footfalls need a few strides after settling)


def simulate(entry: Entry, speed: float, seconds: float, *, timestep=None, start=None, progress=None, perturb=None,
             gains: str = "ours", path=None, turn_rate: float = 0.0, schedule=None):
    """(character, rollout, None) of a run: ``gait`` at ``speed`` [m/s] (or
    a ``schedule`` of commands, each checked against its gait's range),
    turning at ``turn_rate`` [rad/s] or following ``path``; ``start``
    scales the creature's friction before the controller is built and moves
    its start state."""
    r = catalog.runner(entry.key)
    for c in schedule or ():
        r.check_gait(c.gait)
        check_speed(f"{entry.key} {c.gait}", c.speed, r.speed_ranges[c.gait])
    character = Character.from_spec(registry.build(r.creature))
    if start is not None:
        start.apply_friction(character.model)
    assert r.make is not None
    controller = r.make(character, entry.gait, speed, path=path, turn_rate=turn_rate, schedule=schedule, gains=gains)
    rollout = run(character, controller, seconds, perturb=perturb, progress=progress, timestep=timestep,
                  initial=start)
    return character, rollout, None


def measure(r: Run) -> Measures:
    """Speed, footfall class, stride and duty factors after the run settled
    (a third of it, at most 10 s); runs shorter than 4 s and standing
    (a gait whose range is 0) are not measured."""
    from gaitforge.control.skills.gaitcheck import check

    title = f"{r.character.name} {r.entry.gait if r.entry else ''}"
    sim = r.rollout.clip.duration
    lo_hi = r.entry.speed_range if r.entry else None
    if sim < MIN_MEASURED or lo_hi is None or lo_hi[1] <= 0:
        return Measures(title, ())
    c = check(r.character, r.rollout, settle=min(10.0, sim / 3))
    rows = [("speed, start to end (m/s)", f"{c.speed:.3f}"),
            ("footfalls classified", c.gait + (f" ({c.sequence} sequence)" if c.sequence else "")),
            ("stride (s)", f"{c.metrics.stride_duration:.3f}")]
    rows += [(f"duty {foot}", f"{duty:.2f}") for foot, duty in c.metrics.duty_factor.items()]
    return Measures(title, tuple(rows))


def gait_graph(entry: Entry, speed: float):
    """(graph, limbs): the gait graph (``control.skills.gaits``) the
    controller follows for ``entry``'s gait at ``speed`` [m/s], and the
    limbs it names."""
    from gaitforge.control.skills.gaitgraph import LIMBS

    return catalog.PARAMS[entry.key].gaits[entry.gait].graph(speed), LIMBS


def controller(entry: Entry, character, speed: float):
    """The catalogue's controller of ``entry``'s gait at ``speed`` [m/s]
    for ``character`` (a plain command, "ours" gains)."""
    r = catalog.runner(entry.key)
    assert r.make is not None
    return r.make(character, entry.gait, speed)


def entries() -> list[Entry]:
    out: list[Entry] = []
    for key, r in catalog.RUNNERS.items():
        out += catalogue_entries(r, "skills", simulate, measure, gain_sets=tuple(catalog.GAINS[key]),
                                 options=frozenset({"path", "turn_rate", "schedule", "plots"}), gait_graph=gait_graph,
                                 controller=controller)
    return out

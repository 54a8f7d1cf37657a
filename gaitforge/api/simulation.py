"""The API's simulations: the controller registry's runners, runs, their
plots, push recovery and standing balance (:mod:`gaitforge.api`)."""
from __future__ import annotations

import os
from typing import NamedTuple

from gaitforge import inputs
from gaitforge.control.entry import Entry, Run


def runners() -> tuple[Entry, ...]:
    """Every runnable (creature, gait) of the controller registry
    (:data:`gaitforge.control.registry.ENTRIES`): key, gait, family, speed
    range [m/s], default speed, whether it stands (can be pushed), the run
    options it takes and its gain sets."""
    from gaitforge.control.registry import ENTRIES

    return ENTRIES


def runner(name: str, gait: str | None = None, *, plots=None, pushed: bool = False) -> Entry:
    """The registry entry of runner ``name`` (a key or an alias) and ``gait``
    (None: its default gait), the one :func:`run` and :func:`push` would
    use; raises ``GaitforgeError`` naming the valid runners or gaits. With
    ``plots`` (a folder) it refuses a runner that has no plots; with
    ``pushed`` one that does not stand (naming those that do)."""
    from gaitforge.control import registry
    from gaitforge.sim.push import check_pushable

    e = registry.entry(inputs.text("name", name), inputs.optional_text("gait", gait))
    registry.check_options(e, {"plots": plots})
    if inputs.flag("pushed", pushed):
        check_pushable(e, registry.standing())
    return e


def runner_names(*, takes: str | None = None, stands: bool = False, aliases: bool = False) -> list[str]:
    """Runner keys in registry order: every one, those that take run option
    ``takes`` ("path", "scale", "turn_rate", "schedule", "plots"), those that
    stand (``stands``: can be pushed); or, with ``aliases``, the other names
    accepted (``biped``, ``quadruped``)."""
    from gaitforge.control import registry

    takes = inputs.optional_text("takes", takes)
    if inputs.flag("aliases", aliases):
        return registry.aliases()
    if inputs.flag("stands", stands):
        return registry.standing()
    return registry.keys() if takes is None else registry.takers(takes)


def push_speeds(name: str, gait: str) -> list[float]:
    """The speeds [m/s] :func:`push` covers when none are asked for
    (:func:`gaitforge.sim.push.default_speeds`)."""
    from gaitforge.sim.push import default_speeds

    return default_speeds(runner(name, gait, pushed=True))


def published_pushes(name: str, gait: str) -> dict[float, float]:
    """The published largest pushes {speed [m/s]: force [N]} of a runner's
    gait (Coros 2011 Table 3.1; {} where none are published)."""
    from gaitforge.sim.push import published

    e = runner(name, gait)
    return published(e.key, e.gait)


def run(name: str, gait: str | None = None, *, speed: float | None = None, seconds: float = 10.0,
        scale: float = 1.0, turn_rate: float = 0.0, path=None, schedule=None, gains: str = "ours",
        timestep: float | None = None, progress=None) -> Run:
    """Simulate any runner of the controller registry (``gaitforge runners``
    lists them; :mod:`gaitforge.control.registry`): a Raibert & Hodgins
    runner (raibert_biped, raibert_quadruped, kangaroo; biped and quadruped
    accepted), a skills runner (dog, gorilla) or a modal gait (worm, loop).
    ``gait`` one of its gaits (default its default), ``speed`` [m/s]
    (default the gait's default; outside the gait's range refused; a modal
    gait takes none), ``seconds`` of simulated time; dynamic ``scale``,
    ``turn_rate`` [rad/s], ``path`` (a ``WaypointPath``) and a
    ``schedule`` of ``skills.commands.Command`` where the runner takes them;
    ``gains`` a named gain set ("ours"; the gorilla also "thesis",
    "ours-10ms", "thesis-10ms"); ``timestep`` [s] replaces the physics step
    (it must divide the control interval; ``rollout.physics`` says what
    ran); ``progress(t)`` is called about once per simulated second.
    Returns a :class:`Run` that unpacks as ``character, rollout``."""
    from gaitforge.control import registry

    name, gait = inputs.text("name", name), inputs.optional_text("gait", gait)
    e = registry.entry(name, gait)
    seconds = inputs.RUN_SECONDS.check("seconds", seconds)
    scale, turn_rate = inputs.SCALE.check("scale", scale), inputs.TURN_RATE.check("turn_rate", turn_rate)
    schedule = inputs.schedule("schedule", schedule, seconds)
    registry.check_options(e, {"path": path, "scale": scale, "turn_rate": turn_rate, "schedule": schedule})
    path = inputs.waypoint_path("path", path)  # (a file is read only for a runner that follows paths)
    if isinstance(path, str):
        from gaitforge.io.paths import load_path

        path = load_path(path)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    gains = inputs.text("gains", gains)
    if progress is not None and not callable(progress):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"progress: must be a callable (t) or None, got {brief(progress)}")
    options = {"path": path, "scale": scale, "turn_rate": turn_rate, "schedule": schedule}
    e.check_gains(gains)
    return e.run(speed=inputs.run_speed(e, speed, path), seconds=seconds, timestep=timestep, gains=gains,
                 progress=progress, **{k: v for k, v in options.items() if k in e.options})


def run_plots(run: Run, folder: str | os.PathLike) -> list:
    """Write the plots of a run whose entry has a gait graph into
    ``folder`` (made if missing): footprints.png (where the feet landed),
    gait_graph.png (the graph the controller followed) and gait_diagram.png
    (the footfalls); returns their paths."""
    from pathlib import Path

    from gaitforge.control import registry
    from gaitforge.io.gait_plots import save_gait_diagram
    from gaitforge.io.skills_plots import footholds, save_footprints, save_gait_graph
    from gaitforge.motion.footfall import detect_footfalls

    if not isinstance(run, Run) or run.entry is None:
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"run: must be a Run (from gf.run), got {brief(run)}")
    e = run.entry
    registry.check_options(e, {"plots": folder})
    assert e.gait_graph is not None and run.speed is not None
    character, rollout = run
    out = Path(inputs.path_or_name("folder", folder))
    ff = detect_footfalls(character, rollout.clip, ground=0.0, height_tol=0.01)
    title = f"{character.name} {e.gait} at {run.speed:g} m/s"
    paths = [out / "footprints.png", out / "gait_graph.png", out / "gait_diagram.png"]
    save_footprints(footholds(character, ff, rollout.clip.qpos), paths[0], f"Footprints: {title}")
    graph, limbs = e.gait_graph(e, run.speed)
    save_gait_graph(graph, limbs, paths[1], f"Gait graph: {title}")
    save_gait_diagram(ff, paths[2], f"Footfalls: {title}")
    return paths


def push(name: str, gait: str, *, speeds=None, phases: int = 4, workers: int | None = None,
         ray: str | None = None, force: float | None = None, gains: str = "ours",
         timestep: float | None = None, progress=None) -> dict:
    """Push recovery (:mod:`gaitforge.sim.push`: a 0.5 s sideways push at the
    pelvis, every phase tried, survival as :data:`gaitforge.sim.push.SURVIVAL`)
    of ``name``'s ``gait`` at each commanded speed [m/s] (default
    :func:`gaitforge.sim.push.default_speeds`); any registry runner that
    stands (a modal crawl does not: refused). Without ``force``: {speed: the
    largest force [N] such that every force on a grid of 2 % of body weight
    up to it survives} (:func:`gaitforge.sim.push.largest_push`). With
    ``force`` [N]: {speed: {"force", "survived", "phases": [per phase:
    start_s, survived, peak_tilt_deg, min_height_m, foreign_contact, fall],
    "criteria"}} (:func:`gaitforge.sim.push.push_at`). ``gains``: a named
    gain set ("ours"; the gorilla also "thesis": its servos at kp_scale 1,
    and "ours-10ms", "thesis-10ms": at its former 10 ms discrete step;
    ``control.skills.catalog.GAINS``); ``timestep`` [s] replaces the
    runner's physics step. Trials run on ``workers`` processes or a Ray
    cluster. ``progress``: see :func:`push_results`."""
    results = push_results(name, gait, speeds=speeds, phases=phases, workers=workers, ray=ray, force=force,
                           gains=gains, timestep=timestep, progress=progress)
    if force is not None:
        return {r.case.speed: r.as_dict() for r in results}
    return {r.case.speed: r.largest for r in results}


def push_results(name: str, gait: str, *, speeds=None, phases: int = 4, workers: int | None = None,
                 ray: str | None = None, force: float | None = None, gains: str = "ours",
                 timestep: float | None = None, progress=None) -> list:
    """:func:`push`'s full results, one per speed: ``sim.push.PushResult``
    (the scan: largest, first failing force, its phases' verdicts, stride,
    trials), or ``sim.push.ForceResult`` with ``force``. ``progress(done,
    speed, force, trials)`` is called as the work advances (``done``: speeds
    finished; ``force`` [N] and ``trials`` of the scan under way, None when
    a speed is finished)."""
    from gaitforge.control import registry
    from gaitforge.sim.batch import check_workers
    from gaitforge.sim.push import PushCase, check_force, check_pushable, largest_push, push_at

    name, gait = inputs.text("name", name), inputs.text("gait", gait)
    e = registry.entry(name, gait)
    check_pushable(e, registry.standing())
    e.check_gains(inputs.text("gains", gains))
    if force is not None:
        force = check_force(force)
    phases = inputs.PUSH_PHASES.check("phases", phases)
    check_workers(workers)
    ray = inputs.optional_text("ray", ray)
    speeds = inputs.push_speeds(e, speeds)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    if progress is not None and not callable(progress):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"progress: must be a callable or None, got {brief(progress)}")
    out: list = []
    for k, v in enumerate(speeds):
        case = PushCase(e, float(v), gains=gains, timestep=timestep)
        if force is not None:
            out.append(push_at(case, force, phases=phases, workers=workers, ray=ray))
        else:
            def advance(f: float, trials: int, k: int = k, v: float = v) -> None:
                if progress is not None:
                    progress(k, v, f, trials)
            out.append(largest_push(case, phases=phases, workers=workers, ray=ray, progress=advance))
        if progress is not None:
            progress(k + 1, v, None, None)
    return out


def balance(name: str, *, seconds: float = 5.0, quick: bool = False, timestep: float | None = None,
            workers: int | None = 1, progress=None):
    """Standing balance with modal displacements (Kry 2012 §4.6) of built-in
    creature ``name``: the largest lateral and forward pushes survived with
    the feedback and without, and standing on ground tilting by ±5°
    (``control.modal.balance_report.BalanceReport``; ``.as_dict()`` is the
    JSON of ``gaitforge balance``). ``seconds`` [s]: how long each run is
    judged after its push (the push protocol's 5 s); ``quick``: a grid of
    10 % of body weight instead of 2 % (coarser, about five times fewer
    runs); ``timestep`` [s] replaces the physics step; ``progress(what)``
    after each scan."""
    from gaitforge.control.modal.balance_report import BalanceSettings, measure
    from gaitforge.creatures import registry
    from gaitforge.sim.batch import check_workers

    name = registry.entry(inputs.text("name", name)).name
    seconds = inputs.Span(0, 600, above=True).check("seconds", seconds)
    quick = inputs.flag("quick", quick)
    timestep = None if timestep is None else inputs.TIMESTEP.check("timestep", timestep)
    check_workers(workers)
    if progress is not None and not callable(progress):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"progress: must be a callable or None, got {brief(progress)}")
    settings = BalanceSettings(after=seconds, step=0.1 if quick else 0.02, timestep=timestep)
    return measure(name, settings, workers=workers, progress=progress)


def balance_goal() -> float:
    """How many times larger the pushes :func:`balance` finds survived with
    the modal feedback should be than those without it (Kry 2012 §4.6)."""
    from gaitforge.control.modal.balance_report import GOAL

    return GOAL


def balance_scans() -> int:
    """How many times one :func:`balance` calls its ``progress``: one per
    push direction and tilt axis, each with the feedback and without."""
    from gaitforge.control.modal.balance_report import STEPS

    return STEPS


class RaibertReport(NamedTuple):
    """Table 2 of Raibert & Hodgins 1991 reproduced by :func:`raibert_report`:
    each experiment's run (``control.raibert.report.ExperimentRun``:
    experiment, character, rollout, measures, None for a run that fell) and
    the table's lines (``ReportLine``: experiment, quantity, the real
    animal's or robot's value, the paper's animation's, ours or None)."""

    runs: list
    lines: list
    seconds: float  # simulated time per experiment [s]

    @property
    def markdown(self) -> str:
        """The table as markdown, one table per experiment, the paper's two columns beside ours."""
        from gaitforge.io.raibert_report import table_markdown

        return table_markdown(self.lines)


def raibert_experiments() -> tuple:
    """The experiments of RH91 Table 2 (``control.raibert.table2.Experiment``:
    title, creature, gait, speed [m/s], rows) that :func:`raibert_report` runs."""
    from gaitforge.control.raibert.table2 import TABLE2

    return tuple(TABLE2)


def raibert_report(seconds: float = 30.0, progress=None) -> RaibertReport:
    """Reproduce RH91 Table 2: simulate each of :func:`raibert_experiments`
    for ``seconds`` [s] (above 0, at most 600) and measure its whole strides
    after a settling time (a third of the run, at most 10 s).
    ``progress(title)`` is called before each experiment's run."""
    from gaitforge.control.raibert.report import report_lines, run_experiments

    seconds = inputs.Span(0, 600, above=True).check("seconds", seconds)
    if progress is not None and not callable(progress):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"progress: must be a callable (title) or None, got {brief(progress)}")
    runs = run_experiments(seconds, settle=min(10.0, seconds / 3), progress=progress)
    return RaibertReport(runs, report_lines(runs), seconds)


def save_raibert_report(report: RaibertReport, folder: str | os.PathLike) -> list:
    """Write :func:`raibert_report`'s table into ``folder`` (made if
    missing) as table2.md and table2.csv, and a plot of each experiment
    that stayed up from the middle of its run (the kangaroo's leg angles
    and ground force over 3 hops as RH91 Fig. 6, ``NAME_fig6.png``; a
    robot's leg lengths and ground force over 1 s, ``NAME_legs.png``), all
    together or none; returns the paths written."""
    from pathlib import Path

    from gaitforge.io.atomic import atomic_paths
    from gaitforge.io.raibert_report import plot_name, save_run_plot, save_table

    if not isinstance(report, RaibertReport):
        from gaitforge.errors import GaitforgeError, brief
        raise GaitforgeError(f"report: must be a RaibertReport (from gf.raibert_report), got {brief(report)}")
    out = Path(inputs.path_or_name("folder", folder))
    standing = [(r, out / plot_name(r)) for r in report.runs if r.rollout.fall is None]
    paths = [out / "table2.md", out / "table2.csv", *(p for _, p in standing)]
    with atomic_paths(*paths) as temps:
        md, csv, *plots = (t for t in temps if t is not None)
        save_table(report.lines, md, csv)
        for (r, _), path in zip(standing, plots):
            save_run_plot(r, path, report.seconds / 2)
    return paths

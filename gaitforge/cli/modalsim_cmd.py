"""Commands for physically simulated modal control: ``simulate`` (replay a
modal gait recipe in MuJoCo) and ``landscape`` (distance over magnitude ×
phase, Kry 2012 Fig. 4); ``optimize`` lives in :mod:`.modalopt_cmd`."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from rich.console import Console

from gaitforge import api
from gaitforge.cli.args import number, video_args
from gaitforge.errors import GaitforgeError

console = Console(highlight=False)
MAX_SECONDS = 3600.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("simulate", help="simulate a modal gait (spring reference along modes) in MuJoCo")
    p.add_argument("creature", metavar="NAME|FILE", help="built-in creature or creature file")
    p.add_argument("--recipe", metavar="FILE", help="modal gait recipe (default: the hand-set gait of worm/loop)")
    p.add_argument("--seconds", type=number(0, MAX_SECONDS, above=True), default=5.0, metavar="S",
                   help="simulated time [s] (default 5)")
    p.add_argument("-o", "--out", metavar="FILE", help="write the motion: .mp4 .gif .glb .bvh .npz .csv")
    p.add_argument("--traces", metavar="FILE.csv", help="write energy and contact traces (CSV)")
    p.add_argument("--contact-bases", action="store_true",
                   help="drive, while feet touch the ground, the modes of the creature with those feet pinned "
                        "(one foot of a biped, a pair of a quadruped; Kry 2012 §3.5)")
    timestep_arg(p)
    video_args(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("landscape", help="distance travelled over activation magnitude x phase (Kry 2012 Fig. 4)")
    p.add_argument("creature", metavar="NAME", help="built-in creature (worm, loop)")
    p.add_argument("--grid", type=number(2, 200, integer=True), default=16, metavar="N",
                   help="N x N cells (default 16)")
    p.add_argument("--seconds", type=number(0, MAX_SECONDS, above=True), default=5.0, metavar="S",
                   help="simulated time per cell [s] (default 5)")
    p.add_argument("--max-magnitude", type=number(0, 1e6, above=True), metavar="A",
                   help="largest activation (modal units; default 2.5x the hand-set amplitude)")
    p.add_argument("--frequency", type=number(0, 1000, above=True), metavar="HZ",
                   help="drive frequency (default: the hand-set gait's)")
    _workers_args(p)
    p.add_argument("--out-dir", default="landscape", metavar="DIR",
                   help="folder for landscape.csv and landscape.png (default landscape)")
    p.set_defaults(func=cmd_landscape)


def timestep_arg(p) -> None:
    from gaitforge.sim.physics import TIMESTEP_RANGE

    p.add_argument("--timestep", type=number(*TIMESTEP_RANGE), metavar="DT",
                   help="physics step [s] (default: the creature's modal physics, printed; the contact model stays)")


def physics_lines(character, physics) -> list[str]:
    """What a modal run of ``character`` integrates with: MuJoCo's settings as
    the prepared model holds them (``sim.physics.Physics``) and the joint limits."""
    import copy

    from gaitforge.control.modal.physics import is_checked, limits
    from gaitforge.sim.physics import Physics

    m = copy.copy(character.model)
    physics.apply(m)
    lines = [str(Physics.of(m)), f"{limits(character, physics)}; {physics.why}"]
    if not is_checked(character):
        lines.append(f"[yellow]note: no modal physics was measured for {character.name}; these are the defaults "
                     "(docs/modal_physics.md)[/yellow]")
    return lines


def _workers_args(p) -> None:
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--workers", type=number(1, 1024, integer=True), metavar="K",
                   help="local worker processes (default: all cores)")
    p.add_argument("--ray", metavar="auto|ADDRESS", help="evaluate on a Ray cluster instead (needs gaitforge[cluster])")


# ------------------------------------------------------------------ validation
def _positive(name: str, value: float, limit: float = math.inf) -> float:
    if value is None or not math.isfinite(value) or value <= 0 or value > limit:
        bound = "" if math.isinf(limit) else f" and at most {limit:g}"
        raise GaitforgeError(f"{name} must be a positive finite number{bound}, got {value}")
    return float(value)


def _check_workers(args) -> None:
    if args.ray is not None and not args.ray.strip():
        raise GaitforgeError("--ray needs 'auto' or a cluster address")


def _creature(name_or_path: str):
    """(the Character, a picklable source the workers can rebuild it from):
    a built-in name, or a creature file of any format (an absolute path, so
    that workers started elsewhere find it)."""
    import functools
    import os

    from gaitforge.naming import match

    name = match(name_or_path, api.creature_names())
    source = name if name else functools.partial(api.creature, os.path.abspath(name_or_path))
    return api.creature(name_or_path), source


def _start_recipe(character, path: str | None):
    from gaitforge.control.modal.presets import hand_set, names

    if path:
        from gaitforge.io.recipe_files import load_recipe
        return load_recipe(path)
    if character.name in names():
        return hand_set(character.name)
    raise GaitforgeError(f"{character.name} has no hand-set modal gait; give a recipe file")


# ------------------------------------------------------------------ commands
def cmd_simulate(args) -> int:
    from gaitforge.control.modal import run_recipe
    from gaitforge.control.modal.measures import limits_report, summarize
    from gaitforge.control.modal.physics import physics_for
    from gaitforge.control.modal.presets import RAMP
    from gaitforge.io.atomic import check_output

    seconds = args.seconds
    if args.out:
        check_output(args.out, api.motion_formats(), "motion")
    if args.traces:
        check_output(args.traces, (".csv",), "traces")
    character, _ = _creature(args.creature)
    recipe = _start_recipe(character, args.recipe)
    if recipe.creature not in (character.name, args.creature):
        raise GaitforgeError(f"recipe {recipe.name!r} is for {recipe.creature!r}, not {character.name!r}")
    physics = physics_for(character, args.timestep)
    for line in physics_lines(character, physics):
        console.print(line)
    r = run_recipe(character, recipe, seconds, ramp=RAMP, physics=physics, contact_bases=args.contact_bases)
    s = summarize(r, character.mass)  # cycles of the stride (the lowest frequency), not of a harmonic
    console.print(f"{character.name} {recipe.name}: {r.clip.duration:.2f} s simulated in "
                  f"{r.rollout.wall_time:.2f} s")
    status = 0
    if r.divergence is not None:
        console.print(f"[red]{r.divergence}[/red]")
        status = 1
    else:
        console.print(f"travel {r.distance:.3f} m ({s.body_lengths:.2f} body lengths, dx {r.displacement[0]:+.3f} m), "
                      f"speed {s.speed:.3f} m/s, work {s.work:.3f} J, cost of transport {s.cost_of_transport:.3g}, "
                      f"cycle residual {s.cycle_residual:.3g}")
    console.print(limits_report(s, r.limits))
    if r.bases is not None:
        console.print(str(r.bases))
    from gaitforge.io.atomic import atomic_paths
    from gaitforge.cli.outputs import save_clip, video_options
    from gaitforge.io.modal_traces import save_traces

    with atomic_paths(args.out, args.traces) as (tmp_out, tmp_traces):  # both files or neither
        if tmp_out is not None:
            save_clip(character, r.clip, tmp_out, label=Path(args.out).name, **video_options(args))
        if tmp_traces is not None:
            save_traces(character, r, tmp_traces)
    for path in (args.out, args.traces):
        if path:
            console.print(f"wrote {path}")
    return status




def cmd_landscape(args) -> int:
    from gaitforge.control.modal.presets import hand_set
    from gaitforge.io.landscape_files import save_landscape_csv, save_landscape_png
    from gaitforge.optimize import ModalProblem, landscape

    from gaitforge.io.atomic import check_output_dir

    grid, seconds = args.grid, args.seconds
    _check_workers(args)
    out = check_output_dir(args.out_dir)
    recipe = hand_set(args.creature)
    amax = _positive("--max-magnitude", args.max_magnitude if args.max_magnitude is not None
                     else 2.5 * max(t.amplitude for t in recipe.terms))
    freq = _positive("--frequency", args.frequency if args.frequency is not None else recipe.terms[0].frequency,
                     1000.0)
    problem = ModalProblem(args.creature, modes=(0, 1), seconds=seconds, strict_limits=False)  # a map: no limit stops
    mags = np.linspace(amax / grid, amax, grid)
    phases = np.linspace(0.0, 2.0 * math.pi, grid, endpoint=False)
    from gaitforge.cli.progress import progress_bar

    with progress_bar("landscape", grid * grid, quiet=args.quiet, unit="cells") as advance:
        ls = landscape(problem, mags, phases, freq, workers=args.workers, ray=args.ray, progress=advance)
    from gaitforge.io.atomic import atomic_paths

    with atomic_paths(out / "landscape.csv", out / "landscape.png") as temps:  # both or neither
        csv_path, png_path = (p for p in temps if p is not None)
        save_landscape_csv(ls, csv_path)
        save_landscape_png(ls, png_path)
    i, j = ls.optimum()
    kind = "non-cyclic" if ls.non_cyclic[i, j] else "cyclic"
    console.print(f"optimum: {ls.distance[i, j]:.3f} m at magnitude {ls.magnitudes[i]:.4g}, "
                  f"phase {math.degrees(ls.phases[j]):.1f} deg ({kind})")
    if ls.non_cyclic[i, j] and not (ls.non_cyclic | ls.blew_up).all():
        ci, cj = ls.optimum(cyclic_only=True)
        console.print(f"best cyclic cell: {ls.distance[ci, cj]:.3f} m at magnitude {ls.magnitudes[ci]:.4g}, "
                      f"phase {math.degrees(ls.phases[cj]):.1f} deg")
    quarter = int(np.argmin(np.abs(ls.phases - math.pi / 2)))
    best_q = float(np.max(np.where(ls.blew_up[:, quarter], -np.inf, ls.distance[:, quarter])))
    verdict = "is" if best_q >= ls.distance[i, j] else "is not"
    console.print(f"phase {math.degrees(ls.phases[quarter]):.1f} deg (nearest pi/2): best {best_q:.3f} m; "
                  f"pi/2 {verdict} optimal")
    console.print(f"{int(ls.blew_up.sum())} cells blew up, {int(ls.non_cyclic.sum())} became non-cyclic")
    console.print(f"wrote {out}/landscape.csv and {out}/landscape.png")
    return 0

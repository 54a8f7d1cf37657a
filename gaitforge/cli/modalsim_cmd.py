"""Commands for physically simulated modal control: ``simulate`` (replay a
modal gait recipe in MuJoCo) and ``landscape`` (distance over magnitude ×
phase, Kry 2012 Fig. 4); ``optimize`` lives in :mod:`.modalopt_cmd`."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
from rich.console import Console

from gaitforge import api, inputs
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
    p.add_argument("--timestep", type=number(inputs.TIMESTEP), metavar="DT",
                   help="physics step [s] (default: the creature's modal physics, printed; the contact model stays)")


def physics_lines(character, physics) -> list[str]:
    """What a modal run of ``character`` integrates with (``gf.physics_summary``):
    MuJoCo's settings as the prepared model holds them, and the joint limits."""
    notes = api.physics_summary(character, physics)
    lines = [notes.settings, f"{notes.limits}; {notes.why}"]
    if not notes.measured:
        lines.append(f"[yellow]note: no modal physics was measured for {character.name}; these are the defaults "
                     "(docs/modal_physics.md)[/yellow]")
    return lines


def _workers_args(p) -> None:
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--workers", type=number(1, 1024, integer=True), metavar="K",
                   help="local worker processes (default: all cores)")
    p.add_argument("--ray", metavar="auto|ADDRESS", help="evaluate on a Ray cluster instead (needs gaitforge[cluster])")


# ------------------------------------------------------------------ validation
def _check_workers(args) -> None:
    if args.ray is not None and not args.ray.strip():
        raise GaitforgeError("--ray needs 'auto' or a cluster address")


# ------------------------------------------------------------------ commands
def cmd_simulate(args) -> int:
    from gaitforge.io.atomic import check_output

    seconds = args.seconds
    if args.out:
        check_output(args.out, api.motion_formats(), "motion")
    if args.traces:
        check_output(args.traces, (".csv",), "traces")
    character, _ = api.creature_source(args.creature)
    recipe = api.modal_recipe(character, args.recipe)
    if recipe.creature not in (character.name, args.creature):
        raise GaitforgeError(f"recipe {recipe.name!r} is for {recipe.creature!r}, not {character.name!r}")
    physics = api.modal_physics(character, args.timestep)
    for line in physics_lines(character, physics):
        console.print(line)
    made = api.simulate(character, recipe, seconds, physics=physics, contact_bases=args.contact_bases)
    r, s = made.run, made.summary
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
    console.print(made.limits_text)
    if r.bases is not None:
        console.print(str(r.bases))
    from gaitforge.io.atomic import atomic_paths
    from gaitforge.cli.outputs import save_clip, video_options

    with atomic_paths(args.out, args.traces) as (tmp_out, tmp_traces):  # both files or neither
        if tmp_out is not None:
            save_clip(character, r.clip, tmp_out, label=Path(args.out).name, **video_options(args))
        if tmp_traces is not None:
            api.save_modal_traces(tmp_traces, character, made)
    for path in (args.out, args.traces):
        if path:
            console.print(f"wrote {path}")
    return status




def cmd_landscape(args) -> int:
    from gaitforge.cli.progress import progress_bar
    from gaitforge.io.atomic import atomic_paths, check_output_dir

    grid = args.grid
    _check_workers(args)
    out = check_output_dir(args.out_dir)
    api.hand_set(args.creature)  # a creature without a hand-set gait is refused before the progress bar
    with progress_bar("landscape", grid * grid, quiet=args.quiet, unit="cells") as advance:
        ls = api.landscape(args.creature, grid=grid, max_magnitude=args.max_magnitude, frequency=args.frequency,
                           seconds=args.seconds, workers=args.workers, ray=args.ray, progress=advance)
    with atomic_paths(out / "landscape.csv", out / "landscape.png") as temps:  # both or neither
        csv_path, png_path = (p for p in temps if p is not None)
        api.save_landscape(ls, csv_path, png_path)
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

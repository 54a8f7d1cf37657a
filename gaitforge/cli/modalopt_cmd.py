"""``gaitforge optimize``: CMA-ES by shooting over modal controller
parameters with the cyclic constraint (Nunes et al. 2012, surveyed in
Kry 2012 §4.5), from a hand-set gait, a recipe file or a suggested gait."""
from __future__ import annotations

import argparse
import math

from gaitforge import api
from gaitforge.cli.args import number
from gaitforge.cli.modalsim_cmd import MAX_SECONDS, _check_workers, _workers_args, console, physics_lines, timestep_arg
from gaitforge.errors import GaitforgeError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("optimize", help="optimize a modal gait by CMA-ES shooting with a cyclic constraint")
    p.add_argument("creature", metavar="NAME|FILE", help="built-in creature or creature file")
    p.add_argument("--objective", choices=["distance", "speed", "cost"], default=None,
                   help="maximize distance or speed, or minimize cost (energy per distance); default distance "
                        "(cost with --sketch)")
    p.add_argument("--budget", type=number(2, 1e7, integer=True), default=200, metavar="N",
                   help="simulations in total (default 200)")
    p.add_argument("--seconds", type=number(0, MAX_SECONDS, above=True), default=5.0, metavar="S",
                   help="horizon per simulation [s] (default 5)")
    p.add_argument("--seed", type=number(0, 2 ** 32 - 1, integer=True), default=1, metavar="S",
                   help="random seed (default 1)")
    p.add_argument("--start", metavar="FILE|GAIT",
                   help="start recipe: a file, or a gait the heuristics suggest (e.g. bound); default: the hand-set "
                        "gait")
    p.add_argument("--sketch", metavar="FILE",
                   help="a sketch (YAML/JSON: the cycle's air and ground phases, the modes to favour in each and "
                        "the modes to avoid): the start recipe, and a barrier on the avoided modes")
    p.add_argument("--heading", default=None, metavar="auto|any|DEG",
                   help="direction that counts as forward: auto (the start gait's; the default), any (the default "
                        "with --sketch), or degrees from +x")
    p.add_argument("--cyclic-tol", type=float, default=api.cyclic_tolerance(), metavar="R",
                   help=f"allowed cycle residual (default {api.cyclic_tolerance():g}; inf: unconstrained)")
    timestep_arg(p)
    p.add_argument("--single-step", action="store_true",
                   help="score each candidate at the step only (default: at DT and DT/2, the worse counts)")
    p.add_argument("--contact-bases", action="store_true",
                   help="candidates drive each contact state's modes (as simulate --contact-bases)")
    p.add_argument("--impulses", type=_modes, default=(), metavar="M,M..",
                   help="also optimize a once-per-cycle impulse (time and size) along these elastic modes")
    p.add_argument("--initial", type=_modes, default=(), metavar="M,M..",
                   help="also optimize the initial offset and velocity along these elastic modes")
    p.add_argument("--upright", type=_upright, metavar="H,DEG",
                   help="a candidate whose root drops below H m or tilts more than DEG degrees has fallen "
                        "(scored as failed)")
    p.add_argument("--popsize", type=number(0, 1e4, integer=True), default=0, metavar="N",
                   help="CMA-ES population (default: CMA-ES's own)")
    p.add_argument("--outer", type=number(1, 100, integer=True), default=3, metavar="N",
                   help="method-of-multipliers iterations, each a fresh CMA-ES from the best so far (default 3)")
    p.add_argument("--sigma", type=number(0, 100, above=True), default=0.25, metavar="S",
                   help="initial CMA-ES step in scaled units (default 0.25)")
    _workers_args(p)
    p.add_argument("--resume", action="store_true",
                   help="continue from the checkpoint OUT.ckpt: a killed run, or a finished one with a larger --budget")
    p.add_argument("-o", "--out", default="best.yaml", metavar="FILE", help="best recipe (default best.yaml)")
    p.set_defaults(func=cmd_optimize)


def _modes(text: str) -> tuple[int, ...]:
    try:
        modes = tuple(int(m) for m in text.split(",") if m.strip())
    except ValueError:
        modes = (-1,)
    if not modes or min(modes) < 0 or len(set(modes)) != len(modes):
        raise argparse.ArgumentTypeError(f"must be distinct elastic mode indices separated by commas, got {text!r}")
    return modes


def _upright(text: str) -> tuple[float, float]:
    try:
        h, deg = (float(v) for v in text.split(","))
    except ValueError:
        h = deg = math.nan
    if not (math.isfinite(h) and 0 < deg <= 180):
        raise argparse.ArgumentTypeError(f"must be a height [m] and an angle from 0 to 180 degrees, got {text!r}")
    return h, math.radians(deg)


def _heading(text: str):
    """'auto', 'any' or an angle in degrees (returned in radians)."""
    if text in ("auto", "any"):
        return text
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise GaitforgeError(f"--heading must be auto, any or a finite angle in degrees, got {text}")
    return math.radians(value)


def _start(character, text: str | None):
    """The start recipe: a file, a gait the heuristics suggest, or the hand-set gait."""
    import os

    if text and not os.path.exists(text) and text in api.gait_names():
        return api.suggest_recipe(character, text)
    return api.modal_recipe(character, text)


def cmd_optimize(args) -> int:
    from gaitforge.io.atomic import check_output

    seconds = args.seconds
    if math.isnan(args.cyclic_tol) or args.cyclic_tol <= 0:
        raise GaitforgeError(f"--cyclic-tol must be a positive number (inf: no constraint), got {args.cyclic_tol}")
    _check_workers(args)
    check_output(args.out, (".yaml", ".yml", ".json"), "recipe")
    sketch = None
    if args.sketch:
        if args.start:
            raise GaitforgeError("--sketch gives the start recipe: drop --start")
        sketch = api.sketch(args.sketch)
    args.objective = args.objective or ("cost" if sketch else "distance")
    heading = _heading(args.heading or ("any" if sketch else "auto"))
    character, source = api.creature_source(args.creature)
    if sketch is not None:
        try:
            start = api.sketch_recipe(sketch, character)
        except GaitforgeError as exc:
            raise GaitforgeError(f"{args.sketch}: {exc}") from None
        console.print(start.description)
    else:
        start = _start(character, args.start)
    name = f"{character.name}_optimized" if sketch is None else f"{sketch.name}_optimized"
    steps = {"seconds": seconds, "name": name, "impulses": args.impulses, "initial": args.initial,
             "timestep": args.timestep, "halved": not args.single_step, "contact_bases": args.contact_bases}
    if sketch is not None:
        steps |= {"avoid": sketch.avoid, "barrier": sketch.barrier, "min_travel": sketch.min_travel(character, seconds)}
        if args.upright is None:
            args.upright = sketch.fall_check(character)
    problem = api.modal_problem(source, start, **steps)
    for line in physics_lines(character, problem.physics()):
        console.print(line)
    console.print("each candidate runs at " + " and ".join(f"{1000 * dt:g} ms" for dt in problem.timesteps)
                  + (" (the worse score counts)" if len(problem.timesteps) > 1 else "")
                  + "; over a joint's speed limit or sunk too deep counts as a fall")
    settings = api.optimize_settings(problem, start, objective=args.objective, budget=args.budget, seed=args.seed,
                                     cyclic_tol=args.cyclic_tol, popsize=args.popsize, sigma=args.sigma,
                                     outer=args.outer)
    if heading == "auto":  # forward is where the start gait goes
        heading = api.start_direction(problem, start)
        if heading is None:
            raise GaitforgeError("the start gait does not travel, so it sets no heading; give --heading DEG or any")
        console.print(f"heading {math.degrees(heading):.1f} deg (the start gait's direction)")
    problem = api.modal_problem(source, start, heading=None if heading == "any" else heading, upright=args.upright,
                                **steps)
    from gaitforge.cli.progress import progress_bar

    with progress_bar(f"optimize {args.objective}", args.budget, quiet=args.quiet, unit="simulations") as advance:
        res = api.optimize_gait(problem, start, settings, workers=args.workers, ray=args.ray,
                                checkpoint=str(args.out) + ".ckpt", resume=args.resume,
                                progress=None if advance is None else
                                lambda n, total, f: advance(n, info=f"best f {f:.4g}"))
    s = res.score
    steps_note = " and ".join(f"{1000 * dt:g}" for dt in problem.timesteps)
    bases_note = ", contact-aware bases" if args.contact_bases else ""
    note = (f"CMA-ES ({args.objective}, seed {args.seed}, {res.evaluations} simulations of {seconds:g} s at "
            f"{steps_note} ms{bases_note}, the worse counting): {s.distance:.4g} m, "
            f"cost of transport {s.cost_of_transport:.4g}, "
            f"cycle residual {s.cycle_residual:.3g}"
            + (f", avoided modes {list(sketch.avoid)} {'within' if s.barrier == 0 else 'past'} their "
               f"{sketch.barrier:g}° barrier" if sketch is not None and sketch.avoid else "")
            + (f", {'at least' if s.slow == 0 else 'short of'} {sketch.min_speed:g} body lengths/s"
               if sketch is not None and sketch.min_speed else "")
            + ("" if res.feasible else " (constraints not met)"))
    api.save_recipe(problem.recipe(res.x, description=note), args.out)
    console.print(note)
    replay = f" --timestep {args.timestep:g}" if args.timestep is not None else ""
    replay += " --contact-bases" if args.contact_bases else ""
    console.print(f"wrote {args.out} (replay: gaitforge simulate {args.creature} --recipe {args.out} "
                  f"--seconds {seconds:g}{replay})")
    return 0

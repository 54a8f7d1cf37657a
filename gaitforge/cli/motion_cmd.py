"""Commands about kinematic gaits: ``animate`` (a gait clip from modes, written
as glTF, BVH, video or data), ``gaits`` (presets and suggested gaits) and
``metrics`` (footfall analysis of a saved clip)."""
from __future__ import annotations

import argparse
import math
from pathlib import Path

from rich.console import Console
from rich.table import Table

from gaitforge import api, inputs
from gaitforge.cli.args import number, speed_or_ramp, video_args
from gaitforge.cli.outputs import save_clip, video_options
from gaitforge.errors import GaitforgeError

console = Console(highlight=False)
DEFAULT_MODES = 20
TYPICAL = -1.0  # --froude without a value (the parser rejects it as a value): the gait's typical Froude number


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("animate", help="a kinematic gait from vibration modes, written as .glb/.bvh/.mp4/...")
    p.add_argument("creature", metavar="NAME|FILE|PRESET",
                   help="built-in creature, creature file, or a preset from 'gaitforge gaits' (one without extra "
                        "constraints made at its gait's typical Froude number; --kry09: the Kry09 clip)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--gait", metavar="GAIT",
                     help="gait, e.g. trot, walk, run: on a built-in creature made at its typical Froude number "
                          "(--kry09: the Kry09 heuristics' clip, the default for other skeletons)")
    how.add_argument("--recipe", metavar="FILE", help="a gait recipe file (YAML or JSON)")
    fast = p.add_mutually_exclusive_group()
    fast.add_argument("--speed", type=speed_or_ramp(inputs.ANIMATE_SPEED.hi), metavar="V|FROM:TO",
                      help="forward speed [m/s]: stride length and frequency by dynamic similarity, amplitude "
                           "solved to reach it; FROM:TO ramps the speed over the clip, changing gait on the way")
    fast.add_argument("--froude", type=number(inputs.FROUDE), metavar="F", nargs="?", const=TYPICAL,
                      help="speed as a Froude number V²/(g·hip height); without F, the one typical of the gait "
                           "(walk 0.25, trot and pace 1, run 1, bound 2, gallop 3)")
    fast.add_argument("--kry09", action="store_true",
                      help="with --gait or a preset: Kry09's own clip (the heuristics' small-amplitude recipe at "
                           "the mode frequencies) instead of the gait at its typical Froude number")
    p.add_argument("--seconds", type=number(inputs.ANIMATE_SECONDS), default=4.0, metavar="S",
                   help="clip length (default 4)")
    p.add_argument("--fps", type=number(inputs.FPS), default=60.0, metavar="N",
                   help="frames per second of the clip and of a video (default 60; a GIF at most 50)")
    p.add_argument("--modes", type=number(inputs.ANIMATE_MODES), default=None, metavar="N",
                   help=f"elastic modes to compute (default {DEFAULT_MODES}; with --speed/--froude "
                        "mode_selection.pool_size: more where the feet have soles)")
    p.add_argument("-o", "--out", metavar="FILE",
                   help="output .glb, .bvh, .mp4, .gif, .npz or .csv (default NAME-GAIT.glb)")
    p.add_argument("--save-recipe", metavar="FILE", help="also write the recipe used (YAML, or JSON for .json)")
    p.add_argument("--diagram", metavar="FILE.png", help="also write the gait diagram (footfall plot)")
    video_args(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--strict", action="store_true",
                   help="exit with 1 if no suggested recipe passes the gait's footfall check (default: a warning)")
    p.add_argument("--no-pin", action="store_true",
                   help="skip the modal-IK clean-up that pins stance feet (faster, but feet may skate)")
    p.add_argument("--no-flight", action="store_true",
                   help="keep a foot on the ground in every frame (no ballistic flight phases)")
    p.set_defaults(func=cmd_animate)

    p = sub.add_parser("gaits", help="the paper's example gaits (presets) and the gaits suggested per creature kind")
    p.set_defaults(func=cmd_gaits)

    p = sub.add_parser("metrics", help="footfalls, duty factors and phases of a saved clip (.npz)")
    p.add_argument("clip", metavar="CLIP.npz", help="a clip written by 'gaitforge animate -o FILE.npz'")
    p.add_argument("--creature", metavar="NAME|FILE", help="the clip's creature (default: the one it names)")
    p.add_argument("-o", "--out", "--diagram", dest="diagram", metavar="FILE.png",
                   help="write a gait diagram (footfall plot)")
    p.set_defaults(func=cmd_metrics)


# ------------------------------------------------------------------ helpers
def _character(name_or_path: str) -> api.Character:
    return api.creature(name_or_path)


def recipe_table(recipe, basis) -> Table:
    """The recipe's terms: mode, its natural frequency, α, γ [deg], f̃, β."""
    table = Table(title=f"recipe {recipe.name} ({recipe.creature})")
    for col in ("mode", "mode f [Hz]", "amplitude α", "phase γ [deg]", "frequency f̃ [Hz]", "offset β"):
        table.add_column(col, justify="right")
    for t in recipe.terms:
        table.add_row(str(t.mode), f"{basis.frequencies[t.mode]:.2f}", f"{t.amplitude:.4f}",
                      f"{math.degrees(t.phase):.0f}", f"{t.frequency:.3f}", f"{t.offset:.4f}")
    return table


def metrics_table(m, gait: str) -> Table:
    """Per-foot duty factor and phase, with the stride numbers in the title."""
    table = Table(title=f"{gait}: stride {m.stride_duration:.3f} s ({m.stride_frequency:.2f} Hz), "
                        f"length {m.stride_length:.3f} m, speed {m.speed:.3f} m/s, Froude {m.froude:.3f}, "
                        f"flight {100 * m.flight_fraction:.0f} %, foot skate {m.foot_skate:.2f}")
    for col in ("foot", "duty factor", f"phase after {m.reference} [cycles]"):
        table.add_column(col, justify="left" if col == "foot" else "right")
    for n in m.feet:
        table.add_row(n, f"{m.duty_factor[n]:.2f}", f"{m.phase[n]:.2f}")
    return table


def analyse(char: api.Character, clip, diagram: str | None = None, title: str = "", marks=()) -> None:
    """Print the footfall metrics of ``clip`` (and write a gait diagram,
    with ``marks``: (time, label) lines); a clip in which no foot lands
    twice is reported, not an error."""
    ff = api.footfalls(clip, char)
    if diagram:
        api.gait_diagram(diagram, ff, title or f"{char.name} gait diagram", marks=marks)
    try:
        m = api.metrics(clip, char, ff)
    except GaitforgeError as exc:
        console.print(f"no gait metrics: {exc}")
        return
    console.print(metrics_table(m, f"classified as {api.gait_class(m)}"))


# ------------------------------------------------------------------ commands
def cmd_animate(args) -> int:
    from gaitforge.io.atomic import check_output

    gait = args.gait or (Path(args.recipe).stem if args.recipe else "gait")
    out = args.out or f"{Path(args.creature).stem}-{gait}.glb"
    check_output(out, api.motion_formats(), "motion")  # every output checked before any work
    if args.save_recipe:
        check_output(args.save_recipe, (".yaml", ".yml", ".json"), "recipe")
    if args.diagram:
        check_output(args.diagram, (".png",), "image")
    preset = api.preset(args.creature) is not None
    if args.kry09 and not (args.gait or preset):
        raise GaitforgeError("--kry09 picks the Kry09 clip of a gait: give --gait GAIT (or a preset)")
    natural = (preset or bool(args.gait)) and api.at_typical_speed(args.creature, None if preset else args.gait)
    if natural and not (args.kry09 or args.no_flight or args.recipe) and args.speed is None and args.froude is None:
        args.froude = TYPICAL  # the gait at its natural speed (GaitSpec.typical_froude)
    fast = args.speed is not None or args.froude is not None
    ramp = isinstance(args.speed, tuple)
    # Which flags go together (the API's own checks name its arguments, these the flags).
    if ramp and (args.gait or args.save_recipe or args.no_flight):
        raise GaitforgeError("a speed ramp picks its own gaits and recipes: drop --gait/--save-recipe/--no-flight")
    if preset and (args.gait or args.recipe):
        raise GaitforgeError(f"{args.creature} is a preset with its own gait: drop --gait/--recipe")
    if preset and ramp:
        raise GaitforgeError(f"{args.creature} is a preset with its own gait: a speed ramp picks its own gaits "
                             "(give a creature)")
    if args.recipe and fast:
        raise GaitforgeError("a recipe file has its own speed: drop --speed/--froude (or use --gait)")
    if fast and args.no_flight:
        raise GaitforgeError("--no-flight does not go with --speed/--froude (the gait's flight sets its speed)")
    if args.froude == TYPICAL and not (args.gait or preset):
        raise GaitforgeError("--froude without a number takes the gait's typical one: give --gait GAIT")
    if not (preset or fast or args.gait or args.recipe):
        raise GaitforgeError(f"animate {args.creature}: give --gait GAIT or --recipe FILE "
                             f"(or a preset instead of a creature: {', '.join(p.name for p in api.presets())})")
    made = api.animation(None if preset else args.creature, args.creature if preset else args.gait,
                         seconds=args.seconds, fps=args.fps, count=args.modes, pin=not args.no_pin,
                         strict=args.strict, speed=args.speed,
                         froude=api.TYPICAL if args.froude == TYPICAL else args.froude, recipe=args.recipe,
                         flight=False if args.no_flight else None)
    char, clip, recipe = made.character, made.clip, made.recipe
    if made.ramp is not None:
        _print_ramp(args, made)
        marks = [(t, f"{a} → {b}") for t, a, b in made.ramp.switches]
        v0, v1 = args.speed
        analyse(char, clip, args.diagram, f"{char.name} {v0:g} → {v1:g} m/s", marks=marks)
    elif recipe is not None:
        console.print(recipe_table(recipe, made.basis))
        if recipe.description:
            console.print(recipe.description)
        analyse(char, clip, args.diagram, f"{char.name} {recipe.name}")
    from gaitforge.io.atomic import atomic_paths

    with atomic_paths(out, args.save_recipe) as (tmp_clip, tmp_recipe):  # both files or neither
        save_clip(char, clip, tmp_clip, label=Path(out).name, **video_options(args))
        if tmp_recipe is not None and recipe is not None:
            api.save_recipe(recipe, tmp_recipe)
    console.print(f"wrote {out} ({clip.n_frames} frames at {clip.fps:g} fps)")
    if args.save_recipe:
        console.print(f"wrote {args.save_recipe}")
    return 0


def _print_ramp(args, made) -> None:
    """The speed ramp's gaits and their switches."""
    r = made.ramp
    assert r is not None
    v0, v1 = args.speed
    console.print(f"{made.character.name}: speed {v0:g} → {v1:g} m/s over {args.seconds:g} s (Froude "
                  f"{r.froude[0]:.2f} → {r.froude[-1]:.2f}), gaits {' → '.join(dict.fromkeys(r.gait))}")
    for t, a, b in r.switches:
        i = min(int(round(t * args.fps)), len(r.speed) - 1)
        console.print(f"  {t:.2f} s: {a} → {b} at {r.speed[i]:.2f} m/s (Froude {r.froude[i]:.2f})")


def cmd_gaits(args) -> int:
    table = Table(title="presets: the examples of Kry09 Fig. 3 ('gaitforge animate PRESET')")
    for col in ("preset", "creature", "gait", "rest pose", "constraints", "what"):
        table.add_column(col)
    for p in api.presets():
        table.add_row(p.name, p.creature, p.gait, p.pose, ", ".join(p.constraints) or "-", p.summary)
    console.print(table)
    from gaitforge.cli.run_cmd import gait_text

    table = Table(title="what each creature does")
    for col in ("creature", "kinematic gaits, m/s (animate NAME --gait [--speed])",
                "simulated gaits, m/s (run NAME --gait; * default)"):
        table.add_column(col)
    for name in api.creature_names():
        kinematic = api.gaits(api.creature(name))
        simulated = ", ".join(gait_text(e) for e in api.runners() if e.creature == name)
        ranges = api.gait_speeds(name)
        kin = ", ".join(f"{g} {ranges[g][0]:g}–{ranges[g][1]:g}" if g in ranges else g for g in kinematic)
        table.add_row(name, kin or "-", simulated or "-")
    console.print(table)
    console.print("kinematic speeds: measured ranges (docs/gait_speeds.md); 'animate NAME --gait G --froude' "
                  "alone uses the gait's typical Froude number: "
                  + ", ".join(f"{g} {fr:g}" for g, fr in api.typical_froudes().items()))
    return 0


def cmd_metrics(args) -> int:
    if args.diagram and Path(args.diagram).suffix.lower() != ".png":
        raise GaitforgeError(f"{args.diagram}: a gait diagram is written as PNG (give a .png file)")
    if args.diagram:
        from gaitforge.io.atomic import check_output
        check_output(args.diagram, (".png",), "image")
    clip = api.load(args.clip)
    name = args.creature or clip.character_name
    if not name:
        raise GaitforgeError(f"{args.clip} names no creature: give --creature NAME|FILE")
    char = _character(name)
    clip = api.load(args.clip, char)
    console.print(f"{args.clip}: {char.name}, {clip.n_frames} frames at {clip.fps:g} fps ({clip.duration:.2f} s)")
    analyse(char, clip, args.diagram, f"{Path(args.clip).name}: {char.name}")
    if args.diagram:
        console.print(f"wrote {args.diagram}")
    return 0

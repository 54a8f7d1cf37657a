"""Commands about vibration modes: ``modes`` (table, JSON, picture sheet) and
``tune`` (uniform stiffness scale that holds the rest pose under gravity)."""
from __future__ import annotations

import argparse
import json
import math

from rich.console import Console
from rich.table import Table

from gaitforge import api, inputs
from gaitforge.cli.args import number
from gaitforge.errors import GaitforgeError

console = Console(highlight=False)
DEFAULT_COUNT = 10


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("modes", help="natural vibration modes of a creature: table, JSON, picture sheet")
    p.add_argument("creature", metavar="NAME|FILE", help="built-in creature name or a YAML/JSON file")
    p.add_argument("--count", type=number(inputs.MODE_COUNT), default=DEFAULT_COUNT, metavar="N",
                   help=f"number of elastic modes (default {DEFAULT_COUNT})")
    p.add_argument("--constrain", action="extend", nargs="+", default=[], metavar="SPEC",
                   help="extra constraints, e.g. pin:left_foot lock:head loop:left_hand:right_hand "
                        "(bodies by name or role/side, e.g. pin:foot/left)")
    p.add_argument("--gravity", action="store_true", help="linearize with gravity (geometric stiffness)")
    stiff = p.add_mutually_exclusive_group()
    stiff.add_argument("--stiffness-scale", type=number(inputs.STIFFNESS_SCALE), default=1.0, metavar="S",
                       help="uniform factor on every joint stiffness (default 1)")
    stiff.add_argument("--tune-stiffness", action="store_true",
                       help="first find the smallest scale that holds the rest pose (see 'gaitforge tune')")
    p.add_argument("--json", metavar="FILE", help="write the modes as JSON")
    p.add_argument("--sheet", metavar="FILE.png", help="write a picture sheet of each mode's extreme poses")
    p.set_defaults(func=cmd_modes)

    p = sub.add_parser("tune", help="smallest uniform stiffness scale that holds the rest pose under gravity")
    p.add_argument("creature", metavar="NAME|FILE", help="built-in creature name or a YAML/JSON file")
    p.add_argument("--max-deviation", type=number(inputs.MAX_DEVIATION), default=5.0, metavar="DEG",
                   help="largest joint deviation from rest allowed, in degrees (default 5)")
    p.set_defaults(func=cmd_tune)


def modes_payload(character: api.Character, basis, descriptions) -> dict:
    """The JSON document of ``gaitforge modes --json``."""
    modes = []
    for desc in descriptions:
        i = desc.index
        entry = desc.to_dict()
        entry.update(eigenvalue=float(basis.eigenvalues[i]),
                     damped_frequency_hz=float(basis.damped_frequencies[i]),
                     decay_rate=float(basis.decay_rates[i]))
        modes.append(entry)
    return {"creature": character.name, "nv": character.nv, "n_rigid": int(basis.n_rigid),
            "gravity": bool(basis.gravity), "stiffness_scale": float(basis.stiffness_scale),
            "constraints": [{"name": c.name, "kind": c.kind, "bone": c.bone, "other": c.other}
                            for c in basis.constraints],
            "modes": modes}


def cmd_modes(args) -> int:
    from gaitforge.io.atomic import check_output

    if args.sheet and not args.sheet.lower().endswith(".png"):
        raise GaitforgeError(f"{args.sheet}: the picture sheet must be a .png file")
    for path, ext in ((args.json, ".json"), (args.sheet, ".png")):
        if path:
            check_output(path, (ext,))
    character = api.creature(args.creature)
    constraints = tuple(api.constraint(text, character) for text in args.constrain)
    scale = args.stiffness_scale
    if args.tune_stiffness:
        tuned = api.tune(character, 5.0)
        scale = tuned.scale
        note = "no joint sags more than 5° standing" if tuned.confirmed else \
            "NOT confirmed: it did not hold its pose in simulation"
        console.print(f"stiffness scale {scale:.4g} (tuned: {note})", soft_wrap=True)
    basis = api.modes(character, count=args.count, constraints=constraints, gravity=args.gravity,
                          stiffness_scale=scale)
    if basis.count == 0:
        raise GaitforgeError(f"{character.name}: every motion is rigid ({basis.n_rigid} degrees of freedom, no "
                             "spring resists any of them): there are no vibration modes; give the joints stiffness")
    descriptions = api.describe(character, basis)
    table = Table(title=f"{character.name}: {len(descriptions)} elastic modes"
                        f" ({basis.n_rigid} rigid, stiffness ×{scale:.4g}"
                        f"{', gravity' if args.gravity else ''}"
                        f"{', ' + ' '.join(args.constrain) if args.constrain else ''})")
    table.add_column("#", justify="right")
    table.add_column("Hz", justify="right")
    table.add_column("symmetry")
    table.add_column("description")
    for d in descriptions:
        table.add_row(str(d.index), f"{d.frequency:.3f}", d.symmetry, d.summary())
    console.print(table)
    from gaitforge.io.atomic import atomic_paths, write_text

    with atomic_paths(args.json, args.sheet) as (tmp_json, tmp_sheet):  # both files or neither
        if tmp_json is not None:
            write_text(tmp_json, json.dumps(modes_payload(character, basis, descriptions), indent=2) + "\n")
        if tmp_sheet is not None:
            labels = [f"{d.index}: {d.frequency:.2f} Hz  {d.name}" for d in descriptions]
            api.mode_sheet(tmp_sheet, character, basis, labels)
    for path in (args.json, args.sheet):
        if path:
            console.print(f"wrote {path}")
    return 0


def cmd_tune(args) -> int:
    character = api.creature(args.creature)
    r = api.tune(character, args.max_deviation)
    if r.confirmed:
        verdict = "confirmed in simulation"
    elif r.fell:
        verdict = "NOT confirmed: it fell over in simulation at every scale tried"
    else:
        verdict = "NOT confirmed: no simulated scale held the pose"
    slide = ""
    if r.simulated_slide_sag:
        slide = f", slides {1e3 * max(r.simulated_slide_sag.values()):.1f} of {1e3 * r.max_slide:.1f} mm"
    console.print(f"{character.name}: stiffness scale {r.scale:.4g} ({verdict}; linear estimate "
                  f"{r.linear_scale:.4g}; simulated max deviation {math.degrees(r.simulated_deviation):.2f}° "
                  f"of {args.max_deviation:g}°{slide}, {r.simulations} runs)", soft_wrap=True)
    console.print("ground supports: " + (", ".join(r.supports) or "none (root fixed)"), soft_wrap=True)
    table = Table(title=f"{character.name}: joint sag at scale {r.scale:.4g}")
    for col in ("joint", "linear", "simulated"):
        table.add_column(col, justify="left" if col == "joint" else "right")
    for name, sim in sorted(r.simulated_sag_deg.items(), key=lambda kv: -kv[1]):
        table.add_row(name, f"{r.sag_deg[name]:.2f}°", f"{sim:.2f}°")
    for name, sim in sorted(r.simulated_slide_sag.items(), key=lambda kv: -kv[1]):
        table.add_row(f"{name} (slide, max {1e3 * r.max_slide:.0f} mm)", f"{1e3 * r.slide_sag[name]:.1f} mm",
                      f"{1e3 * sim:.1f} mm")
    console.print(table)
    return 0

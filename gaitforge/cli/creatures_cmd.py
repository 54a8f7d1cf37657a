"""Commands about creatures: ``creatures``, ``show``, ``export``."""
from __future__ import annotations

import argparse

from rich.console import Console
from rich.table import Table

from gaitforge import api

console = Console(highlight=False)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("creatures", help="list the built-in creatures")
    p.set_defaults(func=cmd_creatures)

    p = sub.add_parser("show", help="summary and a rendered still of a creature")
    p.add_argument("creature", metavar="NAME|FILE", help="built-in creature name or a YAML/JSON file")
    p.add_argument("-o", "--out", "--png", dest="png", metavar="FILE.png", help="write a rendered still (PNG)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("export", help="write a creature as YAML, JSON or MJCF")
    p.add_argument("creature", metavar="NAME|FILE")
    p.add_argument("-o", "--out", "--to", dest="to", required=True, metavar="FILE",
                   help="FILE.yaml, FILE.json or FILE.xml (MJCF)")
    p.set_defaults(func=cmd_export)


def summary_table(characters: list[api.Character]) -> Table:
    table = Table(title="gaitforge creatures")
    for col in ("name", "bodies", "joints", "DOFs", "mass [kg]", "height [m]"):
        table.add_column(col, justify="left" if col == "name" else "right")
    for c in characters:
        s = api.summary(c)
        table.add_row(s.name, str(s.bodies), str(s.joints), str(s.dofs), f"{s.mass:.2f}", f"{s.height:.3f}")
    return table


def cmd_creatures(args) -> int:
    characters = [api.creature(n) for n in api.creature_names()]
    console.print(summary_table(characters))
    return 0


def cmd_show(args) -> int:
    from gaitforge.io.atomic import check_output
    if args.png:
        check_output(args.png, (".png",), "image")
    character = api.creature(args.creature)
    console.print(summary_table([character]))
    table = Table(title=f"{character.name}: bodies")
    for col in ("body", "mass [kg]", "joint", "DOFs", "side", "role", "limb"):
        table.add_column(col)
    for r in api.bodies(character):
        table.add_row(r.body, f"{r.mass:.4g}", r.joint, str(r.dofs), r.side, r.role, r.limb)
    console.print(table)
    if character.contacts:
        console.print("contact points: " + ", ".join(character.contacts))
    if character.constraints:
        console.print("constraints: " + ", ".join(f"{c.name} ({c.kind})" for c in character.constraints))
    if args.png:
        api.save_png(args.png, api.still(character))
        console.print(f"wrote {args.png}")
    return 0


def cmd_export(args) -> int:
    api.export(args.creature, args.to)
    console.print(f"wrote {args.to}")
    return 0

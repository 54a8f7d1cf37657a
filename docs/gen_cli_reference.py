"""The CLI reference as markdown, read from the argparse parsers of
``gaitforge.cli.main.build_parser`` (so it is never out of date).

    python docs/gen_cli_reference.py             # markdown on stdout
    python docs/gen_cli_reference.py -o cli.md   # into a file

The docs site calls :func:`reference` at build time (``docs/hooks.py``), so
``docs/reference/cli.md`` holds only a marker.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _flags(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    names = ", ".join(f"`{s}`" for s in action.option_strings)
    if action.nargs == 0:
        return names
    metavar = action.metavar or (action.dest.upper() if not action.choices else "{" + ",".join(action.choices) + "}")
    if isinstance(metavar, tuple):
        metavar = " ".join(metavar)
    return f"{names} `{metavar}`"


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        text = text % {"default": action.default, "prog": "", "choices": action.choices, "dest": action.dest}
    if action.required and action.option_strings:
        text += " (required)"
    if action.choices and not action.option_strings and not isinstance(action.choices, dict):
        text += " One of: " + ", ".join(f"`{c}`" for c in action.choices) + "."
    return _cell(text)


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    rows = [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)) and a.help != argparse.SUPPRESS]
    if not rows:
        return ["No arguments.", ""]
    out = ["| argument | what it does |", "|---|---|"]
    out += [f"| {_flags(a)} | {_help(a)} |" for a in rows]
    return out + [""]


def _usage(parser: argparse.ArgumentParser) -> str:
    usage = parser.format_usage().strip()
    if not usage.startswith("usage: "):
        return usage
    first, *rest = usage[len("usage: "):].splitlines()
    return "\n".join([first] + [line[len("usage: "):] for line in rest])


def reference() -> str:
    """The whole reference (markdown), one section per command in the
    parser's order."""
    import os

    os.environ.setdefault("MUJOCO_GL", "egl")
    os.environ.setdefault("COLUMNS", "100")  # argparse wraps usage lines to the terminal's width
    from gaitforge.cli.main import build_parser

    top = build_parser()
    sub = _subparsers(top)
    lines = ["# Command-line reference", "",
             "Generated from the `gaitforge` parsers by `docs/gen_cli_reference.py`; "
             "`gaitforge COMMAND --help` prints the same.", "",
             "```text", _usage(top), "```", "", _cell(top.description or ""), "",
             "Options before the command:", ""] + _arguments(top)
    helps = {a.dest: a.help for a in (sub._choices_actions if sub else [])}
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#{name}) | {_cell(helps.get(name, ''))} |" for name in (sub.choices if sub else {})]
    lines.append("")
    for name, parser in (sub.choices.items() if sub else []):
        lines += [f"## {name}", "", _cell(helps.get(name) or parser.description or ""), "",
                  "```text", _usage(parser), "```", ""]
        if parser.description and parser.description != helps.get(name):
            lines += [_cell(parser.description), ""]
        lines += _arguments(parser)
    return "\n".join(lines).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", help="write the markdown here (default: stdout)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    text = reference()
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

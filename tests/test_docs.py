"""The docs stay true to the command line without running anything slow:
every ``gaitforge`` line in a code block of the docs parses with the CLI's
own parser (a renamed or removed flag fails here), and the generated CLI
reference covers every command. ``make test`` also builds the site with
``mkdocs build --strict``, which checks every page and link."""
from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def _command_lines() -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for body in re.findall(r"^```(?:bash|console)\n(.*?)^```", text, re.S | re.M):
            for raw in body.splitlines():
                line = raw.removeprefix("$ ").split(" #", 1)[0].strip()
                if line.startswith(("gaitforge ", ".venv/bin/gaitforge ")):
                    found.append((str(page.relative_to(ROOT)), line))
    return found


LINES = _command_lines()


def test_docs_have_commands():
    assert len(LINES) > 40


@pytest.mark.parametrize("page, line", LINES, ids=[f"{p}:{i}" for i, (p, _) in enumerate(LINES)])
def test_docs_command_parses(page: str, line: str):
    from gaitforge.cli.main import build_parser

    words = shlex.split(line)[1:]
    words = [w for w in words if w != "--debug"]
    try:
        args = build_parser().parse_args(words)
    except Exception as exc:  # the CLI's parser raises its one-line error instead of exiting
        pytest.fail(f"{page}: {line}: {exc}")
    assert callable(args.func)


def test_cli_reference_covers_every_command():
    sys.path.insert(0, str(ROOT / "docs"))
    from gen_cli_reference import reference

    from gaitforge.cli.main import build_parser

    text = reference()
    sub = next(a for a in build_parser()._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, parser in sub.choices.items():
        assert f"\n## {name}\n" in text
        for action in parser._actions:
            if action.__class__.__name__ == "_HelpAction":
                continue
            for flag in action.option_strings:
                assert f"`{flag}`" in text, (name, flag)

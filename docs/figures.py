"""Figures in the docs that a command prints, kept true to the command.

A page marks such a block (a table, or a fenced block of output) with

    <!-- figures: ARGS -->
    ...what `python ARGS` prints...
    <!-- /figures -->

ARGS is what follows ``python`` when run from the repository root: a script
and its arguments (``benchmarks/physics_settings.py runners``) or ``-m`` and
a module. The reader must see the command too, so ARGS (or its ``gaitforge``
form, for ``-m gaitforge.cli.main``) has to appear in the page outside the
marker. Inside a block, a line ``…`` stands for any run of output lines the
page leaves out; the fence lines of a fenced block and a ``$ command`` line
(the command as typed, in a console block) are not output.
``figures(slow)`` marks a block whose command takes minutes or more: it is
checked only with ``--slow``.

    .venv/bin/python docs/figures.py           # check the cheap blocks: exit 1 and a diff on drift
    .venv/bin/python docs/figures.py --write   # rewrite the blocks from their commands
    .venv/bin/python docs/figures.py --slow    # the slow ones too
"""
from __future__ import annotations

import argparse
import difflib
import os
import platform
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("README.md", "BENCHMARKS.md", "docs")
_BLOCK = re.compile(r"^<!-- figures(\(slow\))?: (.+?) -->\n(.*?)^<!-- /figures -->$", re.S | re.M)
ELIDED = "…"


@dataclass(frozen=True)
class Block:
    """A marked block: page (relative to the root), its command's ARGS, slow,
    the block's text between the markers, and where that text starts."""

    page: str
    args: str
    slow: bool
    text: str
    start: int

    @property
    def shown(self) -> tuple[str, ...]:
        """Ways the command may be written where the reader sees it."""
        plain = self.args.replace("-m gaitforge.cli.main", "gaitforge", 1)
        return (self.args, plain)

    def expected(self) -> list[str]:
        """The block's output lines (fences dropped, trailing spaces stripped)."""
        return [line.rstrip() for line in self.text.splitlines() if not line.startswith(("```", "$ "))]


def blocks(root: Path = ROOT) -> list[Block]:
    """Every marked block of the docs, README and BENCHMARKS.md."""
    out = []
    for entry in PAGES:
        path = root / entry
        if not path.exists():
            continue
        for page in sorted(path.rglob("*.md")) if path.is_dir() else [path]:
            text = page.read_text(encoding="utf-8")
            for m in _BLOCK.finditer(text):
                out.append(Block(str(page.relative_to(root)), m.group(2).strip(), bool(m.group(1)), m.group(3),
                                 m.start(3)))
    return out


# The OpenBLAS kernel the figures are printed under on x86-64, unless OPENBLAS_CORETYPE is set: the
# pages were written under it. OpenBLAS's own pick on an AVX-512 CPU (SkylakeX) moves the last bits
# of a few fits, and with them digits of a page (the human run at Froude 1.75 in
# docs/validation/natural_motion.md: 4.00 or 4.01 m/s, a slip of 0.015 or 0 m), so a page would read
# differently by machine. Whether the results themselves hold under every kernel is what
# `make test-cpus` checks.
FIGURE_KERNEL = "Haswell"


def run(block: Block, root: Path = ROOT) -> list[str]:
    """The output lines of the block's command (stdout; stderr carries progress)."""
    env = dict(os.environ, PYTHONPATH=str(root), MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl"),
               COLUMNS="100", NO_COLOR="1", TERM="dumb")
    if platform.machine().lower() in ("x86_64", "amd64"):
        env.setdefault("OPENBLAS_CORETYPE", FIGURE_KERNEL)
    done = subprocess.run([sys.executable, *shlex.split(block.args)], cwd=root, env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{block.page}: `python {block.args}` failed ({done.returncode}): "
                           f"{done.stderr.strip().splitlines()[-1:] or ''}")
    return [line.rstrip() for line in done.stdout.strip("\n").splitlines()]


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` with each ``…`` line standing for
    any run of lines (none included)."""
    pattern = "".join(".*?" if line == ELIDED else re.escape(line + "\n") for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual), re.S) is not None


def problems(block: Block, root: Path = ROOT) -> list[str]:
    """What is wrong with one block: not shown to the reader, or drifted (a diff)."""
    found = []
    page_text = (root / block.page).read_text(encoding="utf-8")
    outside = page_text.replace(f"figures: {block.args} -->", "").replace(f"figures(slow): {block.args} -->", "")
    if not any(form in outside for form in block.shown):
        found.append(f"{block.page}: the command `{block.args}` is only in the marker; show it beside the block")
    actual = run(block, root)
    expected = block.expected()
    if not matches(expected, actual):
        diff = difflib.unified_diff(expected, actual, f"{block.page} (the page)", f"python {block.args} (now)",
                                    lineterm="", n=1)
        found.append("\n".join(diff))
    return found


def write(block: Block, root: Path = ROOT) -> bool:
    """Replace the block's text with its command's output (a fenced block
    keeps its fences; ``…`` elisions are not kept); whether it changed."""
    path = root / block.page
    text = path.read_text(encoding="utf-8")
    lines = block.text.splitlines()
    head = [line for line in lines[:2] if line.startswith(("```", "$ "))]  # the fence and the typed command
    body = run(block, root)
    new = "\n".join(head + body + (["```"] if head else [])) + "\n"
    if new == block.text or matches(block.expected(), body):
        return False
    path.write_text(text[:block.start] + new + text[block.start + len(block.text):], encoding="utf-8")
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="rewrite drifted blocks from their commands")
    parser.add_argument("--slow", action="store_true", help="also the blocks marked slow")
    args = parser.parse_args()
    bad = 0
    # back to front within a page, so that rewriting one block leaves the offsets of the others valid
    for block in sorted((b for b in blocks() if args.slow or not b.slow), key=lambda b: (b.page, -b.start)):
        if args.write:
            print(f"{'rewrote' if write(block) else 'unchanged'}: {block.page}: python {block.args}")
            continue
        found = problems(block)
        bad += bool(found)
        print(f"{'DRIFT' if found else 'ok'}: {block.page}: python {block.args}")
        for p in found:
            print(p)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

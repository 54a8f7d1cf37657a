"""The README runs: every command of its ```bash and ```console blocks and
every ```python block, as a user would type or save them, with short
durations.

Each block runs in its own temporary folder (its commands in order, so a
later line can read what an earlier one wrote) with ``examples/`` linked in,
so the paths the README names resolve. ``gaitforge`` is this checkout's CLI
(``python -m gaitforge.cli.main``), ``python`` this interpreter.

How commands are shortened (``SHORTEN``): for each command, flags whose value
is replaced or added — a simulated or animated duration cut to a second or
two, an optimization's budget cut to one small generation. Nothing else is
changed. Lines skipped (``SKIP``): ``make test`` (this suite is part of it)
and activating the environment. ``make demo`` is ``gaitforge demo`` once
``.venv/`` is set up, which ``tests/test_cli_motion.py`` runs already
(``COVERED``: checked to be there, not run twice).

Checks: exit code 0 (a ```console block's command whose shown output has
``gaitforge: error`` must exit 2 and print the shown line, up to its
``…``), and every output the command declares (``-o``, ``--out-dir``,
``--diagram``, ``--plots``, ``--json``, ``--traces``, ``--save-recipe``,
``--sheet``) exists afterwards. A Python block runs as a script, its
``seconds=`` values cut to 1.
"""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"

SKIP = ("make test", ". .venv/bin/activate", "source .venv/bin/activate")
# README line -> (test file, test) that runs the same command
COVERED = {"make demo": ("tests/test_cli_motion.py", "def test_demo_writes_the_dog_trot(")}
# command -> {flag: value}: replaced where the line gives the flag, added where it does not
SHORTEN: dict[str, dict[str, str]] = {
    "animate": {"--seconds": "1"},
    "run": {"--seconds": "1"},
    "simulate": {"--seconds": "1"},
    "report": {"--seconds": "1"},
    "landscape": {"--grid": "2", "--seconds": "0.5", "--workers": "1"},
    "optimize": {"--budget": "4", "--popsize": "4", "--outer": "1", "--seconds": "0.5", "--workers": "1"},
    "push": {"--workers": "1"},
}
OUTPUT_FLAGS = ("-o", "--out", "--out-dir", "--diagram", "--plots", "--json", "--traces", "--save-recipe", "--sheet")
TIMEOUT = 300  # s per block


def _blocks() -> list[tuple[str, str, str]]:
    """(id, language, body) of every bash / console / python block."""
    text = README.read_text(encoding="utf-8")
    found = re.findall(r"^```(bash|console|python)\n(.*?)^```", text, re.S | re.M)
    out, seen = [], {}
    for lang, body in found:
        first = next((line for line in body.splitlines() if line.strip() and not line.startswith(SKIP)), "")
        key = re.sub(r"\W+", "_", first.strip("$ ").split("#")[0].strip())[:40].strip("_")
        seen[key] = seen.get(key, 0) + 1
        out.append((f"{lang}-{key}" + (f"-{seen[key]}" if seen[key] > 1 else ""), lang, body))
    return out


def commands(body: str) -> list[str]:
    """The command lines of a bash block (comments dropped)."""
    lines = []
    for raw in body.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if line and not line.startswith(SKIP):
            lines.append(line)
    return lines


def shorten(words: list[str]) -> list[str]:
    """``words`` (after ``gaitforge``) with ``SHORTEN``'s values for their command."""
    words = list(words)
    for flag, value in SHORTEN.get(words[0] if words else "", {}).items():
        if flag in words:
            words[words.index(flag) + 1] = value
        else:
            words += [flag, value]
    return words


def argv(line: str) -> list[str]:
    """The process to start for a README line."""
    words = shlex.split(line)
    if words[0] in ("gaitforge", ".venv/bin/gaitforge"):
        return [sys.executable, "-m", "gaitforge.cli.main", *shorten(words[1:])]
    if words[0] in ("python", "python3", ".venv/bin/python"):
        return [sys.executable, *words[1:]]
    return words


def outputs(words: list[str]) -> list[str]:
    """The files and folders a command line says it writes."""
    return [words[i + 1] for i, w in enumerate(words[:-1]) if w in OUTPUT_FLAGS]


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def _env() -> dict[str, str]:
    env = dict(os.environ, MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def _run(words: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(words, cwd=cwd, env=_env(), capture_output=True, text=True, timeout=TIMEOUT)


BLOCKS = _blocks()


def test_readme_has_blocks():
    langs = {lang for _, lang, _ in BLOCKS}
    assert {"bash", "python"} <= langs, langs
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("lang, body", [(lang, body) for _, lang, body in BLOCKS],
                         ids=[ident for ident, _, _ in BLOCKS])
def test_readme_block(lang: str, body: str, workdir: Path):
    if lang == "python":
        script = workdir / "readme_example.py"
        script.write_text(re.sub(r"\bseconds=[0-9.]+", "seconds=1", body), encoding="utf-8")
        done = _run([sys.executable, script.name], workdir)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return
    if lang == "console":
        _check_console(body, workdir)
        return
    for line in commands(body):
        if line in COVERED:
            path, test = COVERED[line]
            assert test in (ROOT / path).read_text(encoding="utf-8"), f"{line}: {path} no longer runs it"
            continue
        words = argv(line)
        done = _run(words, workdir)
        assert done.returncode == 0, f"{line}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        for path in outputs(words):
            assert (workdir / path).exists(), f"{line}: {path} not written"


def _check_console(body: str, workdir: Path) -> None:
    """``$ command`` lines, each followed by the start of its output."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        if not line.startswith("$ "):
            continue
        shown = [s for s in lines[i + 1:] if not s.startswith("$ ")]
        shown = shown[:next((k for k, s in enumerate(shown) if s.startswith("$ ")), len(shown))]
        done = _run(argv(line[2:]), workdir)
        printed = done.stdout + done.stderr
        expect = 2 if any("gaitforge: error" in s for s in shown) else 0
        assert done.returncode == expect, f"{line}\n{printed[-2000:]}"
        for s in shown:
            assert s.split("…")[0].rstrip() in printed, f"{line}: {s!r} not in\n{printed[-2000:]}"


def test_readme_links_resolve():
    """Every relative link and image of the README names a file of the checkout."""
    text = README.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    local = [t.split("#")[0] for t in targets if not re.match(r"^[a-z]+:|^#", t)]
    assert local
    missing = [t for t in local if not (ROOT / t).exists()]
    assert not missing, missing

"""Figures in the docs are what their commands print (``docs/figures.py``):
every cheap marked block is regenerated here and compared; a drifted table
fails with a diff. The slow blocks are listed, and checked by
``docs/figures.py --slow``."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs"))
import figures  # noqa: E402

BLOCKS = figures.blocks(ROOT)
CHEAP = [b for b in BLOCKS if not b.slow]


def test_pages_mark_their_generated_figures():
    pages = {b.page for b in CHEAP}
    assert {"docs/physics.md", "docs/modal_physics.md"} <= pages, pages


@pytest.mark.parametrize("block", CHEAP, ids=[f"{b.page}:{b.args}" for b in CHEAP])
def test_figures_match_their_command(block):
    found = figures.problems(block, ROOT)
    assert not found, "\n".join(found) + "\n(rewrite with: .venv/bin/python docs/figures.py --write)"


def test_elided_lines_match_any_run_of_lines():
    assert figures.matches(["a", "…", "d"], ["a", "b", "c", "d"])
    assert figures.matches(["a", "…", "d"], ["a", "d"])
    assert figures.matches(["…", "c", "…"], ["a", "b", "c", "d"])
    assert not figures.matches(["a", "…", "d"], ["a", "b", "c"])
    assert not figures.matches(["a", "b"], ["a", "b", "c"])
    assert not figures.matches(["a (1.0)"], ["a (1.04)"])  # no regex meaning in a table's text


def test_a_drifted_block_is_reported_with_a_diff(tmp_path):
    page = tmp_path / "docs" / "p.md"
    page.parent.mkdir()
    page.write_text("Run `-m gaitforge.cli.main runners --help`:\n\n"
                    "<!-- figures: -c \"print('| a | 1 |')\" -->\n| a | 2 |\n<!-- /figures -->\n"
                    "shown: -c \"print('| a | 1 |')\"\n", encoding="utf-8")
    (block,) = figures.blocks(tmp_path)
    found = figures.problems(block, tmp_path)
    assert len(found) == 1 and "-| a | 2 |" in found[0] and "+| a | 1 |" in found[0]
    assert figures.write(block, tmp_path)
    (block,) = figures.blocks(tmp_path)
    assert figures.problems(block, tmp_path) == []


def test_a_command_hidden_in_the_marker_is_reported(tmp_path):
    page = tmp_path / "README.md"
    page.write_text("<!-- figures: -c print(1) -->\n1\n<!-- /figures -->\n", encoding="utf-8")
    (block,) = figures.blocks(tmp_path)
    assert any("only in the marker" in p for p in figures.problems(block, tmp_path))


def test_figure_commands_run_under_the_pinned_blas_kernel_unless_one_is_set(tmp_path, monkeypatch):
    import platform

    page = tmp_path / "docs" / "p.md"
    page.parent.mkdir()
    cmd = "-c \"import os; print(os.environ.get('OPENBLAS_CORETYPE', '-'))\""
    page.write_text(f"<!-- figures: {cmd} -->\nx\n<!-- /figures -->\nshown: {cmd}\n", encoding="utf-8")
    (block,) = figures.blocks(tmp_path)
    monkeypatch.delenv("OPENBLAS_CORETYPE", raising=False)
    x86 = platform.machine().lower() in ("x86_64", "amd64")
    assert figures.run(block, tmp_path) == [figures.FIGURE_KERNEL if x86 else "-"]
    monkeypatch.setenv("OPENBLAS_CORETYPE", "SandyBridge")
    assert figures.run(block, tmp_path) == ["SandyBridge"]

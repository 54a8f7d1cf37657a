"""mkdocs hooks (``mkdocs.yml`` → ``hooks``): pages made at build time.

- ``<!-- cli-reference -->`` becomes the CLI reference generated from the
  argparse parsers (``docs/gen_cli_reference.py``).
- Sphinx roles left in docstrings (``:func:`x` ``) show as plain code.
- ``<!-- include: PATH -->`` (PATH relative to the repository root) becomes
  that file's text, for the files kept outside ``docs/`` (BENCHMARKS.md,
  CHANGELOG.md, LICENSE). Relative links in the included text that point
  into ``docs/`` are made relative to the including page; those that point
  at other repository files become the file's path in code.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
_INCLUDE = re.compile(r"<!--\s*include:\s*(\S+)\s*-->")
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")


def _relink(text: str, source: Path, page: Path) -> str:
    """Links in ``text`` (written relative to ``source``) as seen from ``page``."""

    def fix(match: re.Match) -> str:
        bang, label, target = match.groups()
        if re.match(r"^[a-z]+:|^#|^/", target):
            return match.group(0)
        path, _, anchor = target.partition("#")
        resolved = (source.parent / path).resolve()
        if resolved.is_relative_to(DOCS):
            rel = os.path.relpath(resolved, page.parent).replace(os.sep, "/")
            return f"{bang}[{label}]({rel}{'#' + anchor if anchor else ''})"
        shown = resolved.relative_to(ROOT).as_posix() if resolved.is_relative_to(ROOT) else path
        return label if f"`{shown}`" in label else f"{label} (`{shown}`)"

    return _LINK.sub(fix, text)


def on_page_markdown(markdown: str, page, config, files) -> str:
    here = DOCS / page.file.src_uri
    if "<!-- cli-reference -->" in markdown:
        for folder in (str(DOCS), str(ROOT)):  # this checkout's gaitforge, not an installed one
            if folder not in sys.path:
                sys.path.insert(0, folder)
        from gen_cli_reference import reference
        markdown = markdown.replace("<!-- cli-reference -->", reference())

    def include(match: re.Match) -> str:
        source = ROOT / match.group(1)
        text = source.read_text(encoding="utf-8")
        if source.suffix != ".md":
            return "```text\n" + text.rstrip() + "\n```\n"
        return _relink(text, source, here)

    return _INCLUDE.sub(include, markdown)


_ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|exc|obj):(?=<code)")


def on_page_content(html: str, page, config, files) -> str:
    return _ROLE.sub("", html)

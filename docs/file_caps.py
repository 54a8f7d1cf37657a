"""Print the size cap of each kind of file gaitforge reads, as the table in
docs/input_checks.md, from ``gaitforge.io.files.MAX_BYTES`` (so the page
cannot drift from the code). Kinds with the same cap in a row share a line.

    PYTHONPATH=. .venv/bin/python docs/file_caps.py
"""
from __future__ import annotations

from gaitforge.io.files import MAX_BYTES, _size

# What a kind covers, where its name alone does not say (the comments beside MAX_BYTES).
NOTES = {
    "creature file": "YAML/JSON",
    "model file": "MJCF/URDF, each included file",
    "model asset": "mesh, height field, texture, skin",
    "motion file": "NPZ",
}
# Words after a kind's parentheses.
TAILS = {"motion file": ", and each array unpacked from it"}


def label(kind: str) -> str:
    note = f" ({NOTES[kind]})" if kind in NOTES else ""
    return f"{kind}{note}{TAILS.get(kind, '')}"


def rows() -> list[tuple[str, str]]:
    out: list[tuple[list[str], int]] = []
    for kind, cap in MAX_BYTES.items():
        if out and out[-1][1] == cap and kind not in NOTES and not any(k in NOTES for k in out[-1][0]):
            out[-1][0].append(kind)
        else:
            out.append(([kind], cap))
    return [(", ".join(label(k) for k in kinds), _size(cap)) for kinds, cap in out]


def main() -> None:
    print("| kind | cap |")
    print("| --- | --- |")
    for kind, cap in rows():
        print(f"| {kind} | {cap} |")


if __name__ == "__main__":
    main()

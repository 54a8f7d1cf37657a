"""The hostile-input corpus (tests/input_corpus.py) run through the CLI:
per case, whether it was handled cleanly — the expected exit code and
exactly the expected one-line error (a valid command: exit 0, no error) —
and the share of cases handled cleanly, by kind (docs/input_checks.md).

    .venv/bin/python benchmarks/input_corpus.py [--show-failures]
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
os.environ.setdefault("MUJOCO_GL", "egl")

from input_corpus import CORPUS, clean, expected, run_case  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-failures", action="store_true", help="print what each unclean case printed")
    args = parser.parse_args()
    by_kind: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    slow = []
    print("| case | kind | exit | clean | seconds |")
    print("| --- | --- | --- | --- | --- |")
    for case in CORPUS:
        with tempfile.TemporaryDirectory() as folder:
            code, err, seconds = run_case(case, folder)
            ok = clean(case, code, err, folder)
            if not ok and args.show_failures:
                print(f"<!-- {case.id}: got exit {code}: {err!r}; expected exit {case.code}: "
                      f"{expected(case, folder)!r} -->")
        by_kind[case.kind][0] += ok
        by_kind[case.kind][1] += 1
        if seconds > 10:
            slow.append(case.id)
        print(f"| {case.id} | {case.kind} | {code} | {'yes' if ok else 'NO'} | {seconds:.1f} |")
    good = sum(v[0] for v in by_kind.values())
    total = sum(v[1] for v in by_kind.values())
    print()
    for kind, (n, m) in by_kind.items():
        print(f"- {kind}: {n}/{m}")
    print(f"\nhandled cleanly: {good}/{total} = {100 * good / total:.1f} %")
    if slow:
        print(f"slower than 10 s: {', '.join(slow)}")
    return 0 if good == total else 1


if __name__ == "__main__":
    sys.exit(main())

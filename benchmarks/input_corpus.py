"""The hostile-input corpus (tests/input_corpus.py) run through the CLI:
per case, whether it was handled cleanly — the expected exit code and
exactly the expected one-line error (a valid command: exit 0, no error) —
and the share of cases handled cleanly, by kind (docs/input_checks.md).

    .venv/bin/python benchmarks/input_corpus.py [--show-failures]
    .venv/bin/python benchmarks/input_corpus.py --baseline /path/to/other/checkout

``--baseline``: run every case against another checkout's gaitforge (in a
driver process with 4 GiB of address space; a case still running after 30 s
is killed and counted hung), and count a case clean when it ends with the
expected exit code and one line ``gaitforge: error: …`` whatever its
wording (a hang, a crash, a traceback, several lines or a wrong exit code
are not clean): how the corpus fared before. (Cases with resource limits
run without them there.)
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


PER_CASE = 30.0  # [s] a baseline case still running after this is counted as hung


def _driver(start: int) -> None:
    """Run the corpus from case ``start`` in this process (against whatever
    gaitforge is first on the path), one JSON line per case on stdout: exit
    code, everything written to fds 1 and 2, seconds; an exception escaping
    ``main`` is a traceback."""
    import json
    import time
    import traceback

    from input_corpus import make_files

    from gaitforge.cli.main import main as cli

    results = os.fdopen(os.dup(1), "w")
    for i in range(start, len(CORPUS)):
        case = CORPUS[i]
        if case.limits:  # (a file size limit would hold this process's own files too)
            results.write(json.dumps({"i": i, "code": None, "err": "", "seconds": 0.0}) + "\n")
            results.flush()
            continue
        with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryFile() as capture:
            make_files(case, folder)
            saved = os.dup(1), os.dup(2)
            os.dup2(capture.fileno(), 1)
            os.dup2(capture.fileno(), 2)
            here = os.getcwd()
            t0 = time.perf_counter()
            try:
                os.chdir(folder)
                code = cli(list(case.argv))
            except BaseException:  # noqa: BLE001 (what the old code let through)
                traceback.print_exc()
                code = 1
            finally:
                os.chdir(here)
                sys.stdout.flush()
                sys.stderr.flush()
                os.dup2(saved[0], 1)
                os.dup2(saved[1], 2)
            capture.seek(0)
            err = capture.read().decode("utf-8", "replace")
        results.write(json.dumps({"i": i, "code": code, "err": err, "seconds": time.perf_counter() - t0}) + "\n")
        results.flush()


def _baseline_run(root: str):
    """(code, output, seconds) per case of the corpus against the checkout
    ``root``: a driver process (4 GiB of address space) runs the cases in
    turn; one that takes over PER_CASE seconds is killed and counted hung,
    and a new driver goes on with the next case."""
    import json
    import resource
    import selectors
    import subprocess
    import time

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (4 * 2 ** 30, 4 * 2 ** 30))

    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.path.join(os.path.dirname(__file__), "..",
                                                                          "tests")]), MUJOCO_GL="egl")
    out: dict[int, tuple[int, str, float]] = {}
    i = 0
    while i < len(CORPUS):
        proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--driver", str(i)], env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=limit)
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        started = time.perf_counter()
        while i < len(CORPUS):
            if not sel.select(timeout=PER_CASE + 30 if i == 0 else PER_CASE):  # (the first case also imports)
                proc.kill()
                out[i] = (-1, f"(hung: killed after {PER_CASE:g} s)", time.perf_counter() - started)
                i += 1
                break
            line = proc.stdout.readline()
            if not line:
                out[i] = (proc.wait(), "(the process died)", time.perf_counter() - started)
                i += 1
                break
            r = json.loads(line)
            out[r["i"]] = (r["code"], r["err"], r["seconds"])
            i = r["i"] + 1
            started = time.perf_counter()
        proc.kill()
        proc.wait()
    return out


def _loose(case, code: int, err: str) -> bool:
    lines = err.splitlines()
    if not case.message:
        return code == 0 and not any("Traceback" in x or x.startswith("gaitforge: error") for x in lines)
    return code == case.code and len(lines) == 1 and lines[0].startswith("gaitforge: error: ")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-failures", action="store_true", help="print what each unclean case printed")
    parser.add_argument("--baseline", metavar="CHECKOUT", help="another checkout to run the corpus against")
    parser.add_argument("--driver", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.driver is not None:
        _driver(args.driver)
        return 0
    baseline = _baseline_run(os.path.abspath(args.baseline)) if args.baseline else {}
    by_kind: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    slow = []
    print("| case | kind | exit | clean | seconds |")
    print("| --- | --- | --- | --- | --- |")
    for n, case in enumerate(CORPUS):
        with tempfile.TemporaryDirectory() as folder:
            if args.baseline:
                code, err, seconds = baseline[n]
                if code is None:
                    print(f"| {case.id} | {case.kind} | — | not run | — |")
                    continue
                ok = _loose(case, code, err)
            else:
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

"""Every ``examples/*.py`` runs as a script, in short mode.

``GAITFORGE_QUICK=1`` makes each example simulate or animate a second or two
instead of its full length; each runs in a temporary folder, must exit 0,
and every file it says it wrote (``wrote NAME`` lines) must be there.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))


def test_examples_exist():
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs(script: Path, tmp_path: Path):
    env = dict(os.environ, GAITFORGE_QUICK="1", MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl"))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    text = script.read_text(encoding="utf-8")
    assert 'if __name__ == "__main__":' in text  # worker processes import the script again
    for line in done.stdout.splitlines():
        if line.startswith("wrote "):
            for name in re.findall(r"[\w.-]+\.(?:glb|bvh|mp4|gif|npz|csv)", line):
                assert (tmp_path / name).exists(), f"{script.name}: {name} not written"

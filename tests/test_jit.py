"""The compiled-kernel plumbing: where kernels are cached, and the state
attributes controllers keep in arrays."""
import math
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from gaitforge import jit


def test_cache_folder_is_keyed_on_the_sources(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = jit.cache_dir()
    assert folder.parent == tmp_path / "gaitforge" / "numba" and len(folder.name) == 16
    assert jit.cache_dir() == folder  # the same sources, the same folder
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))
    assert jit.cache_dir() == tmp_path / "mine"


def test_an_unwritable_cache_home_falls_back_to_the_temporary_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    folder = jit.cache_dir()
    assert folder.parent.parent == Path(tempfile.gettempdir()) and folder.parent.name.startswith("gaitforge-numba-")


def test_a_source_change_moves_the_cache(tmp_path):
    """The digest covers every source of the package: editing a controller's
    kernel, or the creatures' compiled kinematics (in a copy of the package),
    gives another folder."""
    copy = tmp_path / "gaitforge"
    shutil.copytree(Path(jit.__file__).parent, copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location('j', sys.argv[1]); "
            "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m); print(m.cache_dir().name)")
    env = {"GAITFORGE_NO_JIT": "1", "XDG_CACHE_HOME": str(tmp_path), "PATH": ""}
    run = lambda: subprocess.run([sys.executable, "-c", code, str(copy / "jit.py")], env=env,  # noqa: E731
                                 capture_output=True, text=True, check=True).stdout.strip()
    before = run()
    for source in (copy / "control" / "raibert" / "biped" / "kernel.py", copy / "creatures" / "kinematics.py"):
        source.write_text(source.read_text() + "\n")
        after = run()
        assert after != before
        before = after


class Holder:
    """A controller-like object with its state in ``s``."""

    def __init__(self):
        self.s = np.array([1.5, math.nan, 0.0, 0.0, 3.0])

    x = jit.slot("s", 0)
    maybe = jit.slot("s", 1, optional=True)
    flag = jit.slot("s", 4, int)
    pair = jit.block("s", 2, 2)


def test_slots_and_blocks_read_and_write_the_state():
    h = Holder()
    assert h.x == 1.5 and isinstance(h.x, float) and h.maybe is None and h.flag == 3
    h.x, h.maybe = 2.5, 0.25
    assert h.s[0] == 2.5 and h.maybe == 0.25
    h.maybe = None
    assert math.isnan(h.s[1])
    h.pair = (7.0, 8.0)
    view = h.pair
    view[0] = 9.0  # a live view: item writes go to the state
    assert h.s[2:4].tolist() == [9.0, 8.0]


def test_entry_of_a_plain_function_is_the_function():
    def plain(a):
        return a + 1
    assert jit.entry(plain, (1,)) is plain

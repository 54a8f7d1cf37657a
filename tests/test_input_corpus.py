"""The hostile-input corpus (tests/input_corpus.py): every case ends with
exactly its one-line error and exit code, nothing else on stderr, no
output file left behind; and what the table cannot hold — failures the
system raises (no memory, a numeric error in a kernel, MuJoCo, a bug),
--debug, warnings of other libraries, outputs written together."""
import errno
import os
import signal
import subprocess
import sys
import time

import pytest

from gaitforge.cli.main import main
from input_corpus import CORPUS, expected, run_case


@pytest.mark.parametrize("case", CORPUS, ids=[c.id for c in CORPUS])
def test_corpus(case, tmp_path):
    before = set()
    code, err, seconds = run_case(case, str(tmp_path))
    assert (code, err) == (case.code, expected(case, str(tmp_path)) if case.message else err)
    if case.message:
        assert err.count("\n") == 1 and "Traceback" not in err
        made = {p.name for p in tmp_path.iterdir()} - set(case.files) - before
        assert not made, f"left behind: {made}"          # nothing written, no temporary file
    else:
        assert "gaitforge: error" not in err and "Traceback" not in err
    assert seconds < 120  # a hang shows here (the cases are refused before any heavy work)


def _fails_with(monkeypatch, capsys, target, exc, argv=("export", "worm", "-o", "w.yaml")):
    def boom(*args, **kwargs):
        raise exc
    monkeypatch.setattr(*target, boom)
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("exc, line, code", [
    (MemoryError(), "out of memory: the run needs more than this machine has; try a shorter run, fewer frames or "
                    "a smaller model", 1),
    (ZeroDivisionError("float division by zero"), "the computation failed (ZeroDivisionError: float division by "
                                                  "zero): an input or a value derived from it is probably out of "
                                                  "range; --debug shows where", 1),
    (FloatingPointError("overflow encountered"), "the computation failed (FloatingPointError: overflow "
                                                 "encountered): an input or a value derived from it is probably out "
                                                 "of range; --debug shows where", 1),
    (OverflowError("math range error"), "the computation failed (OverflowError: math range error): an input or a "
                                        "value derived from it is probably out of range; --debug shows where", 1),
    (OSError(errno.EFBIG, "File too large", "w.yaml"), "w.yaml: file too large", 1),
    (OSError(errno.ENOSPC, "No space left on device", "w.yaml"), "w.yaml: no space left on device", 1),
    (OSError(errno.EACCES, "Permission denied", "w.yaml"), "w.yaml: permission denied", 2),
    (OSError(errno.ENAMETOOLONG, "File name too long", "w.yaml"), "w.yaml: file name too long", 2),
    (RecursionError("maximum recursion depth exceeded"), "the computation nested too deeply (RecursionError); the "
                                                         "input is probably too large", 1),
    (KeyError("x"), "internal error (KeyError: 'x'); please report it with the traceback that --debug shows", 1),
])
def test_failures_the_system_raises_are_one_line(tmp_path, monkeypatch, capsys, exc, line, code):
    monkeypatch.chdir(tmp_path)
    from gaitforge.io import spec_files
    assert _fails_with(monkeypatch, capsys, (spec_files, "dump_spec"), exc) == (code, f"gaitforge: error: {line}\n")
    assert list(tmp_path.iterdir()) == []


def test_a_mujoco_error_is_one_line(tmp_path, monkeypatch, capsys):
    import mujoco
    monkeypatch.chdir(tmp_path)
    from gaitforge.io import spec_files
    assert _fails_with(monkeypatch, capsys, (spec_files, "dump_spec"), mujoco.FatalError("mj_stackAlloc: out of "
                                                                                         "memory\nmore")) == \
        (1, "gaitforge: error: MuJoCo failed: mj_stackAlloc: out of memory\n")


def test_debug_shows_the_traceback(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    from gaitforge.io import spec_files

    def boom(*args, **kwargs):
        raise ZeroDivisionError("float division by zero")
    monkeypatch.setattr(spec_files, "dump_spec", boom)
    with pytest.raises(ZeroDivisionError):
        main(["export", "worm", "-o", "w.yaml", "--debug"])
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "export", "worm", "-o", "w.yaml"])
    assert list(tmp_path.iterdir()) == []


def test_other_libraries_warnings_are_one_counted_line(tmp_path, monkeypatch, capsys):
    """NumPy's "Mean of empty slice" and MuJoCo's notes reach the user as one
    line of ours; gaitforge's own warnings stay one line each."""
    import warnings

    import mujoco
    import numpy as np
    from gaitforge.cli import creatures_cmd
    from gaitforge.errors import GaitforgeWarning

    real = creatures_cmd.cmd_creatures

    def noisy(args):
        np.mean(np.array([]))
        np.mean(np.array([]))
        warnings.warn("ours", GaitforgeWarning)
        model = mujoco.MjModel.from_xml_string('<mujoco><worldbody><body><freejoint/><geom size="0.1"/></body>'
                                               '</worldbody></mujoco>')
        data = mujoco.MjData(model)
        data.qvel[:] = 1e300
        mujoco.mj_step(model, data)
        return real(args)

    monkeypatch.setattr(creatures_cmd, "cmd_creatures", noisy)
    monkeypatch.chdir(tmp_path)
    parser_func = main(["creatures"])
    assert parser_func == 0
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "gaitforge: warning: ours"
    assert len(err) == 2 and err[1].startswith("gaitforge: warning: 3 warnings from MuJoCo, NumPy not shown (first: "
                                               "RuntimeWarning: Mean of empty slice")
    assert err[1].endswith("; --debug shows them")
    assert not (tmp_path / "MUJOCO_LOG.TXT").exists()


def test_a_valid_run_prints_no_warning_of_other_libraries(capsys):
    assert main(["run", "dog", "--gait", "walk", "--seconds", "1", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "dog walk at 0.375 m/s" in captured.out


def test_outputs_named_twice_are_refused_before_any_work(tmp_path, monkeypatch, capsys):
    """The same file by two names (a link to the folder) is one file."""
    monkeypatch.chdir(tmp_path)
    os.makedirs("d")
    os.symlink("d", "link")
    assert main(["simulate", "worm", "--seconds", "0.2", "-o", "link/x.csv", "--traces", "d/x.csv"]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: d/x.csv: named for two outputs of this command (also given "
                                       "as link/x.csv); give each output its own file\n")
    assert sorted(os.listdir("d")) == []
    assert main(["modes", "worm", "--json", "d/m.json", "--sheet", "d/m.png", "--count", "2"]) == 0
    assert sorted(os.listdir("d")) == ["m.json", "m.png"]


def test_sigterm_after_the_clip_appears_leaves_no_clip_without_its_plots(tmp_path):
    """``run dog --plots p -o o.npz``: every output is held back until all are
    written, so a SIGTERM while the plots are drawn leaves neither."""
    env = dict(os.environ, MUJOCO_GL="egl", PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = ("import sys, time\n"
            "from gaitforge.io import skills_plots\n"
            "real = skills_plots.save_footprints\n"
            "def slow(*a, **k):\n"
            "    real(*a, **k)\n"
            "    print('drawing', flush=True)\n"
            "    time.sleep(60)\n"
            "skills_plots.save_footprints = slow\n"
            "from gaitforge.cli.main import main\n"
            "sys.argv = ['gaitforge'] + sys.argv[1:]\n"
            "sys.exit(main())\n")
    proc = subprocess.Popen([sys.executable, "-c", code, "run", "dog", "--seconds", "4", "--quiet", "--plots", "p",
                             "-o", "o.npz"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.time() + 300
    line = ""
    while time.time() < deadline and "drawing" not in line:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
    assert "drawing" in line, proc.stderr.read()
    assert not (tmp_path / "o.npz").exists()        # the clip waits for its plots
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM
    assert err.strip().endswith(f"gaitforge: terminated by signal {int(signal.SIGTERM)}")
    assert list(tmp_path.iterdir()) == []           # no clip, no plot, no folder, no temporary file


def test_the_timestep_range_is_one_range():
    """Creature files and models are held to the steps a user may ask for."""
    from gaitforge.creatures.spec_checks import TIMESTEP
    from gaitforge.sim.physics import TIMESTEP_RANGE
    assert TIMESTEP == TIMESTEP_RANGE

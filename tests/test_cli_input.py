"""Every command-line value and every document is checked before any work,
and answered in one line: argument errors, hostile YAML/JSON (alias bombs,
duplicate keys, deep nesting, huge values), and termination by a signal,
which leaves no temporary file behind."""
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gaitforge.cli.main import main


def _err(capsys):
    return capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["run", "biped", "--seconds", "nan"], "run: argument --seconds: must be a number above 0 up to 3600, got 'nan'"),
    (["run", "biped", "--seconds", "inf"], "run: argument --seconds: must be a number above 0 up to 3600, got 'inf'"),
    (["run", "biped", "--speed", "nan"], "run: argument --speed: must be a number from 0 to 20, got 'nan'"),
    (["report", "raibert", "--seconds", "-5"],
     "report: argument --seconds: must be a number above 0 up to 600, got '-5'"),
    (["animate", "dog", "--gait", "trot", "--fps", "1e7"],
     "animate: argument --fps: must be a number above 0 up to 240, got '1e7'"),
    (["animate", "dog", "--gait", "trot", "--modes", "2.5"],
     "animate: argument --modes: must be a whole number from 1 to 500, got '2.5'"),
    (["modes", "dog", "--count", "0"], "modes: argument --count: must be a whole number from 1 to 10000, got '0'"),
    (["animate", "dog", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_argument_errors_are_one_line(capsys, argv, message):
    assert main(argv) == 2
    assert _err(capsys) == f"gaitforge: error: {message}\n"


def test_whole_numbers_may_be_written_as_floats(capsys):
    assert main(["modes", "worm", "--count", "3e0"]) == 0
    assert "worm: 3 elastic modes" in capsys.readouterr().out


BOMB = "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9) if i else ', '.join(['x'] * 9)}]\n" for i in range(9))


@pytest.mark.parametrize("text, message", [
    (BOMB + "name: *a8\n",
     "the document expands to more than 1,000,000 values (YAML aliases nested inside each other?); refused"),
    ("name: dog\nname: cat\n", "line 2, column 1: duplicate key 'name' (first at line 1)"),
    ("[" * 50000, "the document nests too deeply to read (more than 100 levels are refused)"),
    ("a: " + "[" * 150 + "]" * 150 + "\n", "the document nests deeper than 100 levels; refused"),
])
def test_hostile_documents_get_a_clear_error_quickly(tmp_path, capsys, text, message):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    start = time.perf_counter()
    assert main(["show", str(path)]) == 2
    assert _err(capsys) == f"gaitforge: error: {path}: {message}\n"
    assert time.perf_counter() - start < 30  # a hang would be caught here, not a speed claim


def test_a_huge_value_is_quoted_briefly(tmp_path, capsys):
    path = tmp_path / "c.yaml"
    path.write_text("name: " + "x" * 100000 + "\nbones: 7\n")
    assert main(["show", str(path)]) == 2
    line = _err(capsys)
    assert line.startswith(f"gaitforge: error: {path}: ") and line.count("\n") == 1 and len(line) < 400


def test_sigterm_removes_the_temporary_output(tmp_path):
    """A real process rendering a video, terminated mid-way: exit 143, no
    output and no hidden temporary file left."""
    out = tmp_path / "t.mp4"
    env = dict(os.environ, MUJOCO_GL="egl")
    proc = subprocess.Popen([sys.executable, "-m", "gaitforge.cli.main", "animate", "dog", "--gait", "trot",
                             "--seconds", "30", "--no-pin", "-o", str(out)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    while time.time() < deadline and not any(p.name.startswith(".t.mp4.") for p in tmp_path.iterdir()):
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    assert proc.poll() is None, proc.stderr.read().decode()   # still rendering: the temporary file exists
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM
    assert err.decode().strip().endswith(f"gaitforge: terminated by signal {int(signal.SIGTERM)}")
    assert list(tmp_path.iterdir()) == []


def test_a_termination_wrapped_in_another_error_still_ends_as_terminated(monkeypatch, capsys):
    """SIGTERM handled inside a ctypes call (starting the EGL renderer) comes
    out as an ArgumentError, "argument 5: _Terminated: 15", which the
    renderer reported as bad input (exit 2): the command ends as terminated
    all the same (exit 143, the one line)."""
    import argparse

    from gaitforge.cli import main as cli

    def work(args):
        try:
            cli._terminate(signal.SIGTERM, None)
        except BaseException as exc:  # as ctypes wraps what a converter raised
            raise ValueError(f"argument 5: {type(exc).__name__}: {exc}") from None

    class Parser:
        def parse_args(self, words):
            return argparse.Namespace(func=work)

    saved = {sig: signal.getsignal(sig) for sig in cli._STOPPING}
    monkeypatch.setattr(cli, "build_parser", Parser)
    try:
        assert main(["work"]) == 128 + signal.SIGTERM
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert capsys.readouterr().err == f"gaitforge: terminated by signal {int(signal.SIGTERM)}\n"

    def fail(args):
        raise ValueError("boom")

    class Failing:
        def parse_args(self, words):
            return argparse.Namespace(func=fail)

    monkeypatch.setattr(cli, "build_parser", Failing)
    assert main(["fail"]) == 1  # the next command, with no signal, fails as itself
    assert "internal error (ValueError: boom)" in capsys.readouterr().err


def _started(proc, folder, ready) -> None:
    """Wait (up to 240 s) until a file whose name satisfies ``ready`` appears in ``folder``."""
    deadline = time.time() + 240
    while time.time() < deadline and not any(ready(p.name) for p in folder.iterdir()):
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read().decode()


@pytest.mark.parametrize("argv, ready, left", [
    (["animate", "dog", "--gait", "trot", "--kry09", "--seconds", "30", "--no-pin", "-o", "t.mp4"],
     lambda name: name.startswith(".t.mp4."), []),
    # Workers in other processes: Ctrl-C reaches them too, and none may print a traceback;
    # the checkpoint of the generations done stays (it is what --resume reads).
    (["optimize", "worm", "--budget", "400", "--popsize", "4", "--seconds", "2", "--workers", "2", "--quiet",
      "-o", "best.yaml"], lambda name: name == "best.yaml.ckpt", ["best.yaml.ckpt"]),
])
def test_repeated_ctrl_c_and_sigterm_end_in_one_line(tmp_path, argv, ready, left):
    """Ctrl-C pressed again (and a SIGTERM) while the first one unwinds: exit
    130, the one line, no traceback from this process or its workers."""
    env = dict(os.environ, MUJOCO_GL="egl")
    proc = subprocess.Popen([sys.executable, "-m", "gaitforge.cli.main", *argv], env=env, cwd=tmp_path,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    _started(proc, tmp_path, ready)
    for sig in (signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGINT):
        os.killpg(proc.pid, sig)  # the whole process group, as a terminal does
        time.sleep(0.02)
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err.decode().strip().splitlines()) == (130, ["gaitforge: interrupted"])
    assert sorted(p.name for p in tmp_path.iterdir()) == left


def _descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (Linux /proc)."""
    found, todo = set(), [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = {int(k) for k in (task / "children").read_text().split()}
            except OSError:
                continue
            todo.extend(kids - found)
            found |= kids
    return found


def test_sigterm_to_the_main_process_alone_stops_the_workers(tmp_path):
    """A SIGTERM sent to the main process only (not its group) while its
    workers run candidates of 10 simulated minutes: it stops them and ends
    with the one line instead of waiting for them."""
    env = dict(os.environ, MUJOCO_GL="egl")
    proc = subprocess.Popen([sys.executable, "-m", "gaitforge.cli.main", "landscape", "worm", "--grid", "2",
                             "--seconds", "600", "--workers", "2", "--quiet", "--out-dir", "out"], env=env,
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    while time.time() < deadline and len(_descendants(proc.pid)) < 3:  # forkserver and two workers
        assert proc.poll() is None, proc.stderr.read().decode()
        time.sleep(0.1)
    time.sleep(2.0)  # the workers set up and start their candidates
    workers = _descendants(proc.pid)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)  # a wait for the candidates would be caught here
    assert (proc.returncode, err.decode().strip().splitlines()) == (
        128 + signal.SIGTERM, [f"gaitforge: terminated by signal {int(signal.SIGTERM)}"])
    deadline = time.time() + 30
    while time.time() < deadline and any(Path(f"/proc/{w}").exists() for w in workers):
        time.sleep(0.1)
    assert not [w for w in workers if Path(f"/proc/{w}").exists()]
    assert list(tmp_path.iterdir()) == []


def test_signals_while_kernels_compile_end_in_one_line(tmp_path):
    """SIGTERM, SIGINT and SIGTERM again while numba compiles the skills
    controller's kernels (an empty kernel cache: the first kernel has just
    been saved and the others take seconds more): exit 143, the one line."""
    cache = tmp_path / "kernels"
    env = dict(os.environ, MUJOCO_GL="egl", NUMBA_CACHE_DIR=str(cache))
    env.pop("GAITFORGE_NO_JIT", None)
    proc = subprocess.Popen([sys.executable, "-m", "gaitforge.cli.main", "run", "dog", "--seconds", "0.1"], env=env,
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 240
    while time.time() < deadline and not (cache.exists() and any(p.is_file() for p in cache.rglob("*"))):
        if proc.poll() is not None:
            break
        time.sleep(0.02)
    assert proc.poll() is None, proc.stderr.read().decode()  # still compiling
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
        os.killpg(proc.pid, sig)
        time.sleep(0.02)
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err.decode().strip().splitlines()) == (
        128 + signal.SIGTERM, [f"gaitforge: terminated by signal {int(signal.SIGTERM)}"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kernels"]


@pytest.mark.parametrize("argv, message", [
    (["animate", "dog", "--gait", "trot", "-o", "/proc/nope/out.npz"], "/proc/nope/out.npz: cannot write in /proc"),
    (["animate", "dog", "--gait", "trot", "-o", "/dev/null/out.npz"], "/dev/null/out.npz: /dev/null is not a folder"),
    (["animate", "dog", "--gait", "trot", "-o", "o.npz", "--save-recipe", "/dev/null/r.yaml"],
     "/dev/null/r.yaml: /dev/null is not a folder"),
    (["export", "dog", "--to", "/dev/null/dog.yaml"], "/dev/null/dog.yaml: /dev/null is not a folder"),
    (["show", "dog", "--png", "/dev/null/dog.png"], "/dev/null/dog.png: /dev/null is not a folder"),
    (["modes", "dog", "--json", "/dev/null/m.json"], "/dev/null/m.json: /dev/null is not a folder"),
    (["run", "biped", "-o", "/dev/null/run.npz"], "/dev/null/run.npz: /dev/null is not a folder"),
    (["report", "raibert", "--out", "/dev/null"], "/dev/null: is a file, not a folder"),
])
def test_unwritable_outputs_fail_before_any_work(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = _err(capsys)
    assert err.startswith(f"gaitforge: error: {message}") and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []  # nothing written, not even the output that could have been


def test_an_output_that_is_a_folder_is_refused(tmp_path, capsys):
    (tmp_path / "clip.npz").mkdir()
    assert main(["animate", "dog", "--gait", "trot", "-o", str(tmp_path / "clip.npz")]) == 2
    assert _err(capsys) == f"gaitforge: error: {tmp_path / 'clip.npz'}: is a folder; give a file name\n"


POLE = ("name: t\nbones:\n  - {{name: pole, parent: null, joint: {{type: free}}, {extra}"
        "shapes: [{{kind: capsule, radius: {radius}, fromto: [0, 0, 0, 0, 0, {length}]}}]}}\n")


@pytest.mark.parametrize("fields, message", [
    (dict(radius="1e-300"), "bones[0].shapes[0].radius: must be from 1e-05 to 10000, got 1e-300"),
    (dict(length="1e300"), "bones[0].shapes[0].fromto[5]: must be within ±10000, got 1e+300"),
    (dict(extra="pos: [0, .nan, 0], "), "bones[0].pos[1]: must be a finite number, got nan"),
    (dict(extra="mass: 1e30, "), "bones[0].mass: must be from 1e-09 to 1e+07, got 1e+30"),
    (dict(extra="mass: 1e-30, "), "bones[0].mass: must be from 1e-09 to 1e+07, got 1e-30"),
])
def test_degenerate_geometry_and_masses_are_refused_naming_the_bone(tmp_path, capsys, fields, message):
    path = tmp_path / "t.yaml"
    path.write_text(POLE.format(**{"radius": "0.02", "length": "1", "extra": "", **fields}))
    assert main(["show", str(path)]) == 2
    assert _err(capsys) == f"gaitforge: error: {path}: {message}\n"


def test_exponents_without_a_dot_are_numbers(tmp_path):
    from gaitforge.io.spec_files import load_spec
    path = tmp_path / "t.yaml"
    path.write_text(POLE.format(radius="2e-2", length="1e0", extra="mass: 5e0, "))
    bone = load_spec(path).bones[0]
    assert (bone.mass, bone.shapes[0].radius, bone.shapes[0].fromto[5]) == (5.0, 0.02, 1.0)


def test_a_file_that_is_not_a_clip_is_called_that(tmp_path, capsys):
    path = tmp_path / "clip.npz"
    path.write_text("hello\n")
    assert main(["metrics", str(path), "--creature", "dog"]) == 2
    assert _err(capsys) == (f"gaitforge: error: {path}: not a gaitforge motion file "
                            "(expected the .npz that gaitforge writes)\n")


@pytest.fixture(scope="module")
def trot_recipe(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recipes")
    assert main(["animate", "dog", "--gait", "trot", "--seconds", "0.5", "--no-pin", "-o", str(folder / "t.npz"),
                 "--save-recipe", str(folder / "trot.yaml")]) == 0
    return folder / "trot.yaml"


def _edited(recipe, tmp_path, old, new):
    import re
    path = tmp_path / "edited.yaml"
    path.write_text(re.sub(old, new, recipe.read_text(), count=1))
    return path


def test_a_recipe_for_another_creature_is_refused(trot_recipe, tmp_path, capsys):
    assert main(["animate", "human", "--recipe", str(trot_recipe), "-o", str(tmp_path / "h.npz")]) == 2
    assert _err(capsys) == (f"gaitforge: error: {trot_recipe}: the recipe is for 'dog', not 'human' "
                            "(mode numbers name another creature's modes)\n")


def test_a_term_faster_than_the_frames_is_refused(trot_recipe, tmp_path, capsys):
    path = _edited(trot_recipe, tmp_path, r"frequency: [0-9.]+", "frequency: 1000.0")
    assert main(["animate", "dog", "--recipe", str(path), "-o", str(tmp_path / "f.npz")]) == 2
    assert _err(capsys) == ("gaitforge: error: recipe 'trot': terms[0] runs at 1000 Hz, above half the frame "
                            "rate (30 Hz): raise --fps or lower the frequency\n")
    path = _edited(trot_recipe, tmp_path, r"frequency: [0-9.]+", "frequency: 1.0e6")
    assert main(["animate", "dog", "--recipe", str(path), "-o", str(tmp_path / "f.npz")]) == 2
    assert _err(capsys) == f"gaitforge: error: {path}: terms[0].frequency: must be at most 10000, got 1000000.0\n"
    assert not (tmp_path / "f.npz").exists()


def test_amplitudes_beyond_half_a_turn_are_refused(trot_recipe, tmp_path, capsys):
    path = _edited(trot_recipe, tmp_path, r"amplitude: [0-9.]+", "amplitude: 1.0e6")
    assert main(["animate", "dog", "--recipe", str(path), "-o", str(tmp_path / "f.npz")]) == 2
    err = _err(capsys)
    assert err.startswith("gaitforge: error: recipe 'trot' turns a joint by ") and err.endswith(
        "°, more than 360°: modes are small motions; lower the amplitudes\n")


ROOT = ("  - {{name: a, parent: null, joint: {{type: {root}}}, "
        "shapes: [{{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0, 0, 1]}}]}}\n")
ARM = ("  - {{name: b, parent: a, pos: [0, 0, 1], joint: {joint}, "
       "shapes: [{{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0.3, 0, 0]}}]}}\n")


@pytest.mark.parametrize("bones, message", [
    (ROOT.format(root="fixed"), "c has no joints: nothing can move, so there are no vibration modes"),
    (ROOT.format(root="free") + ARM.format(joint="{type: fixed}"),
     "c: every motion is rigid (6 degrees of freedom, no spring resists any of them): there are no vibration "
     "modes; give the joints stiffness"),
    (ROOT.format(root="free") + ARM.format(joint="{type: hinge, stiffness: 0}"),
     "c: every motion is rigid (7 degrees of freedom, no spring resists any of them): there are no vibration "
     "modes; give the joints stiffness"),
])
def test_creatures_without_springs_have_no_modes(tmp_path, capsys, bones, message):
    path = tmp_path / "c.yaml"
    path.write_text("name: c\nbones:\n" + bones)
    assert main(["modes", str(path)]) == 2
    assert _err(capsys) == f"gaitforge: error: {message}\n"


def test_run_takes_creature_names_and_family_names(capsys):
    assert main(["run", "raibert_quadruped", "--seconds", "2", "--speed", "1.0"]) == 0
    by_creature = capsys.readouterr().out
    assert main(["run", "quadruped", "--seconds", "2", "--speed", "1.0"]) == 0
    by_family = capsys.readouterr().out
    timing = lambda out: out.split("\n", 1)[1]  # noqa: E731  (the first line reports wall time)
    assert by_creature.startswith("raibert_quadruped trot at 1 m/s: 2.0 s simulated")
    assert timing(by_creature) == timing(by_family)


def test_one_output_convention_with_the_old_spellings_kept(tmp_path, capsys):
    assert main(["export", "worm", "-o", str(tmp_path / "a.yaml")]) == 0
    assert main(["export", "worm", "--to", str(tmp_path / "b.yaml")]) == 0
    assert (tmp_path / "a.yaml").read_text() == (tmp_path / "b.yaml").read_text()
    assert main(["show", "worm", "--out", str(tmp_path / "w.png")]) == 0
    assert (tmp_path / "w.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["run", "kangaroo", "--seconds", "0.5", "--out", str(tmp_path / "k.npz")]) == 0
    assert (tmp_path / "k.npz").exists()


def test_a_thousand_bone_chain_loads_and_a_cycle_is_found(tmp_path):
    """The spec check is linear in the bones (a chain was quadratic in its
    depth); no timing is asserted, a hang would show as a slow test."""
    from gaitforge.errors import SpecError
    from gaitforge.io.spec_files import load_spec
    bone = ("  - {{name: b{i}, parent: {parent}, pos: [0.1, 0, 0], joint: {{type: hinge, stiffness: 10}}, "
            "shapes: [{{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0.1, 0, 0]}}]}}\n")
    text = "name: chain\nbones:\n  - {name: b0, parent: null, joint: {type: free}, " \
           "shapes: [{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0.1, 0, 0]}]}\n"
    text += "".join(bone.format(i=i, parent=f"b{i - 1}") for i in range(1, 1000))
    path = tmp_path / "chain.yaml"
    path.write_text(text)
    assert len(load_spec(path).bones) == 1000
    path.write_text(text.replace("{name: b1, parent: b0,", "{name: b1, parent: b2,"))
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert str(err.value) == f"{path}: bones[1].parent: cycle in the bone tree: b1 -> b2 -> b1"


def test_long_runs_show_progress_on_a_terminal_only():
    import io
    from gaitforge.cli.progress import progress_bar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    with progress_bar("run", 60.0, stream=io.StringIO()) as advance:
        assert advance is None                      # not a terminal (CI, pipes)
    with progress_bar("run", 60.0, quiet=True, stream=Terminal()) as advance:
        assert advance is None                      # --quiet
    with progress_bar("run", 5.0, worth_it=False, stream=Terminal()) as advance:
        assert advance is None                      # too short to need one
    term = Terminal()
    with progress_bar("run", 60.0, stream=term, unit="s") as advance:
        advance(30.0, info="halfway")
    assert "run" in term.getvalue()


def test_the_run_loop_reports_simulated_time():
    from gaitforge.control.raibert import catalog
    seen = []
    catalog.simulate("kangaroo", "hop", 3.0, 3.0, progress=seen.append)
    assert seen == pytest.approx([0.0, 1.0, 2.0], abs=0.01)


def test_a_path_files_speed_is_used_and_a_speed_out_of_range_refused(tmp_path, capsys):
    path = tmp_path / "p.yaml"
    path.write_text("waypoints: [[0, 0], [6, 0]]\nspeed: 0.8\n")
    assert main(["run", "raibert_biped", "--path", str(path), "--seconds", "3"]) == 0
    out = capsys.readouterr().out
    assert "raibert_biped run at 0.8 m/s" in out and re.search(r"│ desired speed +│ +0\.8 │", out)
    assert main(["run", "raibert_quadruped", "--speed", "9", "--seconds", "3"]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: raibert_quadruped trot: speed 9 m/s is outside its range "
                                       "0.5–1.8 m/s\n")


def test_outputs_of_one_command_are_written_together_or_not_at_all(tmp_path, monkeypatch, capsys):
    """A failure while writing the second output leaves neither (nor any
    temporary file), and is one line (exit 1: the run failed)."""
    import errno
    from gaitforge.io import recipe_files

    def broken(recipe, path):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(recipe_files, "save_recipe", broken)
    assert main(["animate", "dog", "--gait", "trot", "--kry09", "--seconds", "0.5", "--no-pin",
                 "-o", str(tmp_path / "t.npz"),
                 "--save-recipe", str(tmp_path / "t.yaml")]) == 1
    assert _err(capsys) == f"gaitforge: error: {tmp_path / 't.yaml'}: no space left on device\n"
    assert list(tmp_path.iterdir()) == []
    monkeypatch.undo()
    assert main(["animate", "dog", "--gait", "trot", "--kry09", "--seconds", "0.5", "--no-pin",
                 "-o", str(tmp_path / "t.npz"),
                 "--save-recipe", str(tmp_path / "t.yaml")]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz", "t.yaml"]


def test_too_many_bones_is_a_clear_limit(tmp_path, capsys):
    bone = ("  - {{name: b{i}, parent: b{p}, pos: [0.1, 0, 0], joint: {{type: hinge, stiffness: 10}}, "
            "shapes: [{{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0.1, 0, 0]}}]}}\n")
    text = "name: chain\nbones:\n  - {name: b0, parent: null, joint: {type: free}, " \
           "shapes: [{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0.1, 0, 0]}]}\n"
    path = tmp_path / "chain.yaml"
    path.write_text(text + "".join(bone.format(i=i, p=i - 1) for i in range(1, 5000)))
    assert main(["modes", str(path)]) == 2
    assert _err(capsys) == f"gaitforge: error: {path}: bones: at most 1000 bones are supported, got 5000\n"


def test_modal_simulation_and_optimization_take_creature_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # a relative path: the workers must still find the file
    assert main(["export", "worm", "-o", "worm.yaml"]) == 0
    capsys.readouterr()
    def untimed(out: str) -> list[str]:
        return [line for line in out.splitlines() if " simulated in " not in line]

    assert main(["simulate", "worm.yaml", "--seconds", "1"]) == 0
    by_file = untimed(capsys.readouterr().out)
    assert main(["simulate", "worm", "--seconds", "1"]) == 0
    assert untimed(capsys.readouterr().out) == by_file        # the same run, timing line aside
    assert main(["optimize", "worm.yaml", "--budget", "4", "--popsize", "4", "--seconds", "0.5", "--workers", "2",
                 "-o", "best.yaml"]) == 0
    assert "name: worm_optimized" in (tmp_path / "best.yaml").read_text()


def test_every_command_taking_a_creature_takes_its_files(tmp_path, capsys):
    data = os.path.join(os.path.dirname(__file__), "data")
    bvh, urdf = os.path.join(data, "tiny_biped.bvh"), os.path.join(data, "tiny_quadruped.urdf")
    assert main(["show", bvh]) == 0 and main(["modes", urdf, "--count", "2"]) == 0
    assert main(["export", bvh, "-o", str(tmp_path / "b.yaml")]) == 0
    assert main(["export", urdf, "-o", str(tmp_path / "q.xml")]) == 0
    capsys.readouterr()
    assert main(["export", urdf, "-o", str(tmp_path / "q.yaml")]) == 2
    assert _err(capsys) == (f"gaitforge: error: {urdf}: an MJCF or URDF model has no creature document of its "
                            "own; export it as .xml, or use it directly\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.yaml", "q.xml"]


def test_a_model_with_impossible_values_is_refused_naming_the_body(tmp_path, capsys):
    model = ('<mujoco model="n"><worldbody><body name="a" pos="0 0 1"><freejoint/><geom type="sphere" size="0.1"/>'
             '<body name="b" pos="{pos}"><joint type="hinge" axis="0 1 0" stiffness="10"/>'
             '<geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.02"/></body></body></worldbody></mujoco>')
    for pos, shown in (("nan 0 0.2", "nan, 0, 0.2"), ("1e300 0 0.2", "1e+300, 0, 0.2")):
        path = tmp_path / "m.xml"
        path.write_text(model.format(pos=pos))
        assert main(["modes", str(path)]) == 2
        assert _err(capsys).endswith(f"gaitforge: error: {path}: body 'b': position ({shown}) is not finite or "
                                     "out of range\n")


def test_a_bvh_nested_thousands_deep_is_refused(tmp_path, capsys):
    depth = 3000
    lines = ["HIERARCHY", "ROOT hips", "{", "OFFSET 0 0 0", "CHANNELS 6 Xposition Yposition Zposition Zrotation "
             "Xrotation Yrotation"]
    for i in range(depth):
        lines += [f"JOINT j{i}", "{", "OFFSET 0 1 0", "CHANNELS 3 Zrotation Xrotation Yrotation"]
    lines += ["}"] * (depth + 1) + ["MOTION", "Frames: 1", "Frame Time: 0.03", " ".join(["0"] * (6 + 3 * depth))]
    path = tmp_path / "deep.bvh"
    path.write_text("\n".join(lines) + "\n")
    assert main(["show", str(path)]) == 2
    assert _err(capsys) == f"gaitforge: error: {path}: line 802: joints nest deeper than 200 levels\n"

"""``gaitforge simulate``, ``landscape`` and ``optimize`` called through
main(argv): outputs, replay of an optimized recipe, and one-line errors."""
import csv

import numpy as np
import pytest

from gaitforge.cli import modalsim_cmd
from gaitforge.cli.main import main
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.io.clipfiles import load_npz
from gaitforge.io.recipe_files import load_recipe


@pytest.fixture(autouse=True)
def wide_console():
    width = modalsim_cmd.console.width
    modalsim_cmd.console.width = 250
    yield
    modalsim_cmd.console.width = width


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


@pytest.mark.parametrize("argv, message", [
    (["simulate", "worm", "--seconds", "nan"],
     "simulate: argument --seconds: must be a number above 0 up to 3600, got 'nan'"),
    (["simulate", "worm", "--seconds", "-1"],
     "simulate: argument --seconds: must be a number above 0 up to 3600, got '-1'"),
    (["simulate", "worm", "-o", "x.txt"],
     "x.txt: unknown motion file extension '.txt' (valid: .bvh, .csv, .gif, .glb, .mp4, .npz)"),
    (["simulate", "dog"], "dog has no hand-set modal gait; give a recipe file"),
    (["simulate", "snake"], "unknown creature 'snake' (built-in creatures: " + ", ".join(registry.names()) + ")"),
    (["landscape", "worm", "--grid", "1"], "landscape: argument --grid: must be a whole number from 2 to 200, got '1'"),
    (["landscape", "worm", "--max-magnitude", "inf"],
     "landscape: argument --max-magnitude: must be a number above 0 up to 1000000, got 'inf'"),
    (["landscape", "dog"], "no hand-set modal gait for 'dog' (available: worm, loop)"),
    (["landscape", "worm", "--workers", "0"],
     "landscape: argument --workers: must be a whole number from 1 to 1024, got '0'"),
    (["optimize", "worm", "--budget", "1"],
     "optimize: argument --budget: must be a whole number from 2 to 10000000, got '1'"),
    (["optimize", "worm", "--seed", "-3"],
     "optimize: argument --seed: must be a whole number from 0 to 4294967295, got '-3'"),
    (["optimize", "worm", "--cyclic-tol", "0"], "--cyclic-tol must be a positive number (inf: no constraint), got 0.0"),
    (["optimize", "worm", "--heading", "north"], "--heading must be auto, any or a finite angle in degrees, got north"),
    (["optimize", "worm", "--impulses", "2,x"],
     "optimize: argument --impulses: must be distinct elastic mode indices separated by commas, got '2,x'"),
    (["optimize", "worm", "--initial", "1,1"],
     "optimize: argument --initial: must be distinct elastic mode indices separated by commas, got '1,1'"),
    (["optimize", "worm", "--upright", "0.2"],
     "optimize: argument --upright: must be a height [m] and an angle from 0 to 180 degrees, got '0.2'"),
    (["optimize", "worm", "-o", "best.txt"],
     "best.txt: unknown recipe file extension '.txt' (valid: .yaml, .yml, .json)"),
    (["simulate", "worm", "--timestep", "0"],
     "simulate: argument --timestep: must be a number from 1e-05 to 0.05, got '0'"),
    (["optimize", "worm", "--timestep", "nan"],
     "optimize: argument --timestep: must be a number from 1e-05 to 0.05, got 'nan'"),
    (["simulate", "worm", "--timestep", "0.002"],
     "the contact time constant 2 ms must be at least twice the step (2 ms): MuJoCo would stiffen it silently"),
])
def test_errors_are_one_line(capsys, argv, message):
    err = _error(capsys, argv)
    assert err == f"gaitforge: error: {message}"


def test_simulate_writes_clip_and_traces(tmp_path, capsys):
    clip, traces = tmp_path / "w.npz", tmp_path / "w.csv"
    assert main(["simulate", "worm", "--seconds", "1", "-o", str(clip), "--traces", str(traces)]) == 0
    out = capsys.readouterr().out
    assert "worm worm_crawl: 1.00 s simulated" in out and f"wrote {clip}" in out
    # the physics the run integrated with (as MuJoCo holds it) and the joint limits, before the run
    assert out.startswith("physics: 0.25 ms implicitfast, Newton; contacts 2 ms, ratio 1, solimp 0.9–0.95/1 mm; "
                          "friction 1\njoint limits: drive torque 3 m g L = "
                          "11.6 N m (L = 0.824 m), speed 40 rad/s; L: the worm's length")
    assert "peak joint torque " in out and " m g L (limit 3; limited in " in out and "deepest contact " in out
    c = load_npz(clip, Character.from_spec(registry.build("worm")))
    assert c.n_frames == 101
    rows = list(csv.reader(traces.open()))
    assert rows[0][:7] == ["time", "kinetic_J", "potential_J", "work_J", "com_x", "com_y", "com_z"]
    assert len(rows) == 102 and rows[0][-1] == "contact_link15"


def _travel(out: str) -> float:
    return float(out.split("travel ")[1].split(" m")[0])


def replayed(capsys, creature, recipe, seconds) -> float:
    """The shorter travel of ``simulate`` at the creature's modal step and at
    half of it: what the optimizer scored (the worse of the two)."""
    from gaitforge.control.modal.physics import physics_for

    dt = physics_for(creature).timestep
    travels = []
    for step in (dt, dt / 2):
        assert main(["simulate", creature, "--recipe", str(recipe), "--seconds", str(seconds),
                     "--timestep", str(step)]) == 0
        out = capsys.readouterr().out
        assert f"physics: {1000 * step:g} ms implicitfast," in out
        travels.append(_travel(out))
    return min(travels)


@pytest.mark.same_machine
def test_optimize_then_simulate_replays_the_recipe_and_resume(tmp_path, capsys):
    best = tmp_path / "best.yaml"
    argv = ["optimize", "worm", "--budget", "8", "--seconds", "0.6", "--workers", "1", "--seed", "2",
            "--heading", "any", "-o", str(best)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "each candidate runs at 0.25 ms and 0.125 ms (the worse score counts)" in out
    assert ("CMA-ES (distance, seed 2, 8 simulations of 0.6 s at 0.25 and 0.125 ms, the worse counting)" in out
            and f"wrote {best}" in out)
    recipe = load_recipe(best)
    assert recipe.creature == "worm" and [t.mode for t in recipe.terms] == [0, 1]
    assert (tmp_path / "best.yaml.ckpt").exists()
    first = best.read_text()
    assert main(argv + ["--resume"]) == 0  # the checkpoint holds the finished run: same result
    assert best.read_text() == first
    capsys.readouterr()
    distance = float(recipe.description.split("): ")[1].split(" m,")[0])
    assert replayed(capsys, "worm", best, 0.6) == pytest.approx(distance, abs=6e-4)
    assert main(argv[:2] + ["--budget", "16"] + argv[4:] + ["--resume"]) == 0  # a larger budget continues it
    assert "CMA-ES (distance, seed 2, 16 simulations of 0.6 s at" in capsys.readouterr().out


def test_optimize_resume_refuses_a_pickle_without_running_it(tmp_path, capsys):
    import os
    import pickle

    class Payload:
        def __reduce__(self):
            return os.system, (f"touch {tmp_path / 'pwned'}",)

    best = tmp_path / "best.yaml"
    (tmp_path / "best.yaml.ckpt").write_bytes(pickle.dumps({"version": 1, "es": Payload()}, protocol=5))
    err = _error(capsys, ["optimize", "worm", "--budget", "8", "--seconds", "0.6", "--workers", "1", "-o", str(best),
                          "--resume"])
    assert err == (f"gaitforge: error: {best}.ckpt: not a gaitforge checkpoint (old pickle checkpoints are no longer "
                   "read; start again without --resume)")
    assert not (tmp_path / "pwned").exists() and not best.exists()


def test_landscape_writes_csv_and_png(tmp_path, capsys):
    out_dir = tmp_path / "ls"
    assert main(["landscape", "worm", "--grid", "2", "--seconds", "0.5", "--workers", "1",
                 "--out-dir", str(out_dir)]) == 0
    out = capsys.readouterr().out
    assert "optimum: " in out and "(nearest pi/2)" in out and "cells blew up" in out
    rows = list(csv.reader((out_dir / "landscape.csv").open()))
    assert len(rows) == 5 and rows[0][0] == "magnitude"
    assert (out_dir / "landscape.png").stat().st_size > 1000
    assert np.isclose(float(rows[1][0]), 0.025)  # 2.5 x 0.02 / 2


@pytest.mark.slow
@pytest.mark.same_machine
def test_a_killed_optimize_resumes_to_the_same_result(tmp_path):
    """SIGKILL the command once its first checkpoint exists, resume, compare
    with an uninterrupted run."""
    import os
    import signal
    import subprocess
    import sys
    import time

    def argv(out):
        return [sys.executable, "-m", "gaitforge.cli.main", "optimize", "loop", "--budget", "24", "--seconds", "0.5",
                "--workers", "1", "--seed", "4", "-o", str(out)]

    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    full, killed = tmp_path / "full.yaml", tmp_path / "killed.yaml"
    subprocess.run(argv(full), check=True, env=env, capture_output=True)
    proc = subprocess.Popen(argv(killed), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ckpt = tmp_path / "killed.yaml.ckpt"
    while proc.poll() is None and not ckpt.exists():
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert ckpt.exists() and not killed.exists()  # killed between generations, before the result
    subprocess.run(argv(killed) + ["--resume"], check=True, env=env, capture_output=True)
    assert killed.read_text() == full.read_text()

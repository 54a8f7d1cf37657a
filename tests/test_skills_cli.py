"""``gaitforge run dog|gorilla``: the motion leaves through the exporters
(glTF checked by the Khronos validator, BVH read back by the independent
``bvh`` package), the plots are written, and bad requests get one line and
exit code 2."""
from __future__ import annotations

import numpy as np
import pytest
from bvh import Bvh

from gaitforge.cli.main import main
from test_export_gltf import validate


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("skills")
    code = main(["run", "gorilla", "--gait", "ds_walk", "--speed", "0.3", "--seconds", "4", "--quiet",
                 "-o", str(folder / "walk.glb"), "--plots", str(folder / "plots")])
    assert code == 0
    assert main(["run", "gorilla", "--gait", "ds_walk", "--speed", "0.3", "--seconds", "4", "--quiet",
                 "-o", str(folder / "walk.bvh")]) == 0
    return folder


def test_gltf_export_of_a_skills_run_passes_the_khronos_validator(outputs):
    (report,) = validate(outputs / "walk.glb")
    assert report["numErrors"] == 0, report["messages"]


def test_bvh_export_of_a_skills_run_reads_back(outputs):
    from gaitforge.control.skills import catalog

    doc = Bvh((outputs / "walk.bvh").read_text())
    character, rollout = catalog.simulate("gorilla", "ds_walk", 0.3, 4.0)
    assert doc.nframes == rollout.clip.n_frames
    assert len(doc.get_joints_names()) == character.model.nbody - 1  # one joint per body
    # forward travel: gaitforge x is BVH Z (y up); the pelvis moved ~1 m forward in 4 s
    z = np.array(doc.frames_joint_channels("pelvis", ["Zposition"]), float)[:, 0]
    assert z[-1] - z[0] == pytest.approx(rollout.clip.qpos[-1, 0] - rollout.clip.qpos[0, 0], rel=0.02)


def test_plots_are_written(outputs):
    names = sorted(p.name for p in (outputs / "plots").iterdir())
    assert names == ["footprints.png", "gait_diagram.png", "gait_graph.png"]
    assert all((outputs / "plots" / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for n in names)


@pytest.mark.parametrize("argv, message", [
    (["run", "gorilla", "--gait", "gallop"], "gorilla has no gait 'gallop' (valid gaits: stand, ds_walk, trot)"),
    (["run", "gorilla", "--speed", "0.9"], "gorilla ds_walk: speed 0.9 m/s is outside its range 0–0.6 m/s"),
    (["run", "gorilla", "--scale", "2"], "gorilla cannot be scaled"),
    (["run", "raibert_biped", "--turn", "0.2"],
     "raibert_biped does not turn on command (turn_rate works for: gorilla, dog)"),
    (["run", "raibert_biped", "--plots", "x"],
     "raibert_biped has no gait graph to plot (plots work for: gorilla, dog)"),
    (["run", "kangaroo", "--path", "p.yaml"],
     "kangaroo does not follow paths (paths work for: raibert_biped, raibert_quadruped, gorilla, dog)"),
    (["run", "worm", "--speed", "0.1"], "worm crawl takes no speed: its drive sets how fast it goes (give no speed)"),
    (["run", "unicorn"], "no simulated controller for 'unicorn'"),
    (["run", "gorilla", "-o", "walk.txt"], ".txt"),
])
def test_bad_requests_get_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        raise SystemExit(main(argv + ["--quiet"]))
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1

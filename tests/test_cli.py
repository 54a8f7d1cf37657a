"""The foundation commands, called through main(argv) as a user would."""
import subprocess
import sys

import imageio.v3 as iio
import mujoco
import numpy as np

from gaitforge.cli.main import main
from gaitforge.creatures import registry
from gaitforge.io.spec_files import load_spec


def test_creatures_table_lists_every_creature(capsys):
    assert main(["creatures"]) == 0
    out = capsys.readouterr().out
    for name in registry.names():
        assert name in out
    assert "DOFs" in out and "mass" in out


def test_show_renders_a_picture(tmp_path, capsys):
    png = tmp_path / "worm.png"
    assert main(["show", "worm", "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert "link15" in out and "hinge" in out
    img = iio.imread(png)
    assert img.shape == (480, 640, 3)
    assert img.std() > 5  # not a blank frame


def test_export_yaml_round_trips_and_is_accepted_as_file(tmp_path, capsys):
    path = tmp_path / "loop.yaml"
    assert main(["export", "loop", "--to", str(path)]) == 0
    assert load_spec(path) == registry.build("loop")
    assert main(["show", str(path)]) == 0
    assert "closure (loop)" in capsys.readouterr().out


def test_export_mjcf_loads_in_plain_mujoco(tmp_path):
    path = tmp_path / "worm.xml"
    assert main(["export", "worm", "--to", str(path)]) == 0
    m = mujoco.MjModel.from_xml_path(str(path))
    from gaitforge.creatures.character import Character
    c = Character.from_spec(registry.build("worm"))
    assert m.nv == c.nv
    # MuJoCo's XML writer prints 6 significant digits.
    np.testing.assert_allclose(m.body_mass, c.model.body_mass, rtol=1e-5)
    np.testing.assert_allclose(m.key_qpos[0], c.rest_qpos, rtol=1e-5, atol=1e-9)


def test_bad_file_is_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nbones:\n  - name: a\n    parent: null\n    joint: {type: wobble}\n"
                   "    shapes: [{kind: sphere, radius: 0.1}]\n")
    assert main(["show", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err == (f"gaitforge: error: {bad}: bones[0].joint.type: unknown joint type 'wobble' "
                   "(choose from ball, fixed, free, hinge, planar, slide)\n")


def test_unknown_export_format_writes_nothing(tmp_path, capsys):
    target = tmp_path / "worm.obj"
    assert main(["export", "worm", "--to", str(target)]) == 2
    assert not target.exists()
    assert capsys.readouterr().err == (f"gaitforge: error: {target}: unknown export file extension '.obj' "
                                       "(valid: .yaml, .yml, .json, .xml)\n")


def test_console_script_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "gaitforge.cli.main", "show", "unicorn"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("gaitforge: error: unknown creature 'unicorn'")

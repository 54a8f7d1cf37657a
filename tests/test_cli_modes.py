"""``gaitforge modes`` and ``gaitforge tune`` called through main(argv) as a user would."""
import json

import imageio.v3 as iio
import numpy as np
import pytest

from gaitforge.cli.main import main
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.modal.tuning import tune_stiffness


def _err(capsys) -> str:
    return capsys.readouterr().err


def test_modes_table_json_and_sheet(tmp_path, capsys):
    js, png = tmp_path / "worm.json", tmp_path / "worm.png"
    assert main(["modes", "worm", "--count", "4", "--json", str(js), "--sheet", str(png)]) == 0
    out = capsys.readouterr().out
    assert "worm: 4 elastic modes (6 rigid" in out
    for n in range(1, 5):
        assert f"bending {n}" in out
    doc = json.loads(js.read_text())
    assert doc["creature"] == "worm" and doc["nv"] == 21 and doc["n_rigid"] == 6
    assert doc["gravity"] is False and doc["stiffness_scale"] == 1.0
    freqs = [m["frequency_hz"] for m in doc["modes"]]
    assert len(freqs) == 4 and freqs == sorted(freqs) and freqs[0] > 0
    first = doc["modes"][0]
    assert first["name"] == "bending 1" and first["symmetry"] == "symmetric"
    assert first["eigenvalue"] == pytest.approx((2 * np.pi * first["frequency_hz"]) ** 2)
    assert sum(first["motion_share"].values()) == pytest.approx(1.0)
    # Two modes per row, each a pair of 320x240 tiles under a 22 px caption, 6 px gaps.
    img = iio.imread(png)
    assert img.shape == (2 * (240 + 22) + 3 * 6, 2 * (2 * 320 + 6) + 3 * 6, 3)
    left = img[6 + 22:6 + 262, 6:326].astype(int)
    right = img[6 + 22:6 + 262, 332:652].astype(int)
    assert left.std() > 5 and np.abs(left - right).mean() > 0.5  # the two extremes differ
    assert [p.name for p in tmp_path.iterdir()] and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_dog_table_names_its_modes(capsys):
    assert main(["modes", "dog", "--count", "6"]) == 0
    out = capsys.readouterr().out
    assert "bounding" in out and "symmetric" in out and "antisymmetric" in out


def test_stiffness_scale_raises_frequencies_by_its_root(tmp_path, capsys):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert main(["modes", "worm", "--count", "3", "--json", str(a)]) == 0
    assert main(["modes", "worm", "--count", "3", "--stiffness-scale", "4", "--json", str(b)]) == 0
    fa = [m["frequency_hz"] for m in json.loads(a.read_text())["modes"]]
    fb = [m["frequency_hz"] for m in json.loads(b.read_text())["modes"]]
    np.testing.assert_allclose(fb, 2 * np.asarray(fa), rtol=1e-9)
    assert json.loads(b.read_text())["stiffness_scale"] == 4.0


def test_constraints_shape_the_modes_and_are_recorded(tmp_path, capsys):
    js = tmp_path / "worm.json"
    assert main(["modes", "worm", "--count", "2", "--constrain", "pin:link0", "lock:link15",
                 "--json", str(js)]) == 0
    doc = json.loads(js.read_text())
    assert doc["n_rigid"] == 0  # pinned at one end, its orientation held at the other
    assert [(c["kind"], c["bone"]) for c in doc["constraints"]] == [("pin", "link0"), ("lock", "link15")]
    assert main(["modes", "worm", "--constrain", "pin:nose"]) == 2
    bodies = ", ".join(f"link{i}" for i in range(16))
    assert _err(capsys) == f"gaitforge: error: unknown body 'nose' in worm (valid bodies: {bodies})\n"


def test_tune_stiffness_option_uses_the_tuned_scale(tmp_path, capsys):
    js = tmp_path / "loop.json"
    assert main(["modes", "loop", "--count", "2", "--tune-stiffness", "--json", str(js)]) == 0
    expected = tune_stiffness(Character.from_spec(registry.build("loop"))).scale
    assert json.loads(js.read_text())["stiffness_scale"] == pytest.approx(expected, rel=1e-12)
    assert f"stiffness scale {expected:.4g} (tuned" in capsys.readouterr().out


def test_tune_command_prints_scale_and_sag(capsys):
    assert main(["tune", "loop", "--max-deviation", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("loop: stiffness scale ")
    assert "confirmed in simulation" in out and "of 3°" in out
    assert "ground supports: link0" in out
    assert "link1" in out and "simulated" in out


@pytest.mark.parametrize("argv, message", [
    (["modes", "worm", "--count", "0"], "modes: argument --count: must be a whole number from 1 to 10000, got '0'"),
    (["modes", "worm", "--stiffness-scale", "-2"],
     "modes: argument --stiffness-scale: must be a number above 0 up to 1000000, got '-2'"),
    (["modes", "worm", "--sheet", "modes.jpg"], "modes.jpg: the picture sheet must be a .png file"),
    (["modes", "nope"], "unknown creature 'nope' (built-in creatures: " + ", ".join(registry.names()) + ")"),
    (["tune", "worm", "--max-deviation", "0"],
     "tune: argument --max-deviation: must be a number above 0 up to 90, got '0'"),
])
def test_bad_input_is_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    assert _err(capsys) == f"gaitforge: error: {message}\n"


def test_tuning_a_floating_creature_fails_cleanly(tmp_path, capsys):
    spec = tmp_path / "balloon.yaml"
    spec.write_text("name: balloon\nground_clearance: null\nbones:\n"
                    "  - {name: body, parent: null, pos: [0, 0, 2], joint: {type: free},"
                    " shapes: [{kind: sphere, radius: 0.1}]}\n"
                    "  - {name: arm, parent: body, pos: [0.1, 0, 0], joint: {type: hinge, stiffness: 1},"
                    " shapes: [{kind: sphere, radius: 0.05, pos: [0.2, 0, 0]}]}\n")
    assert main(["tune", str(spec)]) == 2
    assert _err(capsys) == ("gaitforge: error: balloon: no body touches the ground in the rest pose, "
                            "so its weight has nothing to rest on\n")


def test_tune_says_when_the_creature_falls(tmp_path, capsys):
    spec = tmp_path / "pole.yaml"
    spec.write_text("name: pole\nbones:\n"
                    "  - {name: pole, parent: null, joint: {type: free},"
                    " shapes: [{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0, 0, 1]}]}\n"
                    "  - {name: arm, parent: pole, pos: [0, 0, 0.9], joint: {type: hinge, stiffness: 50},"
                    " shapes: [{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0.3, 0, 0]}]}\n")
    assert main(["tune", str(spec)]) == 0
    assert "(NOT confirmed: it fell over in simulation at every scale tried;" in capsys.readouterr().out


def test_scale_and_tuning_are_exclusive(capsys):
    assert main(["modes", "worm", "--stiffness-scale", "2", "--tune-stiffness"]) == 2
    assert _err(capsys) == ("gaitforge: error: modes: argument --tune-stiffness: not allowed with argument "
                            "--stiffness-scale\n")

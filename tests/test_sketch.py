"""Sketch-guided modal control (Kry 2012 §4.5): sketch files, the start
recipe a sketch gives, the barrier on its avoided modes (measured on the
simulated motion), and ``gaitforge optimize --sketch``."""
from __future__ import annotations

import math
from pathlib import Path

import mujoco
import numpy as np
import pytest

import gaitforge as gf
from gaitforge.cli.main import main
from gaitforge.control.modal import run_recipe
from gaitforge.errors import GaitforgeError
from gaitforge.io.sketch_files import load_sketch
from gaitforge.motion.gait_features import joint_rotations
from gaitforge.motion.recipe import GaitRecipe, GaitTerm
from gaitforge.optimize import ModalProblem
from gaitforge.optimize.cmaes import violation
from gaitforge.optimize.sketch import Sketch, SketchPhase, barrier_excess, mode_content

SKETCHES = Path(__file__).parents[1] / "examples" / "sketches"


@pytest.mark.parametrize("path", sorted(SKETCHES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_sketch_reads_and_gives_a_start_recipe(path):
    sketch = load_sketch(path)
    character = gf.creature(sketch.creature)
    basis = gf.modes(character, count=max(sketch.modes + sketch.avoid) + 1)
    recipe = sketch.recipe(character, basis)
    assert sorted(recipe.modes) == sorted(sketch.modes) and recipe.creature == sketch.creature
    assert all(t.frequency == pytest.approx(1.0 / sketch.period) for t in recipe.terms)
    assert recipe.flight == any(p.kind == "air" for p in sketch.phases)


def test_each_favoured_mode_peaks_in_the_middle_of_its_phase_at_the_asked_rotation():
    dog = gf.creature("dog")
    basis = gf.modes(dog, count=4)
    sketch = Sketch("s", "dog", (SketchPhase("ground", 0.2, (0,)), SketchPhase("air", 0.3, (2,))), rotation=12.0)
    recipe = sketch.recipe(dog, basis)
    for term, middle in zip(recipe.terms, (0.1, 0.35)):
        value = term.amplitude * math.sin(2 * math.pi * term.frequency * middle + term.phase)
        assert value == pytest.approx(term.amplitude, rel=1e-12)   # the sine's peak
        rot = term.amplitude * joint_rotations(dog, basis.shapes[:, [term.mode]])[0]
        assert math.degrees(rot) == pytest.approx(12.0, rel=1e-9)


def test_mode_content_recovers_known_coordinates():
    """Poses made from known small coordinates along three modes (and a
    root moved and turned: left out of the fit) give those coordinates back."""
    dog = gf.creature("dog")
    basis = gf.modes(dog, count=6)
    m = dog.model
    rng = np.random.default_rng(3)
    a = 1e-3 * rng.standard_normal((5, 6))
    qpos = np.empty((5, m.nq))
    for t in range(5):
        q = np.array(dog.rest_qpos, float)
        v = basis.shapes @ a[t]
        v[:6] = [0.3 * t, -0.1, 0.02, 0.0, 0.0, 0.2 * t]  # the root's own motion
        mujoco.mj_integratePos(m, q, v, 1.0)
        qpos[t] = q
    got = mode_content(dog, basis.shapes, qpos)
    np.testing.assert_allclose(got, a, atol=2e-6 * np.abs(a).max() + 1e-9)


def test_the_barrier_measure_sees_a_driven_mode():
    """A worm driven along modes 0, 1 and, hard, 2: mode 2's content is
    many times its barrier; without it, inside."""
    worm = gf.creature("worm")
    basis = gf.modes(worm, count=4)
    per_unit = joint_rotations(worm, basis.shapes[:, [2]])
    bound = np.array([math.radians(4.0)]) / per_unit
    base = (GaitTerm(0, 0.02, 0.0, 5.0), GaitTerm(1, 0.02, math.pi / 2, 5.0))
    excess = []
    for extra in ((), (GaitTerm(2, 8 * bound[0], 0.0, 5.0),)):
        r = run_recipe(worm, GaitRecipe("w", "worm", base + extra), 2.0, basis=basis)
        late = r.clip.qpos[r.times >= 0.5]
        excess.append(barrier_excess(mode_content(worm, basis.shapes, late)[:, [2]], bound))
    assert excess[0] == 0.0 and excess[1] > 3.0


def test_the_barrier_and_the_least_travel_are_constraints_of_the_problem():
    p = ModalProblem("worm", modes=(0, 1), seconds=1.0, avoid=(2, 3), barrier=4.0, min_travel=5.0)
    s = p(np.array([0.02, 0.02, math.pi / 2, 0.2]))
    assert s.barrier >= 0.0 and s.slow == pytest.approx(1.0 - s.distance / 5.0)
    assert violation(s, math.inf) == s.barrier + s.slow
    assert violation(s._replace(barrier=0.5, slow=0.0), math.inf) == 0.5
    with pytest.raises(GaitforgeError, match="min_travel must be a distance of 0 m or more, got -1"):
        ModalProblem("worm", modes=(0, 1), min_travel=-1)
    with pytest.raises(GaitforgeError, match="avoid must be distinct mode indices none of which is driven"):
        ModalProblem("worm", modes=(0, 1), avoid=(1,))
    with pytest.raises(GaitforgeError, match="barrier must be a joint rotation above 0 up to 90 degrees"):
        ModalProblem("worm", modes=(0, 1), avoid=(2,), barrier=0.0)


@pytest.mark.parametrize("text, message", [
    ("creature: dog\n", "missing required key 'phases'"),
    ("creature: dog\nphases: []\n", "phases: must be a list of 1 to 8 phases, got []"),
    ("creature: dog\nphases: [{kind: swim, duration: 0.2, favour: [0]}]\n",
     "phases[0].kind: must be one of air, ground, got 'swim'"),
    ("creature: dog\nphases: [{kind: air, duration: -1, favour: [0]}]\n",
     "phases[0].duration: must be a number above 0 up to 10, got -1"),
    ("creature: dog\nphases: [{kind: air, duration: 0.2, favour: [0, 0]}]\n",
     "phases[0].favour: names a mode twice: [0, 0]"),
    ("creature: dog\nphases: [{kind: air, duration: 0.2, favour: [0]}]\navoid: [0]\n",
     "sketch dog_sketch: mode 0 is both favoured and avoided"),
    ("creature: dog\nphases: [{kind: air, duration: 0.2, favour: [0]}]\nspeed: 3\n",
     "speed: unknown key 'speed' (valid keys: name, creature, phases, avoid, rotation, barrier, min_speed, "
     "upright, description)"),
    ("creature: dog\nphases: [{kind: air, duration: 0.2, favour: [0]}]\nbarrier: .nan\n",
     "barrier: must be a number above 0 up to 90, got nan"),
])
def test_bad_sketches_are_one_line_naming_the_file_and_field(tmp_path, text, message):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(GaitforgeError) as exc:
        load_sketch(path)
    assert str(exc.value) == f"{path}: {message}"


def test_cli_optimize_with_a_sketch(tmp_path, capsys):
    out = tmp_path / "best.yaml"
    args = ["optimize", "worm", "--sketch", str(SKETCHES / "worm_crawl.yaml"), "--budget", "4", "--popsize", "4",
            "--seconds", "1", "--workers", "1", "--quiet", "-o", str(out)]
    assert main(args) == 0
    printed = " ".join(capsys.readouterr().out.split())  # the console wraps long lines
    assert "sketch worm_crawl: ground 0.1 s favouring [0], ground 0.1 s favouring [1]; avoiding [2, 3]" in printed
    assert "CMA-ES (cost," in printed and "avoided modes [2, 3]" in printed
    from gaitforge.io.recipe_files import load_recipe

    best = load_recipe(out)
    assert best.name == "worm_crawl_optimized" and sorted(best.modes) == [0, 1]
    assert main(["simulate", "worm", "--recipe", str(out), "--seconds", "0.5"]) == 0


@pytest.mark.parametrize("extra, message", [
    (["--start", "x.yaml"], "--sketch gives the start recipe: drop --start"),
    (["--sketch-for-dog"], None),
])
def test_cli_sketch_refusals(tmp_path, capsys, extra, message):
    if message is None:  # a sketch for another creature
        assert main(["optimize", "worm", "--sketch", str(SKETCHES / "dog_bound.yaml"), "-o",
                     str(tmp_path / "b.yaml")]) == 2
        assert capsys.readouterr().err == (f"gaitforge: error: {SKETCHES / 'dog_bound.yaml'}: the sketch is for "
                                           "'dog', not 'worm'\n")
        return
    assert main(["optimize", "worm", "--sketch", str(SKETCHES / "worm_crawl.yaml"), *extra, "-o",
                 str(tmp_path / "b.yaml")]) == 2
    assert capsys.readouterr().err == f"gaitforge: error: {message}\n"
    assert not list(tmp_path.iterdir())


def test_the_api_checks_its_arguments():
    sketch = gf.sketch(SKETCHES / "dog_bound.yaml")
    with pytest.raises(GaitforgeError, match=r"^sketch: must be a Sketch \(from gf.sketch\), got 'dog_bound'$"):
        gf.sketch_recipe("dog_bound", gf.creature("dog"))
    with pytest.raises(GaitforgeError, match=r"^the sketch is for 'dog', not 'worm'$"):
        gf.sketch_recipe(sketch, gf.creature("worm"))
    with pytest.raises(GaitforgeError):
        gf.sketch(12)
    assert gf.sketch_recipe(sketch, gf.creature("dog")).name == "dog_bound"


def test_a_sketch_says_when_its_creature_has_fallen():
    sketch = load_sketch(SKETCHES / "human_hop.yaml")
    human = gf.creature("human")
    height, tilt = sketch.fall_check(human)
    assert height == pytest.approx(0.7 * human.rest_qpos[2]) and tilt == pytest.approx(math.radians(30))
    assert load_sketch(SKETCHES / "worm_crawl.yaml").fall_check(gf.creature("worm")) is None

"""Property tests of the public API (``import gaitforge as gf``): each
function, one argument at a time replaced by a hostile value (NaN, ±inf,
huge and tiny numbers, wrong types, empty and endless names), either raises
a one-line :class:`GaitforgeError` or returns a finite, valid result —
never another exception, never a hang (valid values that only make a run
long, such as an hour of simulated time, are left out to keep this fast)."""
import math
import numbers
import os
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import gaitforge as gf
from gaitforge.control.skills.commands import Command
from gaitforge.errors import GaitforgeError
from gaitforge.modal import ModalBasis
from gaitforge.motion.clip import MotionClip

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))

SPECIAL = [0, -1, 1, 1e-300, -1e-300, 1e300, -1e300, -0.0, 2 ** 63, 10 ** 400, True, False, None, "", "x", "nan",
           "\0", "a" * 5000, b"bytes", [], (), {}, [1.0, 2.0], (0.1, 1e9), [[0, 1], [1, 2]], float("nan"),
           float("inf"), -float("inf"), object(), Command(0.0, "trot", 0.5), np.float64(0.5), np.int64(3),
           np.array([1.0])]
HOSTILE = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10 ** 30, 10 ** 30),
                    st.sampled_from(SPECIAL), st.text(max_size=12))


def _real(v) -> bool:
    """A finite real number (not a bool)."""
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


def _outcome(call):
    """The result of ``call()``, or None for a one-line GaitforgeError."""
    try:
        return call()
    except GaitforgeError as exc:
        text = str(exc)
        assert text and "\n" not in text and len(text) < 1000, text
        return None


@pytest.fixture(scope="module")
def dog():
    return gf.creature("dog")


@pytest.fixture(scope="module")
def worm():
    return gf.creature("worm")


@pytest.fixture(scope="module")
def clip(dog):
    return gf.animate(dog, "trot", seconds=1.0, pin=False)


@SETTINGS
@given(value=HOSTILE)
def test_creature(value):
    c = _outcome(lambda: gf.creature(value))
    assert c is None or np.all(np.isfinite(c.rest_qpos))


@SETTINGS
@given(arg=st.sampled_from(["character", "count", "stiffness_scale", "rayleigh", "gravity", "method", "constraints",
                            "bogus"]), value=HOSTILE)
def test_modes(worm, arg, value):
    kwargs = {"character": worm, "count": 3, arg: value}
    basis = _outcome(lambda: gf.modes(**kwargs))
    if basis is not None:
        assert isinstance(basis, ModalBasis) and np.all(np.isfinite(basis.frequencies))
        assert np.all(np.isfinite(basis.shapes))


ANIMATE = dict(gait="trot", seconds=0.3, fps=30.0, count=None, pin=False, strict=False, speed=None, froude=None,
               recipe=None, flight=None)


@SETTINGS
@given(arg=st.sampled_from(["character", *ANIMATE]), value=HOSTILE)
def test_animate(dog, arg, value):
    if arg == "seconds":
        assume(not (_real(value) and 1.0 < float(value) <= 600))          # valid, only long
    kwargs = {"character": dog, **ANIMATE, arg: value}
    character = kwargs.pop("character")
    gait = kwargs.pop("gait")
    result = _outcome(lambda: gf.animate(character, gait, **kwargs))
    if result is not None:
        assert isinstance(result, MotionClip) and np.all(np.isfinite(result.qpos)) and result.nq == dog.nq


@SETTINGS
@given(arg=st.sampled_from(["clip", "character"]), value=HOSTILE, which=st.sampled_from(["metrics", "gait_class"]))
def test_metrics_and_gait_class(dog, clip, arg, value, which):
    kwargs = {"clip": clip, "character": dog, arg: value}
    result = _outcome(lambda: getattr(gf, which)(kwargs["clip"], kwargs["character"]))
    if which == "gait_class":
        assert result is None or result in ("walk", "trot", "pace", "bound", "gallop", "canter", "pronk", "run",
                                            "hop", "unknown")
    elif result is not None:
        assert math.isfinite(result.speed) and math.isfinite(result.stride_duration)


@SETTINGS
@given(arg=st.sampled_from(["clip", "path", "character", "width", "rotation_order"]), value=HOSTILE)
def test_save(dog, clip, arg, value):
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            path = "c.bvh" if arg == "rotation_order" else "c.gif" if arg == "width" else "c.npz"
            kwargs = {"clip": clip, "path": path, "character": dog, arg: value}
            options = {k: kwargs.pop(k) for k in ("width", "rotation_order") if k in kwargs}
            if "width" in options:
                assume(not (_real(options["width"]) and 16 <= float(options["width"]) <= 4096))  # valid, only slow
            try:
                gf.save(kwargs["clip"], kwargs["path"], kwargs["character"], **options)
                refused = False
            except GaitforgeError as exc:
                assert "\n" not in str(exc) and len(str(exc)) < 1000
                refused = True
            files = [os.path.join(d, f) for d, _, names in os.walk(folder) for f in names]
            assert not any(os.path.basename(f).startswith(".") for f in files)   # no temporary file left
            if refused:
                assert files == []                               # nothing written
            else:
                assert os.path.isfile(kwargs["path"]) and len(files) == 1
        finally:
            os.chdir(here)


RUN = dict(gait=None, speed=None, seconds=0.3, scale=1.0, turn_rate=0.0, path=None, schedule=None)


@SETTINGS
@given(runner=st.sampled_from(["kangaroo", "dog", "gorilla", "raibert_biped"]),
       arg=st.sampled_from(["name", *RUN]), value=HOSTILE)
def test_run(runner, arg, value):
    if arg == "seconds":
        assume(not (_real(value) and 1.0 < float(value) <= 3600))         # valid, only long
    kwargs = {**RUN, arg: value}
    name = kwargs.pop("name", runner)
    result = _outcome(lambda: gf.run(name, **kwargs))
    if result is not None:
        character, rollout = result
        assert np.all(np.isfinite(rollout.clip.qpos)) and rollout.clip.nq == character.nq


def test_the_api_and_the_cli_give_the_same_message(capsys):
    from gaitforge.cli.main import main
    with pytest.raises(GaitforgeError) as err:
        gf.run("dog", seconds=float("nan"))
    assert str(err.value) == "seconds: must be a number above 0 up to 3600, got nan"
    assert main(["run", "dog", "--seconds", "nan"]) == 2
    assert capsys.readouterr().err == ("gaitforge: error: run: argument --seconds: must be a number above 0 up to "
                                       "3600, got 'nan'\n")


@pytest.mark.parametrize("call, message", [
    (lambda: gf.run("dog", seconds=float("inf")), "seconds: must be a number above 0 up to 3600, got inf"),
    (lambda: gf.run("dog", seconds=1e12), "seconds: must be a number above 0 up to 3600, got 1000000000000.0"),
    (lambda: gf.run("dog", speed=float("nan")), "speed: must be a number from 0 to 20, got nan"),
    (lambda: gf.run("dog", speed=float("inf")), "speed: must be a number from 0 to 20, got inf"),
    (lambda: gf.run("dog", speed=1e9), "speed: must be a number from 0 to 20, got 1000000000.0"),
    (lambda: gf.run("dog", speed=-1), "speed: must be a number from 0 to 20, got -1"),
    (lambda: gf.run("gorilla", turn_rate=float("nan")), "turn_rate: must be a number from -3 to 3, got nan"),
    (lambda: gf.run("kangaroo", turn_rate=0.5), "kangaroo does not turn on command (turn_rate works for: gorilla, "
                                                "dog)"),
    (lambda: gf.run("raibert_quadruped", "trot", speed=9.0),
     "raibert_quadruped trot: speed 9 m/s is outside its range 0.5–1.8 m/s"),
    (lambda: gf.run("worm", speed=0.1), "worm crawl takes no speed: its drive sets how fast it goes (give no speed)"),
    (lambda: gf.run("dog", schedule=[Command(0.0, "trot", float("nan"))]),
     "schedule[0].speed: must be a number from 0 to 20, got nan"),
    (lambda: gf.modes(gf.creature("worm"), count=0), "count: must be a whole number from 1 to 10000, got 0"),
    (lambda: gf.modes(gf.creature("worm"), stiffnes_scale=2),
     "modes: unknown option 'stiffnes_scale' (valid: constraints, gravity, stiffness_scale, rayleigh, method)"),
    (lambda: gf.modes("worm"), "character: must be a Character (from gf.creature), got 'worm'"),
    (lambda: gf.animate("dog", "trot", seconds=float("nan")), "seconds: must be a number above 0 up to 600, got nan"),
    (lambda: gf.animate("dog", "trot", fps=0), "fps: must be a number above 0 up to 240, got 0"),
    (lambda: gf.animate("dog", None, speed=float("nan")), "speed: must be a number above 0 up to 50, got nan"),
    (lambda: gf.animate("dog", None, speed=(1.0, 1e9)),
     "speed[1]: must be a number above 0 up to 50, got 1000000000.0"),
    (lambda: gf.animate("gorilla", "trot", speed=50.0),
     "speed 50 m/s is Froude 283 (V²/(g·h), hip height 0.90 m); gaits are made from Froude 0.001 to 100: 0.094 to "
     "29.7 m/s for this creature"),
    (lambda: gf.animate("dog", "trot", pin="yes"), "pin: must be True or False, got 'yes'"),
    (lambda: gf.creature(5), "creature: must be a built-in name or a file path, got 5"),
    (lambda: gf.creature("/dev/zero.yaml"), "/dev/zero.yaml: no such file"),
])
def test_exact_api_messages(call, message):
    with pytest.raises(GaitforgeError) as err:
        call()
    assert str(err.value) == message


def test_a_clip_no_gait_makes_is_not_written(tmp_path, dog, clip):
    from gaitforge.errors import ResultError
    q = np.array(clip.qpos)
    neck = next(j for j in dog.joints.values() if j.kind == "hinge" and dog.model.jnt_bodyid[j.mj_joints[0]] != 1)
    q[-1, neck.qpos.start] += 369.0
    bad = MotionClip(clip.fps, q, clip.character_name)
    with pytest.raises(ResultError) as err:
        gf.save(bad, tmp_path / "b.npz", dog)
    assert f"{neck.name!r} turns " in str(err.value) and "more than 2 turns" in str(err.value)
    q = np.array(clip.qpos)
    q[:, 0] = 1e6
    with pytest.raises(ResultError, match="'chest' reaches 1e\\+06 m, beyond the 149 m a 0.983 s clip can cover"):
        gf.save(MotionClip(clip.fps, q, clip.character_name), tmp_path / "b.npz", dog)
    assert list(tmp_path.iterdir()) == []


def test_a_gaits_default_speed_is_in_its_range():
    from gaitforge.control import registry
    from gaitforge.control.runners.common import default_speed
    for e in registry.ENTRIES:
        r = registry.catalogue(e)
        if r is None:  # a modal gait: no commanded speed
            assert e.speed_range is None and e.default_speed is None
            continue
        lo, hi = e.speed_range
        assert lo <= e.default_speed <= hi and e.default_speed == default_speed(r, e.gait)
        if lo <= r.default_speed <= hi:
            assert e.default_speed == r.default_speed
    assert registry.entry("dog", "walk").default_speed == 0.375  # the middle of 0.2–0.55


@SETTINGS
@given(call=st.sampled_from(["runner", "runner_names", "push_speeds", "published_pushes", "constraint", "describe",
                             "tune", "mode_sheet", "load"]), which=st.integers(0, 1), value=HOSTILE)
def test_the_commands_helpers(worm, call, which, value):
    """The helpers the commands call (gf.runner … gf.mode_sheet), one argument hostile."""
    basis = gf.modes(worm, count=2)
    calls = {
        "runner": lambda v: gf.runner(*(v, None) if which == 0 else ("gorilla", v)),
        "runner_names": lambda v: gf.runner_names(**{("takes", "stands")[which]: v}),
        "push_speeds": lambda v: gf.push_speeds(*(v, "trot") if which == 0 else ("gorilla", v)),
        "published_pushes": lambda v: gf.published_pushes(*(v, "trot") if which == 0 else ("gorilla", v)),
        "constraint": lambda v: gf.constraint(v, worm) if which == 0 else gf.constraint("pin:head", v),
        "describe": lambda v: gf.describe(v, basis) if which == 0 else gf.describe(worm, v),
        "tune": lambda v: gf.tune(worm, v),
        "mode_sheet": lambda v: gf.mode_sheet(v, worm, basis) if which == 0 else gf.mode_sheet("x.png", v, basis),
        "load": lambda v: gf.load(v) if which == 0 else gf.load("missing.npz", v),
    }
    if call == "tune":
        assume(not (_real(value) and 0 < float(value) <= 90))            # valid: simulations, slow
    if call == "mode_sheet":
        assume(which == 1 or not (isinstance(value, str) and value.lower().endswith(".png")))  # would write
    _outcome(lambda: calls[call](value))


@pytest.mark.parametrize("call, message", [
    (lambda: gf.runner("worm", pushed=True),
     "push: worm crawl does not stand on legs, so there is no balance "),
    (lambda: gf.runner("worm", plots="out"), "worm has no gait graph to plot (plots work for: gorilla, dog)"),
    (lambda: gf.tune(gf.creature("worm"), 0), "max_deviation: must be a number above 0 up to 90, got 0"),
    (lambda: gf.mode_sheet("sheet.jpg", gf.creature("worm"), None),
     "path: the picture sheet must be a .png file, got 'sheet.jpg'"),
    (lambda: gf.describe(gf.creature("worm"), "modes"), "basis: must be a ModalBasis (from gf.modes), got 'modes'"),
    (lambda: gf.constraint("nail:head", gf.creature("worm")), "unknown constraint kind 'nail' in 'nail:head'"),
    (lambda: gf.load("no/such/clip.npz"), "no/such/clip.npz: no such file"),
])
def test_the_commands_helpers_refuse(call, message):
    with pytest.raises(GaitforgeError) as err:
        call()
    assert str(err.value).startswith(message), str(err.value)


def test_the_commands_helpers_answer():
    assert "dog" in gf.creature_names() and gf.creature("dog").name == "dog"
    assert ".glb" in gf.motion_formats() and ".npz" in gf.motion_formats()
    assert gf.runner("biped").key == "raibert_biped" and gf.runner("gorilla", "ds_walk").gait == "ds_walk"
    assert set(gf.runner_names(stands=True)) < set(gf.runner_names()) and "worm" not in gf.runner_names(stands=True)
    assert set(gf.runner_names(takes="path")) <= set(gf.runner_names()) and "biped" in gf.runner_names(aliases=True)
    assert gf.push_speeds("gorilla", "ds_walk") == [0.1, 0.2, 0.3, 0.4, 0.5]
    assert gf.published_pushes("gorilla", "ds_walk") and gf.published_pushes("dog", "trot") == {}

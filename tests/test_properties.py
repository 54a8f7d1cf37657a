"""Property-based checks (hypothesis): generated creature documents, recipes,
path files and flag values give either a result or a GaitforgeError, never
another exception. Documents are grown from valid ones by replacing a field
with an arbitrary value, so most of them get deep into the checks."""
import copy
import math

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from gaitforge.cli.main import build_parser
from gaitforge.creatures import registry
from gaitforge.creatures.character import Character
from gaitforge.creatures.serialize import spec_from_dict, spec_to_dict
from gaitforge.errors import GaitforgeError
from gaitforge.io.documents import parse_text
from gaitforge.io.paths import path_from_dict
from gaitforge.io.recipe_files import recipe_from_dict

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])

NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10 ** 30, 10 ** 30),
                    st.sampled_from([0, -1, 1e-300, 1e300, 1e-30, 1e30, 2 ** 63, -0.0]))
SCALARS = st.one_of(NUMBERS, st.text(max_size=20), st.booleans(), st.none())
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


def _paths(data, prefix=()):
    """Every (container, key) pair inside a plain document."""
    if isinstance(data, dict):
        for k, v in data.items():
            yield data, k
            yield from _paths(v)
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield data, i
            yield from _paths(v)


@st.composite
def mutated(draw, base):
    """``base`` with one to three fields replaced by arbitrary values (or a key removed)."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        places = list(_paths(doc))
        if not places:
            break
        container, key = places[draw(st.integers(0, len(places) - 1))]
        if isinstance(container, dict) and draw(st.booleans()) and draw(st.booleans()):
            del container[key]
        else:
            container[key] = draw(VALUES)
    return doc


WORM = spec_to_dict(registry.build("worm"))
RECIPE = {"name": "trot", "creature": "dog", "terms": [
    {"mode": 0, "amplitude": 0.1, "phase": 0.0, "frequency": 2.0, "offset": 0.0},
    {"mode": 3, "amplitude": 0.05, "phase_deg": 90, "frequency": 4.0}], "constraints": [], "speed": None}
PATH = {"waypoints": [[0, 0], [4, 0], [4, 4]], "loop": True, "speed": 1.0}


def _ok_or_gaitforge_error(fn, *args):
    try:
        return fn(*args)
    except GaitforgeError as exc:
        assert str(exc) and "\n" not in str(exc) and len(str(exc)) < 2000
        return None


@SETTINGS
@given(mutated(WORM))
def test_creature_documents(doc):
    spec = _ok_or_gaitforge_error(spec_from_dict, doc)
    if spec is not None:  # a valid document must also compile
        c = _ok_or_gaitforge_error(Character.from_spec, spec)
        assert c is None or (c.nv >= 0 and np.all(np.isfinite(c.rest_qpos)))


@SETTINGS
@given(mutated(RECIPE))
def test_recipes(doc):
    r = _ok_or_gaitforge_error(recipe_from_dict, doc)
    assert r is None or all(math.isfinite(t.amplitude) and math.isfinite(t.frequency) for t in r.terms)


@SETTINGS
@given(mutated(PATH))
def test_path_files(doc):
    p = _ok_or_gaitforge_error(path_from_dict, doc)
    assert p is None or np.all(np.isfinite(np.asarray(p.waypoints, float)))


@SETTINGS
@given(st.text(max_size=200))
def test_any_text_as_a_document(text):
    _ok_or_gaitforge_error(parse_text, text, "t.yaml")
    _ok_or_gaitforge_error(parse_text, text, "t.json", "json")


FLAGS = [["modes", "worm", "--count"], ["modes", "worm", "--stiffness-scale"], ["animate", "dog", "--fps"],
         ["animate", "dog", "--seconds"], ["animate", "dog", "--modes"], ["run", "kangaroo", "--speed"],
         ["run", "kangaroo", "--scale"], ["optimize", "worm", "--budget"], ["landscape", "worm", "--grid"]]


@SETTINGS
@given(st.sampled_from(FLAGS), st.one_of(st.text(max_size=12), NUMBERS.map(repr)))
def test_flag_values_are_parsed_or_refused_in_one_line(flag, text):
    from gaitforge.cli.main import _ArgumentError
    try:
        args = build_parser().parse_args([*flag, text])
    except _ArgumentError as exc:
        assert "\n" not in str(exc)
        return
    except SystemExit:  # argparse's own exit for "-h"-like texts
        assert text.startswith("-")
        return
    value = getattr(args, flag[-1].lstrip("-").replace("-", "_"))
    assert math.isfinite(value)

"""Optimization checkpoints as JSON data (gaitforge.io.checkpoints): the
format, exact round trips, and reading with limits: a pickle is refused
without being unpickled, damaged, foreign or oversized files and
non-regular files are one-line errors naming the file."""
import hashlib
import json
import math
import os
import pickle

import numpy as np
import pytest

from gaitforge.errors import GaitforgeError
from gaitforge.io import checkpoints
from gaitforge.io.checkpoints import JsonCheckpoint, decode_score, encode_score
from gaitforge.optimize import Score
from gaitforge.optimize.cmaes import Generation

IDENTITY = {"creature": "worm", "problem": {"seconds": 0.8, "heading": None}, "x0": [0.02, 0.02, 1.5707963267948966],
            "settings": {"seed": 5, "cyclic_tol": math.inf, "objective": "distance"}}
SCORES = (Score(0.1, -0.1, 0.125, 3.0, 1.0 / 3.0, 0.7, None),
          Score(0.0, 0.0, 0.0, 0.0, math.inf, math.inf, "diverged at t = 0.300 s (non-finite state)"),
          Score(0.0, 0.0, 0.0, 0.0, math.inf, math.inf, "fell at t = 0.4 s", 0.5),
          Score(-0.0, 5e-324, 1e308, -2.5, -math.inf, 0.0, "inf"))  # text that reads like a number stays text
Z = np.array([[0.1, 0.2, 1.0 / 3.0], [-0.0, 5e-324, 2.0], [np.pi, -np.e, 1e-300], [0.5, 0.25, 0.125]])


def _generations():
    return [Generation(0, Z[:2], SCORES[:2]), Generation(0, Z[2:], SCORES[2:]), Generation(1, Z[:2], SCORES[1:3])]


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "run.ckpt"
    JsonCheckpoint(path).save(IDENTITY, _generations())
    return path


def _error(path, identity=IDENTITY):
    with pytest.raises(GaitforgeError) as e:
        JsonCheckpoint(path).load(identity)
    return str(e.value)


def _checksum(doc):
    rest = {k: v for k, v in doc.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(rest, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _rewrite(path, change, *, checksum=True):
    """Edit the document at ``path``; recompute its checksum unless told not to."""
    doc = json.loads(path.read_text())
    change(doc)
    if checksum:
        doc["checksum"] = _checksum(doc)
    path.write_text(json.dumps(doc))


def test_round_trip_is_exact(saved):
    back = JsonCheckpoint(saved).load(IDENTITY)
    assert len(back) == 3 and [g.outer for g in back] == [0, 0, 1]
    for g, want in zip(back, _generations()):
        assert g.z.dtype == np.float64 and g.z.view(np.uint64).tolist() == want.z.view(np.uint64).tolist()
        assert g.scores == want.scores
        assert [[type(v) for v in s] for s in g.scores] == [[type(v) for v in s] for s in want.scores]
    assert math.copysign(1.0, back[1].scores[1].distance) == -1.0  # -0.0 stays -0.0
    nan = Score(math.nan, 0.0, 0.0, 0.0, 0.0, 0.0, None)
    assert encode_score(nan)["distance"] == "nan" and math.isnan(decode_score(encode_score(nan)).distance)


def test_the_document_is_plain_json_with_a_checksum(saved):
    text = saved.read_text()
    doc = json.loads(text)
    assert sorted(doc) == ["checksum", "format", "generations", "identity", "version"]
    assert doc["format"] == "gaitforge-optimize-checkpoint" and doc["version"] == 3
    assert doc["checksum"] == _checksum(doc)
    assert text == json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n"  # canonical, one line
    assert doc["identity"]["settings"]["cyclic_tol"] == "inf"
    assert doc["generations"][0]["scores"][1] == {
        "distance": 0.0, "dx": 0.0, "speed": 0.0, "work": 0.0, "cost_of_transport": "inf", "cycle_residual": "inf",
        "diverged": "diverged at t = 0.300 s (non-finite state)", "survived": None, "barrier": 0.0, "slow": 0.0}
    assert doc["generations"][1]["z"][0][0] == np.pi


def test_no_file_or_a_fresh_run_loads_nothing(saved, tmp_path):
    assert JsonCheckpoint(tmp_path / "none.ckpt").load(IDENTITY) is None
    assert JsonCheckpoint(saved, resume=False).load(IDENTITY) is None


class _Payload:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


@pytest.mark.parametrize("protocol", [0, pickle.HIGHEST_PROTOCOL])
def test_a_pickle_that_would_run_code_is_refused_unread(tmp_path, protocol):
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.ckpt"
    data = pickle.dumps({"version": 1, "es": _Payload(marker)}, protocol=protocol)
    path.write_bytes(data)
    message = _error(path)
    if protocol:
        assert message == (f"{path}: not a gaitforge checkpoint (old pickle checkpoints are no longer read; start "
                           "again without --resume)")
    else:  # protocol 0 is text: not JSON either
        assert message == f"{path}: not a gaitforge checkpoint (malformed JSON at line 1, column 1: Expecting value)"
    assert not marker.exists()
    pickle.loads(data)  # the payload is live: unpickling it would have run the command
    assert marker.exists()


def test_an_old_pickle_checkpoint_is_refused(tmp_path):
    path = tmp_path / "old.ckpt"
    path.write_bytes(pickle.dumps({"version": 1, "signature": {}, "outer": 0}, protocol=pickle.HIGHEST_PROTOCOL))
    assert _error(path) == (f"{path}: not a gaitforge checkpoint (old pickle checkpoints are no longer read; start "
                            "again without --resume)")


def test_tampered_or_truncated_files_are_refused(saved):
    data = saved.read_bytes()
    _rewrite(saved, lambda d: d["generations"][0]["scores"][0].update(distance=9.0), checksum=False)
    damaged = (f"{saved}: checksum mismatch: the checkpoint was changed or damaged after it was written; remove it "
               "or drop --resume")
    assert _error(saved) == damaged
    saved.write_bytes(data)
    _rewrite(saved, lambda d: d.update(checksum="0" * 64), checksum=False)
    assert _error(saved) == damaged
    saved.write_bytes(data[:-2])  # the closing brace and newline lost
    assert _error(saved) == (f"{saved}: not a gaitforge checkpoint (malformed JSON at line 1, column {len(data) - 1}: "
                             "Expecting ',' delimiter)")
    saved.write_bytes(data[:1000])
    assert _error(saved).startswith(f"{saved}: not a gaitforge checkpoint (malformed JSON at line 1, column ")
    saved.write_bytes(b"")
    assert _error(saved) == f"{saved}: not a gaitforge checkpoint (malformed JSON at line 1, column 1: Expecting value)"
    saved.write_bytes(b"\xff\xfe{}")
    assert _error(saved) == f"{saved}: not a gaitforge checkpoint (not UTF-8 text)"


def test_fifos_devices_and_folders_are_refused_without_reading(tmp_path):
    fifo = tmp_path / "run.ckpt"
    os.mkfifo(fifo)  # opening it for reading would wait for a writer
    assert _error(fifo) == f"{fifo}: is a FIFO, not a regular file; refused without reading it"
    assert _error("/dev/null") == "/dev/null: is a character device, not a regular file; refused without reading it"
    assert _error(tmp_path) == f"{tmp_path}: is a folder, not a regular file; refused without reading it"


def test_a_file_over_the_size_cap_is_refused_before_reading(tmp_path, monkeypatch):
    big = tmp_path / "big.ckpt"
    with open(big, "wb") as fh:
        fh.truncate(64 * 2 ** 20 + 1)  # sparse: nothing is written
    assert _error(big) == (f"{big}: 67,108,865 bytes, more than the 64 MiB a checkpoint may hold; refused without "
                           "reading it")
    monkeypatch.setattr(checkpoints, "MAX_BYTES", 2 ** 20)  # a record that would outgrow the cap is not written
    with pytest.raises(GaitforgeError) as e:
        JsonCheckpoint(tmp_path / "huge.ckpt").save(IDENTITY, [Generation(0, np.zeros((20000, 8)), SCORES[:1] * 20000)])
    assert str(e.value) == (f"{tmp_path / 'huge.ckpt'}: the checkpoint would grow past 1 MiB, more than --resume "
                            "reads (a smaller --budget keeps it below)")
    assert not (tmp_path / "huge.ckpt").exists()


def test_other_documents_and_versions_are_refused(saved):
    data = saved.read_bytes()
    for text, what in (("[]", "not a gaitforge checkpoint (its \"format\" is not 'gaitforge-optimize-checkpoint')"),
                       ('{"format": "gaitforge-recipe"}',
                        "not a gaitforge checkpoint (its \"format\" is not 'gaitforge-optimize-checkpoint')"),
                       ('{"a": NaN}', "not a gaitforge checkpoint (malformed JSON: non-standard constant NaN)"),
                       ('{"a": 1e999}', "not a gaitforge checkpoint (malformed JSON: number out of range: 1e999)"),
                       ('{"a": 1, "a": 2}', "not a gaitforge checkpoint (malformed JSON: duplicate key 'a')")):
        saved.write_text(text)
        assert _error(saved) == f"{saved}: {what}"
    for version, shown in ((2, "2"), (4, "4"), ("3", "'3'"), (True, "True")):
        saved.write_bytes(data)
        _rewrite(saved, lambda d: d.update(version=version))
        assert _error(saved) == (f"{saved}: checkpoint version {shown} is not supported (this gaitforge reads "
                                 "version 3); remove it or drop --resume")


@pytest.mark.parametrize("change, what", [
    (lambda d: d.update(extra=1), "the document has an unknown field 'extra'"),
    (lambda d: d.pop("identity"), "the document lacks the field 'identity'"),
    (lambda d: d.update(generations={}), "generations must be a list, got {}"),
    (lambda d: d["generations"][0]["scores"][0].update(distance="x"),
     "generations[0].scores[0].distance must be a number, got 'x'"),
    (lambda d: d["generations"][0]["scores"][0].update(distance=True),
     "generations[0].scores[0].distance must be a number, got True"),
    (lambda d: d["generations"][0]["scores"][0].update(diverged=3),
     "generations[0].scores[0].diverged must be a str or null, got 3"),
    (lambda d: d["generations"][0]["scores"][0].pop("survived"), "generations[0].scores[0] lacks the field 'survived'"),
    (lambda d: d["generations"][2].update(outer=2), "generations[2].outer must be 0 or 1, got 2"),
    (lambda d: d["generations"][0].update(outer=1), "generations[0].outer must be 0, got 1"),
    (lambda d: d["generations"][0].update(outer=0.0), "generations[0].outer must be an int, got 0.0"),
    (lambda d: d["generations"][1]["z"][1].pop(), "generations[1].z must hold points of one length"),
    (lambda d: d["generations"][1]["z"].append([1, 2, 3]),
     "generations[1].scores must hold 3 scores (one per point), got 2"),
    (lambda d: d["generations"][1].update(z=[]), "generations[1].z must be a non-empty list, got []"),
    (lambda d: d["generations"][1]["z"][0].__setitem__(0, None), "generations[1].z[0][0] must be a number, got None"),
    (lambda d: d["generations"][1]["z"][0].__setitem__(0, 10 ** 400),
     "generations[1].z[0][0] is out of range, got 100000000000000000...0000000000000000000"),
])
def test_malformed_fields_are_named(saved, change, what):
    _rewrite(saved, change)
    assert _error(saved) == f"{saved}: malformed checkpoint ({what})"


def test_another_run_is_refused_naming_what_differs(saved):
    other = dict(IDENTITY, settings=dict(IDENTITY["settings"], seed=6))
    assert _error(saved, other) == (f"{saved}: the checkpoint belongs to another optimization run (settings.seed: 5 "
                                    "in the checkpoint, 6 here); remove it or drop --resume")
    other = dict(IDENTITY, creature="dog")
    assert _error(saved, other) == (f"{saved}: the checkpoint belongs to another optimization run (creature: 'worm' "
                                    "in the checkpoint, 'dog' here); remove it or drop --resume")
    other = {k: v for k, v in IDENTITY.items() if k != "x0"}
    assert _error(saved, other) == (f"{saved}: the checkpoint belongs to another optimization run (x0: "
                                    "[0.02, 0.02, 1.5707963267948966] in the checkpoint, nothing here); remove it or "
                                    "drop --resume")
    # Equal numbers are the same run whether written 1 or 1.0.
    JsonCheckpoint(saved).save(dict(IDENTITY, problem={"seconds": 1, "heading": None}), _generations())
    assert len(JsonCheckpoint(saved).load(dict(IDENTITY, problem={"seconds": 1.0, "heading": None}))) == 3

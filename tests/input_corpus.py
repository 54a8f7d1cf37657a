"""A corpus of hostile command lines: each case is the files it needs, the
``gaitforge`` arguments, and the one line and exit code it must end with.
``tests/test_input_corpus.py`` asserts every case; ``benchmarks/input_corpus.py``
prints the share handled cleanly (docs/input_checks.md).

Files: a name maps to text, bytes, or a kind — ``FIFO``, ``FOLDER``,
``LINK:target`` (a symbolic link) or ``SPARSE:size`` (a file of that size
that takes no disk space); folders come before the files in them. Arguments and messages may use ``{d}``,
the case's folder (the command runs in it). ``limits``: resource limits for
a case run in a subprocess (``fsize``: bytes a file may grow to).
"""
from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field

import numpy as np

FIFO, FOLDER = "FIFO", "FOLDER"


@dataclass(frozen=True)
class Case:
    id: str
    kind: str
    argv: tuple[str, ...]
    message: str          # the whole stderr line after "gaitforge: error: " ("" for a run that succeeds)
    code: int
    files: dict = field(default_factory=dict)
    limits: dict = field(default_factory=dict)


# ------------------------------------------------------------ files
def _bone(name, parent, joint, extra=""):
    return (f"  - {{name: {name}, parent: {parent}, pos: [0, 0, 0.1], joint: {joint}, {extra}"
            "shapes: [{kind: capsule, radius: 0.02, fromto: [0, 0, 0, 0, 0, 0.1]}]}\n")


def creature(root_extra="", arm_joint="{type: hinge, stiffness: 10}", arm_extra="", top=""):
    """A two-bone creature document with fields replaced."""
    return (f"name: c\n{top}bones:\n" + _bone("a", "null", "{type: free}", root_extra)
            + _bone("b", "a", arm_joint, arm_extra))


def chain(n: int, joint: str = "{type: ball, stiffness: 10}") -> str:
    return ("name: chain\nbones:\n" + _bone("b0", "null", "{type: free}")
            + "".join(_bone(f"b{i}", f"b{i - 1}", joint) for i in range(1, n)))


def mjcf(body: str = "", head: str = "", asset: str = "") -> str:
    return (f'<mujoco model="m">{head}<asset>{asset}</asset><worldbody><body name="a" pos="0 0 1"><freejoint/>'
            f'<geom type="sphere" size="0.1"/><body name="b" pos="0 0 0.2"><joint type="hinge" stiffness="10"/>'
            f'<geom type="capsule" fromto="0 0 0 0 0 0.2" size="0.02"/></body>{body}</body></worldbody></mujoco>')


def deep_mjcf(n: int) -> str:
    bodies = "".join('<body pos="0 0 0.01"><joint type="ball"/><geom size="0.01"/>' for _ in range(n))
    return (f'<mujoco><worldbody><body><freejoint/><geom size="0.1"/>{bodies}{"</body>" * n}</body></worldbody>'
            '</mujoco>')


def classed_mjcf(n: int, *, childclass: bool) -> str:
    """n bodies deep, each joint a ball only through a ``<default>`` class:
    named on the joint, or given by the outer body's ``childclass``."""
    joint = '<joint/>' if childclass else '<joint class="b"/>'
    bodies = "".join(f'<body pos="0 0 0.01">{joint}<geom size="0.01"/>' for _ in range(n))
    outer = ' childclass="b"' if childclass else ""
    return ('<mujoco><default><default class="b"><joint type="ball"/><default class="c"><joint type="slide"/>'
            f'</default></default></default><worldbody><body{outer}><freejoint/><geom size="0.1"/>{bodies}'
            f'{"</body>" * n}</body></worldbody></mujoco>')


def _npy(array: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def npz(qpos_header_shape=None, qpos=None, fps=60.0, extra=None) -> bytes:
    """A motion NPZ: a true clip, or one whose qpos header promises
    ``qpos_header_shape`` (a zip bomb's lie)."""
    import zipfile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        members = {"format": np.array("gaitforge-motion-1"), "fps": np.array(fps), "character_name": np.array("dog"),
                   "joint_names": np.array(["a"]), **(extra or {})}
        for k, v in members.items():
            z.writestr(f"{k}.npy", _npy(v))
        if qpos_header_shape is not None:
            head = io.BytesIO()
            np.lib.format.write_array_header_1_0(head, {"descr": "<f8", "fortran_order": False,
                                                        "shape": qpos_header_shape})
            z.writestr("qpos.npy", head.getvalue() + b"\0" * 4096)
        else:
            z.writestr("qpos.npy", _npy(np.zeros((3, 87)) if qpos is None else qpos))
    return buf.getvalue()


def recipe(**fields) -> str:
    terms = fields.pop("terms", "[{mode: 0, amplitude: 0.1, phase: 0.0, frequency: 2.0}]")
    head = "".join(f"{k}: {v}\n" for k, v in fields.items())
    return f"name: t\ncreature: dog\n{head}terms: {terms}\n"


LONG = "a" * 300 + ".npz"
BIG = 17 * 2 ** 20
DEVICE = "is a character device, not a regular file; refused without reading it"
FIFO_MSG = "is a FIFO, not a regular file; refused without reading it"
FOLDER_MSG = "is a folder, not a regular file; refused without reading it"


def _size_msg(size: int, what: str, cap: str) -> str:
    return f"{size:,} bytes, more than the {cap} a {what} may hold; refused without reading it"


# Each command that reads a creature, with the arguments that follow the file name.
CREATURE_READERS = {"show": ("show", "{f}"), "modes": ("modes", "{f}"), "tune": ("tune", "{f}"),
                    "export": ("export", "{f}", "-o", "out.yaml"),
                    "animate": ("animate", "{f}", "--gait", "trot", "-o", "o.npz"),
                    "simulate": ("simulate", "{f}", "--seconds", "0.2"),
                    "optimize": ("optimize", "{f}", "--budget", "2", "-o", "best.yaml")}
# Hostile creature files: (file name, content, the message after "NAME: ").
HOSTILE_FILES = [
    ("z.yaml", "LINK:/dev/zero", DEVICE), ("u.json", "LINK:/dev/urandom", DEVICE), ("f.yaml", FIFO, FIFO_MSG),
    ("d.yaml", FOLDER, FOLDER_MSG), ("big.yaml", f"SPARSE:{BIG}", _size_msg(BIG, "creature file", "16 MiB")),
    ("bin.json", b"{\xff\xfe", "not UTF-8 text (byte 0xff at offset 1); is it a creature file?"),
    ("z.xml", "LINK:/dev/zero", DEVICE), ("f.urdf", FIFO, FIFO_MSG),
    ("big.xml", f"SPARSE:{BIG}", _size_msg(BIG, "model file", "16 MiB")), ("z.bvh", "LINK:/dev/zero", DEVICE),
    ("big.bvh", f"SPARSE:{65 * 2 ** 20}", _size_msg(65 * 2 ** 20, "BVH file", "64 MiB")),
]


def _files_family() -> list[Case]:
    cases = []
    for command, argv in CREATURE_READERS.items():
        for name, content, message in HOSTILE_FILES:
            words = tuple(a.replace("{f}", name) for a in argv)
            if command == "export" and name.endswith((".xml", ".urdf")):
                words = words[:-1] + ("out.xml",)  # (a model exports as MJCF only)
            cases.append(Case(f"{command}-{name}", "file", words, f"{name}: {message}", 2, {name: content}))
    readers = {"animate-recipe": ("animate", "dog", "--recipe", "{f}", "-o", "o.npz"),
               "simulate-recipe": ("simulate", "dog", "--recipe", "{f}", "--seconds", "0.2"),
               "run-path-biped": ("run", "raibert_biped", "--path", "{f}", "--seconds", "0.2"),
               "run-path-dog": ("run", "dog", "--path", "{f}", "--seconds", "0.2")}
    for command, argv in readers.items():
        what, cap = ("recipe", "4 MiB") if "recipe" in command else ("path file", "4 MiB")
        for name, content, message in [("z.yaml", "LINK:/dev/zero", DEVICE), ("f.yaml", FIFO, FIFO_MSG),
                                       ("d.yaml", FOLDER, FOLDER_MSG),
                                       ("big.yaml", f"SPARSE:{5 * 2 ** 20}", _size_msg(5 * 2 ** 20, what, cap)),
                                       ("none.yaml", None, "no such file")]:
            cases.append(Case(f"{command}-{name}", "file", tuple(a.replace("{f}", name) for a in argv),
                              f"{name}: {message}", 2, {name: content} if content is not None else {}))
    for name, content, message in [("z.npz", "LINK:/dev/zero", DEVICE), ("f.npz", FIFO, FIFO_MSG),
                                   ("d.npz", FOLDER, FOLDER_MSG),
                                   ("big.npz", f"SPARSE:{513 * 2 ** 20}",
                                    _size_msg(513 * 2 ** 20, "motion file", "512 MiB")),
                                   ("none.npz", None, "no such file")]:
        cases.append(Case(f"metrics-{name}", "file", ("metrics", name), f"{name}: {message}", 2,
                          {name: content} if content is not None else {}))
    return cases


NOT_A_CLIP = "not a gaitforge motion file (expected the .npz that gaitforge writes)"
MODEL_FILES = [  # (id, model text and other files, message after "m.xml: ")
    ("include-zero", mjcf(head='<include file="/dev/zero"/>'), f"line 1: <include> file '/dev/zero': {DEVICE}"),
    ("include-fifo", (mjcf(head='<include file="i.xml"/>'), {"i.xml": FIFO}),
     f"line 1: <include> file 'i.xml': {FIFO_MSG}"),
    ("include-huge", (mjcf(head='<include file="i.xml"/>'), {"i.xml": f"SPARSE:{BIG}"}),
     f"line 1: <include> file 'i.xml': {_size_msg(BIG, 'model file', '16 MiB')}"),
    ("mesh-fifo", (mjcf(asset='<mesh name="x" file="f.stl"/>'), {"f.stl": FIFO}),
     f"line 1: <mesh> file 'f.stl': {FIFO_MSG}"),
    ("mesh-zero", mjcf(asset='<mesh name="x" file="/dev/zero"/>'), f"line 1: <mesh> file '/dev/zero': {DEVICE}"),
    ("mesh-huge", (mjcf(asset='<mesh name="x" file="m.stl"/>'), {"m.stl": f"SPARSE:{257 * 2 ** 20}"}),
     f"line 1: <mesh> file 'm.stl': {_size_msg(257 * 2 ** 20, 'model asset', '256 MiB')}"),
    ("meshdir-fifo", (mjcf(head='<compiler meshdir="parts"/>', asset='<mesh name="x" file="f.stl"/>'),
                      {"parts": FOLDER, "parts/f.stl": FIFO}), f"line 1: <mesh> file 'f.stl': {FIFO_MSG}"),
    ("hfield-zero", mjcf(asset='<hfield name="h" file="/dev/zero" size="1 1 1 1"/>'),
     f"line 1: <hfield> file '/dev/zero': {DEVICE}"),
    ("texture-zero", mjcf(asset='<texture name="t" type="2d" file="/dev/zero"/>'),
     f"line 1: <texture> file '/dev/zero': {DEVICE}"),
    ("replicate-100000", mjcf(body='<replicate count="100000" offset="0.1 0 0"><body><joint/><geom size="0.01"/>'
                                   '</body></replicate>'),
     "line 1: <replicate count='100000'> makes 100,000 copies; at most 1000 bodies are supported"),
    ("replicate-nested", mjcf(body='<replicate count="40" offset="0.1 0 0"><replicate count="40" offset="0 0.1 0">'
                                   '<body><joint/><geom size="0.01"/></body></replicate></replicate>'),
     "line 1: <replicate count='40'> makes 1,600 copies; at most 1000 bodies are supported"),
    ("flexcomp-300x300", mjcf(body='<flexcomp name="f" type="grid" count="300 300 1" spacing="0.01 0.01 0.01" '
                                   'dim="2"/>'),
     "line 1: <flexcomp count='300 300 1'> makes 90,000 points; at most 1000 bodies are supported"),
    ("bodies-1001", mjcf(body="".join(f'<body pos="0 0 {i * 0.01}"><geom size="0.01"/></body>' for i in range(1000))),
     "line 1: the model expands to more than 1000 bodies (<body> brings the count past it); at most 1000 are "
     "supported"),
    ("dofs-3003", deep_mjcf(1000),
     "line 1: the model expands to more than 3000 degrees of freedom; at most 3000 are supported"),
    ("dofs-3003-by-class", classed_mjcf(999, childclass=False),
     "line 1: the model expands to more than 3000 degrees of freedom; at most 3000 are supported"),
    ("dofs-3003-by-childclass", classed_mjcf(999, childclass=True),
     "line 1: the model expands to more than 3000 degrees of freedom; at most 3000 are supported"),
    ("memory-100G", mjcf(head='<size memory="100G"/>'), "line 1: <size memory='100G'> asks for more than the 1 GiB a "
                                                        "model may use"),
    ("njmax-1e9", mjcf(head='<size njmax="1000000000"/>'),
     "line 1: <size njmax='1000000000'> is larger than 1,000,000"),
    ("hfield-1e5-squared", mjcf(asset='<hfield name="h" nrow="100000" ncol="100000" size="1 1 1 1"/>'),
     "line 1: <hfield> of 100000 × 100000 samples: more than 10,000,000"),
    ("texture-1e5-squared", mjcf(asset='<texture name="t" type="2d" builtin="checker" width="100000" '
                                       'height="100000"/>'),
     "line 1: <texture> of 100000 × 100000 pixels: more than 100,000,000"),
    ("entity-bomb", '<?xml version="1.0"?><!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>'
                    + mjcf(), "line 1: XML entity declarations are not supported"),
    ("timestep-1e-9", mjcf(head='<option timestep="1e-9"/>'), "<option timestep> 1e-09 s is outside 1e-05 … 0.05 s"),
    ("timestep-1", mjcf(head='<option timestep="1"/>'), "<option timestep> 1 s is outside 1e-05 … 0.05 s"),
    ("gravity-1e30", mjcf(head='<option gravity="0 0 -1e30"/>'),
     "<option gravity> (0, 0, -1e+30) is not finite or beyond 1000 m/s²"),
    ("mass-7e18", mjcf(body='<body name="c" pos="0.2 0 0"><joint/><geom size="0.05" mass="7e18"/></body>'),
     "body 'c': mass 7e+18 kg is outside 1e-09 … 1e+07 kg"),
    ("inertia-1e30", mjcf(body='<body name="c" pos="0.2 0 0"><joint/><inertial pos="0 0 0" mass="1" '
                               'diaginertia="1e30 1e30 1e30"/><geom size="0.05" mass="0"/></body>'),
     "body 'c': inertia (1e+30, 1e+30, 1e+30) is beyond 1e+09 kg m²"),
    ("stiffness-1e300", mjcf(body='<body name="c" pos="0.2 0 0"><joint name="k" stiffness="1e300"/>'
                                  '<geom size="0.05"/></body>'), "joint 'k': stiffness 1e+300 is outside 0 … 1e+10"),
    ("damping-1e300", mjcf(body='<body name="c" pos="0.2 0 0"><joint name="k" damping="1e300"/><geom size="0.05"/>'
                                '</body>'), "joint 'k': damping 1e+300 is outside 0 … 1e+10"),
    ("friction-1e300", mjcf(body='<body name="c" pos="0.2 0 0"><joint/><geom name="g" size="0.05" '
                                 'friction="1e300"/></body>'), "g: friction 1e+300 is outside 0 … 100"),
]


def _models_family() -> list[Case]:
    cases = []
    for id_, model, message in MODEL_FILES:
        text, more = model if isinstance(model, tuple) else (model, {})
        cases.append(Case(f"mjcf-{id_}", "model", ("show", "m.xml"), f"m.xml: {message}", 2,
                          {**more, "m.xml": text}))
    links = "".join(f'<link name="l{i}"/><joint name="j{i}" type="revolute"><parent link="l{i - 1}"/>'
                    f'<child link="l{i}"/></joint>' for i in range(1, 1001))
    cases.append(Case("urdf-links-1001", "model", ("show", "r.urdf"),
                      "r.urdf: line 1: the model expands to more than 1000 bodies (<link> brings the count past it); "
                      "at most 1000 are supported", 2, {"r.urdf": f'<robot name="r"><link name="l0"/>{links}</robot>'}))
    cases.append(Case("urdf-mesh-zero", "model", ("show", "r.urdf"),
                      f"r.urdf: line 1: <mesh> file '/dev/zero': {DEVICE}", 2,
                      {"r.urdf": '<robot name="r"><link name="a"><visual><geometry><mesh filename="/dev/zero"/>'
                                 '</geometry></visual></link></robot>'}))
    return cases


CREATURE_VALUES = [  # (id, creature document, message after "c.yaml: ")
    ("timestep-1e-9", creature(top="timestep: 1e-9\n"), "timestep: must be from 1e-05 to 0.05, got 1e-09"),
    ("timestep-10", creature(top="timestep: 10\n"), "timestep: must be from 1e-05 to 0.05, got 10.0"),
    ("friction-1e300", creature(top="friction: 1e300\n"), "friction: must be from 0.0001 to 100, got 1e+300"),
    ("friction-0", creature(top="friction: 0\n"), "friction: must be positive, got 0.0"),
    ("stiffness-1e300", creature(arm_joint="{type: hinge, stiffness: 1e300}"),
     "bones[1].joint.stiffness: must be from 0 to 1e+10, got 1e+300"),
    ("ball-stiffness-1e300", creature(arm_joint="{type: ball, stiffness: [1, 1, 1e300]}"),
     "bones[1].joint.stiffness[2]: must be from 0 to 1e+10, got 1e+300"),
    ("damping-1e300", creature(arm_joint="{type: hinge, stiffness: 10, damping: 1e300}"),
     "bones[1].joint.damping: must be from 0 to 1e+10, got 1e+300"),
    ("armature-1e300", creature(arm_joint="{type: hinge, stiffness: 10, armature: 1e300}"),
     "bones[1].joint.armature: must be from 0 to 1e+06, got 1e+300"),
    ("coupling-coefficient-1e300", creature(top="springs: [{name: s, joints: {b: 1e300}, stiffness: 1}]\n"),
     "springs[0].joints[0]: must be within ±1000, got 1e+300"),
    ("coupling-stiffness-1e300", creature(top="springs: [{name: s, joints: {b: 1}, stiffness: 1e300}]\n"),
     "springs[0].stiffness: must be from 0 to 1e+10, got 1e+300"),
    ("constraint-point-1e300", creature(top="constraints: [{name: p, kind: pin, bone: b, point: [1e300, 0, 0]}]\n"),
     "constraints[0].point[0]: must be within ±10000, got 1e+300"),
    ("inertia-1e30", creature(arm_extra="inertial: {mass: 1, inertia: [1e30, 1e30, 1e30]}, "),
     "bones[1].inertial.inertia[0]: must be from 0 to 1e+09, got 1e+30"),
    ("inertia-zero", creature(arm_extra="inertial: {mass: 1, inertia: [0, 0, 0]}, "),
     "bones[1].inertial.inertia: two or more principal moments are zero, got (0.0, 0.0, 0.0): a point mass has no "
     "inertia to turn at its joint (give it a com away from it)"),
    ("root-inertia-zero", creature(root_extra="inertial: {mass: 1, com: [0, 0, 0.1], inertia: [0, 0, 0]}, "),
     "bones[0].inertial.inertia: two or more principal moments are zero, got (0.0, 0.0, 0.0): a point mass has no "
     "inertia to turn as the root"),
    ("inertia-negative", creature(arm_extra="inertial: {mass: 1, inertia: [-1, 1, 1]}, "),
     "bones[1].inertial.inertia[0]: must not be negative, got -1.0"),
    ("inertia-triangle", creature(arm_extra="inertial: {mass: 1, inertia: [1, 1, 5]}, "),
     "bones[1].inertial.inertia: violates the triangle inequality: (1.0, 1.0, 5.0)"),
    ("mass-7e18", creature(arm_extra="mass: 7e18, "), "bones[1].mass: must be from 1e-09 to 1e+07, got 7e+18"),
    ("density-1e30", creature(arm_extra="density: 1e30, "), "bones[1].density: must be from 1e-06 to 1e+06, got 1e+30"),
    ("mass-by-density", creature(root_extra="density: 1000000, ").replace(
        "radius: 0.02, fromto: [0, 0, 0, 0, 0, 0.1]}]}\n  - {name: b",
        "radius: 1000, fromto: [0, 0, 0, 0, 0, 2000]}]}\n  - {name: b", 1),
     "bones[0].density: makes the bone weigh 1.05e+16 kg (density × the shapes' volume), outside 1e-09 … 1e+07 kg"),
    ("bones-1001", chain(1001, "{type: hinge, stiffness: 10}"), "bones: at most 1000 bones are supported, got 1001"),
    ("dofs-3003", chain(1000), "bones: the joints have 3003 degrees of freedom; at most 3000 are supported"),
]

RECIPE_VALUES = [  # (id, recipe fields, message after "r.yaml: ")
    ("speed-1e300", dict(speed="1e300"), "speed: must be within ±50, got 1e+300"),
    ("amplitude-1e300", dict(terms="[{mode: 0, amplitude: 1e300, phase: 0, frequency: 2}]"),
     "terms[0].amplitude: must be within ±1e+06, got 1e+300"),
    ("frequency-1e300", dict(terms="[{mode: 0, amplitude: 0.1, phase: 0, frequency: 1e300}]"),
     "terms[0].frequency: must be at most 10000, got 1e+300"),
    ("phase-1e300", dict(terms="[{mode: 0, amplitude: 0.1, phase: 1e300, frequency: 2}]"),
     "terms[0].phase: must be within ±10000, got 1e+300"),
    ("offset-1e300", dict(terms="[{mode: 0, amplitude: 0.1, phase: 0, frequency: 2, offset: -1e300}]"),
     "terms[0].offset: must be within ±1e+06, got -1e+300"),
    ("stiffness-scale-1e300", dict(stiffness_scale="1e300"), "stiffness_scale: must be at most 1e+06, got 1e+300"),
    ("impulse-1e300", dict(impulses="[{mode: 0, size: 1e300}]"), "impulses[0].size: must be within ±1e+06, got 1e+300"),
    ("initial-1e300", dict(initial="[{mode: 0, velocity: 1e300}]"),
     "initial[0].velocity: must be within ±1e+06, got 1e+300"),
]

PATH_VALUES = [  # (id, path document, message after "p.yaml: ")
    ("speed-1e300", "waypoints: [[0, 0], [5, 0]]\nspeed: 1e300\n", "speed: must be within ±20, got 1e+300"),
    ("point-1e300", "waypoints: [[0, 0], [1e300, 0]]\n", "waypoints[1][0]: must be within ±10000, got 1e+300"),
    ("points-20000", "waypoints: [" + ", ".join(f"[{i}, 0]" for i in range(20000)) + "]\n",
     "waypoints: at most 10000 points are supported, got 20000"),
]


def _values_family() -> list[Case]:
    cases = [Case(f"creature-{id_}", "derived", ("modes", "c.yaml"), f"c.yaml: {message}", 2, {"c.yaml": text})
             for id_, text, message in CREATURE_VALUES]
    cases += [Case(f"recipe-{id_}", "derived", ("animate", "dog", "--recipe", "r.yaml", "-o", "o.npz"),
                   f"r.yaml: {message}", 2, {"r.yaml": recipe(**fields)}) for id_, fields, message in RECIPE_VALUES]
    cases += [Case(f"path-{id_}", "derived", ("run", "raibert_biped", "--path", "p.yaml"), f"p.yaml: {message}", 2,
                   {"p.yaml": text}) for id_, text, message in PATH_VALUES]
    npz_cases = [
        ("header-bomb", npz(qpos_header_shape=(600_000_000,)),
         f"qpos: its header promises 600,000,000 values of float64 in 4,224 bytes; {NOT_A_CLIP}"),
        ("object-qpos", npz(qpos=np.array([["a", "b"]])), f"fps or qpos is not numeric; {NOT_A_CLIP}"),
        ("nan-fps", npz(fps=float("nan")), "fps nan is not a number above 0 up to 10000"),
        ("huge-fps", npz(fps=1e300), "fps 1e+300 is not a number above 0 up to 10000"),
        ("inf-qpos", npz(qpos=np.array([[0.0] * 87, [np.inf] * 87])),
         "motion clip: qpos has a non-finite value at frame 1"),
        ("1d-qpos", npz(qpos=np.zeros(5)), "motion clip: qpos must be a (frames, nq) array, got shape (5,)"),
        ("not-a-zip", b"hello\n", NOT_A_CLIP),
    ]
    cases += [Case(f"npz-{id_}", "file", ("metrics", "c.npz", "--creature", "dog"), f"c.npz: {message}", 2,
                   {"c.npz": data}) for id_, data, message in npz_cases]
    return cases


# Every numeric flag: (command line before the value, its range text)
FLAGS = [
    (("run", "dog", "--seconds"), "a number above 0 up to 3600"), (("run", "dog", "--speed"), "a number from 0 to 20"),
    (("run", "gorilla", "--turn"), "a number from -3 to 3"), (("run", "raibert_biped", "--scale"),
                                                              "a number from 0.05 to 20"),
    (("animate", "dog", "--gait", "trot", "--seconds"), "a number above 0 up to 600"),
    (("animate", "dog", "--gait", "trot", "--fps"), "a number above 0 up to 240"),
    (("animate", "dog", "--gait", "trot", "--modes"), "a whole number from 1 to 500"),
    (("animate", "dog", "--gait", "trot", "--froude"), "a number above 0 up to 100"),
    (("modes", "dog", "--count"), "a whole number from 1 to 10000"),
    (("modes", "dog", "--stiffness-scale"), "a number above 0 up to 1000000"),
    (("tune", "dog", "--max-deviation"), "a number above 0 up to 90"),
    (("report", "raibert", "--seconds"), "a number above 0 up to 600"),
    (("simulate", "worm", "--seconds"), "a number above 0 up to 3600"),
    (("landscape", "worm", "--grid"), "a whole number from 2 to 200"),
    (("optimize", "worm", "--budget"), "a whole number from 2 to 10000000"),
    (("push", "gorilla", "--gait", "trot", "--phases"), "a whole number from 1 to 16"),
]
BAD_VALUES = ("nan", "inf", "-inf", "1e308", "-1e9", "abc", "")


def _flags_family() -> list[Case]:
    cases = []
    for words, span in FLAGS:
        *head, flag = words
        for value in BAD_VALUES:
            cases.append(Case(f"{words[0]}{flag}={value or 'empty'}", "argument", (*head, f"{flag}={value}"),
                              f"{words[0]}: argument {flag}: must be {span}, got {value!r}", 2))
    speed = "must be a speed above 0 up to 50 [m/s] or a ramp FROM:TO of two"
    for value in ("nan", "inf", "0", "1e-400", "51", "1:nan", "1:2:3", "-1:2"):
        cases.append(Case(f"animate--speed={value}", "argument", ("animate", "dog", f"--speed={value}"),
                          f"animate: argument --speed: {speed}, got {value!r}", 2))
    return cases


OTHER: list[Case] = [
    # ---------------------------------------------- speeds that make garbage
    Case("gorilla-speed-50", "garbage", ("animate", "gorilla", "--gait", "trot", "--speed", "50", "-o", "g.npz"),
         "speed 50 m/s is Froude 283 (V²/(g·h), hip height 0.90 m); gaits are made from Froude 0.001 to 100: "
         "0.094 to 29.7 m/s for this creature", 2),
    Case("dog-speed-1e-300", "garbage", ("animate", "dog", "--speed", "1e-300", "-o", "d.npz"),
         "speed 1e-300 m/s is Froude 0 (V²/(g·h), hip height 0.45 m); gaits are made from Froude 0.001 to 100: "
         "0.067 to 21.1 m/s for this creature", 2),
    Case("dog-froude-1e-9", "garbage", ("animate", "dog", "--gait", "trot", "--froude", "1e-9", "-o", "d.npz"),
         "Froude 1e-09 (V²/(g·h), hip height 0.45 m); gaits are made from Froude 0.001 to 100: 0.067 to 21.1 m/s "
         "for this creature", 2),
    Case("dog-ramp-to-40", "garbage", ("animate", "dog", "--speed", "1:40", "-o", "d.npz"),
         "speed 40 m/s is Froude 358 (V²/(g·h), hip height 0.45 m); gaits are made from Froude 0.001 to 100: "
         "0.067 to 21.1 m/s for this creature", 2),
    Case("human-speed-45", "garbage", ("animate", "human", "--gait", "run", "--speed", "45", "-o", "h.npz"),
         "speed 45 m/s is Froude 222 (V²/(g·h), hip height 0.93 m); gaits are made from Froude 0.001 to 100: "
         "0.096 to 30.2 m/s for this creature", 2),
    # An optimization that can only fail: a population beyond the budget, a worm that must stand 5 m tall.
    Case("optimize-popsize-over-budget", "garbage", ("optimize", "worm", "--budget", "4", "--popsize", "10000",
                                                      "-o", "b.yaml"),
         "budget 4 is smaller than one CMA-ES generation of 10000 simulations (popsize); raise the budget or lower "
         "the popsize", 2),
    # More work than one job may run (sim.batch.MAX_STEPS), refused before any of it.
    Case("landscape-a-thousand-days", "garbage", ("landscape", "worm", "--grid", "200", "--seconds", "3600"),
         "landscape (lower the grid or the seconds): 40000 simulations of 4.32e+07 physics steps each is 1.73e+12 "
         "steps, more than the 1e+10 one job may run (about a day on one core)", 2),
    Case("optimize-ten-million", "garbage", ("optimize", "worm", "--budget", "10000000", "--seconds", "60", "-o",
                                             "b.yaml"),
         "optimize (lower the budget or the seconds): 10000000 simulations of 7.2e+05 physics steps each is "
         "7.2e+12 steps, more than the 1e+10 one job may run (about a day on one core)", 2),
    Case("optimize-every-candidate-falls", "garbage", ("optimize", "worm", "--budget", "4", "--popsize", "4",
                                                        "--seconds", "0.3", "--workers", "1", "--heading", "any",
                                                        "--upright", "5,10", "-o", "b.yaml"),
         "every one of the 4 candidates failed: 4 fell (the longest stayed up 0.00 s); no result", 1),
    Case("run-dog-speed-out-of-gait", "argument", ("run", "dog", "--gait", "walk", "--speed", "5", "--seconds", "1"),
         "dog walk: speed 5 m/s is outside its range 0.2–0.55 m/s", 2),
    # ---------------------------------------------- valid commands the checks must let through
    Case("run-dog-walk-default-speed", "valid", ("run", "dog", "--gait", "walk", "--seconds", "1", "--quiet"), "", 0),
    Case("run-dog-stand", "valid", ("run", "dog", "--gait", "stand", "--seconds", "0.5", "--quiet"), "", 0),
    Case("run-gorilla-trot-default-speed", "valid", ("run", "gorilla", "--gait", "trot", "--seconds", "0.5"), "", 0),
    Case("animate-dog-trot", "valid", ("animate", "dog", "--gait", "trot", "--seconds", "0.5", "--no-pin", "-o",
                                       "t.npz"), "", 0),
    Case("modes-worm", "valid", ("modes", "worm", "--count", "2", "--json", "m.json"), "", 0),
    # ---------------------------------------------- outputs
    Case("same-file-twice", "output", ("simulate", "worm", "--seconds", "0.2", "-o", "x.csv", "--traces", "x.csv"),
         "x.csv: named for two outputs of this command; give each output its own file", 2),
    Case("same-file-twice-by-path", "output", ("simulate", "worm", "--seconds", "0.2", "-o", "x.csv", "--traces",
                                               "./x.csv"),
         "./x.csv: named for two outputs of this command (also given as x.csv); give each output its own file", 2),
    Case("name-too-long-run", "output", ("run", "kangaroo", "--seconds", "0.2", "-o", LONG),
         f"{LONG[:40]}…: a file or folder name of 304 bytes; this file system takes at most 255", 2),
    Case("name-too-long-export", "output", ("export", "dog", "-o", "b" * 300 + ".yaml"),
         f"{'b' * 40}…: a file or folder name of 305 bytes; this file system takes at most 255", 2),
    Case("name-too-long-folder", "output", ("modes", "dog", "--json", "c" * 300 + "/m.json"),
         f"{'c' * 40}…: a file or folder name of 300 bytes; this file system takes at most 255", 2),
    Case("name-too-long-plots", "output", ("run", "dog", "--seconds", "0.2", "--plots", "p" * 300),
         f"{'p' * 40}…: a file or folder name of 300 bytes; this file system takes at most 255", 2),
    Case("path-too-long", "output", ("export", "dog", "-o", "/".join(["d" * 200] * 25) + ".yaml"),
         f"{'d' * 60}…: the path is 5,029 bytes long, more than the 4096 a path may have", 2),
    Case("output-under-a-device", "output", ("animate", "dog", "--gait", "trot", "-o", "/dev/null/x.npz"),
         "/dev/null/x.npz: /dev/null is not a folder", 2),
    Case("output-is-a-device", "output", ("export", "dog", "-o", "n.yaml"),
         "n.yaml: is a character device; give the name of a regular file", 2, {"n.yaml": "LINK:/dev/null"}),
    Case("output-is-a-fifo", "output", ("animate", "dog", "--gait", "trot", "-o", "o.npz"),
         "o.npz: is a FIFO; give the name of a regular file", 2, {"o.npz": FIFO}),
    Case("output-is-a-folder", "output", ("export", "dog", "-o", "d.yaml"),
         "d.yaml: is a folder; give a file name", 2, {"d.yaml": FOLDER}),
    Case("output-in-proc", "output", ("modes", "dog", "--json", "/proc/self/m.json"),
         "/proc/self/m.json: cannot write in /proc/self (No such file or directory)", 2),
    Case("output-extension", "output", ("run", "dog", "-o", "x.exe"),
         "x.exe: unknown motion file extension '.exe' (valid: .bvh, .csv, .gif, .glb, .mp4, .npz)", 2),
    Case("file-too-large-export", "output", ("export", "dog", "-o", "dog.yaml"), "dog.yaml: file too large", 1,
         limits={"fsize": 4096}),
    Case("file-too-large-modes", "output", ("modes", "dog", "--count", "4", "--json", "m.json", "--sheet", "m.png"),
         "m.json: file too large", 1, limits={"fsize": 8192}),
]

CORPUS: list[Case] = _files_family() + _models_family() + _values_family() + _flags_family() + OTHER


# ------------------------------------------------------------ running
def make_files(case: Case, folder: str) -> None:
    for name, content in case.files.items():
        path = os.path.join(folder, name)
        if content == FIFO:
            os.mkfifo(path)
        elif content == FOLDER:
            os.mkdir(path)
        elif isinstance(content, str) and content.startswith("LINK:"):
            os.symlink(content[5:], path)
        elif isinstance(content, str) and content.startswith("SPARSE:"):
            with open(path, "wb") as f:
                f.truncate(int(content[7:]))  # a large file that takes no disk space
        elif isinstance(content, bytes):
            with open(path, "wb") as f:
                f.write(content)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)


def run_case(case: Case, folder: str) -> tuple[int, str, float]:
    """(exit code, stderr, seconds) of ``case`` run in ``folder`` (made there)."""
    make_files(case, folder)
    argv = [a.replace("{d}", folder) for a in case.argv]
    start = time.perf_counter()
    if case.limits:
        return (*_subprocess(argv, folder, case.limits), time.perf_counter() - start)
    from gaitforge.cli.main import main

    here = os.getcwd()
    err, out = io.StringIO(), io.StringIO()
    try:
        os.chdir(folder)
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(argv)
    finally:
        os.chdir(here)
    return code, err.getvalue(), time.perf_counter() - start


def _subprocess(argv: list[str], folder: str, limits: dict) -> tuple[int, str]:
    import resource

    def limit():
        if "fsize" in limits:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limits["fsize"], limits["fsize"]))

    import gaitforge

    root = os.path.dirname(os.path.dirname(os.path.abspath(gaitforge.__file__)))
    env = dict(os.environ, MUJOCO_GL=os.environ.get("MUJOCO_GL", "egl"), PYTHONPATH=root)
    proc = subprocess.run([sys.executable, "-m", "gaitforge.cli.main", *argv], cwd=folder, env=env,
                          capture_output=True, text=True, preexec_fn=limit, timeout=600)
    return proc.returncode, proc.stderr


def expected(case: Case, folder: str) -> str:
    """The whole stderr the case must print."""
    return f"gaitforge: error: {case.message.replace('{d}', folder)}\n" if case.message else ""


def clean(case: Case, code: int, err: str, folder: str) -> bool:
    """Handled cleanly: the expected exit code and exactly the expected line
    (for a valid run: exit 0, no error line, no traceback)."""
    if not case.message:
        return code == 0 and "Traceback" not in err and "gaitforge: error" not in err
    return code == case.code and err == expected(case, folder)

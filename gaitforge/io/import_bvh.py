"""Import the skeleton of a BVH (Biovision hierarchy) file as a :class:`CreatureSpec`.

Each BVH joint becomes a bone whose frame sits at the joint, world aligned in
the file's rest pose (all rotations zero, as BVH defines it). Its shapes are
capsules of uniform ``density`` from the joint to each child joint and each
``End Site`` (a bone with neither gets a sphere of half the radius). The
root gets a free joint, joints with rotation channels a ball joint, joints
without a fixed one; position channels below the root are ignored.

Axes and units (BVH has no standard; these are the usual mocap ones):

- ``up="y"`` (default): the file is y up with the character facing +Z and
  its left hand on +X (Mixamo, CMU, and gaitforge's own BVH export). File
  axes map to gaitforge's as X → y (left), Y → z (up), Z → x (forward).
  ``up="z"``: the file already uses x forward, y left, z up.
- Then, with ``face_x`` (default), the skeleton turns about the vertical
  until its left side (left-labelled joints minus right ones) points along +y,
  whatever way the file faced.
- ``scale`` [m per file unit]: given, or detected: a skeleton spanning more
  than 10 units is taken to be in centimetres (0.01), else in metres (1).
  Inches and other units need ``scale``.

Capsule radius: ``radius`` [m], by default 4 % of the skeleton's span, and at
most a quarter of each capsule's length (so fingers stay slender). Joint
springs: :func:`gaitforge.io.import_mjcf.default_joint_stiffness` in the
rest pose, or ``default_stiffness`` [N m/rad] for every ball joint. Labels
come from joint names (:mod:`gaitforge.creatures.labels`) and an optional
override file; standing feet get contact points as in the MJCF importer.
The MOTION section is checked (frame count, values per frame) but not kept.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from pathlib import Path

import mujoco
import numpy as np

from gaitforge.creatures.compile import compile_spec
from gaitforge.creatures.labels import apply_label_overrides, facing_yaw, infer_labels
from gaitforge.creatures.spec import Bone, ContactPoint, CreatureSpec, Joint, Shape, vec3
from gaitforge.errors import GaitforgeError, SpecError, brief
from gaitforge.io.clip_checks import Y_UP
from gaitforge.io.import_mjcf import default_joint_stiffness, foot_sites, load_label_overrides

CHANNELS = ("Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation")
UPS = ("y", "z")
RADIUS_FRACTION = 0.04  # default capsule radius / skeleton span
CM_SPAN = 10.0  # a skeleton spanning more file units than this is in centimetres


@dataclass(frozen=True)
class BvhNode:
    """One BVH joint: ``parent`` index (-1 for the root), ``offset`` (3,) and
    ``end_sites`` (k, 3) in file units and axes, ``channels``, and the file
    ``line`` of its name."""

    name: str
    parent: int
    offset: np.ndarray
    channels: tuple[str, ...]
    end_sites: np.ndarray
    line: int


class _Reader:
    """Whitespace tokens of the HIERARCHY section with their line numbers."""

    def __init__(self, lines: list[str], source: str):
        self.toks = [(t, n) for n, line in enumerate(lines, 1) for t in line.split()]
        self.i, self.source = 0, source
        self.last = self.toks[-1][1] if self.toks else 1  # the last line with text

    def fail(self, line: int, message: str) -> SpecError:
        return SpecError(f"line {line}", message, self.source)

    def next(self, what: str) -> tuple[str, int]:
        if self.i >= len(self.toks):
            raise self.fail(self.last, f"unexpected end of the hierarchy, expected {what}")
        self.i += 1
        return self.toks[self.i - 1]

    def expect(self, word: str) -> int:
        tok, line = self.next(repr(word))
        if tok != word:
            raise self.fail(line, f"expected {word!r}, got {tok!r}")
        return line

    def number(self, what: str) -> float:
        tok, line = self.next(what)
        try:
            value = float(tok)
        except ValueError:
            raise self.fail(line, f"expected {what}, got {tok!r}") from None
        if not math.isfinite(value):
            raise self.fail(line, f"expected {what}, got {tok!r}")
        return value

    def offset(self) -> np.ndarray:
        self.expect("OFFSET")
        return np.array([self.number("a number (OFFSET)") for _ in range(3)])


MAX_JOINTS = 1000  # as many bones as a creature may have
MAX_NESTING = 200  # joints inside joints (a human hierarchy is ~10 deep)


def _joint(r: _Reader, nodes: list[BvhNode], parent: int, depth: int = 0) -> None:
    name, line = r.next("a joint name")
    if depth >= MAX_NESTING:
        raise r.fail(line, f"joints nest deeper than {MAX_NESTING} levels")
    if len(nodes) >= MAX_JOINTS:
        raise r.fail(line, f"more than {MAX_JOINTS} joints")
    if any(n.name == name for n in nodes):
        raise r.fail(line, f"duplicate joint name {brief(name)}")
    r.expect("{")
    offset = r.offset()
    r.expect("CHANNELS")
    count_tok, count_line = r.next("the channel count")
    if not count_tok.isdigit() or int(count_tok) > 6:
        raise r.fail(count_line, f"expected a channel count from 0 to 6, got {count_tok!r}")
    channels = []
    for _ in range(int(count_tok)):
        ch, ch_line = r.next("a channel name")
        if ch not in CHANNELS:
            raise r.fail(ch_line, f"unknown channel {ch!r} (choose from {', '.join(CHANNELS)})")
        channels.append(ch)
    me, ends = len(nodes), []
    nodes.append(BvhNode(name, parent, offset, tuple(channels), np.zeros((0, 3)), line))
    while True:
        tok, tline = r.next("JOINT, End Site or '}'")
        if tok == "JOINT":
            _joint(r, nodes, me, depth + 1)
        elif tok == "End":
            r.expect("Site")
            r.expect("{")
            ends.append(r.offset())
            r.expect("}")
        elif tok == "}":
            break
        else:
            raise r.fail(tline, f"expected JOINT, End Site or '}}', got {tok!r}")
    nodes[me] = replace(nodes[me], end_sites=np.array(ends).reshape(-1, 3))


def _check_motion(lines: list[str], start: int, nchannels: int, source: str) -> None:
    """Check the MOTION section beginning at index ``start`` (0-based line)."""
    def fail(i: int, message: str) -> SpecError:
        return SpecError(f"line {i + 1}", message, source)

    body = [(i, lines[i].split()) for i in range(start + 1, len(lines)) if lines[i].strip()]
    if len(body) < 2 or body[0][1][:1] != ["Frames:"] or body[1][1][:2] != ["Frame", "Time:"]:
        at = body[0][0] if body else start
        raise fail(at, "expected 'Frames: N' and 'Frame Time: T' after MOTION")
    i, words = body[0]
    if len(words) != 2 or not words[1].isdigit():
        raise fail(i, f"expected a frame count, got {' '.join(words[1:])!r}")
    frames = int(words[1])
    rows = body[2:]
    if len(rows) != frames:
        at = rows[frames][0] if len(rows) > frames else (rows[-1][0] if rows else body[1][0])
        raise fail(at, f"{frames} frames declared, found {len(rows)}")
    for i, words in rows:
        if len(words) != nchannels:
            raise fail(i, f"expected {nchannels} values per frame, got {len(words)}")
        try:
            np.array(words, dtype=float)
        except ValueError:
            bad = next(w for w in words if not _is_number(w))
            raise fail(i, f"expected a number, got {bad!r}") from None


def _is_number(word: str) -> bool:
    try:
        float(word)
        return True
    except ValueError:
        return False


def parse_bvh(text: str, source: str = "<bvh>") -> list[BvhNode]:
    """The joints of a BVH file, parents first; errors give ``source`` and the line."""
    lines = text.lstrip("\ufeff").splitlines()  # some tools write a byte order mark
    motion = next((i for i, line in enumerate(lines) if line.split()[:1] == ["MOTION"]), len(lines))
    r = _Reader(lines[:motion], source)
    r.expect("HIERARCHY")
    r.expect("ROOT")
    nodes: list[BvhNode] = []
    _joint(r, nodes, -1)
    if r.i < len(r.toks):
        tok, line = r.toks[r.i]
        raise r.fail(line, "only one ROOT per file is supported" if tok == "ROOT" else f"expected MOTION, got {tok!r}")
    if motion < len(lines):
        _check_motion(lines, motion, sum(len(n.channels) for n in nodes), source)
    return nodes


def _positive(name: str, value, *, optional: bool = True) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise GaitforgeError(f"{name} must be a positive number, got {value!r}")


def creature_from_bvh_nodes(nodes: list[BvhNode], name: str, *, radius: float | None = None,
                            density: float = 1000.0, scale: float | None = None, up: str = "y",
                            face_x: bool = True, default_stiffness: float | None = None,
                            overrides=None, labels_source: str | None = None,
                            description: str = "") -> CreatureSpec:
    """Build the creature of parsed BVH joints (see the module notes);
    ``overrides`` from :func:`load_label_overrides`, read from ``labels_source``."""
    if up not in UPS:
        raise GaitforgeError(f"unknown up axis {up!r} (choose from {', '.join(UPS)})")
    _positive("radius", radius)
    _positive("density", density, optional=False)
    _positive("scale", scale)
    if default_stiffness is not None and not (math.isfinite(default_stiffness) and default_stiffness >= 0):
        raise GaitforgeError(f"default_stiffness must be a finite number >= 0 N m/rad, got {default_stiffness!r}")
    axes = Y_UP.T if up == "y" else np.eye(3)  # file vectors → gaitforge vectors
    world = np.zeros((len(nodes), 3))
    for i, n in enumerate(nodes):
        world[i] = (world[n.parent] if n.parent >= 0 else 0.0) + n.offset
    tips = [world[i] + e for i, n in enumerate(nodes) for e in n.end_sites]
    span_units = float(np.ptp(np.vstack([world, *tips]) if tips else world, axis=0).max())
    if scale is None:
        scale = 0.01 if span_units > CM_SPAN else 1.0
    span = span_units * scale
    if span <= 0:
        raise GaitforgeError(f"{name}: the skeleton has no extent (all joints at one point)")
    names = [n.name for n in nodes]
    parents = {n.name: (nodes[n.parent].name if n.parent >= 0 else None) for n in nodes}
    overrides, pts = overrides or {}, world @ axes.T * scale
    labels = apply_label_overrides(infer_labels(names, parents=parents), overrides, labels_source)
    yaw = facing_yaw(labels, dict(zip(names, pts))) if face_x else 0.0
    turn = np.array([[math.cos(yaw), -math.sin(yaw), 0.0], [math.sin(yaw), math.cos(yaw), 0.0], [0.0, 0.0, 1.0]])
    pts = (pts - pts[0]) @ turn.T + pts[0]
    labels = apply_label_overrides(infer_labels(names, pts, parents), overrides, labels_source)
    to_m = turn @ axes * scale
    r_max = RADIUS_FRACTION * span if radius is None else float(radius)

    children: dict[int, list[np.ndarray]] = {i: [to_m @ e for e in n.end_sites] for i, n in enumerate(nodes)}
    for n in nodes[1:]:
        children[n.parent].append(to_m @ n.offset)
    bones = []
    for i, n in enumerate(nodes):
        shapes = [Shape("capsule", radius=min(r_max, 0.25 * float(np.linalg.norm(c))),
                        fromto=(0.0, 0.0, 0.0) + tuple(map(float, c)))
                  for c in children[i] if np.linalg.norm(c) > 1e-6 * span]
        shapes = shapes or [Shape("sphere", radius=r_max / 2)]
        kind = "free" if i == 0 else "ball" if any(c.endswith("rotation") for c in n.channels) else "fixed"
        pos = pts[0] if i == 0 else to_m @ n.offset
        lab = labels[n.name]
        bones.append(Bone(n.name, parents[n.name], tuple(shapes), Joint(kind), pos=vec3(pos),
                          density=float(density), side=lab.side, role=lab.role, limb=lab.limb))
    draft = CreatureSpec(name=name, bones=tuple(bones), description=description)
    model, rest, _ = compile_spec(draft)
    data = mujoco.MjData(model)
    data.qpos[:] = rest
    mujoco.mj_kinematics(model, data)
    k = default_joint_stiffness(model, data)
    bones = [replace(b, joint=replace(b.joint, stiffness=float(default_stiffness if default_stiffness is not None
                                                                else k[model.joint(b.name).id])))
             if b.joint.type == "ball" else b for b in bones]
    ids = [model.body(b.name).id for b in bones]
    contacts = tuple(ContactPoint(site, body, vec3(local))
                     for site, body, local in foot_sites(model, data, labels, ids))
    return replace(draft, bones=tuple(bones), contacts=contacts)


def load_creature_from_bvh(path: str | os.PathLike, radius: float | None = None, density: float = 1000.0, *,
                           scale: float | None = None, up: str = "y", face_x: bool = True,
                           default_stiffness: float | None = None,
                           labels_file: str | os.PathLike | None = None, name: str | None = None) -> CreatureSpec:
    """Read a BVH file's skeleton as a :class:`CreatureSpec` (see the module
    notes). radius [m], density [kg/m³], scale [m per file unit]; name defaults
    to the file stem. Errors name the file and the line."""
    p = Path(path)
    from gaitforge.io.files import read_text

    text = read_text(p, "BVH file", errors="replace")
    nodes = parse_bvh(text, str(p))
    overrides = load_label_overrides(labels_file) if labels_file is not None else {}
    return creature_from_bvh_nodes(nodes, name or p.stem, radius=radius, density=density, scale=scale, up=up,
                                   face_x=face_x, default_stiffness=default_stiffness, overrides=overrides,
                                   labels_source=str(labels_file) if labels_file is not None else None,
                                   description=f"imported from {p.name}")

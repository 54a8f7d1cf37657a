"""Limits on MJCF and URDF models, checked before MuJoCo reads them and
again on what it compiled, before any heavy work.

MuJoCo expands a model while it parses it: ``<replicate count=100000>``
or a 300×300 ``<flexcomp>`` hang the parser before anything can count the
bodies, ``<size memory="100G">`` asks for the memory when the simulation
data is made, and every file a model names (``<include>``, meshes, height
fields, textures) is read whole. :func:`scan_model` reads the XML first
(itself a size-checked regular file, see :mod:`gaitforge.io.files`), follows
its includes, checks every file it names the same way, and bounds what the
expansion makes: bodies (:data:`MAX_BONES`, replicate counts multiplied
through their nesting), flex points, joint DOFs (:data:`MAX_DOFS`, types
read where written), memory, height field and texture sizes. Each refusal is
one line naming the file, the line and the element.

:func:`check_compiled` then checks the compiled model's counts, timestep,
masses, inertias, stiffness, damping and friction against the same ranges
as creature files (:mod:`gaitforge.creatures.spec_checks`)."""
from __future__ import annotations

import math
import os
import re
import xml.parsers.expat
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from gaitforge.creatures.spec_checks import (DAMPING, FRICTION, INERTIA, MASS, MAX_BONES, MAX_DOFS, STIFFNESS,
                                             TIMESTEP)
from gaitforge.errors import SpecError
from gaitforge.io.files import check_file, read_bytes

MAX_INCLUDES = 100           # files a model may include, all levels together
MAX_MEMORY = 2 ** 30         # bytes: <size memory="...">
MAX_CELLS = 10 ** 7          # height field samples (nrow × ncol)
MAX_PIXELS = 10 ** 8         # texture pixels (width × height)
MAX_BUFFER = 10 ** 6         # njmax, nconmax, nstack and the like
MAX_NESTING = 2 * MAX_BONES  # XML elements inside each other (a chain of MAX_BONES bodies and its wrappers)
_DOFS = {"free": 6, "ball": 3, "hinge": 1, "slide": 1}
_URDF_DOFS = {"floating": 6, "planar": 3, "revolute": 1, "continuous": 1, "prismatic": 1, "fixed": 0}
_SUFFIX = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40, "P": 2 ** 50}


@dataclass
class _Node:
    tag: str
    attrs: dict[str, str]
    line: int
    source: str
    children: list["_Node"] = field(default_factory=list)


def _parse(path: Path, shown: str) -> _Node | None:
    """The element tree of an XML file with line numbers, or None when the
    XML is malformed (MuJoCo's own parser then reports it, with its line)."""
    data = read_bytes(path, "model file")
    root = _Node("", {}, 0, shown)
    stack = [root]
    parser = xml.parsers.expat.ParserCreate()

    def start(tag, attrs):
        node = _Node(tag, attrs, parser.CurrentLineNumber, shown)
        stack[-1].children.append(node)
        stack.append(node)
        if len(stack) > MAX_NESTING:
            raise SpecError(f"line {parser.CurrentLineNumber}", f"elements nest deeper than {MAX_NESTING} levels",
                            shown)

    def end(tag):
        stack.pop()

    def entity(*args):  # no entity declarations: no expansion bombs, no external files
        raise SpecError(f"line {parser.CurrentLineNumber}", "XML entity declarations are not supported", shown)

    parser.StartElementHandler, parser.EndElementHandler = start, end
    parser.EntityDeclHandler = entity
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError:
        return None
    return root.children[0] if root.children else None


def _fail(node: _Node, message: str) -> SpecError:
    return SpecError(f"line {node.line}", message, node.source)


def _int(node: _Node, key: str, default: int = 1) -> int:
    text = node.attrs.get(key)
    if text is None:
        return default
    try:
        value = float(text.split()[0]) if text.split() else float("nan")
    except ValueError:
        return default  # MuJoCo reports what it cannot read
    if not math.isfinite(value):
        raise _fail(node, f"<{node.tag} {key}={text[:40]!r}> is not a finite number")
    return int(value)


def _ints(node: _Node, key: str) -> list[int]:
    out = []
    for word in node.attrs.get(key, "").split():
        try:
            value = float(word)
        except ValueError:
            return []
        if not math.isfinite(value):
            raise _fail(node, f"<{node.tag} {key}={node.attrs[key][:40]!r}> is not finite")
        out.append(int(value))
    return out


def _bytes(node: _Node, key: str) -> int | None:
    text = node.attrs.get(key, "").strip()
    m = re.fullmatch(r"(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*([KMGTP]?)", text, re.IGNORECASE)
    if not m:
        return None
    return int(float(m.group(1)) * _SUFFIX[m.group(2).upper()])


class _Scan:
    def __init__(self, main: Path):
        self.main = main
        self.base = main.parent
        self.bodies = 0
        self.dofs = 0
        self.includes = 0
        self.dirs = {"mesh": "", "texture": ""}
        self.joint_types: dict[str, str] = {}  # default class -> the joint type it gives (MJCF)

    def read_defaults(self, root: _Node) -> None:
        """The joint type each ``<default>`` class gives, inherited from the
        class it nests in (the outermost is MuJoCo's "main")."""
        stack = [(root, "hinge", False)]
        while stack:
            node, inherited, inside = stack.pop()
            if node.tag == "default":
                name = node.attrs.get("class", "main")
                own = next((c.attrs["type"] for c in node.children if c.tag == "joint" and "type" in c.attrs),
                           inherited)
                self.joint_types.setdefault(name, own)
                stack.extend((c, own, True) for c in node.children if c.tag == "default")
            elif not inside:
                stack.extend((c, inherited, False) for c in node.children)

    # ------------------------------------------------------------ files
    def _asset(self, node: _Node, name: str, kind: str) -> None:
        if not name or "://" in name:
            return  # package:// and other URIs: MuJoCo resolves (or refuses) them
        p = Path(name)
        if not p.is_absolute():
            p = self.base / self.dirs.get(kind, "") / name
            if not p.exists():
                p = self.base / name
        if os.path.lexists(p):
            try:
                check_file(p, "model asset")
            except SpecError as exc:
                raise _fail(node, f"<{node.tag}> file {name[:80]!r}: {exc.message}") from None

    def _include(self, node: _Node, name: str, factor: int) -> None:
        self.includes += 1
        if self.includes > MAX_INCLUDES:
            raise _fail(node, f"more than {MAX_INCLUDES} included files; refused")
        p = Path(name) if Path(name).is_absolute() else self.base / name
        if not os.path.lexists(p):
            return  # MuJoCo names the missing file
        try:
            check_file(p, "model file")
        except SpecError as exc:
            raise _fail(node, f"<include> file {name[:80]!r}: {exc.message}") from None
        sub = _parse(p, str(p))
        if sub is not None:
            self.walk(sub, factor)

    # ------------------------------------------------------------ counts
    def _add_bodies(self, node: _Node, n: int) -> None:
        self.bodies += n
        if self.bodies > MAX_BONES:
            raise _fail(node, f"the model expands to more than {MAX_BONES} bodies (<{node.tag}> "
                              f"brings the count past it); at most {MAX_BONES} are supported")

    def _add_dofs(self, node: _Node, n: int) -> None:
        self.dofs += n
        if self.dofs > MAX_DOFS:
            raise _fail(node, f"the model expands to more than {MAX_DOFS} degrees of freedom; at most "
                              f"{MAX_DOFS} are supported")

    def walk(self, root: _Node, factor: int = 1) -> None:
        """Every element in document order (no recursion: a model may nest a
        thousand bodies deep), children of ``<replicate>`` counted as often
        as they are copied."""
        stack = [(root, factor, "", "main")]
        while stack:
            node, factor, parent, cls = stack.pop()
            if parent == "default" and node.tag in ("joint", "body"):
                continue  # a class's defaults, not a joint of the model
            factor = self._visit(node, factor, cls)
            inner = node.attrs.get("childclass", cls) if node.tag in ("body", "frame", "worldbody") else cls
            stack.extend((child, factor, node.tag, inner) for child in reversed(node.children))

    def _visit(self, node: _Node, factor: int, cls: str = "main") -> int:
        """Check one element; returns the copy factor of its children."""
        tag, a = node.tag, node.attrs
        if tag == "compiler":
            for key, kind in (("meshdir", "mesh"), ("texturedir", "texture")):
                if key in a:
                    self.dirs[kind] = a[key]
            if "assetdir" in a:
                self.dirs = {k: a["assetdir"] for k in self.dirs} | {k: a[v] for k, v in
                                                                       (("mesh", "meshdir"), ("texture", "texturedir"))
                                                                       if v in a}
        elif tag == "include" and "file" in a:
            self._include(node, a["file"], factor)
        elif tag == "replicate":
            count = _int(node, "count")
            if count < 0 or count * factor > MAX_BONES:
                raise _fail(node, f"<replicate count={a.get('count', '')[:20]!r}> makes {count * factor:,} copies; "
                                  f"at most {MAX_BONES} bodies are supported")
            factor *= max(count, 1)
        elif tag == "body" or tag == "link":
            self._add_bodies(node, factor)
        elif tag in ("flexcomp", "composite"):
            counts = _ints(node, "count") or [1]
            points = math.prod(max(c, 1) for c in counts)
            if points * factor > MAX_BONES:
                raise _fail(node, f"<{tag} count={a.get('count', '')[:30]!r}> makes {points * factor:,} points; "
                                  f"at most {MAX_BONES} bodies are supported")
            self._add_bodies(node, points * factor)
            self._add_dofs(node, 3 * points * factor)
        elif tag == "freejoint":
            self._add_dofs(node, 6 * factor)
        elif tag == "joint" and "type" in a and a["type"] in _URDF_DOFS:  # URDF
            self._add_dofs(node, _URDF_DOFS[a["type"]] * factor)
        elif tag == "joint":  # its type, else its class's, else that of the class its body gives
            kind = a.get("type") or self.joint_types.get(a.get("class", cls)) or self.joint_types.get("main", "hinge")
            self._add_dofs(node, _DOFS.get(kind, 1) * factor)
        elif tag == "size":
            memory = _bytes(node, "memory")
            if memory is not None and memory > MAX_MEMORY:
                raise _fail(node, f"<size memory={a['memory'][:20]!r}> asks for more than the "
                                  f"{MAX_MEMORY // 2 ** 30} GiB a model may use")
            for key in ("njmax", "nconmax", "nstack", "nuserdata", "nkey", "nuser_body", "nuser_jnt",
                        "nuser_geom", "nuser_site", "nuser_cam", "nuser_tendon", "nuser_actuator", "nuser_sensor"):
                if _int(node, key, 0) > MAX_BUFFER:
                    raise _fail(node, f"<size {key}={a[key][:20]!r}> is larger than {MAX_BUFFER:,}")
        elif tag == "hfield":
            if _int(node, "nrow", 0) * _int(node, "ncol", 0) > MAX_CELLS:
                raise _fail(node, f"<hfield> of {a.get('nrow')} × {a.get('ncol')} samples: more than "
                                  f"{MAX_CELLS:,}")
        elif tag == "texture":
            w, h = _int(node, "width", 0), _int(node, "height", 0)
            if w * h > MAX_PIXELS or w > 10 ** 6 or h > 10 ** 6:
                raise _fail(node, f"<texture> of {w} × {h} pixels: more than {MAX_PIXELS:,}")
        if tag != "include":
            for key in ("file", "filename", "fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"):
                if key in a:
                    self._asset(node, a[key], "texture" if tag in ("texture", "hfield") and key != "filename"
                                else "mesh")
        return factor


def scan_model(path: str | os.PathLike) -> None:
    """Check an MJCF or URDF file before MuJoCo reads it (see the module
    notes); raises a one-line :class:`SpecError` naming the file and line."""
    p = Path(path)
    root = _parse(p, str(p))
    if root is None:
        return
    scan = _Scan(p)
    scan.read_defaults(root)
    scan.walk(root)


def check_compiled(model, path: str | os.PathLike) -> None:
    """Counts and magnitudes of a compiled model (see the module notes),
    naming the first body, joint or geom at fault."""
    def fail(message: str) -> SpecError:
        return SpecError("", message, str(path))

    if model.nbody - 1 > MAX_BONES:
        raise fail(f"{model.nbody - 1} bodies; at most {MAX_BONES} are supported")
    if model.nv > MAX_DOFS:
        raise fail(f"{model.nv} degrees of freedom; at most {MAX_DOFS} are supported")
    lo, hi = TIMESTEP
    if not (math.isfinite(model.opt.timestep) and lo <= model.opt.timestep <= hi):
        raise fail(f"<option timestep> {model.opt.timestep:g} s is outside {lo:g} … {hi:g} s")
    if not np.all(np.isfinite(model.opt.gravity)) or np.linalg.norm(model.opt.gravity) > 1e3:
        raise fail(f"<option gravity> ({', '.join(f'{v:g}' for v in model.opt.gravity)}) is not finite or "
                   "beyond 1000 m/s²")
    for b in range(1, model.nbody):
        name = model.body(b).name
        mass, inertia = float(model.body_mass[b]), model.body_inertia[b]
        if mass != 0 and not MASS[0] <= mass <= MASS[1]:
            raise fail(f"body {name!r}: mass {mass:g} kg is outside {MASS[0]:g} … {MASS[1]:g} kg")
        if np.any(inertia > INERTIA[1]) or not np.all(np.isfinite(inertia)):
            raise fail(f"body {name!r}: inertia ({', '.join(f'{v:g}' for v in inertia)}) is beyond "
                       f"{INERTIA[1]:g} kg m²")
    for j in range(model.njnt):
        k = model.jnt_stiffness[j]
        if not (math.isfinite(k) and 0 <= k <= STIFFNESS[1]):
            raise fail(f"joint {model.joint(j).name!r}: stiffness {k:g} is outside 0 … {STIFFNESS[1]:g}")
    for d in range(model.nv):
        c = model.dof_damping[d]
        if not (math.isfinite(c) and 0 <= c <= DAMPING[1]):
            name = model.joint(int(model.dof_jntid[d])).name
            raise fail(f"joint {name!r}: damping {c:g} is outside 0 … {DAMPING[1]:g}")
    for g in range(model.ngeom):
        mu = float(model.geom_friction[g][0])
        if not (math.isfinite(mu) and 0 <= mu <= FRICTION[1]):
            name = model.geom(g).name or f"geom {g}"
            raise fail(f"{name}: friction {mu:g} is outside 0 … {FRICTION[1]:g}")

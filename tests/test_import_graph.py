"""The import graph of gaitforge has no cycles (issue 25).

Built from the source with ``ast`` (nothing is imported): an edge from a
module to every gaitforge module it imports, at the top or inside a
function, relative imports resolved; ``from package import name`` counts as
importing the submodule ``package.name`` when there is one, else the
package. Cycles are found as strongly connected components (Tarjan)."""
from __future__ import annotations

import ast
from pathlib import Path


import gaitforge

ROOT = Path(gaitforge.__file__).parent

def modules(root: Path) -> dict[str, Path]:
    """Dotted module name → source file, for every ``.py`` file under the package ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module → the package's modules it imports (anywhere in its source)."""
    mods = modules(root)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in mods}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[:len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for alias in node.names:
                    target = f"{base}.{alias.name}"
                    if target in mods:
                        graph[name].add(target)
                    elif base in mods:
                        graph[name].add(base)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (and self-imports)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm (the graph is a few hundred modules deep at most)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1 or v in graph[v]:
                found.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_imports_of_every_kind(tmp_path):
    """Top-level, in-function, relative and ``from package import module`` imports are all edges."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg.b import x\n")
    (pkg / "b.py").write_text("def f():\n    from . import c\n")
    (pkg / "c.py").write_text("from pkg import sub\nimport pkg.sub.d\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "d.py").write_text("from ..a import y\n")
    g = import_graph(pkg)
    assert g["pkg.a"] == {"pkg.b"} and g["pkg.b"] == {"pkg.c"} and g["pkg.c"] == {"pkg.sub", "pkg.sub.d"}
    assert g["pkg.sub.d"] == {"pkg.a"}
    assert cycles(g) == [frozenset({"pkg.a", "pkg.b", "pkg.c", "pkg.sub.d"})]
    (pkg / "sub" / "d.py").write_text("")
    assert cycles(import_graph(pkg)) == []


def test_gaitforge_has_no_import_cycles():
    found = sorted(sorted(c) for c in cycles(import_graph(ROOT)))
    assert not found, f"import cycles: {found}"


# The command line goes through the public API (issue 25, item 4): a command parses its
# arguments, calls ``gaitforge.api`` (``gf.*``), prints. Besides its own modules it may import
# the API, the errors and the input ranges its flags are checked against (the API checks its
# keywords against the same ``gaitforge.inputs``), ``gaitforge.version`` (``__version__``) and
# ``gaitforge.io.atomic``: the command's output files written together or not at all (the
# CLI's own plumbing, no library work in it); and ``gaitforge.studio.launch``, which starts the
# studio (the CLI's peer at the top: the API sits below both and cannot start it).
CLI_ALLOWED = {"gaitforge.version", "gaitforge.api", "gaitforge.errors", "gaitforge.inputs",
               "gaitforge.io.atomic", "gaitforge.studio.launch"}


def cli_layer_imports(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """CLI module (short name) → the library modules (short names) it imports outside ``CLI_ALLOWED``."""
    out = {}
    for module, targets in graph.items():
        if module.startswith("gaitforge.cli."):
            direct = {t.removeprefix("gaitforge.") for t in targets
                      if t not in CLI_ALLOWED and not t.startswith("gaitforge.cli")}
            if direct:
                out[module.removeprefix("gaitforge.cli.")] = direct
    return out


def test_cli_layer_imports_are_seen(tmp_path):
    """The check sees a command's direct import of a layer, and not its API or own imports."""
    pkg = tmp_path / "gaitforge"
    (pkg / "cli").mkdir(parents=True)
    (pkg / "modal").mkdir()
    for name in ("__init__.py", "api.py", "errors.py", "inputs.py", "cli/__init__.py", "modal/__init__.py",
                 "modal/tuning.py"):
        (pkg / name).write_text("")
    (pkg / "cli" / "good.py").write_text("from gaitforge import api, inputs\nfrom gaitforge.errors import E\n"
                                         "from gaitforge.cli import bad\n")
    (pkg / "cli" / "bad.py").write_text("def f():\n    from gaitforge.modal.tuning import tune\n")
    assert cli_layer_imports(import_graph(pkg)) == {"bad": {"modal.tuning"}}


def test_the_cli_goes_through_the_api():
    found = cli_layer_imports(import_graph(ROOT))
    assert not found, f"commands importing library layers directly (call gaitforge.api instead): {found}"


# The layers, bottom to top (the design's): a module may import its own layer and those below.
# The package's top-level modules are the base (errors, constants, compiled-kernel plumbing,
# names), except ``inputs``, the checks of values where they enter the library (the file
# readers of io and the API), which sits with io, and the package itself (``import gaitforge
# as gf``), the public namespace over everything.
LAYERS = ("base", "creatures", "modal", "motion", "sim", "control", "optimize", "io", "api", "cli")
TOP_LEVEL = {"gaitforge.inputs": "io", "gaitforge": "top"}


def layer(module: str) -> int:
    """Rank of ``module``'s layer in :data:`LAYERS` (the studio sits with the CLI, on the API)."""
    if module in TOP_LEVEL:
        return len(LAYERS) if TOP_LEVEL[module] == "top" else LAYERS.index(TOP_LEVEL[module])
    sub = module.split(".")[1]
    sub = "cli" if sub == "studio" else sub
    return LAYERS.index(sub) if sub in LAYERS else 0


def test_the_layering_sees_a_layer_per_subpackage():
    assert layer("gaitforge.errors") == layer("gaitforge.jit") == layer("gaitforge.constants") == 0
    assert layer("gaitforge.creatures.spec") < layer("gaitforge.modal.basis") < layer("gaitforge.motion.clip")
    assert layer("gaitforge.sim.runner") < layer("gaitforge.control.registry") < layer("gaitforge.api.motion")
    assert layer("gaitforge.io.paths") == layer("gaitforge.inputs") < layer("gaitforge.api.motion")
    assert layer("gaitforge.studio.app") == layer("gaitforge.cli.main") < layer("gaitforge")


def test_no_layer_imports_one_above_it():
    up = sorted(f"{m} -> {d}" for m, deps in import_graph(ROOT).items() for d in deps if layer(d) > layer(m))
    assert not up, f"imports from a lower layer into a higher one: {up}"

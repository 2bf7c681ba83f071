"""The package's layers: every import of an ulplab module goes down the rank list below, and no
module imports itself back through others.

Every module under src/ulplab is parsed (ast, nothing imported): each ``import`` and
``from ... import`` of an ulplab module counts, at module level and inside functions alike
(a function-level import still ties the two modules together), relative ones resolved; imports
under ``if TYPE_CHECKING:`` do not count (they never run). ``from pkg import name`` is an
import of the module pkg.name when that is a module, else of pkg.

A second check runs the product path in a fresh interpreter: ``ulplab.det`` must not pull in the
research layers (the oracle, the fitter, the method registry, sweeps, studies, the API).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "ulplab"

RANKS: list[tuple[str, ...]] = [
    ("ulplab.errors", "ulplab._facade", "ulplab._version"),
    ("ulplab",),  # the face: it imports _version; det, formats, oracle, the API found by name
    ("ulplab.cache", "ulplab.files", "ulplab.progress"),
    ("ulplab.kit",),
    ("ulplab.formats",),
    ("ulplab.functions",),
    ("ulplab.kernels",),
    ("ulplab.export",),
    ("ulplab.det",),
    ("ulplab.torch",),
    ("ulplab.inputs",),
    ("ulplab.ulp",),
    ("ulplab.stats",),
    ("ulplab.oracle",),
    ("ulplab.fit",),
    ("ulplab.methods",),
    ("ulplab.backends",),
    ("ulplab.sweep",),
    ("ulplab.analysis",),
    ("ulplab.synth",),
    ("ulplab.report",),
    ("ulplab.peers",),
    ("ulplab.api",),
    ("ulplab.studies",),
    ("ulplab.testing",),
    ("ulplab.cli",),
    ("ulplab.__main__",),
]
"""Units, lowest first; a unit may import only units of a strictly lower rank (or itself)."""
RANK = {unit: i for i, units in enumerate(RANKS) for unit in units}

PRODUCT_FORBIDDEN = ("ulplab.methods", "ulplab.fit", "ulplab.oracle", "ulplab.studies",
                     "ulplab.sweep", "ulplab.api")
"""What ``import ulplab`` and a det kernel call must not load."""


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported ulplab module
    path: Path
    line: int

    def where(self) -> str:
        return f"{self.path.relative_to(SRC.parent)}:{self.line}"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def unit_of(module: str) -> str:
    """The top-level module or subpackage holding ``module``."""
    parts = module.split(".")
    return ".".join(parts[:2])


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def _statements(tree: ast.AST):
    """Every import statement of ``tree`` that runs, at any depth, skipping the bodies of
    ``if TYPE_CHECKING:``."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in _statements(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules
                       else origin for alias in node.names]
        for target in dict.fromkeys(targets):  # one record per imported module and line
            if target == "ulplab" or target.startswith("ulplab."):
                found.append(Import(module, target, path, node.lineno))
    return found


def all_imports() -> list[Import]:
    modules = all_modules()
    return [imp for name, path in modules.items() for imp in imports_of(name, path, modules)]


def test_the_parser_sees_what_the_layering_needs(tmp_path: Path):
    """The walk finds function-level and relative imports, resolves ``from pkg import module``
    to the module, and skips TYPE_CHECKING imports."""
    probe = tmp_path / "probe.py"
    probe.write_text("from typing import TYPE_CHECKING\n"
                     "from . import core, nothing_here\n"
                     "if TYPE_CHECKING:\n    from ulplab.api import Report\n"
                     "else:\n    import ulplab.errors\n"
                     "def f():\n    import ulplab.oracle.table\n    from ..kit import fma\n")
    modules = all_modules()
    got = {(i.line, i.target) for i in imports_of("ulplab.kernels.probe", probe, modules)}
    assert got == {(2, "ulplab.kernels.core"), (2, "ulplab.kernels"), (6, "ulplab.errors"),
                   (8, "ulplab.oracle.table"), (9, "ulplab.kit.fma")}
    assert unit_of("ulplab.peers.card") == "ulplab.peers"
    assert unit_of("ulplab") == "ulplab" and unit_of("ulplab.kit.ops") == "ulplab.kit"
    imps = imports_of("ulplab.kernels.erf", modules["ulplab.kernels.erf"], modules)
    assert any(i.target == "ulplab.kernels.exp" for i in imps)  # the walk reads real modules


def test_imports_go_down_the_layers():
    """Every import from one unit to another goes to a strictly lower rank."""
    bad = []
    for imp in all_imports():
        src, dst = unit_of(imp.source), unit_of(imp.target)
        if src == dst:
            continue
        if src not in RANK or dst not in RANK:
            bad.append(f"{imp.where()}: {src} -> {dst} ({imp.target}): unit not in the rank list")
        elif RANK[dst] >= RANK[src]:
            bad.append(f"{imp.where()}: {src} -> {dst} ({imp.target})")
    assert not bad, f"{len(bad)} imports that do not go down the layers:\n" + "\n".join(bad)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []
    edges = {"a": {"b", "d"}, "b": {"c"}, "c": {"a"}, "d": {"b"}}
    assert _one_cycle("a", edges, {"a", "b", "c", "d"}) == ["a", "b", "c", "a"]


def test_no_import_cycles():
    """No module imports itself back through others (function-level imports included)."""
    imps = [i for i in all_imports() if i.source != i.target]
    edges: dict[str, set[str]] = {}
    for imp in imps:
        edges.setdefault(imp.source, set()).add(imp.target)
    lines = []
    for comp in _cycles(edges):
        members = set(comp)
        lines.append(f"cycle among {len(comp)} modules: " + ", ".join(comp))
        lines.append("  e.g. " + " -> ".join(_one_cycle(comp[0], edges, members)))
        lines.append("  its imports that do not go down the units (where to cut it):")
        lines += [f"  {i.where()}: {unit_of(i.source)} -> {unit_of(i.target)} ({i.target})"
                  for i in sorted(imps, key=lambda i: (str(i.path), i.line))
                  if i.source in members and i.target in members
                  and not RANK.get(unit_of(i.target), -1) < RANK.get(unit_of(i.source), -1)]
    assert not lines, "import cycles:\n" + "\n".join(lines)


def _one_cycle(start: str, edges: dict[str, set[str]], members: set[str]) -> list[str]:
    """A shortest path start -> ... -> start inside ``members`` (breadth first)."""
    previous: dict[str, str | None] = {start: None}
    frontier = [start]
    while frontier:
        nxt = []
        for node in frontier:
            for child in sorted(edges.get(node, ())):
                if child == start:
                    path = [node]
                    while (before := previous[path[-1]]) is not None:
                        path.append(before)
                    return [*reversed(path), start]
                if child in members and child not in previous:
                    previous[child] = node
                    nxt.append(child)
        frontier = nxt
    return [start]


def test_a_det_kernel_loads_no_research_layer():
    """``import ulplab`` and a det kernel call load none of the oracle, fitter, method registry,
    sweeps, studies or the API (in a fresh interpreter)."""
    code = ("import sys\nimport numpy as np\nimport ulplab\n"
            "y = ulplab.det.exp(np.ones(4, np.float32))\n"
            "assert y.dtype == np.float32 and y.shape == (4,), y\n"
            f"units = {PRODUCT_FORBIDDEN!r}\n"
            "bad = sorted(m for m in sys.modules\n"
            "             if any(m == u or m.startswith(u + '.') for u in units))\n"
            "print('\\n'.join(bad))\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    loaded = [m for m in run.stdout.split() if m]
    assert not loaded, "loaded by import ulplab + ulplab.det.exp:\n" + "\n".join(loaded)

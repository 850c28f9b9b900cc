"""physeval's modules import in one direction: no import cycle anywhere.

Edges are every ``import``/``from ... import`` statement of every module under ``src/physeval``,
at module level, inside a function (a lazy import is still a dependency) or under
``if TYPE_CHECKING`` (a type that must be imported from a module that imports you lives in the
wrong module). The one exception is a package ``__init__`` whose type-only block re-declares its
lazy public surface for type checkers: those names are re-exports, not dependencies.
``from physeval.pkg import name`` is an edge to the submodule when ``name`` is one, else to the
package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import physeval

ROOT = Path(physeval.__file__).resolve().parent


def _module_name(path: Path) -> str:
    parts = ["physeval", *path.relative_to(ROOT).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in ROOT.rglob("*.py")}


def _imports(tree: ast.Module, *, lazy_package: bool) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of a module at any depth, type-only ones included, except the
    type-only re-exports of a lazily loading package ``__init__`` (``lazy_package``)."""
    type_only: set[int] = set()
    if lazy_package:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
                type_only.update(id(n) for n in ast.walk(node))
    return [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in type_only]


def _is_lazy_package(path: Path, tree: ast.Module) -> bool:
    """A package ``__init__`` that loads its names on first use (a module-level ``__getattr__``)."""
    return path.name == "__init__.py" and any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__"
                                              for n in tree.body)


def import_graph() -> dict[str, set[str]]:
    """module -> the physeval modules it imports."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in _imports(tree, lazy_package=_is_lazy_package(path, tree)):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
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
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_cycle_finder_finds_a_planted_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_type_only_imports_are_edges_except_a_lazy_packages_reexports() -> None:
    module = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from physeval.store import RunStore\n")
    assert [n.module for n in _imports(module, lazy_package=False) if isinstance(n, ast.ImportFrom)] == \
        ["typing", "physeval.store"]
    assert [n.module for n in _imports(module, lazy_package=True) if isinstance(n, ast.ImportFrom)] == ["typing"]

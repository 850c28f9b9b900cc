"""The analyses and the reports import one way, type-only imports included.

``Run`` lives in :mod:`physeval.analysis.run`, which imports neither the outcome analysis nor
the summary: the type-level cycle outcomes -> runs -> summary -> outcomes cannot come back.
"""

from __future__ import annotations

import ast
from pathlib import Path

import physeval
from test_import_graph import cycles

ROOT = Path(physeval.__file__).resolve().parent


def _graph_with_type_imports() -> dict[str, set[str]]:
    """module -> physeval modules it imports, ``if TYPE_CHECKING`` imports included."""
    modules = {".".join(["physeval", *p.relative_to(ROOT).with_suffix("").parts]).removesuffix(".__init__"): p
               for p in ROOT.rglob("*.py")}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def test_no_cycle_through_analysis_or_report_even_counting_type_only_imports() -> None:
    found = [c for c in cycles(_graph_with_type_imports())
             if any(m.startswith(("physeval.analysis", "physeval.report")) for m in c)]
    assert found == [], "type-level cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_run_is_one_class_reexported_by_runs() -> None:
    from physeval.analysis import run, runs

    assert runs.Run is run.Run

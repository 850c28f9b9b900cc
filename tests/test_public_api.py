"""The public surface: every advertised name resolves, and importing physeval stays light."""

from __future__ import annotations

import subprocess
import sys

import physeval


def test_every_exported_name_resolves() -> None:
    for name in physeval.__all__:
        assert getattr(physeval, name) is not None, name


def test_import_does_not_load_heavy_libraries() -> None:
    code = "import sys, physeval; print(sorted(m for m in ('sympy', 'pint', 'av', 'openai') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_run_reaches_its_first_request_without_numpy() -> None:
    """A run imports the command line, the bank task, the run's rooms and the request path before its first
    request; numpy (about 0.1 s of CPU, a third of the start-up) is needed only by the summary's statistics."""
    code = ("import sys, physeval.cli, physeval.tasks.bank, physeval.flow.execute, physeval.models.openai_compat, "
            "physeval.metrics; print(sorted(m for m in ('numpy', 'sympy', 'openai') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_readme_example_grades_a_unit_conversion() -> None:
    g = physeval.grade_numeric(r"... so $v = \boxed{30000\ \mathrm{m/s}}$", reference="30",
                               question="... (Results should be expressed with units of $ km/s $ and rounded to 2 significant figures)")
    assert g.correct and g.predicted == 30.0 and g.outcome == "correct"


def test_the_lazy_export_table_and_the_type_checking_block_list_the_same_names() -> None:
    import ast
    from pathlib import Path

    tree = ast.parse(Path(physeval.__file__).read_text(encoding="utf-8"))
    typed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom):
                    for alias in statement.names:
                        typed[alias.asname or alias.name] = str(statement.module)
    assert typed == physeval._EXPORTS

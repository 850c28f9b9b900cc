"""The PHYBench pipeline's own EED tests, run against physeval's compat mode through an adapter.

The pipeline (phybench-official/phybench-pipeline) tests its ``EED(answer_latex, test_latex,
eed_settings)`` in ``tests/evaluation/test_expression_distance.py``, ``test_regression_issues.py``
and ``test_imaginary_unit.py``. Their code is not copied here: this test reads those files from
a checkout named by ``PHYBENCH_PIPELINE`` (the repository's root) and runs every ``test_*``
function in them with the modules they import, ``phybench.evaluation.expression_distance`` and
``phybench.settings``, replaced by :mod:`physeval.grading.eed_official`'s adapter (the official
signature and return conventions over ``eed(..., compat="phybench")``). Without the checkout it
skips; nothing is fetched.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

FILES = ("test_expression_distance.py", "test_regression_issues.py", "test_imaginary_unit.py")
# Two of the pipeline's regression pairs need the fully simplified tree of a reference that is
# over physeval's operation budget (the pipeline simplifies it for up to 300 s); physeval scores
# the tree of its form simplified by parts there, so their tree sizes differ. Known, strict: a fix shows as XPASS.
OVER_BUDGET = {"test_issue_332_regression", "test_issue_713_regression"}


def _checkout() -> Path | None:
    root = os.environ.get("PHYBENCH_PIPELINE")
    if not root:
        return None
    folder = Path(root) / "tests" / "evaluation"
    return folder if all((folder / name).is_file() for name in FILES) else None


def _cases() -> list[tuple[str, str]]:
    import ast

    folder = _checkout()
    if folder is None:
        return []
    return [(name, node.name) for name in FILES
            for node in ast.parse((folder / name).read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")]


@contextmanager
def _adapter_modules() -> Iterator[None]:
    """``phybench.evaluation.expression_distance`` and ``phybench.settings`` as the adapter, for the
    duration of one test."""
    from physeval.grading import eed_official as phybench_eed

    names = ("phybench", "phybench.evaluation", "phybench.evaluation.expression_distance", "phybench.settings")
    saved = {name: sys.modules.get(name) for name in names}
    modules = {name: types.ModuleType(name) for name in names}
    modules["phybench.evaluation.expression_distance"].EED = phybench_eed.EED  # type: ignore[attr-defined]
    modules["phybench.settings"].EvaluationEEDSettings = phybench_eed.EvaluationEEDSettings  # type: ignore[attr-defined]
    sys.modules.update(modules)
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


CASES = _cases()


@pytest.mark.skipif(not CASES, reason="no PHYBench pipeline checkout (set PHYBENCH_PIPELINE to its root)")
@pytest.mark.parametrize(("file", "function"), CASES or [("", "")], ids=[f"{f}::{t}" for f, t in CASES] or ["none"])
def test_the_pipelines_eed_test_passes_on_the_compat_mode(file: str, function: str) -> None:
    if function in OVER_BUDGET:
        pytest.xfail("the reference is over the operation budget: its form simplified by parts is scored")
    folder = _checkout()
    assert folder is not None
    source = (folder / file).read_text(encoding="utf-8")
    with _adapter_modules():
        namespace: dict[str, object] = {"__name__": f"phybench_official_{file[:-3]}"}
        exec(compile(source, str(folder / file), "exec"), namespace)  # noqa: S102 - the pipeline's own test file
        test = namespace[function]
        assert callable(test)
        test()

"""CLI-ready entry points: ``physeval vary`` and ``physeval audit`` return plain dicts to print or write.

Why: the CLI (owned elsewhere) should only parse arguments and print; everything that decides
what a variant or a finding is lives here, testable without a terminal.
"""

from __future__ import annotations

from physeval.errors import DataError, DataNotFoundError

import json
from pathlib import Path
from typing import Any, Mapping

import yaml

from ..problems import Problem
from .audit import audit_problems, read_abench_csv
from .bank import bank_problems, load_bank
from .engine import vary

__all__ = ["vary_command", "audit_command", "load_solutions"]


def vary_command(template_path_or_id: str, n: int = 4, seed: int = 0) -> list[dict[str, Any]]:
    """``n`` variants of a template (YAML path or bank id) as JSON-ready dicts.

    Each dict has template_id, index, kind, question, answer, value, params and meta.
    Raises :class:`physeval.errors.UserError` for an unknown template, ``TemplateError`` for an
    invalid one and ``SamplingError`` when the variants cannot be drawn.
    """
    return [v.to_dict() for v in vary(template_path_or_id, n, seed)]


def load_solutions(source: str | Path | Mapping[str, Any] | None) -> dict[str, Any]:
    """Solutions keyed by problem id, from a mapping or a JSON/YAML file (``{id: formula | [steps]}``)."""
    if source is None:
        return {}
    if isinstance(source, Mapping):
        return {str(k): v for k, v in source.items()}
    text = Path(source).read_text(encoding="utf-8")
    data = json.loads(text) if str(source).endswith(".json") else yaml.safe_load(text)
    if not isinstance(data, dict):
        raise DataError(f"{source}: expected a mapping from problem id to solution")
    return {str(k): v for k, v in data.items()}


def _read_jsonl(path: Path) -> list[Problem]:
    problems = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                problems.append(Problem(id=str(row["id"]), question=row["question"], answer=str(row["answer"]),
                                        variant=str(row.get("variant", "0")), meta=row.get("meta", {})))
    return problems


def audit_command(
    task_or_path: str,
    *,
    data: str | Path | None = None,
    solutions: str | Path | Mapping[str, Any] | None = None,
    rel_tol: float = 0.01,
    min_severity: str = "low",
) -> list[dict[str, Any]]:
    """Audit a task or a file and return the findings as dicts (most severe first).

    ``task_or_path``: a task name resolved through the task registry and loaded by the task's own
    (validated) loader, e.g. ``abench-b`` (Phy_B families; ``data`` = folder or CSV) or
    ``abench-a``; ``bank-numeric`` (recomputes every bank variant from its template: a
    self-check); or a path to an ABench-style CSV or a JSONL of ``{id, question, answer, variant}``.
    ``solutions``: a mapping or JSON/YAML file ``{problem id: formula}`` (see
    :func:`physeval.variation.template_from_plain`). ``min_severity`` drops weaker findings.
    """
    sols: dict[str, Any] = load_solutions(solutions)
    if task_or_path == "bank-numeric":
        problems = bank_problems("numeric", variants=4, seed=0)
        sols = {**{t.id: t for t in load_bank("numeric")}, **sols}
    elif Path(task_or_path).is_file():
        path = Path(task_or_path)
        problems = _read_jsonl(path) if path.suffix == ".jsonl" else read_abench_csv(path)
    else:
        from physeval.tasks.registry import get_task, task_names  # the task's own loader, validated

        if task_or_path not in task_names():
            raise DataNotFoundError(f"unknown audit target {task_or_path!r}: not a task ({', '.join(task_names())}) "
                                    "nor a file")
        task = get_task(task_or_path, **({"data": str(data)} if data is not None else {}))
        if task.data is None and task_or_path.startswith("abench"):
            raise DataNotFoundError(f"audit of {task_or_path} needs --data PATH (the CSV or the folder holding it)")
        problems = task.load()
    order = {"high": 0, "medium": 1, "low": 2}
    limit = order.get(min_severity, 2)
    return [f.to_dict() for f in audit_problems(problems, sols, rel_tol=rel_tol) if order.get(f.severity, 2) <= limit]

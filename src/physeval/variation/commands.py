"""CLI-ready entry points: ``physeval vary`` and ``physeval audit`` return plain dicts to print or write.

Why: the CLI (owned elsewhere) should only parse arguments and print; everything that decides
what a variant or a finding is lives here, testable without a terminal.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from physeval.answers.written import parse_written_number
from physeval.errors import DataError, DataNotFoundError

from ..problems import Problem
from .audit import SEVERITY_ORDER, Finding, audit_problems, read_abench_csv
from .bank import bank_problems, load_bank, vary

__all__ = ["vary_command", "audit_command", "load_solutions"]


def vary_command(template_path_or_id: str, n: int = 4, seed: int = 0,
                 data: str | Path | None = None) -> list[dict[str, Any]]:
    """``n`` variants of a template (YAML path or bank id) as JSON-ready dicts.

    Each dict has template_id, index, kind, question, answer, value, params and meta.
    ``abench-b:MID`` (with ``data``, the Phy_B CSV or its folder) shows one ABench Phy_B problem: its
    four released variants (index ``0``..``3``), then ``n`` fresh ones (``f1``..) drawn from ``seed``
    as ``physeval run abench-b --fresh n --variant-seed seed`` asks them; a static problem shows its
    released variants and the reason in ``meta["static_reason"]``.
    Raises :class:`physeval.errors.UserError` for an unknown template or mid, ``TemplateError`` for an
    invalid one and ``SamplingError`` when the variants cannot be drawn.
    """
    if template_path_or_id.startswith("abench-b:"):
        return _vary_abench_b(template_path_or_id.split(":", 1)[1].strip(), n, seed, data)
    return [v.to_dict() for v in vary(template_path_or_id, n, seed)]


def _vary_abench_b(mid: str, n: int, seed: int, data: str | Path | None) -> list[dict[str, Any]]:
    from physeval.tasks.abench_data import load_abench

    from .abench_phy_b import load_phy_b_solutions
    from .abench_phy_b.fresh import fresh_variants

    if data is None:
        raise DataNotFoundError("vary abench-b:MID needs --data PATH (Phy_B_dynamic_100.csv or its folder)")
    members = [p for p in load_abench(data, "b") if p.id == mid]
    if not members:
        raise DataNotFoundError(f"abench-b has no problem mid {mid!r}")
    entry = load_phy_b_solutions().get(mid)
    rows: list[dict[str, Any]] = []
    for p in sorted(members, key=lambda q: q.variant):
        meta = dict(p.meta)
        if entry is not None and p.variant in entry.dataset_errors:
            meta["dataset_error"] = dataclasses.asdict(entry.dataset_errors[p.variant])
        rows.append({"template_id": f"abench_b_{mid}", "index": p.variant, "kind": "released",
                     "question": p.question, "answer": p.answer, "value": None, "params": {}, "meta": meta})
    if entry is None or not entry.varied:
        reason = entry.static_reason if entry else "no solution entry"
        return [{**r, "meta": {**r["meta"], "fresh": "static", "static_reason": reason}} for r in rows]
    for p in fresh_variants(entry, members, n, seed):
        meta = {k: v for k, v in p.meta.items() if k not in ("params", "value")}
        rows.append({"template_id": f"abench_b_{mid}", "index": p.variant, "kind": "fresh", "question": p.question,
                     "answer": p.answer, "value": p.meta["value"], "params": p.meta["params"], "meta": meta})
    return rows


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
    ``solutions``: a mapping or JSON/YAML file ``{problem id: formula}`` or ``{problem id: {solution,
    constants, answer_unit}}`` (see :func:`physeval.variation.template_from_plain`). For ``abench-b``
    physeval's own Phy_B solutions are used first (the exact audit: every released answer that disagrees
    with its recomputation is a high ``answer_mismatch`` with both values); problems without a solution
    get the heuristic family checks. ``min_severity`` drops weaker findings (``high``, ``medium``,
    ``figures``: released answers within 1 % but wrong at the asked figures, ``low``).
    """
    sols: dict[str, Any] = load_solutions(solutions)
    documented: list[Finding] = []
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
        if task_or_path == "abench-b":  # the exact audit: physeval's Phy_B solutions, then the caller's
            from .abench_phy_b import load_phy_b_solutions

            entries = load_phy_b_solutions()
            sols = {**{m: e for m, e in entries.items() if e.solution}, **sols}
            documented = _documented_errors(problems, {m: e for m, e in entries.items() if m not in sols})
    order = SEVERITY_ORDER
    limit = order.get(min_severity, order["low"])
    findings = sorted([*audit_problems(problems, sols, rel_tol=rel_tol), *documented],
                      key=lambda f: (order.get(f.severity, 9), int(f.problem_id) if f.problem_id.isdigit() else 0))
    return [f.to_dict() for f in findings if order.get(f.severity, order["low"]) <= limit]


def _documented_errors(problems: list[Problem], entries: Mapping[str, Any]) -> list[Finding]:
    """High findings for the wrong released answers that Phy_B entries without a formula (static ones, and
    those varied by a generator of whole nuclei) record, and medium ones for the texts they record as ill-posed."""
    out = []
    for p in problems:
        entry = entries.get(p.id)
        ill_posed = entry.ill_posed.get(p.variant) if entry is not None else None
        if ill_posed:
            out.append(Finding(p.id, p.variant, "ill_posed", "medium",
                               f"stated answer {p.answer.strip()}, but the question is ill-posed: {ill_posed}",
                               {"stated": p.answer.strip(), "documented": ill_posed}))
        error = entry.dataset_errors.get(p.variant) if entry is not None else None
        if error is not None and parse_written_number(p.answer) == parse_written_number(error.stated):
            out.append(Finding(p.id, p.variant, "documented_error", "high",
                               f"stated answer {p.answer.strip()} but {error.recomputed} is right (worked by hand, "
                               f"no formula to vary): {error.reason}",
                               {"stated": error.stated, "recomputed": error.recomputed, "source": "solution entry"}))
    return out

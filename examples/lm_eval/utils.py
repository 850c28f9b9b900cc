"""physeval's graders inside an lm-evaluation-harness task (see physeval_bank_numeric.yaml).

Two functions:

- :func:`export_docs` writes a physeval task's problems as lm-eval documents, one JSON line per
  problem variant: ``task``, ``options`` (the physeval task options), ``id``, ``variant``,
  ``question``, ``prompt`` (the task's own user prompt), ``system`` (its system message, if any), ``answer``
  and ``meta``. Run ``python utils.py export TASK OUT.jsonl [key=value ...]``.
- :func:`process_results` is lm-eval's hook: it rebuilds the document's problem and grades the
  generation with that physeval task's grader (``<think>`` spans removed first, as physeval's
  model layer does), returning ``{"acc": 1.0 or 0.0}``.

lm-eval averages ``acc`` over documents. For a task with variant families that is the mean over
variants, not physeval's ``accuracy`` (mean over problems) nor its static/dynamic metrics: grade
the generations lm-eval logged (``--log_samples``) with ``physeval score`` for those.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

from physeval.models.base import split_reasoning
from physeval.problems import Problem
from physeval.tasks.base import Task
from physeval.tasks.registry import get_task

_TASKS: dict[str, Task] = {}
_LOCK = threading.Lock()


def _task(name: str, options: dict[str, Any]) -> Task:
    """One physeval task per (name, options), built on first use (lm-eval calls per document)."""
    key = json.dumps([name, options], sort_keys=True)
    with _LOCK:
        if key not in _TASKS:
            _TASKS[key] = get_task(name, **options)
        return _TASKS[key]


def export_docs(task_name: str, out: str | Path, **options: Any) -> int:
    """Write ``task_name``'s problems to ``out`` as lm-eval documents; returns how many."""
    task = _task(task_name, options)
    lines = []
    for problem in task.load():
        messages = task.prompt(problem)
        system = next((m["content"] for m in messages if m.get("role") == "system"), None)
        lines.append(json.dumps({
            "task": task_name, "options": options, "id": problem.id, "variant": problem.variant,
            "question": problem.question, "prompt": messages[-1]["content"], "system": system,
            "answer": problem.answer, "meta": problem.meta,
        }, ensure_ascii=False))
    Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def process_results(doc: dict[str, Any], results: list[str]) -> dict[str, float]:
    """lm-eval's ``process_results``: 1.0 when physeval's grader accepts the first generation."""
    task = _task(doc["task"], dict(doc.get("options") or {}))
    problem = Problem(id=str(doc["id"]), question=doc.get("question", ""), answer=doc["answer"],
                      variant=str(doc.get("variant", "0")), meta=dict(doc.get("meta") or {}))
    response, _reasoning = split_reasoning(results[0] if results else "")
    return {"acc": float(task.grade(problem, response).correct)}


if __name__ == "__main__":
    if len(sys.argv) < 4 or sys.argv[1] != "export":
        sys.exit("usage: python utils.py export TASK OUT.jsonl [key=value ...]")
    extra = dict(arg.split("=", 1) for arg in sys.argv[4:])
    print(f"wrote {export_docs(sys.argv[2], sys.argv[3], **extra)} documents to {sys.argv[3]}")

"""The hooks of physeval tasks inside lm-evaluation-harness (the YAMLs of :mod:`.lm_eval_export`).

- :func:`process_results` grades each generation of a document (all of them under lm-eval's
  ``repeats``) with the physeval task's own grader, ``<think>`` spans removed first as physeval's
  model layer does. It returns, under every metric name, the document's *item*: its problem id,
  variant and per-sample verdicts (``correct``, ``score``: EED / 100 for symbolic tasks,
  ``outcome``, ``answer_key``) -- the inputs physeval's reductions need, not a per-document number,
  because dynamic accuracy and delta are functions of whole variant families.
- One aggregation per metric name (``accuracy``, ``eed_mean``, ``static_accuracy``,
  ``dynamic_accuracy``, ``delta``, ``pass@K``...), reached as ``physeval_hooks.<name>``: it rebuilds
  physeval's :class:`~physeval.metrics.SampleOutcome` records from the items and returns the task's
  own ``metrics()[name]`` -- the number ``physeval score`` prints for the same generations.
- :class:`TemplateFreeSampler`: the few-shot sampler; it shows a question the worked examples
  exported with it (physeval's rule: never from its own template), the first N for ``--num_fewshot N``.

This module imports lm-eval (for the sampler's base class); the export does not need it.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Sequence
from typing import Any

from physeval.errors import missing_extra
from physeval.graded import SampleRecord, graded_outcomes
from physeval.integrations.lm_eval_export import metric_names
from physeval.metrics import Plan, SampleOutcome, with_plan
from physeval.models.base import split_reasoning
from physeval.problems import Outcome, Problem
from physeval.tasks.base import Task
from physeval.tasks.registry import get_task

try:
    from lm_eval.api.samplers import ContextSampler
except ImportError as exc:  # pragma: no cover - the message is the point
    raise missing_extra("physeval tasks in lm-eval", "lm-eval", "lm_eval") from exc

__all__ = ["TemplateFreeSampler", "aggregation", "process_results"]

_TASKS: dict[str, tuple[Task, dict[tuple[str, str], Problem], tuple[str, ...]]] = {}
_LOCK = threading.Lock()


def _task(name: str, options_text: str) -> tuple[Task, dict[tuple[str, str], Problem], tuple[str, ...]]:
    """One physeval task, its problems and its metric names per (name, options), built on first use."""
    key = json.dumps([name, options_text])
    with _LOCK:
        if key not in _TASKS:
            task = get_task(name, **json.loads(options_text or "{}"))
            _TASKS[key] = (task, {p.key: p for p in task.load()}, metric_names(task))
        return _TASKS[key]


def _options_text(doc: dict[str, Any]) -> str:
    options = doc.get("options") or "{}"
    return options if isinstance(options, str) else json.dumps(options, sort_keys=True)


def process_results(doc: dict[str, Any], results: list[Any]) -> dict[str, dict[str, Any]]:
    """lm-eval's ``process_results``: the document's graded item under every metric name."""
    task, problems, names = _task(doc["task"], _options_text(doc))
    problem = problems[(str(doc["id"]), str(doc.get("variant", "0")))]
    generations = [r for result in results for r in (result if isinstance(result, list) else [result])]
    samples = []
    for text in generations:
        response, _reasoning = split_reasoning(str(text or ""))
        grade = task.grade(problem, response)
        samples.append({"correct": bool(grade.correct), "score": grade.score, "outcome": str(grade.outcome),
                        "answer_key": grade.answer_key})
    item = {"task": doc["task"], "options": _options_text(doc), "id": problem.id, "variant": problem.variant,
            "samples": samples}
    return {name: item for name in names}


def _outcomes(items: Sequence[dict[str, Any]]) -> tuple[Task, list[SampleOutcome]]:
    """The graded generations of lm-eval's items as outcomes (:func:`~physeval.graded.graded_outcomes`:
    a generation whose grade's outcome is ``error`` measured nothing and is left out)."""
    first = items[0]
    task, problems, _names = _task(first["task"], first["options"])
    records = []
    for item in items:
        meta = dict(problems[(item["id"], item["variant"])].meta)
        for index, s in enumerate(item["samples"]):
            failed = s.get("outcome") == Outcome.ERROR
            records.append(SampleRecord(item["id"], item["variant"], index, "error" if failed else "answered",
                                        None if failed else bool(s["correct"]), s.get("score"),
                                        {"answer_key": s.get("answer_key")}, meta))
    return task, graded_outcomes(records)


def aggregation(name: str) -> Callable[[Sequence[dict[str, Any]]], float]:
    """lm-eval's aggregation for physeval metric ``name``: the task's own ``metrics()[name]``
    over the items (NaN when the metric has no value, e.g. no document was graded)."""
    def aggregate(items: Sequence[dict[str, Any]]) -> float:
        if not items:
            return math.nan
        task, outcomes = _outcomes(items)
        _task_obj, problems, _names = _task(items[0]["task"], items[0]["options"])
        plan = Plan.named_by(outcomes, problems.keys())  # dynamic metrics on complete problems, as physeval score
        found = task.measure(with_plan(outcomes, plan)).get(name)
        return float(found.value) if found is not None and found.value is not None else math.nan

    aggregate.__name__ = aggregate.__qualname__ = name
    return aggregate


def __getattr__(name: str) -> Any:
    """``physeval_hooks.<metric>`` (what the YAML's ``aggregation: !function`` names) for any metric."""
    if name.startswith("__"):
        raise AttributeError(name)
    return aggregation(name)


class TemplateFreeSampler(ContextSampler):
    """Few-shot examples from the question's own ``shots`` (exported by physeval's rule: never its
    template); ``--num_fewshot N`` takes the first N, the same for every sample of the question."""

    def sample(self, n: int, eval_doc: dict[str, Any] | None = None, df: Any = None,
               **kwargs: Any) -> list[dict[str, Any]]:
        """The question's first ``n`` exported shots (``eval_doc`` is the question)."""
        if n <= 0:
            return []
        shots = list((eval_doc or {}).get("shots") or [])
        if len(shots) < n:
            raise ValueError(f"--num_fewshot {n}: physeval exported {len(shots)} worked examples per question "
                             "(re-export with a larger --max-fewshot)")
        return shots[:n]

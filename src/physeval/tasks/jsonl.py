"""``jsonl``: a user's own numeric or symbolic dataset, one ``{id, question, answer, ...}`` a line.

Why: the first thing a harness user does is point it at their own file. Each line holds ``id``,
``question`` and ``answer``, and optionally ``variant`` (dynamic families: ``dynamic`` metrics
follow), ``unit`` (numeric: the required unit the answer is graded in, added to the question as an
ABench-style instruction when the question states none), ``tags`` (a string or a list; metrics are broken down by the
first) and ``meta`` (kept on the problem). ``-T kind=symbolic`` grades LaTeX expressions with
equivalence and EED instead of numbers. A malformed line is an error naming the line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Literal

from physeval.answers.units import required_format
from physeval.errors import DataError, DataNotFoundError
from physeval.grading.numeric import grade_numeric
from physeval.grading.symbolic import grade_symbolic
from physeval.json_lines import JsonLine, read_json_lines
from physeval.metrics import MetricSet, SampleOutcome, mean_score_metric
from physeval.problems import Grade, Problem
from physeval.tasks.base import Task, TaskError
from physeval.tasks.options import TaskOptions, option
from physeval.tasks.registry import register_task
from physeval.tasks.tracks.numeric import ABENCH_PROMPT

__all__ = ["JsonlTask", "JsonlOptions"]

_SYMBOLIC_PROMPT = ("Solve the following physics problem step by step. Put your final answer, a single LaTeX "
                    "expression, in \\boxed{}.\n\nQuestion: {question}")


@dataclass(frozen=True)
class JsonlOptions(TaskOptions):
    """Options of the generic JSONL task."""

    kind: Literal["numeric", "symbolic"] = option("numeric", "jsonl: grade numbers (numeric) or LaTeX (symbolic)")
    rel_tol: float = option(0.01, "numeric: relative tolerance (default 0.01)")
    strict_format: bool = option(False, "numeric: significant figures and scientific form must also be respected")
    box: Literal["first", "last"] | None = option(None, "which \\boxed{} is the final answer "
                                                        "(default: last for numeric, first for symbolic)")


@register_task
class JsonlTask(Task):
    """A user's JSONL dataset, graded by the numeric or the symbolic track."""

    Options: ClassVar[type[TaskOptions]] = JsonlOptions
    opts: JsonlOptions
    name = "jsonl"
    description = "your own dataset: --data FILE.jsonl of {id, question, answer, [unit], [tags]}; -T kind=symbolic"
    track = "numeric"
    breakdowns: ClassVar[tuple[str, ...]] = ("tag",)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        if self.prompt_template == self.default_prompt:
            self.prompt_template = _SYMBOLIC_PROMPT if self.opts.kind == "symbolic" else ABENCH_PROMPT

    def load(self) -> list[Problem]:
        """Every line of ``--data`` as a problem (``DataError`` naming the first bad line)."""
        if self.data is None:
            raise TaskError("jsonl needs --data FILE.jsonl")
        if not self.data.is_file():
            raise DataNotFoundError(f"no JSONL file at {self.data}")
        problems = [self._problem(line) for line in read_json_lines(self.data)]
        self.dynamic = any(p.variant != "0" for p in problems)
        return problems

    def _problem(self, line: JsonLine) -> Problem:
        where = f"{self.data} line {line.number}"
        if line.error:
            raise DataError(f"{where}: {line.error}")
        record = line.value
        if not isinstance(record, dict):
            raise DataError(f"{where}: expected a JSON object")
        missing = [k for k in ("id", "question", "answer") if record.get(k) in (None, "")]
        if missing:
            raise DataError(f"{where}: missing {', '.join(missing)}")
        question = str(record["question"])
        meta: dict[str, Any] = dict(record.get("meta") or {})
        unit = record.get("unit")
        if unit and self.opts.kind == "numeric":
            meta["unit"] = str(unit)  # the grader's required unit, whatever the question says
            if required_format(question).unit is None:  # the model is told the unit it is graded in
                question = f"{question} (Results should be expressed with units of $ \\mathrm{{{unit}}} $)"
        tags = record.get("tags")
        if tags:
            meta["tag"] = str(tags[0] if isinstance(tags, list) else tags)
            meta["tags"] = tags
        return Problem(id=str(record["id"]), question=question, answer=str(record["answer"]),
                       variant=str(record.get("variant", "0")), meta=meta)

    def grade(self, problem: Problem, response: str) -> Grade:
        """Numeric or symbolic grading, as ``kind`` says, with answer classes for maj@K."""
        if self.opts.kind == "symbolic":
            symbolic = grade_symbolic(response, problem.answer, box=self.opts.box or "first",
                                      dimensions=problem.meta.get("dimensions"))
            key = "=reference" if symbolic.equivalent else (
                "".join(symbolic.extracted.split()) if symbolic.extracted else None)
            return replace(symbolic, answer_key=key)
        numeric = grade_numeric(response, problem.answer, problem.question, rel_tol=self.opts.rel_tol,
                                strict_format=self.opts.strict_format, box=self.opts.box or "last",
                                unit=problem.meta.get("unit"))
        key = f"{numeric.predicted:.3g}" if numeric.predicted is not None else None
        return replace(numeric, answer_key=key)

    def metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """The base metrics; ``eed_mean`` too for symbolic data."""
        base = super().metrics(outcomes)
        return base | mean_score_metric(outcomes, "eed_mean", scale=100.0) if self.opts.kind == "symbolic" else base

    def group_metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """Per group: the base group metrics, ``eed_mean`` too for symbolic data."""
        base = super().group_metrics(outcomes)
        return base | mean_score_metric(outcomes, "eed_mean", scale=100.0) if self.opts.kind == "symbolic" else base

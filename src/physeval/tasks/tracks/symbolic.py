"""The symbolic track: answers that are one LaTeX expression, graded by equivalence and EED.

Equivalence is a numeric probe, then budgeted simplification (never wall-clock); EED is the
published expression-tree edit distance. Grading runs in the one shared worker pool of
:mod:`physeval.grading.pool` (SymPy holds the GIL; workers start once per run and keep their
caches), with results identical to serial grading. Benchmarks (``phybench``, ``bank-symbolic``)
subclass :class:`SymbolicTask` and keep only their loaders.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from physeval.grading import pool as grading_pool
from physeval.grading.symbolic import SymbolicGrade, grade_symbolic
from physeval.metrics import MetricSet, SampleOutcome, mean_score_metric
from physeval.problems import Problem
from physeval.tasks.base import GradeContext, Task
from physeval.tasks.options import TaskOptions, option

__all__ = ["SymbolicTask", "SymbolicOptions", "PHYBENCH_PROMPT"]

PHYBENCH_PROMPT = (
    "Please read the following question and provide a step-by-step solution. Put your final answer, "
    "which must be a readable latex formula, in a structure \\boxed{}.\n\nQuestion: {question}\n\nAnswer:"
)


def _grade_job(response: str, reference: str, box: str, compat: str | None,
               dimensions: dict[str, str] | None, eed_budget: str = "default") -> SymbolicGrade:
    from physeval.grading.eed import DEFAULT_BUDGET, UNBOUNDED

    budget = UNBOUNDED if eed_budget == "unbounded" else DEFAULT_BUDGET
    return grade_symbolic(response, reference, box=box, compat=compat, dimensions=dimensions, budget=budget)


@dataclass(frozen=True)
class SymbolicOptions(TaskOptions):
    """Options of the symbolic track."""

    box: Literal["first", "last"] = option("first", "which \\boxed{} is the final answer (PHYBench: first)")
    compat: Literal["phybench"] | None = option(None, "reproduce the PHYBench pipeline's conversions")
    eed_budget: Literal["default", "unbounded"] = option(
        "default", "symbolic: EED trees within the deterministic budget (default) or always simplified "
                   "(unbounded: the published definition, possibly unbounded in time)")
    grading_processes: int | None = option(None, "symbolic: grading worker processes (0: in this process)")
    process_judge: str | None = option(None, "symbolic: judge model scoring the derivation against the reference "
                                             "solution (physeval.probes.process_judge)")
    process_judge_base_url: str | None = option(None, "symbolic: process judge server URL")
    process_judge_prompt: str | None = option(None, "symbolic: process judge prompt file (default: the shipped rubric)")
    answer_weight: float = option(0.5, "symbolic: weight of the answer in the combined score (default 0.5)")
    equivalence_judge: str | None = option(None, "symbolic: judge model asked only when equivalence is undecided "
                                                 "(off by default)")
    equivalence_judge_base_url: str | None = option(None, "symbolic: equivalence judge server URL")

    def __post_init__(self) -> None:
        if not 0.0 <= self.answer_weight <= 1.0:
            from physeval.errors import OptionError

            raise OptionError(f"answer_weight must be between 0 and 1, not {self.answer_weight}")


class SymbolicTask(Task):
    """A task whose answers are one LaTeX expression.

    Options: ``box`` (``first``, as published), ``compat`` (None or ``phybench``),
    ``grading_processes`` (0 grades in this process; default: a pool of one per core);
    ``process_judge`` (score the derivation against ``meta["solution"]``, with ``answer_weight``)
    and ``equivalence_judge`` (only for undecided answers): see :mod:`physeval.probes`.
    """

    Options: ClassVar[type[TaskOptions]] = SymbolicOptions
    opts: SymbolicOptions
    track = "symbolic"
    breakdowns: ClassVar[tuple[str, ...]] = ("tag",)
    default_prompt = PHYBENCH_PROMPT

    def grade(self, problem: Problem, response: str) -> SymbolicGrade:
        """Equivalence and EED against the reference, with a dimension check when declared."""
        grade = _grade_job(response, problem.answer, self.opts.box, self.opts.compat, problem.meta.get("dimensions"),
                           self.opts.eed_budget)
        return _with_key(grade)

    async def agrade(self, problem: Problem, response: str, context: GradeContext) -> SymbolicGrade:
        """Grade in the shared worker pool (:mod:`physeval.grading.pool`) so the event loop keeps moving."""
        if self.opts.grading_processes == 0:
            grade = self.grade(problem, response)
        else:
            future = grading_pool.submit(_grade_job, response, problem.answer, self.opts.box, self.opts.compat,
                                         problem.meta.get("dimensions"), self.opts.eed_budget)
            grade = _with_key(await asyncio.wrap_future(future))
        if self.opts.process_judge or self.opts.equivalence_judge:  # judges: physeval.probes.track
            from physeval.probes.track import judge_symbolic

            grade = await judge_symbolic(self, problem, response, grade)
        return grade

    async def preflight(self) -> None:
        """Check the judges (``process_judge``, ``equivalence_judge``) before the first sample."""
        from physeval.probes.track import preflight_judges

        await preflight_judges(self, self.judge_specs())

    def judge_specs(self) -> list[tuple[str, str | None]]:
        """``(model spec, base URL)`` of every judge this task will ask."""
        specs = [(self.opts.process_judge, self.opts.process_judge_base_url),
                 (self.opts.equivalence_judge, self.opts.equivalence_judge_base_url)]
        return [(spec, url) for spec, url in specs if spec]

    def metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """accuracy, pass@K, maj@K and eed_mean (0-100); per tag; dynamic metrics for variants."""
        from physeval.probes.process_judge import process_metrics

        metrics = super().metrics(outcomes) | mean_score_metric(outcomes, "eed_mean", scale=100.0)
        return metrics | process_metrics(outcomes)  # process metrics: empty unless a process judge was asked

    def group_metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """Per group: accuracy, avg@K, pass@K and eed_mean."""
        return super().group_metrics(outcomes) | mean_score_metric(outcomes, "eed_mean", scale=100.0)


def _with_key(grade: SymbolicGrade) -> SymbolicGrade:
    """maj@K classes: every equivalent answer is one class; other answers by their text."""
    if grade.equivalent:
        key = "=reference"
    elif grade.extracted is not None:
        key = "".join(grade.extracted.split())
    else:
        key = None
    return dataclasses.replace(grade, answer_key=key)

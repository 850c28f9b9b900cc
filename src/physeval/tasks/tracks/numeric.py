"""The numeric track: answers that are one quantity, graded by :func:`physeval.grading.numeric.grade_numeric`.

ABench-style tasks (``abench-a``, ``abench-b``, ``bank-numeric``) subclass :class:`NumericTask`
and keep only their loaders; the prompt, grading options and answer classes for maj@K live here.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import ClassVar, Literal

from physeval.grading.numeric import NumericGrade, grade_numeric
from physeval.problems import Problem
from physeval.tasks.base import Task
from physeval.tasks.options import TaskOptions, option

__all__ = ["NumericTask", "NumericOptions", "ABENCH_PROMPT"]

ABENCH_PROMPT = (
    "You are a physics expert. Please read the following question and provide a step-by-step solution.\n"
    "Put your final answer, which must be a readable LaTeX formula, in a \\boxed{} environment.\n"
    "Question: {question}"
)


@dataclass(frozen=True)
class NumericOptions(TaskOptions):
    """Options of the numeric track."""

    rel_tol: float = option(0.01, "numeric: relative tolerance (default 0.01)")
    compat: Literal["abench"] | None = option(None, "reproduce the official ABench evaluator's verdicts")
    strict_format: bool = option(False, "numeric: significant figures and scientific form must also be respected")
    box: Literal["first", "last"] = option("last", "which \\boxed{} is the final answer")


class NumericTask(Task):
    """A task whose answers are one quantity: graded numerically; the base metrics (dynamic ones for variants).

    Options: ``rel_tol`` (0.01), ``compat`` (None or ``abench``), ``strict_format`` (False),
    ``box`` (``last``).
    """

    Options = NumericOptions
    opts: NumericOptions
    track = "numeric"
    breakdowns: ClassVar[tuple[str, ...]] = ("language",)
    default_prompt = ABENCH_PROMPT

    @property
    def grades_on_loop(self) -> bool:
        """True without compat mode: on the loop a grade saves the hop to a worker thread (about 70
        microseconds of CPU, as much as the typical numeric grade itself). A rare answer only SymPy
        reads holds the loop while it is read (its size is bounded, no integral or sum is evaluated);
        the requests in flight wait and none is lost. Compat mode (SymPy on every answer) keeps the
        thread."""
        return self.opts.compat is None

    def grade(self, problem: Problem, response: str) -> NumericGrade:
        """Grade with the physics-aware numeric grader and label the answer for maj@K."""
        grade = grade_numeric(
            response, problem.answer, problem.question,
            rel_tol=self.opts.rel_tol, compat=self.opts.compat,
            strict_format=self.opts.strict_format, box=self.opts.box,
        )
        key = f"{grade.predicted:.3g}" if grade.predicted is not None else None
        return dataclasses.replace(grade, answer_key=key)

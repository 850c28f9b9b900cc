"""ABench-Physics tasks: ``abench-a`` (400 static problems) and ``abench-b`` (100 x 4 variants).

Data: github.com/inclusionAI/ABench ``Physics/data`` (Apache-2.0); pass ``--data`` with the
CSV file or its folder. Graded by :func:`physeval.grading.numeric.grade_numeric`; ``--compat
abench`` reproduces the official evaluator's verdicts.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Literal

from physeval.grading.numeric import NumericGrade, grade_numeric
from physeval.problems import Problem
from physeval.tasks.abench_data import load_abench
from physeval.tasks.base import Task, TaskError
from physeval.tasks.options import TaskOptions, option
from physeval.tasks.registry import register_task

__all__ = ["NumericTask", "NumericOptions", "AbenchA", "AbenchB", "ABENCH_PROMPT"]

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

    def grade(self, problem: Problem, response: str) -> NumericGrade:
        """Grade with the physics-aware numeric grader and label the answer for maj@K."""
        grade = grade_numeric(
            response, problem.answer, problem.question,
            rel_tol=self.opts.rel_tol, compat=self.opts.compat,
            strict_format=self.opts.strict_format, box=self.opts.box,
        )
        key = f"{grade.predicted:.3g}" if grade.predicted is not None else None
        return dataclasses.replace(grade, answer_key=key)


def _data_path(task: Task, which: str) -> Path:
    if task.data is None:
        expected = "Phy_A_fixed_400.csv" if which == "a" else "Phy_B_dynamic_100.csv"
        raise TaskError(f"{task.name} needs --data: the file {expected} or the folder holding it "
                        "(from github.com/inclusionAI/ABench, Physics/data)")
    return task.data


@register_task
class AbenchA(NumericTask):
    """ABench-Physics Phy_A: 400 static problems."""

    name = "abench-a"
    description = "ABench-Physics Phy_A: 400 static numeric problems (--data Phy_A_fixed_400.csv)"

    def load(self) -> list[Problem]:
        return load_abench(_data_path(self, "a"), "a")


@register_task
class AbenchB(NumericTask):
    """ABench-Physics Phy_B: 100 dynamic problems, 4 variants each; credit needs all variants."""

    name = "abench-b"
    description = "ABench-Physics Phy_B: 100 dynamic problems x 4 variants (--data Phy_B_dynamic_100.csv)"
    dynamic = True

    def load(self) -> list[Problem]:
        return load_abench(_data_path(self, "b"), "b")



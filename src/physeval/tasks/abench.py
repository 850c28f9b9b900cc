"""ABench-Physics tasks: ``abench-a`` (400 static problems) and ``abench-b`` (100 x 4 variants).

Data: github.com/inclusionAI/ABench ``Physics/data`` (Apache-2.0); pass ``--data`` with the
CSV file or its folder. Graded by :func:`physeval.grading.numeric.grade_numeric`; ``--compat
abench`` reproduces the official evaluator's verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from physeval.problems import Problem
from physeval.tasks.abench_data import load_abench
from physeval.tasks.base import Task, TaskError
from physeval.tasks.options import option
from physeval.tasks.registry import register_task
from physeval.tasks.tracks.numeric import ABENCH_PROMPT, NumericOptions, NumericTask

__all__ = ["NumericTask", "NumericOptions", "AbenchA", "AbenchB", "AbenchBOptions", "ABENCH_PROMPT"]

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
        """The 400 Phy_A problems from ``--data`` (the CSV or its folder)."""
        return load_abench(_data_path(self, "a"), "a")


@dataclass(frozen=True)
class AbenchBOptions(NumericOptions):
    """The numeric track's options and ABench's unreleased engine: fresh variants from a seed."""

    fresh: int = option(0, "fresh variants per varied problem, recomputed by physeval's solutions (default 0: "
                           "the 4 released ones)")
    variant_seed: int = option(0, "seed of the fresh variants (default 0; cite it with the physeval version)")


@register_task
class AbenchB(NumericTask):
    """ABench-Physics Phy_B: 100 dynamic problems, 4 variants each; credit needs all variants.

    With ``fresh`` N > 0, each problem physeval can vary honestly is asked as its released variant 0
    plus N fresh variants (``f1``..) drawn from ``variant_seed``; the others keep their released
    variants and say so in ``meta["fresh"]`` (see :mod:`physeval.variation.abench_phy_b.fresh`).
    """

    Options = AbenchBOptions
    opts: AbenchBOptions
    name = "abench-b"
    description = ("ABench-Physics Phy_B: 100 dynamic problems x 4 variants (--data Phy_B_dynamic_100.csv); "
                   "--fresh N new variants per problem")
    dynamic = True

    def load(self) -> list[Problem]:
        """The 100 Phy_B problems x 4 released variants from ``--data`` (or variant 0 + ``fresh`` new ones)."""
        if self.opts.fresh < 0:
            raise TaskError(f"{self.name}: fresh must be 0 or more, got {self.opts.fresh}")
        released = load_abench(_data_path(self, "b"), "b")
        if not self.opts.fresh:
            return released
        from physeval.variation.abench_phy_b.fresh import fresh_problems

        return fresh_problems(released, self.opts.fresh, self.opts.variant_seed)



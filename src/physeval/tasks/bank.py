"""The built-in problem bank as tasks: ``bank-numeric`` (dynamic) and ``bank-symbolic``.

Every problem is an original template shipped with physeval (``physeval/variation/bank``),
regenerated with ``--variants N`` variants from ``--seed S`` (default 4 and 0); variant 0
holds the template's canonical values. A model gets dynamic credit for a problem only when
it solves every variant. It needs no data files, so it is the default task of
``physeval run`` and runs fully offline on the embedded model.
"""

from __future__ import annotations

from dataclasses import dataclass

from physeval.problems import Problem
from physeval.tasks.options import option
from physeval.tasks.registry import register_task
from physeval.tasks.tracks.numeric import NumericOptions, NumericTask
from physeval.variation.bank import bank_problems, load_bank

__all__ = ["BankNumeric"]


@dataclass(frozen=True)
class BankNumericOptions(NumericOptions):
    """The numeric track's options and how many variants to draw, from which seed."""

    variants: int = option(4, "variants per dynamic problem (default 4)")
    variant_seed: int = option(0, "seed of the problem variation (default 0)")


@register_task
class BankNumeric(NumericTask):
    """Original ABench-style numeric problems, each in N recomputed variants."""

    Options = BankNumericOptions
    opts: BankNumericOptions
    name = "bank-numeric"
    description = "physeval's original numeric bank: 65 templates x --variants N (default 4), offline"
    dynamic = True
    breakdowns = ("domain", "level")

    def load(self) -> list[Problem]:
        """Every numeric template in ``variants`` variants drawn from ``variant_seed``."""
        return bank_problems("numeric", variants=self.opts.variants, seed=self.opts.variant_seed)

    def fewshot_pool(self) -> list[tuple[str, str, str]]:
        """One worked example per template, drawn from another seed than the run's own variants."""
        solutions = {t.id: "; ".join(t.solution) for t in load_bank("numeric")}
        pool = []
        for problem in bank_problems("numeric", variants=2, seed=self.opts.variant_seed + 7919):
            if problem.variant != "1":
                continue
            template = str(problem.meta.get("template"))
            unit = problem.meta.get("unit_latex") or problem.meta.get("unit") or ""
            answer = (f"The answer follows from {solutions.get(template, 'the relation above')} with the given "
                      f"values, so the result is \\boxed{{{problem.answer}\\ {unit}}}.")
            pool.append((template, problem.question, answer))
        return pool

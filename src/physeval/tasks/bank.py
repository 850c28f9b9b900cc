"""The built-in problem bank as tasks: ``bank-numeric`` (dynamic) and ``bank-symbolic``.

Every problem is an original template shipped with physeval (``physeval/variation/bank``),
regenerated with ``--variants N`` variants from ``--seed S`` (default 4 and 0); variant 0
holds the template's canonical values. A model gets dynamic credit for a problem only when
it solves every variant. It needs no data files, so it is the default task of
``physeval run`` and runs fully offline on the embedded model.
"""

from __future__ import annotations

from physeval.problems import Problem
from physeval.tasks.abench import NumericTask
from physeval.tasks.registry import register_task
from physeval.variation.bank import bank_problems

__all__ = ["BankNumeric"]


@register_task
class BankNumeric(NumericTask):
    """Original ABench-style numeric problems, each in N recomputed variants."""

    name = "bank-numeric"
    description = "physeval's original numeric bank: 65 templates x --variants N (default 4), offline"
    dynamic = True
    breakdowns = ("domain", "level")

    def load(self) -> list[Problem]:
        return bank_problems("numeric", variants=int(self.options.get("variants") or 4),
                             seed=int(self.options.get("seed") or 0))

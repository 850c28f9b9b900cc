"""Symbolic tasks: ``phybench`` (PHYBench, arXiv 2504.16074) and ``bank-symbolic``.

The model ends with one LaTeX expression, graded by the symbolic track
(:mod:`physeval.tasks.tracks.symbolic`: equivalence and EED); this module holds only loaders.

Data for ``phybench``: ``--data`` PHYBench-fullques_v1.json (or its folder), or
``--data hf:Eureka-Lab/PHYBench`` when online. Public source: Hugging Face
``Eureka-Lab/PHYBench`` (MIT); physeval ships no copy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from physeval.problems import Problem
from physeval.tasks.base import TaskError
from physeval.tasks.options import option
from physeval.tasks.phybench_data import load_phybench, load_phybench_hf
from physeval.tasks.registry import register_task
from physeval.tasks.tracks.symbolic import PHYBENCH_PROMPT, SymbolicOptions, SymbolicTask
from physeval.variation.bank import bank_problems

__all__ = ["PhyBench", "BankSymbolic", "BankSymbolicOptions", "SymbolicTask", "PHYBENCH_PROMPT"]

@dataclass(frozen=True)
class BankSymbolicOptions(SymbolicOptions):
    """The symbolic track's options and the structural variants of the bank."""

    variants: int = option(1, "variants per template with structure parameters (default 1)")
    variant_seed: int = option(0, "seed of the problem variation (default 0)")


@register_task
class PhyBench(SymbolicTask):
    """PHYBench's 100 public problems with answers (``PHYBench-fullques_v1.json``)."""

    name = "phybench"
    description = "PHYBench: 100 symbolic problems, accuracy + EED (--data PHYBench-fullques_v1.json)"

    def load(self) -> list[Problem]:
        """The public problems with answers from ``--data`` (a file, a folder or ``hf:ID``)."""
        if self.data is None:
            raise TaskError("phybench needs --data: PHYBench-fullques_v1.json or its folder "
                            "(Hugging Face Eureka-Lab/PHYBench), or hf:Eureka-Lab/PHYBench when online")
        text = str(self.data)
        if text.startswith("hf:"):
            return load_phybench_hf(text[3:])
        return load_phybench(self.data)


@register_task
class BankSymbolic(SymbolicTask):
    """physeval's original symbolic templates; templates with structure parameters vary."""

    Options = BankSymbolicOptions
    opts: BankSymbolicOptions
    name = "bank-symbolic"
    description = "physeval's original symbolic bank: 34 templates, accuracy + EED + dimension check, offline"
    breakdowns = ("domain", "level")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.dynamic = self.opts.variants > 1

    def load(self) -> list[Problem]:
        """Every symbolic template (structural variants when ``variants`` > 1)."""
        return bank_problems("symbolic", variants=self.opts.variants, seed=self.opts.variant_seed)

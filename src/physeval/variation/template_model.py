"""The template records: a validated problem template, its parameters, constants, symbols and answer.

What :func:`physeval.variation.template.parse_template` returns, frozen; see docs/templates.md for
the format, field by field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from physeval.errors import UserError

from .writing import round_decimals, round_sig, write_plain, write_scientific

__all__ = ["DOMAINS", "LEVELS", "PLACEHOLDER", "AnswerSpec", "Constant", "Parameter", "Rule", "SymbolSpec", "Template",
           "TemplateError"]

DOMAINS = ("mechanics", "electromagnetism", "optics", "thermodynamics", "modern_physics")


LEVELS = ("high_school", "first_year", "second_year", "olympiad")


PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
"""``{{name}}`` in a template's text is replaced by the parameter's written value."""


Rule = Literal["range", "perturb", "choices", "fixed"]


class TemplateError(UserError, ValueError):
    """A template that does not follow the format; ``problems`` lists (field, message) pairs."""

    def __init__(self, where: str, problems: list[tuple[str, str]]):
        self.where = where
        self.problems = list(problems)
        lines = [f"invalid template {where}:"] + [f"  {f}: {m}" for f, m in self.problems]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Parameter:
    """A number written in the question text, its unit, how it is written and how it varies.

    Attributes:
        name: Identifier used in the text (``{{name}}``), the solution and constraints.
        value: The canonical value (variant 0), exactly as written.
        unit: A pint unit string; ``""`` for a pure number.
        sig_figs / decimals: Exactly one is set: significant figures, or places after the
            point (``decimals: 0`` writes an integer).
        scientific: Written as ``a \\times 10^{b}`` (needs ``sig_figs``).
        rule: ``range`` (``low``..``high``, ``distribution`` uniform|log), ``perturb``
            (relative half-width around ``value``), ``choices`` or ``fixed``.
    """

    name: str
    value: Decimal
    unit: str = ""
    sig_figs: int | None = None
    decimals: int | None = None
    scientific: bool = False
    rule: Rule = "fixed"
    low: Decimal | None = None
    high: Decimal | None = None
    distribution: Literal["uniform", "log"] = "uniform"
    perturb: Decimal | None = None
    choices: tuple[Decimal, ...] = ()
    description: str = ""

    def quantize(self, value: Decimal) -> Decimal:
        """``value`` rounded the way this parameter is written."""
        if self.sig_figs is not None:
            return round_sig(value, self.sig_figs)
        return round_decimals(value, self.decimals or 0)

    def write(self, value: Decimal) -> str:
        """The text shown in the question for ``value`` (already quantized)."""
        if self.scientific and self.sig_figs is not None:
            return write_scientific(value, self.sig_figs)
        return write_plain(self.quantize(value))

    @property
    def varies(self) -> bool:
        """Whether variants may change this parameter."""
        return self.rule != "fixed" and not (self.rule == "choices" and len(self.choices) < 2)


@dataclass(frozen=True)
class Constant:
    """A number the solution uses that the text does not show (``c``, ``h``, a fixed ratio)."""

    name: str
    value: Decimal
    unit: str = ""
    builtin: str | None = None


@dataclass(frozen=True)
class SymbolSpec:
    """A symbol of a symbolic template, with its dimension and LaTeX spelling."""

    name: str
    dimension: str
    latex: str | None = None
    description: str = ""


@dataclass(frozen=True)
class AnswerSpec:
    """How the answer is written: numeric (unit, figures, form) or symbolic (dimension)."""

    unit: str = ""
    unit_latex: str = ""
    sig_figs: int = 3
    scientific: bool = False
    dimension: str = ""
    simplify: bool = False


@dataclass(frozen=True)
class Template:
    """A validated, compiled parameterised problem. Build it with :func:`load_template`."""

    id: str
    kind: Literal["numeric", "symbolic"]
    domain: str
    topic: str
    level: str
    text: str
    parameters: tuple[Parameter, ...]
    solution: tuple[str, ...]
    answer: AnswerSpec
    constants: tuple[Constant, ...] = ()
    symbols: tuple[SymbolSpec, ...] = ()
    constraints: tuple[str, ...] = ()
    max_tries: int = 1000
    notes: str = ""
    source: str = ""
    instruction: str = ""
    strict_dimensions: bool = True
    path: str | None = field(default=None, compare=False)
    compiled: Any = field(default=None, compare=False, repr=False)

    def parameter(self, name: str) -> Parameter:
        """The parameter called ``name`` (KeyError if none)."""
        for param in self.parameters:
            if param.name == name:
                return param
        raise KeyError(name)

    @property
    def varying(self) -> tuple[Parameter, ...]:
        """The parameters variants may change."""
        return tuple(p for p in self.parameters if p.varies)

"""A supplied solution evaluated over a question's constants: :func:`recompute`.

A solution is a SymPy expression or a list of ``name = expression`` steps (LaTeX steps are
converted) over the constants' names and aliases, with the physical constants it names
(``g: "9.8 m/s^2"`` or a built-in name); it sees SI values, and its result is converted to the
unit the instruction (or ``answer_unit``) asks for.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import sympy

from physeval.units import UnitError, unit_dimension, unit_to_si

from .constants import BUILTIN_CONSTANTS
from .plain_instruction import Instruction, read_instruction
from .plain_reading import RESERVED, Constant, find_constants, sanitize
from .solution import parse_solution

__all__ = ["FixedConstant", "answer_unit_of", "evaluate_si", "physical_constants", "recompute", "solution_expr",
           "solution_parts", "solution_steps", "solution_symbols"]

_LATEX_SYMBOL_FIXES = [
    (re.compile(r"\\(?:mathrm|text|mathcal|mathbf|mathit|operatorname)\s*\{\s*([A-Za-z]+)\s*\}"), r"\1"),
    (re.compile(r"\\varepsilon"), r"\\epsilon"),
]


def _latex_steps_to_sympy(steps: Sequence[str]) -> list[str]:
    """LaTeX equations -> SymPy step strings, symbol names sanitized like constant names."""
    from latex2sympy2_extended import latex2sympy
    from latex2sympy2_extended.latex2sympy2 import ConversionConfig

    config = ConversionConfig(interpret_as_mixed_fractions=False, lowercase_symbols=False)
    out: list[str] = []
    for i, step in enumerate(steps):
        text = step
        for pattern, repl in _LATEX_SYMBOL_FIXES:
            text = pattern.sub(repl, text)
        lhs = None
        if text.count("=") == 1:
            lhs, text = (part.strip() for part in text.split("="))
        try:
            expr = latex2sympy(text, conversion_config=config)
        except Exception as exc:
            raise ValueError(f"step {i}: cannot parse LaTeX {step!r}: {exc}".splitlines()[0]) from None
        rename = {s: sympy.Symbol(sanitize(s.name) or s.name) for s in expr.free_symbols}
        expr = expr.xreplace(rename)
        rhs = sympy.sstr(expr)
        out.append(f"{sanitize(lhs)} = {rhs}" if lhs and sanitize(lhs) else rhs)
    return out


def _is_latex(steps: Sequence[str]) -> bool:
    return any("\\" in s or re.search(r"\^\{|_\{", s) for s in steps)


def solution_steps(solution: str | Sequence[str]) -> list[str]:
    """The solution as SymPy-readable steps (one expression, or LaTeX steps converted)."""
    steps = [solution] if isinstance(solution, str) else list(solution)
    if not steps or not all(isinstance(s, str) and s.strip() for s in steps):
        raise ValueError("a solution is an expression string or a list of 'name = expression' steps")
    return _latex_steps_to_sympy(steps) if _is_latex(steps) else [s.strip() for s in steps]


@dataclass(frozen=True)
class FixedConstant:
    """A physical constant the solution uses by name but the question does not state (``g``, ``h``)."""

    name: str
    value: Decimal
    unit: str
    builtin: str | None = None


def physical_constants(spec: Mapping[str, str] | None, found: Sequence[Constant]) -> list[FixedConstant]:
    """Parse ``{name: "VALUE UNIT" | builtin name}``; ValueError naming the bad entry."""
    out: list[FixedConstant] = []
    taken = {c.name for c in found} | {c.alias for c in found}
    for name, raw in (spec or {}).items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or name in RESERVED \
                or keyword.iskeyword(name):
            raise ValueError(f"constants: {name!r} is not a usable name (an identifier, not a function)")
        if name in taken:
            raise ValueError(f"constants.{name}: the question itself has a constant called {name!r}")
        if not isinstance(raw, str) or not raw.strip():
            raise ValueError(f"constants.{name}: expected 'VALUE UNIT' or a built-in name, got {raw!r}")
        text = raw.strip()
        if text in BUILTIN_CONSTANTS:
            builtin_value, builtin_unit = BUILTIN_CONSTANTS[text]
            out.append(FixedConstant(name, Decimal(builtin_value), builtin_unit, text))
            continue
        number, _, unit = text.partition(" ")
        try:
            value = Decimal(number)
        except InvalidOperation:
            raise ValueError(f"constants.{name}: {raw!r} is neither 'VALUE UNIT' nor one of "
                             f"{', '.join(sorted(BUILTIN_CONSTANTS))}") from None
        unit = unit.strip().replace("^", "**")
        try:
            unit_to_si(unit)
            unit_dimension(unit)
        except UnitError as exc:
            raise ValueError(f"constants.{name}: {exc}") from None
        out.append(FixedConstant(name, value, unit))
    return out


def solution_symbols(constants: Sequence[Constant], fixed: Sequence[FixedConstant] = ()) -> dict[str, sympy.Symbol]:
    """The symbol of every name and alias a solution may use."""
    table: dict[str, sympy.Symbol] = {}
    for c in constants:
        sym = sympy.Symbol(c.name, real=True)
        table[c.name] = sym
        table.setdefault(c.alias, sym)
        table.setdefault(c.alias[0] + "_" + c.alias[1:], sym)  # c_1, as LaTeX writes it
    for f in fixed:
        table[f.name] = sympy.Symbol(f.name, real=True)
    return table


def solution_parts(constants: Sequence[Constant], solution: str | Sequence[str],
                   fixed: Sequence[FixedConstant] = ()) -> tuple[sympy.Expr, dict[str, sympy.Expr]]:
    """The solution's final expression and its named steps, over the constants' symbols."""
    return parse_solution(solution_steps(solution), solution_symbols(constants, fixed))


def solution_expr(constants: Sequence[Constant], solution: str | Sequence[str],
                  fixed: Sequence[FixedConstant] = ()) -> sympy.Expr:
    """The solution's final expression over the constants' symbols."""
    return solution_parts(constants, solution, fixed)[0]


def evaluate_si(constants: Sequence[Constant], expr: sympy.Expr, answer_unit: str,
                fixed: Sequence[FixedConstant] = ()) -> Decimal:
    """``expr`` at the constants' SI values, in ``answer_unit``."""
    subs = {}
    known: list[Constant | FixedConstant] = [*constants, *fixed]
    for c in known:
        scale, offset = unit_to_si(c.unit)
        subs[sympy.Symbol(c.name, real=True)] = scale * sympy.Rational(str(c.value)) + offset
    value = expr.xreplace(subs)
    scale, offset = unit_to_si(answer_unit)
    value = (value - offset) / scale
    number = sympy.N(value, 30)
    if not number.is_real or not number.is_finite:
        raise ValueError(f"the solution gives {number}, not a real finite number")
    return Decimal(str(number))


def recompute(question: str, solution: str | Sequence[str], *, constants: Mapping[str, str] | None = None,
              answer_unit: str | None = None) -> tuple[Decimal | None, str]:
    """The solution evaluated at the question's own constants, in the instruction's unit.

    ``constants`` names physical constants the question does not state (``{"g": "9.8 m/s^2"}``,
    ``{"h": "planck_constant"}``) and ``answer_unit`` the unit meant when the instruction names
    none, as in :func:`template_from_plain`.
    Returns ``(value, "")`` or ``(None, reason)``; never raises on bad input.
    """
    try:
        found = find_constants(question)
        instruction = read_instruction(question)
        fixed = physical_constants(constants, found)
        expr = solution_expr(found, solution, fixed)
        unit = answer_unit_of(instruction, answer_unit)
        return evaluate_si(found, expr, unit, fixed), ""
    except (ValueError, TypeError, UnitError, ZeroDivisionError) as exc:
        return None, str(exc)


def answer_unit_of(instruction: Instruction | None, default: str | None) -> str:
    """The instruction's unit, else ``default`` (``^`` allowed), else dimensionless."""
    if instruction is not None and instruction.unit:
        return instruction.unit
    unit = (default or "").strip().replace("^", "**")
    if unit:
        unit_to_si(unit)  # UnitError for a unit pint cannot read
    return unit

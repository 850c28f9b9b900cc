"""Compile a template's solution once: parse it with SymPy, check its dimension, build fast evaluators.

Why: variants must be cheap (thousands per second) yet exact. The solution is parsed to an
exact SymPy expression over the *written* parameter values (unit conversions folded in as exact
factors), then lambdified once to mpmath at 50 significant digits; a value that falls within
1e-30 of a rounding tie is recomputed exactly with SymPy before it is written. Parsing uses a
restricted namespace: only declared names and a fixed list of functions are accepted.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import mpmath
import sympy
from sympy.parsing.sympy_parser import (
    auto_number,
    auto_symbol,
    factorial_notation,
    parse_expr,
    rationalize,
    repeated_decimals,
)

from physeval.units import (
    Dimension,
    UnitError,
    expression_dimension,
    format_dimension,
    parse_dimension,
    unit_dimension,
    unit_to_si,
)

from .precision import exclusive, working_digits
from .template import Template, TemplateError, parse_template, parse_template_dict

__all__ = [
    "CompiledTemplate",
    "compile_template",
    "parse_solution",
    "exact_answer",
    "mpf_to_decimal",
    "SOLUTION_FUNCTIONS",
    "EVAL_DPS",
]

EVAL_DPS = 50
"""Significant digits of the mpmath evaluation (ties are then settled exactly)."""

SOLUTION_FUNCTIONS: dict[str, Any] = {
    "sqrt": sympy.sqrt, "cbrt": sympy.cbrt, "root": sympy.root, "pi": sympy.pi,
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "cot": sympy.cot, "sec": sympy.sec,
    "csc": sympy.csc, "asin": sympy.asin, "acos": sympy.acos, "atan": sympy.atan,
    "atan2": sympy.atan2, "acot": sympy.acot, "sinh": sympy.sinh, "cosh": sympy.cosh,
    "tanh": sympy.tanh, "asinh": sympy.asinh, "acosh": sympy.acosh, "atanh": sympy.atanh,
    "exp": sympy.exp, "log": sympy.log, "ln": sympy.log, "Abs": sympy.Abs, "Min": sympy.Min,
    "Max": sympy.Max, "sign": sympy.sign, "erf": sympy.erf,
    # counts: interference orders inside a diffraction maximum, a finite sum 1 + 1/2 + ... + 1/n
    "floor": sympy.floor, "ceiling": sympy.ceiling, "ceil": sympy.ceiling, "harmonic": sympy.harmonic,
}
"""Every function and constant a solution, constraint or plain-problem solution may use."""

_TRANSFORMS = (auto_symbol, repeated_decimals, auto_number, factorial_notation, rationalize)
_STEP = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*=(?!=)\s*(.+)$", re.S)


def _globals() -> dict[str, Any]:
    out: dict[str, Any] = {
        "Integer": sympy.Integer, "Float": sympy.Float, "Rational": sympy.Rational,
        "Symbol": sympy.Symbol, "Function": sympy.Function,
    }
    out.update(SOLUTION_FUNCTIONS)
    return out


def _parse(text: str, local: Mapping[str, sympy.Basic], where: str) -> sympy.Basic:
    try:
        expr = parse_expr(text.replace("^", "**"), local_dict=dict(local), global_dict=_globals(),
                          transformations=_TRANSFORMS, evaluate=True)
    except Exception as exc:  # SyntaxError, TypeError, NameError (unknown function), ...
        raise ValueError(f"cannot parse {text!r}: {type(exc).__name__}: {exc}") from None
    unknown = sorted(s.name for s in expr.free_symbols if s.name not in local)
    if unknown:
        raise ValueError(f"unknown name(s) {', '.join(unknown)} in {text!r} "
                         "(declare them as parameters, constants or symbols)")
    if expr.atoms(sympy.core.function.AppliedUndef):
        raise ValueError(f"unknown function in {text!r} (allowed: {', '.join(sorted(SOLUTION_FUNCTIONS))})")
    return expr


def parse_solution(steps: Sequence[str],
                   symbols: Mapping[str, sympy.Symbol]) -> tuple[sympy.Expr, dict[str, sympy.Expr]]:
    """Parse ``steps`` (``name = expr`` lines, the last may be a bare expression) to one expression.

    Returns the answer expression over ``symbols`` and every intermediate name's expression.
    Raises ``ValueError`` naming the step on any problem.
    """
    local: dict[str, sympy.Basic] = dict(symbols)
    defs: dict[str, sympy.Expr] = {}
    answer: sympy.Expr | None = None
    for i, step in enumerate(steps):
        match = _STEP.match(step)
        last = i == len(steps) - 1
        if match:
            name, rhs = match.group(1), match.group(2)
            if name in symbols:
                raise ValueError(f"step {i}: {name!r} is a declared name and cannot be redefined")
            if name in defs:
                raise ValueError(f"step {i}: {name!r} is defined twice")
            try:
                expr = _parse(rhs, {**local, **{k: sympy.Symbol(k) for k in defs}}, f"step {i}")
            except ValueError as exc:
                raise ValueError(f"step {i}: {exc}") from None
            expr = expr.xreplace({sympy.Symbol(k): v for k, v in defs.items()})
            defs[name] = expr
            if last:
                answer = expr
        elif last:
            try:
                expr = _parse(step, {**local, **{k: sympy.Symbol(k) for k in defs}}, f"step {i}")
            except ValueError as exc:
                raise ValueError(f"step {i}: {exc}") from None
            answer = expr.xreplace({sympy.Symbol(k): v for k, v in defs.items()})
        else:
            raise ValueError(f"step {i}: expected 'name = expression', got {step!r}")
    if answer is None:
        raise ValueError("no answer expression")
    if isinstance(answer, (sympy.logic.boolalg.BooleanAtom, sympy.logic.boolalg.BooleanFunction,
                           sympy.core.relational.Relational)):
        raise ValueError("the answer must be an expression, not a comparison")
    return answer, defs


@dataclass
class CompiledTemplate:
    """What the engine needs from a template, computed once at load time.

    Attributes:
        written: SymPy symbols standing for each parameter's *written* value, in declared order.
        answer_exact: Exact answer over ``written`` (numeric: in the answer's unit; symbolic:
            an expression in the template's symbols).
        evaluate: mpmath function of the written values (as ``mpf``) returning
            ``[answer, constraint_1, ...]`` (numeric) or ``[constraint_1, ...]`` (symbolic).
        dimension: The answer's dimension.
    """

    written: tuple[sympy.Symbol, ...]
    answer_exact: sympy.Expr
    answer_si: sympy.Expr
    evaluate: Callable[..., Any]
    constraints: tuple[str, ...]
    dimension: Dimension
    symbol_latex: dict[sympy.Symbol, str] = field(default_factory=dict)
    symbols: dict[str, sympy.Symbol] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    evaluate_float: Callable[..., Any] | None = None
    float_ok: bool | None = None  # decided by the engine on first use (float vs mpmath agreement)
    float_ok_lock: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)
    """Held while the engine decides ``float_ok``, so concurrent first uses decide it once."""


def _fail(template: Template, field_name: str, message: str) -> TemplateError:
    return TemplateError(template.path or template.id, [(field_name, message)])


@exclusive
def compile_template(template: Template) -> CompiledTemplate:
    """Parse, dimension-check and lambdify ``template``; check its canonical values are valid."""
    numeric = template.kind == "numeric"
    names: dict[str, sympy.Symbol] = {}
    dims: dict[str, Dimension] = {}
    for p in template.parameters:
        names[p.name] = sympy.Symbol(p.name, real=True) if numeric else sympy.Symbol(p.name, positive=True)
        dims[p.name] = unit_dimension(p.unit)
    for c in template.constants:
        names[c.name] = sympy.Symbol(c.name, real=True)
        dims[c.name] = unit_dimension(c.unit)
    for s in template.symbols:
        names[s.name] = sympy.Symbol(s.name, positive=True)
        dims[s.name] = parse_dimension(s.dimension)
    try:
        answer, defs = parse_solution(template.solution, names)
    except ValueError as exc:
        raise _fail(template, "solution", str(exc)) from None
    warnings: list[str] = []
    expected = unit_dimension(template.answer.unit) if numeric else parse_dimension(template.answer.dimension)
    dimension = expected
    try:
        dimension = expression_dimension(answer, dims)
    except UnitError as exc:
        if template.strict_dimensions:
            raise _fail(template, "solution", f"dimension check failed: {exc}") from None
        warnings.append(f"dimension check failed: {exc}")
    if dimension != expected:
        what = (f"unit {template.answer.unit or 'dimensionless'!r}" if numeric
                else f"dimension {template.answer.dimension!r}")
        message = (f"the solution has dimension {format_dimension(dimension)} "
                   f"but the answer's {what} is {format_dimension(expected)}")
        if template.strict_dimensions:
            raise _fail(template, "answer", message)
        warnings.append(message)
    # Constraints may use parameters, constants, intermediate names and `answer`, all in SI.
    local = dict(names)
    local.update({k: sympy.Symbol(k) for k in defs})
    local["answer"] = sympy.Symbol("answer")
    replace = {sympy.Symbol(k): v for k, v in defs.items()}
    replace[sympy.Symbol("answer")] = answer
    constraint_exprs: list[sympy.Basic] = []
    for i, text in enumerate(template.constraints):
        try:
            expr = _parse(text, local, f"constraints[{i}]")
        except (ValueError, TypeError) as exc:
            raise _fail(template, f"constraints[{i}]", str(exc)) from None
        if not isinstance(expr, (sympy.core.relational.Relational, sympy.logic.boolalg.BooleanAtom)):
            raise _fail(template, f"constraints[{i}]", f"{text!r} is not a comparison such as 'v < c'")
        expr = expr.xreplace(replace)
        if isinstance(expr, sympy.core.relational.Relational):
            try:
                ld = expression_dimension(expr.lhs, dims)
                rd = expression_dimension(expr.rhs, dims)
            except UnitError as exc:
                raise _fail(template, f"constraints[{i}]", f"dimension check failed: {exc}") from None
            if ld != rd and not (expr.rhs.is_number or expr.lhs.is_number) and template.strict_dimensions:
                raise _fail(
                    template, f"constraints[{i}]",
                    f"compares {format_dimension(ld)} with {format_dimension(rd)} (constraints are in SI units)",
                )
        constraint_exprs.append(expr)

    written = tuple(sympy.Symbol(f"w_{p.name}", real=True) for p in template.parameters)
    to_si: dict[sympy.Symbol, sympy.Expr] = {}
    for p, w in zip(template.parameters, written):
        scale, offset = unit_to_si(p.unit) if numeric else (sympy.Integer(1), sympy.Integer(0))
        to_si[names[p.name]] = scale * w + offset
    for c in template.constants:
        scale, offset = unit_to_si(c.unit)
        to_si[names[c.name]] = scale * sympy.Rational(str(c.value)) + offset
    if numeric:
        a_scale, a_offset = unit_to_si(template.answer.unit)
        answer_si = answer.xreplace(to_si)
        answer_exact = (answer_si - a_offset) / a_scale
        outputs = [answer_exact] + [e.xreplace(to_si) for e in constraint_exprs]
    else:
        answer_si = answer
        answer_exact = answer.xreplace(to_si)
        outputs = [e.xreplace(to_si) for e in constraint_exprs] or [sympy.true]
    evaluate = sympy.lambdify(written, outputs, modules="mpmath")
    evaluate_float = _float_evaluator(written, outputs if numeric else [sympy.Integer(1)] + outputs)
    compiled = CompiledTemplate(
        written=written, answer_exact=answer_exact, answer_si=answer_si, evaluate=evaluate,
        constraints=template.constraints, dimension=dimension,
        symbol_latex={names[s.name]: s.latex for s in template.symbols if s.latex},
        symbols=names, warnings=warnings, evaluate_float=evaluate_float,
    )
    reason = check_values(template, compiled, [p.value for p in template.parameters])
    if reason is not None:
        raise _fail(template, "constraints" if "constraint" in reason else "solution",
                    f"the canonical values are not a valid variant: {reason}")
    return compiled


def _evaluate(compiled: CompiledTemplate, values: Sequence[Decimal]) -> tuple[list[Any] | None, str | None]:
    try:
        out = compiled.evaluate(*[mpmath.mpf(str(v)) for v in values])
    except (ZeroDivisionError, ValueError, TypeError, OverflowError) as exc:
        return None, f"solution cannot be evaluated ({type(exc).__name__}: {exc})"
    # a solution without free parameters evaluates to a plain int (``4``): the same number as an mpf
    out = [mpmath.mpf(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in out]
    return out, None


def check_values(template: Template, compiled: CompiledTemplate, values: Sequence[Decimal]) -> str | None:
    """``None`` when ``values`` make a valid variant, else the reason (a constraint, a bad answer)."""
    return _check(template, compiled, values)[0]


def _check(template: Template, compiled: CompiledTemplate, values: Sequence[Decimal]) -> tuple[str | None, Any]:
    """(reason or None, the numeric answer as mpf or None)."""
    with working_digits(EVAL_DPS):
        out, err = _evaluate(compiled, values)
        if err:
            return err, None
        assert out is not None
        if template.kind == "numeric":
            value, checks = out[0], out[1:]
            if not isinstance(value, mpmath.mpf):
                return f"answer is not a real number ({value})", None
            if not mpmath.isfinite(value):
                return "answer is not finite", None
            if value == 0:
                return "answer is zero", None
        else:
            value, checks = None, out
        for text, ok in zip(compiled.constraints, checks):
            try:
                if not bool(ok):
                    return f"constraint {text!r} violated", None
            except TypeError:
                return f"constraint {text!r} cannot be decided (complex value)", None
    return None, value


def _margin(expr: sympy.Basic) -> tuple[sympy.Expr, sympy.Expr]:
    """(margin, scale): the constraint holds iff margin > 0 (or >= 0 for non-strict)."""
    rel = sympy.core.relational
    if expr is sympy.true:
        return sympy.Integer(1), sympy.Integer(1)
    if expr is sympy.false:
        return sympy.Integer(-1), sympy.Integer(1)
    if isinstance(expr, (rel.StrictLessThan, rel.LessThan)):
        return expr.rhs - expr.lhs, sympy.Abs(expr.lhs) + sympy.Abs(expr.rhs)
    if isinstance(expr, (rel.StrictGreaterThan, rel.GreaterThan)):
        return expr.lhs - expr.rhs, sympy.Abs(expr.lhs) + sympy.Abs(expr.rhs)
    raise TypeError("only <, <=, >, >= constraints have a float fast path")


def _float_evaluator(written: Sequence[sympy.Symbol], outputs: Sequence[sympy.Basic]) -> Callable[..., Any] | None:
    """A plain-float version of ``[answer, margin_1, scale_1, ...]``, or None when one cannot be built.

    Used only as a fast filter: the engine trusts it where the float result is far from every
    decision boundary (constraint edges, rounding ties) and falls back to mpmath otherwise.
    """
    try:
        flat: list[sympy.Basic] = [outputs[0]]
        for expr in outputs[1:]:
            flat.extend(_margin(expr))
        return sympy.lambdify(written, flat, modules="math")
    except Exception:  # an unsupported function or relation: no fast path, mpmath only
        return None


def exact_answer(compiled: CompiledTemplate, values: Sequence[Decimal]) -> sympy.Expr:
    """The answer at ``values`` as an exact SymPy number (slow; used to settle rounding ties)."""
    subs = {w: sympy.Rational(str(v)) for w, v in zip(compiled.written, values)}
    return compiled.answer_exact.xreplace(subs)


def mpf_to_decimal(value: Any, digits: int = 45) -> Decimal:
    """An mpmath number as a Decimal with ``digits`` significant digits."""
    return Decimal(mpmath.nstr(value, digits, strip_zeros=False, min_fixed=1, max_fixed=0))



def template_from_dict(data: Mapping[str, Any], *, path: str | None = None,
                       strict_dimensions: bool = True) -> Template:
    """A validated, compiled template from a mapping: :func:`~physeval.variation.template.parse_template_dict`,
    then :func:`compile_template` (a bad solution is a :class:`TemplateError` here, at load time)."""
    from dataclasses import replace

    template = parse_template_dict(data, path=path, strict_dimensions=strict_dimensions)
    return replace(template, compiled=compile_template(template))


def load_template(source: Any) -> Template:
    """Load, validate and compile a template from a YAML file path, YAML text, or a mapping."""
    from dataclasses import replace

    template = parse_template(source)
    return replace(template, compiled=compile_template(template))

"""Checks of one template section: a parameter, a constant, a symbol, the answer, the solution.

Each reader validates one entry of its section and returns the record, or ``None`` after adding
what is wrong to the file's :class:`~physeval.variation.template_fields.FieldErrors`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from physeval.units import UnitError, default_unit_latex, parse_dimension, unit_dimension

from .constants import BUILTIN_CONSTANTS
from .template_fields import FieldErrors, check_unit, read_bool, read_decimal, read_int
from .template_model import AnswerSpec, Constant, Parameter, Rule, SymbolSpec

__all__ = ["PARAM_KEYS", "read_answer", "read_constant", "read_parameter", "read_solution", "read_symbol"]

PARAM_KEYS = {
    "value", "unit", "sig_figs", "decimals", "scientific", "range", "distribution", "perturb",
    "choices", "fixed", "description",
}


_NUMERIC_ANSWER_KEYS = {"unit", "unit_latex", "sig_figs", "scientific"}


_SYMBOLIC_ANSWER_KEYS = {"dimension", "simplify"}


def read_parameter(name: str, raw: Any, kind: str, errors: FieldErrors) -> Parameter | None:
    """One entry of ``parameters:`` (its rule, bounds, unit and writing), or ``None``."""
    where = f"parameters.{name}"
    if not isinstance(raw, dict):
        errors.add(where, f"expected a mapping with value, unit, sig_figs|decimals and a rule, got {raw!r}")
        return None
    for key in raw:
        if key not in PARAM_KEYS:
            errors.add(f"{where}.{key}", f"unknown field (allowed: {', '.join(sorted(PARAM_KEYS))})")
    ok = True
    if "value" not in raw:
        errors.add(f"{where}.value", "missing: the canonical value (variant 0), e.g. value: \"20.0\"")
        return None
    value = read_decimal(raw["value"], f"{where}.value", errors)
    unit = check_unit(raw.get("unit"), f"{where}.unit", errors)
    if kind == "symbolic" and unit and unit_dimension(unit):
        errors.add(f"{where}.unit", "parameters of a symbolic template must be dimensionless numbers")
    has_sig, has_dec = "sig_figs" in raw, "decimals" in raw
    sig_figs = decimals = None
    if has_sig == has_dec:
        errors.add(where, "give exactly one of sig_figs (significant figures) or decimals "
                          "(places after the point; 0 = integer)")
        ok = False
    elif has_sig:
        sig_figs = read_int(raw["sig_figs"], f"{where}.sig_figs", errors, 1, 12)
        ok = ok and sig_figs is not None
    else:
        decimals = read_int(raw["decimals"], f"{where}.decimals", errors, 0, 12)
        ok = ok and decimals is not None
    scientific = read_bool(raw.get("scientific", False), f"{where}.scientific", errors)
    if scientific and not has_sig:
        errors.add(f"{where}.scientific", "scientific writing needs sig_figs, not decimals")
    rules = [r for r in ("range", "perturb", "choices", "fixed") if r in raw]
    if len(rules) != 1:
        errors.add(where, f"give exactly one sampling rule: range, perturb, choices or fixed (got {rules or 'none'})")
        return None
    rule: Rule = rules[0]  # type: ignore[assignment]
    low = high = perturb = None
    choices: tuple[Decimal, ...] = ()
    distribution = raw.get("distribution", "uniform")
    if "distribution" in raw and rule != "range":
        errors.add(f"{where}.distribution", "only meaningful with range")
    if distribution not in ("uniform", "log"):
        errors.add(f"{where}.distribution", f"expected uniform or log, got {distribution!r}")
        distribution = "uniform"
    if rule == "range":
        bounds = raw["range"]
        if not isinstance(bounds, list) or len(bounds) != 2:
            errors.add(f"{where}.range", f"expected [low, high], got {bounds!r}")
            ok = False
        else:
            low = read_decimal(bounds[0], f"{where}.range[0]", errors)
            high = read_decimal(bounds[1], f"{where}.range[1]", errors)
            if low is not None and high is not None:
                if not low < high:
                    errors.add(f"{where}.range", f"low {low} must be below high {high}")
                    ok = False
                elif distribution == "log" and low <= 0:
                    errors.add(f"{where}.distribution", "log needs a positive range")
                elif value is not None and not low <= value <= high:
                    errors.add(f"{where}.value", f"canonical value {value} lies outside range [{low}, {high}]")
            else:
                ok = False
    elif rule == "perturb":
        perturb = read_decimal(raw["perturb"], f"{where}.perturb", errors)
        if perturb is not None and not Decimal(0) < perturb < Decimal(1):
            errors.add(f"{where}.perturb", f"relative half-width must be in (0, 1), got {perturb}")
        if value is not None and value == 0:
            errors.add(f"{where}.perturb", "a relative perturbation of 0 changes nothing; use range")
    elif rule == "choices":
        items = raw["choices"]
        if not isinstance(items, list) or not items:
            errors.add(f"{where}.choices", f"expected a non-empty list of values, got {items!r}")
            ok = False
        else:
            parsed = [read_decimal(c, f"{where}.choices[{i}]", errors) for i, c in enumerate(items)]
            choices = tuple(c for c in parsed if c is not None)
            if value is not None and value not in choices:
                errors.add(f"{where}.value", f"canonical value {value} is not among the choices")
    elif raw["fixed"] is not True:
        errors.add(f"{where}.fixed", "write fixed: true (or remove it and give a sampling rule)")
    if value is None or not ok:
        return None
    param = Parameter(
        name=name, value=value, unit=unit, sig_figs=sig_figs, decimals=decimals,
        scientific=scientific, rule=rule, low=low, high=high, distribution=distribution,
        perturb=perturb, choices=choices, description=str(raw.get("description", "")),
    )
    if param.quantize(value) != value:
        errors.add(
            f"{where}.value",
            f"{value} is not written exactly with "
            + (f"sig_figs={sig_figs}" if sig_figs is not None else f"decimals={decimals}")
            + f" (it would be written {param.write(value)})",
        )
    for i, choice in enumerate(choices):
        if param.quantize(choice) != choice:
            errors.add(f"{where}.choices[{i}]", f"{choice} is not written exactly by this parameter's rule")
    return param


def read_constant(name: str, raw: Any, errors: FieldErrors) -> Constant | None:
    """One entry of ``constants:`` (a built-in name or a value with its unit), or ``None``."""
    where = f"constants.{name}"
    if isinstance(raw, str):
        if raw not in BUILTIN_CONSTANTS:
            errors.add(where, f"unknown built-in constant {raw!r} (known: {', '.join(sorted(BUILTIN_CONSTANTS))})")
            return None
        value, unit = BUILTIN_CONSTANTS[raw]
        return Constant(name=name, value=Decimal(value), unit=unit, builtin=raw)
    if not isinstance(raw, dict) or "value" not in raw:
        errors.add(where, "expected a built-in name (e.g. speed_of_light) or {value: \"...\", unit: ...}")
        return None
    for key in raw:
        if key not in ("value", "unit"):
            errors.add(f"{where}.{key}", "unknown field (allowed: value, unit)")
    decimal = read_decimal(raw["value"], f"{where}.value", errors)
    unit = check_unit(raw.get("unit"), f"{where}.unit", errors)
    return None if decimal is None else Constant(name=name, value=decimal, unit=unit)


def read_symbol(name: str, raw: Any, errors: FieldErrors) -> SymbolSpec | None:
    """One entry of ``symbols:`` (a symbolic template's symbol and its dimension), or ``None``."""
    where = f"symbols.{name}"
    if isinstance(raw, str):
        raw = {"dimension": raw}
    if not isinstance(raw, dict) or "dimension" not in raw:
        errors.add(where, "expected a dimension string (e.g. length/time**2) or {dimension, latex, description}")
        return None
    for key in raw:
        if key not in ("dimension", "latex", "description"):
            errors.add(f"{where}.{key}", "unknown field (allowed: dimension, latex, description)")
    try:
        parse_dimension(str(raw["dimension"]))
    except UnitError as exc:
        errors.add(f"{where}.dimension", str(exc))
        return None
    latex = raw.get("latex")
    if latex is not None and not isinstance(latex, str):
        errors.add(f"{where}.latex", f"expected a LaTeX string, got {latex!r}")
        latex = None
    return SymbolSpec(name=name, dimension=str(raw["dimension"]), latex=latex,
                      description=str(raw.get("description", "")))


def read_answer(raw: Any, kind: str, errors: FieldErrors) -> AnswerSpec | None:
    """The ``answer:`` section of a numeric or symbolic template, or ``None``."""
    if not isinstance(raw, dict):
        errors.add("answer", "expected a mapping (numeric: unit, sig_figs, scientific; symbolic: dimension)")
        return None
    allowed = _NUMERIC_ANSWER_KEYS if kind == "numeric" else _SYMBOLIC_ANSWER_KEYS
    for key in raw:
        if key not in allowed:
            errors.add(f"answer.{key}", f"unknown field for a {kind} answer (allowed: {', '.join(sorted(allowed))})")
    if kind == "symbolic":
        if "dimension" not in raw:
            errors.add("answer.dimension", "missing: the answer's dimension, e.g. length/time")
            return None
        try:
            parse_dimension(str(raw["dimension"]))
        except UnitError as exc:
            errors.add("answer.dimension", str(exc))
            return None
        return AnswerSpec(dimension=str(raw["dimension"]),
                          simplify=read_bool(raw.get("simplify", False), "answer.simplify", errors))
    if "sig_figs" not in raw:
        errors.add("answer.sig_figs", "missing: significant figures of the written answer (ABench uses 1-5)")
        return None
    sig_figs = read_int(raw["sig_figs"], "answer.sig_figs", errors, 1, 10)
    unit = check_unit(raw.get("unit"), "answer.unit", errors)
    unit_latex = raw.get("unit_latex")
    if unit_latex is not None and not isinstance(unit_latex, str):
        errors.add("answer.unit_latex", f"expected a LaTeX string, got {unit_latex!r}")
        unit_latex = None
    if unit_latex is None and unit:
        try:
            unit_latex = default_unit_latex(unit)
        except UnitError as exc:
            errors.add("answer.unit", str(exc))
            unit_latex = ""
    if unit_latex and "$" in unit_latex:
        errors.add("answer.unit_latex", "write the LaTeX without $ delimiters; the engine adds them")
    scientific = read_bool(raw.get("scientific", False), "answer.scientific", errors)
    if sig_figs is None:
        return None
    return AnswerSpec(unit=unit, unit_latex=unit_latex or "", sig_figs=sig_figs, scientific=scientific)


def read_solution(raw: Any, errors: FieldErrors) -> tuple[str, ...]:
    """The ``solution:`` steps (one expression or a list of ``name = expression``)."""
    if isinstance(raw, str) and raw.strip():
        return (raw.strip(),)
    if isinstance(raw, list) and raw and all(isinstance(s, str) and s.strip() for s in raw):
        steps = tuple(s.strip() for s in raw)
        for i, step in enumerate(steps[:-1]):
            if "=" not in step or step.count("=") != 1 or any(op in step for op in ("<=", ">=", "==")):
                errors.add(f"solution[{i}]", f"intermediate steps must read 'name = expression', got {step!r}")
        return steps
    errors.add("solution", "expected an expression string or a list of 'name = expression' steps "
                           "(the last is the answer)")
    return ()

"""The template format: load a YAML template, validate every field, and compile it once.

Why: the problem bank is written by many hands, so a mistake must be caught when the file is
loaded, with the field that is wrong and why (``parameters.v0.range: low 60 must be below high
20``), never as an odd variant later. Every error of a file is collected and reported together.
See docs/templates.md for the format, field by field.
"""

from __future__ import annotations

import keyword
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Literal

import yaml

from physeval.errors import UserError
from physeval.units import UnitError, default_unit_latex, parse_dimension, unit_dimension, unit_to_si

from .constants import BUILTIN_CONSTANTS
from .writing import round_decimals, round_sig, write_plain, write_scientific

__all__ = [
    "Template",
    "Parameter",
    "Constant",
    "SymbolSpec",
    "AnswerSpec",
    "TemplateError",
    "parse_template",
    "parse_template_dict",
    "DOMAINS",
    "LEVELS",
    "PLACEHOLDER",
]

DOMAINS = ("mechanics", "electromagnetism", "optics", "thermodynamics", "modern_physics")
LEVELS = ("high_school", "first_year", "second_year", "olympiad")
PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
"""``{{name}}`` in a template's text is replaced by the parameter's written value."""

_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_RESERVED = {
    "answer", "pi", "sqrt", "cbrt", "root", "sin", "cos", "tan", "cot", "sec", "csc", "asin",
    "acos", "atan", "atan2", "acot", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp",
    "log", "ln", "Abs", "Min", "Max", "sign", "erf", "Rational", "Integer", "Float", "Symbol",
    "oo",
}
_TOP_KEYS = {
    "id", "kind", "domain", "topic", "level", "text", "parameters", "constants", "symbols",
    "constraints", "solution", "answer", "max_tries", "notes", "source", "instruction",
}
_PARAM_KEYS = {
    "value", "unit", "sig_figs", "decimals", "scientific", "range", "distribution", "perturb",
    "choices", "fixed", "description",
}
_NUMERIC_ANSWER_KEYS = {"unit", "unit_latex", "sig_figs", "scientific"}
_SYMBOLIC_ANSWER_KEYS = {"dimension", "simplify"}
_SUFFIX_MARKERS = ("(Results should be expressed", "significant figures)", "(结果")

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


class _Errors:
    def __init__(self) -> None:
        self.items: list[tuple[str, str]] = []

    def add(self, where: str, message: str) -> None:
        self.items.append((where, message))


def _decimal(raw: Any, where: str, errors: _Errors) -> Decimal | None:
    if isinstance(raw, bool) or raw is None or isinstance(raw, (list, dict)):
        errors.add(where, f"expected a number (preferably quoted, e.g. \"9.81\"), got {raw!r}")
        return None
    try:
        value = Decimal(str(raw).strip())
    except (InvalidOperation, ValueError):
        errors.add(where, f"not a number: {raw!r}")
        return None
    if not value.is_finite():
        errors.add(where, f"not a finite number: {raw!r}")
        return None
    return value


def _int(raw: Any, where: str, errors: _Errors, low: int, high: int) -> int | None:
    if isinstance(raw, bool) or not isinstance(raw, int) or not low <= raw <= high:
        errors.add(where, f"expected an integer from {low} to {high}, got {raw!r}")
        return None
    return raw


def _bool(raw: Any, where: str, errors: _Errors) -> bool:
    if not isinstance(raw, bool):
        errors.add(where, f"expected true or false, got {raw!r}")
        return False
    return raw


def _check_name(name: Any, where: str, errors: _Errors) -> bool:
    if not isinstance(name, str) or not _NAME.match(name):
        errors.add(where, f"name {name!r} must be an identifier (letters, digits, _; starting with a letter)")
        return False
    if keyword.iskeyword(name) or name in _RESERVED:
        errors.add(where, f"name {name!r} is reserved (Python keyword or a function/constant of the solution language)")
        return False
    return True


def _check_unit(unit: Any, where: str, errors: _Errors) -> str:
    if unit is None:
        return ""
    if not isinstance(unit, str):
        errors.add(where, f"expected a pint unit string such as 'm/s**2', got {unit!r}")
        return ""
    try:
        unit_to_si(unit)
        unit_dimension(unit)
    except UnitError as exc:
        errors.add(where, str(exc))
        return ""
    return unit.strip()


def _parameter(name: str, raw: Any, kind: str, errors: _Errors) -> Parameter | None:
    where = f"parameters.{name}"
    if not isinstance(raw, dict):
        errors.add(where, f"expected a mapping with value, unit, sig_figs|decimals and a rule, got {raw!r}")
        return None
    for key in raw:
        if key not in _PARAM_KEYS:
            errors.add(f"{where}.{key}", f"unknown field (allowed: {', '.join(sorted(_PARAM_KEYS))})")
    ok = True
    if "value" not in raw:
        errors.add(f"{where}.value", "missing: the canonical value (variant 0), e.g. value: \"20.0\"")
        return None
    value = _decimal(raw["value"], f"{where}.value", errors)
    unit = _check_unit(raw.get("unit"), f"{where}.unit", errors)
    if kind == "symbolic" and unit and unit_dimension(unit):
        errors.add(f"{where}.unit", "parameters of a symbolic template must be dimensionless numbers")
    has_sig, has_dec = "sig_figs" in raw, "decimals" in raw
    sig_figs = decimals = None
    if has_sig == has_dec:
        errors.add(where, "give exactly one of sig_figs (significant figures) or decimals "
                          "(places after the point; 0 = integer)")
        ok = False
    elif has_sig:
        sig_figs = _int(raw["sig_figs"], f"{where}.sig_figs", errors, 1, 12)
        ok = ok and sig_figs is not None
    else:
        decimals = _int(raw["decimals"], f"{where}.decimals", errors, 0, 12)
        ok = ok and decimals is not None
    scientific = _bool(raw.get("scientific", False), f"{where}.scientific", errors)
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
            low = _decimal(bounds[0], f"{where}.range[0]", errors)
            high = _decimal(bounds[1], f"{where}.range[1]", errors)
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
        perturb = _decimal(raw["perturb"], f"{where}.perturb", errors)
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
            parsed = [_decimal(c, f"{where}.choices[{i}]", errors) for i, c in enumerate(items)]
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


def _constant(name: str, raw: Any, errors: _Errors) -> Constant | None:
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
    decimal = _decimal(raw["value"], f"{where}.value", errors)
    unit = _check_unit(raw.get("unit"), f"{where}.unit", errors)
    return None if decimal is None else Constant(name=name, value=decimal, unit=unit)


def _symbol(name: str, raw: Any, errors: _Errors) -> SymbolSpec | None:
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


def _answer(raw: Any, kind: str, errors: _Errors) -> AnswerSpec | None:
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
                          simplify=_bool(raw.get("simplify", False), "answer.simplify", errors))
    if "sig_figs" not in raw:
        errors.add("answer.sig_figs", "missing: significant figures of the written answer (ABench uses 1-5)")
        return None
    sig_figs = _int(raw["sig_figs"], "answer.sig_figs", errors, 1, 10)
    unit = _check_unit(raw.get("unit"), "answer.unit", errors)
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
    scientific = _bool(raw.get("scientific", False), "answer.scientific", errors)
    if sig_figs is None:
        return None
    return AnswerSpec(unit=unit, unit_latex=unit_latex or "", sig_figs=sig_figs, scientific=scientific)


def _solution(raw: Any, errors: _Errors) -> tuple[str, ...]:
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


def parse_template_dict(data: Mapping[str, Any], *, path: str | None = None,
                        strict_dimensions: bool = True) -> Template:
    """Validate a parsed template (not compiled yet); raises :class:`TemplateError` listing every problem.

    ``strict_dimensions=False`` (used for problems converted from plain text, whose units are
    read from prose) turns dimension errors of the solution into ``compiled.warnings``.
    """
    errors = _Errors()
    where = path or str(data.get("id", "<template>")) if isinstance(data, Mapping) else "<template>"
    if not isinstance(data, Mapping):
        raise TemplateError(where, [("<root>", f"expected a mapping, got {type(data).__name__}")])
    for key in data:
        if key not in _TOP_KEYS:
            errors.add(str(key), f"unknown field (allowed: {', '.join(sorted(_TOP_KEYS))})")
    tid = data.get("id")
    if not isinstance(tid, str) or not re.match(r"^[a-z][a-z0-9_]*$", tid):
        errors.add("id", f"expected a lower_snake_case identifier, got {tid!r}")
    elif path is not None and Path(path).stem != tid:
        errors.add("id", f"id {tid!r} must equal the file name {Path(path).name!r} without .yaml")
    raw_kind = data.get("kind")
    kind: Literal["numeric", "symbolic"] = "symbolic" if raw_kind == "symbolic" else "numeric"
    if raw_kind not in ("numeric", "symbolic"):
        errors.add("kind", f"expected numeric or symbolic, got {raw_kind!r}")
    if data.get("domain") not in DOMAINS:
        errors.add("domain", f"expected one of {', '.join(DOMAINS)}, got {data.get('domain')!r}")
    if data.get("level") not in LEVELS:
        errors.add("level", f"expected one of {', '.join(LEVELS)}, got {data.get('level')!r}")
    topic = data.get("topic")
    if not isinstance(topic, str) or not topic.strip():
        errors.add("topic", "expected a short non-empty description, e.g. 'projectile motion'")
    text = data.get("text")
    if not isinstance(text, str) or not text.strip():
        errors.add("text", "expected the question text with {{name}} placeholders")
        text = ""
    elif kind == "numeric" and not data.get("instruction") and any(m in text for m in _SUFFIX_MARKERS):
        errors.add("text", "do not write the '(Results should be expressed ...)' instruction; "
                           "the engine appends it from answer:")

    params: list[Parameter] = _named_entries(
        data, "parameters", "expected a mapping name -> {value, unit, sig_figs|decimals, rule}", errors,
        lambda name, raw: _parameter(name, raw, kind, errors))
    constants: list[Constant] = _named_entries(
        data, "constants", "expected a mapping name -> built-in name or {value, unit}", errors,
        lambda name, raw: _constant(name, raw, errors))
    symbols: list[SymbolSpec] = []
    raw_syms = data.get("symbols", {}) or {}
    if kind == "numeric" and raw_syms:
        errors.add("symbols", "only symbolic templates declare symbols")
    elif kind == "symbolic":
        if not isinstance(raw_syms, dict) or not raw_syms:
            errors.add("symbols", "a symbolic template declares its symbols: {m: mass, g: length/time**2}")
            raw_syms = {}
        for name, raw in raw_syms.items():
            if _check_name(name, f"symbols.{name}", errors):
                sym = _symbol(name, raw, errors)
                if sym is not None:
                    symbols.append(sym)
    names = [p.name for p in params] + [c.name for c in constants] + [s.name for s in symbols]
    for dup in sorted({n for n in names if names.count(n) > 1}):
        errors.add(dup, "name declared twice (parameters, constants and symbols share one namespace)")

    used = set(PLACEHOLDER.findall(text))
    for name in sorted(used - {p.name for p in params}):
        errors.add("text", f"placeholder {{{{{name}}}}} names no parameter")
    for param in params:
        if param.name not in used:
            errors.add(f"parameters.{param.name}",
                       "never shown in text: every parameter must appear as {{" + param.name + "}}")

    constraints = data.get("constraints", []) or []
    if not isinstance(constraints, list) or not all(isinstance(c, str) for c in constraints):
        errors.add("constraints", "expected a list of strings such as 'v < c' or 'answer > 0'")
        constraints = []
    solution = _solution(data.get("solution"), errors)
    answer = _answer(data.get("answer"), kind, errors)
    max_tries = data.get("max_tries", 1000)
    if _int(max_tries, "max_tries", errors, 1, 1_000_000) is None:
        max_tries = 1000
    for key in ("notes", "source", "instruction"):
        if key in data and not isinstance(data[key], str):
            errors.add(key, "expected text")
    # tid and topic are text whenever no error was recorded; the isinstance checks only narrow their types
    if errors.items or answer is None or not solution or not isinstance(tid, str) or not isinstance(topic, str):
        raise TemplateError(where, errors.items or [("solution", "missing")])

    template = Template(
        id=tid, kind=kind, domain=data["domain"], topic=topic.strip(), level=data["level"],
        text=text.strip(), parameters=tuple(params), solution=solution, answer=answer,
        constants=tuple(constants), symbols=tuple(symbols), constraints=tuple(c.strip() for c in constraints),
        max_tries=max_tries, notes=str(data.get("notes", "")), source=str(data.get("source", "")),
        instruction=str(data.get("instruction", "") or ""), strict_dimensions=strict_dimensions, path=path,
    )
    return template


def _named_entries(data: Mapping[str, Any], key: str, hint: str, errors: Any,
                   build: Any) -> list[Any]:
    """Validate a ``name -> entry`` mapping field and build each entry whose name is valid."""
    raw_entries = data.get(key, {}) or {}
    if not isinstance(raw_entries, dict):
        errors.add(key, hint)
        return []
    built = []
    for name, raw in raw_entries.items():
        if _check_name(name, f"{key}.{name}", errors):
            entry = build(name, raw)
            if entry is not None:
                built.append(entry)
    return built


def parse_template(source: str | Path | Mapping[str, Any]) -> Template:
    """Read and validate a template (a YAML file path, YAML text or a mapping), not yet compiled
    (:func:`physeval.variation.solution.load_template` compiles it)."""
    if isinstance(source, Mapping):
        return parse_template_dict(source)
    path: str | None = None
    if isinstance(source, Path) or (
            isinstance(source, str) and "\n" not in source and source.endswith((".yaml", ".yml"))):
        path = str(source)
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise TemplateError(path, [("<file>", f"cannot read: {exc}")]) from None
    else:
        text = str(source)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise TemplateError(path or "<yaml>", [("<yaml>", f"not valid YAML: {exc}")]) from None
    return parse_template_dict(data, path=path)

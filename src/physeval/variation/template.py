"""The template format: load a YAML template, validate every field, and compile it once.

Why: the problem bank is written by many hands, so a mistake must be caught when the file is
loaded, with the field that is wrong and why (``parameters.v0.range: low 60 must be below high
20``), never as an odd variant later. Every error of a file is collected and reported together.
See docs/templates.md for the format, field by field.
"""


from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import yaml

from .template_fields import FieldErrors, check_name, read_int
from .template_model import (
    DOMAINS,
    LEVELS,
    PLACEHOLDER,
    AnswerSpec,
    Constant,
    Parameter,
    SymbolSpec,
    Template,
    TemplateError,
)
from .template_sections import read_answer, read_constant, read_parameter, read_solution, read_symbol

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

_TOP_KEYS = {
    "id", "kind", "domain", "topic", "level", "text", "parameters", "constants", "symbols",
    "constraints", "solution", "answer", "max_tries", "notes", "source", "instruction",
}


_SUFFIX_MARKERS = ("(Results should be expressed", "significant figures)", "(结果")


def parse_template_dict(data: Mapping[str, Any], *, path: str | None = None,
                        strict_dimensions: bool = True) -> Template:
    """Validate a parsed template (not compiled yet); raises :class:`TemplateError` listing every problem.

    ``strict_dimensions=False`` (used for problems converted from plain text, whose units are
    read from prose) turns dimension errors of the solution into ``compiled.warnings``.
    """
    errors = FieldErrors()
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
        lambda name, raw: read_parameter(name, raw, kind, errors))
    constants: list[Constant] = _named_entries(
        data, "constants", "expected a mapping name -> built-in name or {value, unit}", errors,
        lambda name, raw: read_constant(name, raw, errors))
    symbols: list[SymbolSpec] = []
    raw_syms = data.get("symbols", {}) or {}
    if kind == "numeric" and raw_syms:
        errors.add("symbols", "only symbolic templates declare symbols")
    elif kind == "symbolic":
        if not isinstance(raw_syms, dict) or not raw_syms:
            errors.add("symbols", "a symbolic template declares its symbols: {m: mass, g: length/time**2}")
            raw_syms = {}
        for name, raw in raw_syms.items():
            if check_name(name, f"symbols.{name}", errors):
                sym = read_symbol(name, raw, errors)
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
    solution = read_solution(data.get("solution"), errors)
    answer = read_answer(data.get("answer"), kind, errors)
    max_tries = data.get("max_tries", 1000)
    if read_int(max_tries, "max_tries", errors, 1, 1_000_000) is None:
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
        if check_name(name, f"{key}.{name}", errors):
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

"""From plain problems (question text + answer) to templates, checked against a supplied solution.

Why: most datasets ship numbers in prose, not templates. :func:`find_constants` reads the
numeric constants of an ABench-style question with their units (skipping subscripts, unit
exponents, indices, years and ordinals); :func:`template_from_plain` replaces the perturbable
ones by placeholders and compiles the supplied solution over them; before any variant is made,
the solution evaluated at the original constants must reproduce the original answer within 1 %,
otherwise the conversion is flagged and refuses to vary. (The tolerance widens to the answer's
written precision when that is coarser: 1.6667 written to two figures is 1.7, 2 % away.) :func:`recompute` is the same
evaluation for one text, used by the audit.

Names: a constant written ``v_{\\mathrm{m}} = 3\\,\\mathrm{cm/s}`` is called ``v_m``; every
constant is also ``c1``, ``c2``, ... in order of appearance. Solutions see SI values.
"""


from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

import sympy

from physeval.answers.written import parse_written_number
from physeval.answers.written import written_precision as _written_precision
from physeval.units import UnitError, unit_to_si

from .engine import Variant, vary_template
from .plain_instruction import Instruction, latex_unit_to_pint, read_instruction
from .plain_reading import Constant, find_constants
from .plain_solution import answer_unit_of, evaluate_si, physical_constants, recompute, solution_parts
from .solution import template_from_dict
from .template import PLACEHOLDER, Template, TemplateError
from .writing import sig_figs_of

__all__ = [
    "Constant",
    "Instruction",
    "PlainConversion",
    "find_constants",
    "read_instruction",
    "latex_unit_to_pint",
    "parse_written_number",
    "recompute",
    "template_from_plain",
]

@dataclass
class PlainConversion:
    """The result of :func:`template_from_plain`: a template, or the reason it was flagged.

    ``ok`` is true only when the solution reproduced the original answer within 1 %.
    """

    ok: bool
    reason: str
    constants: list[Constant]
    template: Template | None = None
    expected: float | None = None
    recomputed: float | None = None
    rel_error: float | None = None
    warnings: list[str] = field(default_factory=list)

    def vary(self, n: int, seed: int = 0) -> list[Variant]:
        """Variants of the converted problem; refuses a flagged conversion."""
        if not self.ok or self.template is None:
            raise ValueError(f"flagged problem cannot be varied: {self.reason}")
        return vary_template(self.template, n, seed)


def _escape(text: str) -> str:
    """Literal text with any accidental ``{{name}}`` broken up so it is not a placeholder."""
    return PLACEHOLDER.sub(lambda m: "{ {" + m.group(1) + "} }", text)


def _resolve(names: Sequence[str] | Mapping[str, Any], constants: Sequence[Constant], option: str) -> dict[str, Any]:
    """Option keys given by name or alias -> the constant's name (ValueError for an unknown key)."""
    by_key = {c.name: c.name for c in constants} | {c.alias: c.name for c in constants}
    items = names.items() if isinstance(names, Mapping) else ((n, None) for n in names)
    out: dict[str, Any] = {}
    for key, value in items:
        if key not in by_key:
            raise ValueError(f"{option}: {key!r} names no constant of the question "
                             f"(found: {', '.join(c.name for c in constants) or 'none'})")
        out[by_key[key]] = value
    return out


def _bounds(raw: Any, where: str) -> tuple[Decimal | None, Decimal | None]:
    """``[low, high]`` (either may be None) as Decimals; ValueError naming ``where``."""
    if not isinstance(raw, (list, tuple)) or len(raw) != 2:
        raise ValueError(f"{where}: expected [low, high] in SI units, got {raw!r}")
    out: list[Decimal | None] = []
    for bound in raw:
        if bound is None:
            out.append(None)
            continue
        try:
            out.append(Decimal(str(bound).strip()))
        except InvalidOperation:
            raise ValueError(f"{where}: {bound!r} is not a number") from None
    low, high = out
    if low is not None and high is not None and not low < high:
        raise ValueError(f"{where}: low {low} must be below high {high}")
    return low, high


def _in_unit(si: Decimal, unit: str) -> Decimal:
    """An SI value expressed in ``unit`` (exact to 28 digits)."""
    scale, offset = unit_to_si(unit)
    return Decimal(str(sympy.N((sympy.Rational(str(si)) - offset) / scale, 28)))


def template_from_plain(
    question: str,
    answer: str,
    solution: str | Sequence[str],
    *,
    template_id: str = "plain_problem",
    perturb: float = 0.3,
    domain: str = "mechanics",
    topic: str = "converted plain problem",
    level: str = "first_year",
    rel_tol: float = 0.01,
    constants: Mapping[str, str] | None = None,
    ranges: Mapping[str, Sequence[Any]] | None = None,
    integers: Sequence[str] = (),
    fixed: Sequence[str] = (),
    continuous: Sequence[str] = (),
    vary_coefficients: Sequence[str] = (),
    answer_unit: str | None = None,
    draws: Mapping[str, Sequence[Any]] | None = None,
) -> PlainConversion:
    """Turn a plain problem into a template and check the solution against the original answer.

    Perturbable constants (quantities and data numbers; not coefficients, not zeros) become
    parameters drawn in value * (1 +/- ``perturb``), written like the original (integers stay
    integers; otherwise the original's significant figures, at least 2). The question's own
    instruction is kept verbatim. Never raises on bad input: a problem that cannot be
    converted, or whose solution misses the original answer by more than ``rel_tol``, comes
    back with ``ok=False`` and the reason.

    Options (absent = the behaviour above):

    * ``constants``: physical constants the question expects but does not state, by name:
      ``{"g": "9.8 m/s^2", "h": "planck_constant"}`` ("VALUE UNIT" or a name of
      :data:`BUILTIN_CONSTANTS`); the solution uses them like the question's constants; never varied.
    * ``ranges``: SI bounds ``{name: [low, high]}`` (either may be None). For a parameter the
      perturbation interval is narrowed to the bounds; for an intermediate step name of the
      solution, or ``answer``, the bounds become constraints of the template (redrawn when broken).
      Bounds that exclude the question's own value are an error.
    * ``integers``: parameters drawn as integers, uniformly within value +/- max(1, perturb * value)
      (and the bounds; positive counts stay at least 1). Their written value must be an integer.
    * ``fixed``: constants of the question kept as written (a stated ``e = 1.6e-19 C`` or ``g``).
    * ``continuous``: integer-written quantities that are not counts (``4 s``), drawn with decimals:
      written with as many significant figures as the integer has digits, at least 2 (``4.3 s``).
    * ``vary_coefficients``: numbers read as formula coefficients that are the problem's data
      (``1.6`` and ``550`` in ``y = 0.03 cos(1.6 pi x) cos(550 pi t)``), perturbed like data numbers.
    * ``answer_unit``: the unit the answer is meant in when the instruction names none (ABench often
      states it in one variant only); ignored when the instruction has a unit.
    * ``draws``: SI intervals ``{name: [low, high]}`` a parameter is drawn from instead of
      value +/- ``perturb`` (the whole seconds 1..10 of "at the end of the 2nd second", where +/- 30 %
      of 2 leaves three integers); the question's own value must lie inside.

    Option keys may be a constant's name or its alias (``c3``).
    """
    found: list[Constant] = []
    try:
        found = find_constants(question)
        instruction = read_instruction(question)
        expected = parse_written_number(answer)
        if expected is None:
            return PlainConversion(False, f"the answer {answer!r} is not a number", found)
        physical = physical_constants(constants, found)
        expr, defs = solution_parts(found, solution, physical)
        unit = answer_unit_of(instruction, answer_unit)
        got = evaluate_si(found, expr, unit, physical)
        draw_of = _resolve(dict(draws or {}), found, "draws")
        range_of = _resolve({k: v for k, v in (ranges or {}).items() if k not in defs and k != "answer"},
                            found, "ranges")
        derived_ranges = {k: v for k, v in (ranges or {}).items() if k in defs or k == "answer"}
        integer_names = set(_resolve(list(integers), found, "integers"))
        fixed_names = set(_resolve(list(fixed), found, "fixed"))
        continuous_names = set(_resolve(list(continuous), found, "continuous"))
        data_coefficients = set(_resolve(list(vary_coefficients), found, "vary_coefficients"))
    except (ValueError, TypeError, UnitError, ZeroDivisionError) as exc:
        return PlainConversion(False, f"cannot evaluate the solution: {exc}", found)
    rel = float(abs(got - expected) / abs(expected)) if expected != 0 else float(abs(got))
    if rel > max(rel_tol, _written_precision(answer, expected)):
        return PlainConversion(
            False,
            f"the solution gives {float(got):.6g} at the original constants but the answer is {answer.strip()} "
            f"(relative error {rel:.2%} > {rel_tol:.0%} and beyond the answer's written precision)",
            found, expected=float(expected), recomputed=float(got), rel_error=rel,
        )
    used = {s.name for s in expr.free_symbols}
    params: dict[str, Any] = {}
    consts: dict[str, Any] = {}
    pieces: list[str] = []
    pos = 0
    body_end = instruction.start if instruction else len(question)

    def flagged(reason: str) -> PlainConversion:
        return PlainConversion(False, reason, found, expected=float(expected), recomputed=float(got), rel_error=rel)

    unused = sorted((set(range_of) | integer_names | fixed_names | continuous_names | data_coefficients) - used)
    if unused:
        return flagged(f"option names {', '.join(unused)}, which the solution does not use")
    if integer_names & continuous_names:
        return flagged(f"{', '.join(sorted(integer_names & continuous_names))}: both integers and continuous")
    for c in found:
        perturbable = c.perturbable or (c.name in data_coefficients and c.value != 0)
        if perturbable and c.name in used and c.name not in fixed_names:
            pieces.append(_escape(question[pos : c.start]))
            pieces.append("{{" + c.name + "}}")
            pos = c.end
            spec: dict[str, Any] = {"value": str(c.value), "unit": c.unit, "perturb": str(perturb)}
            integer = not c.scientific and "." not in c.text and c.value == c.value.to_integral_value()
            if c.name in integer_names:
                if c.value != c.value.to_integral_value():
                    return flagged(f"integers: {c.name} is written {c.text}, not an integer")
                integer = True
            if integer and c.name in continuous_names:
                spec["sig_figs"] = max(len(str(abs(int(c.value)))), 2)
                spec["scientific"] = False
            elif integer:
                spec["decimals"] = 0
                spec["value"] = str(int(c.value))
            else:
                spec["sig_figs"] = max(c.sig_figs, 2)
                spec["scientific"] = c.scientific
            if c.name in range_of or c.name in integer_names or c.name in draw_of:
                value = Decimal(spec["value"])
                width = abs(value) * Decimal(str(perturb))
                if c.name in integer_names:
                    width = max(Decimal(1), width.to_integral_value())
                low, high = value - width, value + width
                if c.name in draw_of:
                    try:
                        d_low, d_high = _bounds(draw_of[c.name], f"draws.{c.name}")
                    except ValueError as exc:
                        return flagged(str(exc))
                    if d_low is None or d_high is None:
                        return flagged(f"draws.{c.name}: both bounds are needed")
                    low, high = sorted((_in_unit(d_low, c.unit), _in_unit(d_high, c.unit)))
                    if not low <= value <= high:
                        return flagged(f"draws.{c.name}: the question's own value {c.text} {c.unit} lies outside "
                                       f"{list(draw_of[c.name])} (SI)")
                if c.name in integer_names and value > 0:
                    low = max(low, Decimal(1))
                if c.name in range_of:
                    try:
                        si_low, si_high = _bounds(range_of[c.name], f"ranges.{c.name}")
                    except ValueError as exc:
                        return flagged(str(exc))
                    lo = _in_unit(si_low, c.unit) if si_low is not None else None
                    hi = _in_unit(si_high, c.unit) if si_high is not None else None
                    if unit_to_si(c.unit)[0] < 0:
                        lo, hi = hi, lo
                    if (lo is not None and value < lo * (1 - Decimal("1e-20"))) or \
                            (hi is not None and value > hi * (1 + Decimal("1e-20"))):
                        return flagged(f"ranges.{c.name}: the question's own value {c.text} {c.unit} lies outside "
                                       f"{list(range_of[c.name])} (SI)")
                    low = max(low, min(lo, value)) if lo is not None else low
                    high = min(high, max(hi, value)) if hi is not None else high
                if c.name in integer_names:
                    low, high = Decimal(math.ceil(low)), Decimal(math.floor(high))
                del spec["perturb"]
                if low < high:
                    spec["range"] = [str(low), str(high)]
                else:
                    spec["fixed"] = True
            params[c.name] = spec
        elif c.name in used:
            consts[c.name] = {"value": str(c.value), "unit": c.unit}
    for f in physical:
        if f.name in used:
            consts[f.name] = f.builtin or {"value": str(f.value), "unit": f.unit}
    constraints: list[str] = []
    for name, raw in derived_ranges.items():
        try:
            range_low, range_high = _bounds(raw, f"ranges.{name}")
        except ValueError as exc:
            return flagged(str(exc))
        target = "answer" if name == "answer" and name not in defs else f"({sympy.sstr(defs[name])})"
        constraints += [f"{target} >= {range_low}"] if range_low is not None else []
        constraints += [f"{target} <= {range_high}"] if range_high is not None else []
    pieces.append(_escape(question[pos:body_end]))
    text = "".join(pieces).strip()
    data = {
        "id": template_id, "kind": "numeric", "domain": domain, "topic": topic, "level": level,
        "text": text, "parameters": params, "constants": consts, "constraints": constraints,
        "solution": sympy.sstr(expr),
        "answer": {
            "unit": unit,
            "sig_figs": instruction.sig_figs if instruction and instruction.sig_figs
            else max(sig_figs_of(answer.strip().split("\\")[0]), 1),
            "scientific": bool(instruction.scientific) if instruction else False,
            **({"unit_latex": instruction.unit_latex} if instruction and instruction.unit_latex else {}),
        },
        "instruction": instruction.text if instruction else "",
    }
    warnings: list[str] = []
    try:
        template = template_from_dict(data, strict_dimensions=False)
    except TemplateError as exc:
        return flagged(f"cannot build a template: {exc}")
    if template.compiled is not None and getattr(template.compiled, "warnings", None):
        warnings.extend(template.compiled.warnings)
    if not any(p.varies for p in template.parameters):
        warnings.append("no perturbable constant is used by the solution; only variant 0 exists")
    return PlainConversion(True, "solution reproduces the original answer", found, template,
                           expected=float(expected), recomputed=float(got), rel_error=rel, warnings=warnings)

"""The variation engine: ``vary(template, n, seed)`` -> variants with exactly recomputed answers.

Why: a dynamic problem is only a fair test if every variant's answer is right. Variant 0 uses
the template's canonical values; variant ``i >= 1`` draws its parameters from a stream keyed by
``(seed, template id, i)`` (see :mod:`.sampling`), rejects draws that break a constraint, give a
non-real/zero/infinite answer, or repeat an earlier variant of the same call, and writes the
answer rounded only at the end. The same seed gives the same variants in every process and on
every machine, and ``vary(t, 4, s)`` is a prefix of ``vary(t, 1000, s)``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any

import mpmath
import sympy

from physeval.units import format_dimension, parse_dimension

from ..problems import Problem
from .precision import exclusive, working_digits
from .sampling import SamplingError, UniformStream, derive_key, sample_parameter
from .solution import EVAL_DPS, CompiledTemplate, _check, _evaluate, check_values, exact_answer, mpf_to_decimal  # noqa: F401  (the checks live with the compiled template)
from .template import PLACEHOLDER, Template
from .writing import abench_suffix, round_sig, write_figures

__all__ = ["Variant", "vary_template", "make_variant", "check_values", "SamplingError"]

_TIE_EPS = Decimal("1e-30")


@dataclass(frozen=True)
class Variant:
    """One generated problem.

    Attributes:
        template_id: The template's id.
        index: 0 for the canonical values, 1.. for perturbed ones.
        kind: ``numeric`` or ``symbolic``.
        question: The full question text (numeric: ends with the ABench instruction).
        answer: The written answer: a rounded number (``2.9 \\times 10^{-11}``) or LaTeX.
        value: Numeric: the answer in the answer's unit to 12 significant digits, for checks and
            audits (when the float fast path computed it, its last digit may differ between
            platforms' math libraries; the written ``answer`` never does); symbolic: a SymPy string.
        params: Each parameter's written value.
        meta: domain, topic, level and the answer's format (unit, sig_figs, ...).
    """

    template_id: str
    index: int
    kind: str
    question: str
    answer: str
    value: str
    params: dict[str, str] = field(default_factory=dict)
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return asdict(self)

    def to_problem(self) -> Problem:
        """This variant as a :class:`physeval.problems.Problem` (id = template id)."""
        return Problem(id=self.template_id, question=self.question, answer=self.answer,
                       variant=str(self.index), meta=dict(self.meta))


@lru_cache(maxsize=512)
def _text_parts(text: str) -> tuple[str, ...]:
    return tuple(PLACEHOLDER.split(text))  # even: literal text, odd: parameter name


def _render(text: str, written: dict[str, str]) -> str:
    parts = _text_parts(text)
    return "".join(part if i % 2 == 0 else written[part] for i, part in enumerate(parts))


def _meta(template: Template) -> dict[str, Any]:
    meta: dict[str, Any] = {"domain": template.domain, "topic": template.topic, "level": template.level,
                            "language": "en", "template": template.id}
    if template.kind == "numeric":
        meta.update(unit=template.answer.unit, unit_latex=template.answer.unit_latex,
                    sig_figs=template.answer.sig_figs, scientific=template.answer.scientific)
    else:
        meta["dimensions"] = {s.name: s.dimension for s in template.symbols}
        meta["dimensions_base"] = {s.name: format_dimension(parse_dimension(s.dimension)) for s in template.symbols}
        meta["symbols_latex"] = {s.name: s.latex for s in template.symbols if s.latex}
        meta["answer_dimension"] = format_dimension(parse_dimension(template.answer.dimension))
    return meta


USE_FLOAT_FAST_PATH = True
"""Tests switch this off to check that the float fast path writes exactly what mpmath writes."""
_FLOAT_TIE = 1e-10  # a float this close (relative) to a rounding tie is recomputed with mpmath
VALUE_DIGITS = 12
"""Significant digits of ``Variant.value`` (informational; the written answer is what is graded)."""
_FLOAT_EDGE = 1e-9  # a float constraint margin this close to 0 (relative) is re-decided with mpmath
_FLOAT_AGREE = 1e-11  # float and mpmath must agree this well on sample variants to use floats at all


def _float_safe_written(number: float, spec: Any) -> tuple[str, str] | None:
    """The written answer from a float, or None when the float is too close to a rounding tie."""
    if not math.isfinite(number) or number == 0:
        return None
    scaled = abs(number) / 10.0 ** (math.floor(math.log10(abs(number))) - spec.sig_figs + 1)
    if abs((scaled - math.floor(scaled)) - 0.5) < _FLOAT_TIE * scaled:
        return None
    exact = Decimal(repr(number))
    written = write_figures(exact, spec.sig_figs, spec.scientific)
    return written, format(round_sig(exact, VALUE_DIGITS), "E")


def _check_float(template: Template, compiled: CompiledTemplate,
                 values: Sequence[Decimal]) -> tuple[bool, str | None, Any]:
    """(decided, reason, float answer) from the float fast path; undecided -> ask mpmath."""
    if compiled.evaluate_float is None:  # no float evaluator: undecided, as calling None would be
        return False, None, None
    try:
        out = compiled.evaluate_float(*[float(v) for v in values])
    except (ValueError, ZeroDivisionError, OverflowError, TypeError, NameError):
        return False, None, None  # NameError: a function the math module lacks (harmonic): ask mpmath
    value = out[0]
    if template.kind == "numeric" and (not isinstance(value, float) or not math.isfinite(value) or value == 0):
        return False, None, None
    for i, text in enumerate(compiled.constraints):
        margin, scale = out[1 + 2 * i], out[2 + 2 * i]
        if abs(margin) <= _FLOAT_EDGE * (abs(scale) + 1e-300):
            return False, None, None
        if margin < 0:
            return True, f"constraint {text!r} violated", None
    return True, None, value


def _float_path_ok(template: Template, compiled: CompiledTemplate) -> bool:
    """Decide once per template whether floats agree with mpmath on sample variants (thread-safe)."""
    if compiled.float_ok is None:
        with compiled.float_ok_lock:
            if compiled.float_ok is None:
                agree = compiled.evaluate_float is not None and _floats_agree(template, compiled)
                compiled.float_ok = agree
    return compiled.float_ok


def _floats_agree(template: Template, compiled: CompiledTemplate) -> bool:
    samples = [tuple(p.value for p in template.parameters)]
    stream = UniformStream(derive_key(0, template.id + "#float-check", 0))
    for _ in range(200):
        if len(samples) >= 17:
            break
        drawn = [sample_parameter(p, stream) for p in template.parameters]
        if all(v is not None for v in drawn):
            samples.append(tuple(drawn))  # type: ignore[arg-type]
    for values in samples:
        reason, precise = _check(template, compiled, values)
        decided, fast_reason, fast = _check_float(template, compiled, values)
        if not decided:
            continue
        if (reason is None) != (fast_reason is None):
            return False
        if reason is None and template.kind == "numeric":
            if abs(fast - float(precise)) > _FLOAT_AGREE * abs(float(precise)):
                return False
    return True


def _write_numeric(template: Template, compiled: CompiledTemplate, values: Sequence[Decimal],
                   number: Any = None) -> tuple[str, str]:
    spec = template.answer
    if isinstance(number, float) and USE_FLOAT_FAST_PATH:
        fast = _float_safe_written(number, spec)
        if fast is not None:
            return fast
        number = None
    with working_digits(EVAL_DPS):
        if number is None:
            out, err = _evaluate(compiled, values)
            if out is None or not isinstance(out[0], mpmath.mpf):
                raise ValueError(f"template {template.id}: cannot evaluate the answer at {list(values)}: {err or out}")
            number = out[0]
        exact = mpf_to_decimal(number)
    # settle a value within 1e-30 of a rounding tie with exact SymPy arithmetic
    shift = exact.adjusted() - spec.sig_figs + 1
    scaled = abs(exact.scaleb(-shift))
    if abs((scaled - int(scaled)) - Decimal("0.5")) < _TIE_EPS * scaled:
        number = exact_answer(compiled, values)
        if number.is_Rational:
            exact = Decimal(int(number.p)) / Decimal(int(number.q))
        else:
            exact = Decimal(str(sympy.N(number, 80)))
    written = write_figures(exact, spec.sig_figs, spec.scientific)
    return written, format(round_sig(exact, VALUE_DIGITS), "E")


_SYMBOLIC_CACHE: dict[tuple[str, tuple[Decimal, ...]], tuple[str, str]] = {}


def _write_symbolic(template: Template, compiled: CompiledTemplate, values: Sequence[Decimal]) -> tuple[str, str]:
    key = (template.id + "|" + str(id(compiled)), tuple(values))
    hit = _SYMBOLIC_CACHE.get(key)
    if hit is not None:
        return hit
    expr = exact_answer(compiled, values)
    if template.answer.simplify:
        expr = sympy.simplify(expr)
    latex = sympy.latex(expr, symbol_names=compiled.symbol_latex, ln_notation=True)
    result = (latex, str(expr))
    if len(_SYMBOLIC_CACHE) > 20000:
        _SYMBOLIC_CACHE.clear()
    _SYMBOLIC_CACHE[key] = result
    return result


@exclusive
def make_variant(template: Template, index: int, values: Sequence[Decimal], *, meta: dict[str, Any] | None = None,
                 number: Any = None) -> Variant:
    """The variant of ``template`` with parameter ``values`` (declared order, as written).

    ``number`` is the already evaluated answer (an mpmath number), to avoid a second evaluation.
    """
    compiled: CompiledTemplate = template.compiled
    written = {p.name: p.write(v) for p, v in zip(template.parameters, values)}
    text = _render(template.text, written)
    if template.kind == "numeric":
        spec = template.answer
        suffix = template.instruction or abench_suffix(spec.unit_latex, spec.sig_figs, spec.scientific)
        question = f"{text} {suffix}"
        answer, value = _write_numeric(template, compiled, values, number)
    else:
        question = text
        answer, value = _write_symbolic(template, compiled, values)
    return Variant(template_id=template.id, index=index, kind=template.kind, question=question,
                   answer=answer, value=value, params=written, meta=dict(meta if meta is not None else _meta(template)))


def vary_template(template: Template, n: int, seed: int = 0) -> list[Variant]:
    """``n`` variants of ``template`` for ``seed`` (:func:`physeval.variation.vary` also takes a bank id or a path).

    Raises :class:`SamplingError` when a variant cannot be drawn within ``template.max_tries``
    attempts (constraints too tight, or fewer distinct parameter sets than asked for), with the
    most frequent rejection reasons; ``ValueError`` when ``n < 1``. Thread-safe: the template is
    resolved (and loaded) first, then its variants are made holding the precision lock.
    """
    return _vary(template, n, seed)


@exclusive
def _vary(tpl: Template, n: int, seed: int) -> list[Variant]:
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if n > 1 and not tpl.varying:
        raise SamplingError(f"template {tpl.id}: no parameter varies, so only variant 0 exists (asked for {n})")
    meta = _meta(tpl)
    canonical = tuple(p.value for p in tpl.parameters)
    variants = [make_variant(tpl, 0, canonical, meta=meta)]
    seen = {canonical}
    for index in range(1, n):
        values, number = _draw(tpl, seed, index, seen)
        seen.add(values)
        variants.append(make_variant(tpl, index, values, meta=meta, number=number))
    return variants


def _draw(tpl: Template, seed: int, index: int, seen: set[tuple[Decimal, ...]]) -> tuple[tuple[Decimal, ...], Any]:
    stream = UniformStream(derive_key(seed, tpl.id, index))
    reasons: Counter[str] = Counter()
    fast = USE_FLOAT_FAST_PATH and _float_path_ok(tpl, tpl.compiled)
    for _ in range(tpl.max_tries):
        drawn = [sample_parameter(p, stream) for p in tpl.parameters]
        if any(v is None for v in drawn):
            reasons["a rounded draw fell outside its range"] += 1
            continue
        values = tuple(v for v in drawn if v is not None)  # none is None here; this narrows the type
        if values in seen:
            reasons["repeats an earlier variant"] += 1
            continue
        decided = False
        if fast:
            decided, reason, number = _check_float(tpl, tpl.compiled, values)
        if not decided:
            reason, number = _check(tpl, tpl.compiled, values)
        if reason is not None:
            reasons[reason] += 1
            continue
        return values, number
    common = "; ".join(f"{r} ({k}x)" for r, k in reasons.most_common(3))
    raise SamplingError(
        f"template {tpl.id}: no valid new parameter set for variant {index} (seed {seed}) in "
        f"{tpl.max_tries} tries; most common rejections: {common}"
    )

"""Grade a response that should end in one physical quantity (ABench-Physics style).

The default grader does the physics right: it extracts the final answer, reads it as an exact
number with an optional unit, converts that unit into the reference's unit with pint
(km/s and m/s, eV and J, degC and K with offsets), and accepts iff
``|y_hat - y*| <= rel_tol * |y*|`` (a reference of exactly 0 needs an exact 0), in exact
rational arithmetic. Whether the asked significant figures and scientific notation were
respected is reported as information; ``strict_format=True`` makes them count.

``compat="abench"`` instead reproduces the official ABench evaluator's verdicts (see
:mod:`physeval.grading.compat.abench`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from physeval.answers.extract import extract_final_answer
from physeval.answers.quantity import AMBIGUOUS, NO_ANSWER, TOO_LARGE, ParsedQuantity, parse_quantity, sig_fig_range
from physeval.answers.units import required_format, required_is_percent
from physeval.grading._never_raise import check_box, never_raises
from physeval.grading.grades import NumericGrade
from physeval.problems import Outcome
from physeval.units import PERCENT_KEY, Unit, read_unit, unit_conversion

__all__ = ["NumericGrade", "grade_numeric", "COMPAT_MODES"]

COMPAT_MODES = (None, "abench")


_FIELDS = dataclasses.fields(NumericGrade)
assert not any(hasattr(cls, "__post_init__") for cls in NumericGrade.__mro__) and all(
    f.default_factory is dataclasses.MISSING and f.default is not dataclasses.MISSING
    for f in _FIELDS if f.name not in ("correct", "outcome", "reason")), "update _grade"
_DEFAULTS = {f.name: f.default for f in _FIELDS if f.name not in ("correct", "outcome", "reason")}


def _grade(correct: bool, outcome: str, reason: str, fields: dict[str, Any]) -> NumericGrade:
    """``NumericGrade(correct, outcome, reason, **fields)``, without the frozen dataclass's per-field ``__setattr__``.

    The same object (every field set, defaults for the rest; a field name that does not exist
    raises ``TypeError`` as the constructor would) in a fifth of the time, which matters to a
    grader that takes a few microseconds in all. The import-time assertion above stops this
    shortcut from silently skipping a ``__post_init__`` or a ``default_factory`` added later.
    """
    unknown = fields.keys() - _DEFAULTS.keys()
    if unknown:
        raise TypeError(f"NumericGrade has no field(s) {sorted(unknown)}")
    grade = object.__new__(NumericGrade)
    state = grade.__dict__
    state.update(_DEFAULTS)
    state.update(fields)
    state["correct"], state["outcome"], state["reason"] = correct, outcome, reason
    return grade


@lru_cache(maxsize=8192)
def _reference(reference: str) -> ParsedQuantity:
    return parse_quantity(reference)


@lru_cache(maxsize=256)
def _tolerance(rel_tol: float) -> Fraction:
    return Fraction(repr(float(rel_tol)))


def _within(pred: Fraction, ref: Fraction, tol: Fraction) -> bool:
    """``|pred - ref| <= tol * |ref|`` exactly, in integers (no Fraction arithmetic on the hot path)."""
    if ref == 0:
        return pred == 0
    p_n, p_d, r_n, r_d = pred.numerator, pred.denominator, ref.numerator, ref.denominator
    # |p_n/p_d - r_n/r_d| <= t_n/t_d * |r_n|/r_d  <=>  |p_n*r_d - r_n*p_d| * t_d <= t_n * |r_n| * p_d
    return abs(p_n * r_d - r_n * p_d) * tol.denominator <= tol.numerator * abs(r_n) * p_d


def _rel_error(pred: Fraction, ref: Fraction) -> float | None:
    if ref == 0:
        return None if pred != 0 else 0.0
    # float(Fraction(a, b)) is a / b correctly rounded, reduced or not: the same float as before
    p_n, p_d, r_n, r_d = pred.numerator, pred.denominator, ref.numerator, ref.denominator
    return abs(p_n * r_d - r_n * p_d) / (abs(r_n) * p_d)


def _is_percent(unit: Unit | None) -> bool:
    return unit is not None and unit.key == PERCENT_KEY


def _format_checks(q: ParsedQuantity, sig_figs: int | None, scientific: bool) -> tuple[bool | None, bool | None]:
    sig_ok: bool | None = None
    if sig_figs is not None and q.mantissa is not None:
        lo, hi = sig_fig_range(q.mantissa)
        sig_ok = lo <= sig_figs <= hi
    sci_ok: bool | None = None
    if scientific:
        if q.scientific:
            sci_ok = True
        elif q.value is not None and q.form != "symbolic":
            sci_ok = 1 <= abs(q.value) < 10  # x * 10^0 needs no written power
        else:
            sci_ok = False
    return sig_ok, sci_ok


def _numeric_error(reason: str, *_args: Any, compat: str | None = None, **_kwargs: Any) -> NumericGrade:
    return NumericGrade(False, Outcome.ERROR, reason, compat=compat)


def _check_compat(compat: object) -> None:
    if compat not in COMPAT_MODES:
        raise ValueError(f"compat must be one of {COMPAT_MODES}, not {compat!r}")


@never_raises(_numeric_error, options={"compat": _check_compat, "box": check_box})
def grade_numeric(
    response: str,
    reference: str,
    question: str = "",
    *,
    rel_tol: float = 0.01,
    compat: str | None = None,
    strict_format: bool = False,
    box: str = "last",
    unit: str | None = None,
) -> NumericGrade:
    """Grade ``response`` against the numeric ``reference`` of ``question``.

    Args:
        response: The model's response (reasoning in ``<think>`` is ignored).
        reference: The reference answer as the dataset writes it (``"1.4 \\times 10^{-2}"``).
        question: The question; its closing instruction gives the required unit, significant
            figures and scientific-notation demand. An answer without a unit is read in the
            required unit (or, if none is stated, in the reference's own unit).
        rel_tol: Relative tolerance of the accept test.
        compat: ``None`` for physeval's grader, ``"abench"`` for the official evaluator's verdicts.
        strict_format: Make the significant-figure and scientific-notation demands count.
        box: ``"last"`` or ``"first"`` ``\\boxed{}`` wins when there are several.
        unit: The required unit given explicitly (a dataset's ``unit`` field, a reward's ``unit``
            column); it wins over the unit the question states.

    Returns:
        The grade, a :class:`NumericGrade`. Grading never raises on any input: an internal
            failure is a grade with outcome ``error`` whose reason names the exception. An
            unknown ``compat`` or ``box`` option raises ``ValueError`` (a programming error,
            checked before grading).
    """
    if compat == "abench":
        from physeval.grading.compat.abench import grade_abench_compat

        return grade_abench_compat(response, reference, question, rel_tol=rel_tol)
    if compat is not None:
        raise ValueError(f"compat must be one of {COMPAT_MODES}, not {compat!r}")
    fmt = required_format(question or "")
    if unit is not None and str(unit).strip():
        fmt = replace(fmt, unit=str(unit).strip())
    base: dict[str, Any] = {
        "unit_required": fmt.unit,
        "sig_figs_required": fmt.sig_figs,
        "scientific_required": fmt.scientific,
    }
    ref = _reference(str(reference))
    if not ref.ok or ref.value is None:
        return _grade(False, Outcome.ERROR, f"reference {_shown(reference)} is not a number: {ref.reason}", base)
    ref_value = ref.value
    # The required unit is read only when a unit is written (in the reference or the answer); a
    # bare number needs only to know whether the required unit is percent.
    target: Unit | None = None
    resolved = False
    ref_unit = read_unit(ref.unit_text) if ref.unit_text else None
    if ref_unit is not None:
        target, resolved = fmt.target_unit, True
        if target is None:
            target = ref_unit
        elif ref_unit != target:
            conv = unit_conversion(ref_unit, target)
            if conv is not None:
                ref_value = conv.apply(ref_value)
    base["reference_value"] = float(ref_value)

    extraction = extract_final_answer(response or "", box=box)  # type: ignore[arg-type]
    base["extraction_rule"] = extraction.rule
    if extraction.text is None:
        return _grade(False, Outcome.NO_ANSWER, "no \\boxed{} answer or final-answer line", base)
    q = parse_quantity(extraction.text)
    base["extracted"] = extraction.text
    if not q.ok or q.value is None:
        outcome = {NO_ANSWER: Outcome.NO_ANSWER, AMBIGUOUS: Outcome.AMBIGUOUS, TOO_LARGE: TOO_LARGE}.get(
            q.status, Outcome.UNPARSEABLE)
        return _grade(False, outcome, q.reason, base)
    base["unit_given"] = q.unit_text
    sig_ok, sci_ok = _format_checks(q, fmt.sig_figs, fmt.scientific)
    base["sig_figs_ok"], base["scientific_ok"] = sig_ok, sci_ok

    given = read_unit(q.unit_text) if q.unit_text and q.unit_known else None
    if given is not None and not resolved:
        target, resolved = fmt.target_unit, True
    notes: list[str] = []
    candidates: list[Fraction] = []
    percent_second = False
    if given is not None and target is not None:
        conv = unit_conversion(given, target)
        if conv is None:
            return _grade(
                False,
                Outcome.DIMENSION_MISMATCH,
                f"answer unit {given.short} does not convert to required unit {target.short}",
                base,
            )
        candidates.append(conv.apply(q.value))
        if given != target:
            notes.append(f"converted {given.short} -> {target.short}")
    elif given is not None:
        if _is_percent(given):
            candidates += [q.value / 100, q.value]  # 50 % against 0.5, or against a bare 50
            notes.append("percent read as a fraction or as written")
        else:
            candidates.append(q.value)
            notes.append(f"unit {given.short} kept: the question states no unit to convert to")
    else:
        candidates.append(q.value)
        percent_second = True  # 0.1 against 10 %: a second candidate, looked at only if the first misses
        if q.unit_text and not q.unit_known:
            notes.append(f"words {q.unit_text!r} after the number ignored")
    tol = _tolerance(rel_tol)
    hit = next((c for c in candidates if _within(c, ref_value, tol)), None)
    if hit is None and percent_second and (
            _is_percent(target) if resolved else (fmt.unit is not None and required_is_percent(fmt.unit))):
        candidates.append(q.value * 100)
        hit = candidates[-1] if _within(candidates[-1], ref_value, tol) else None
    predicted = hit if hit is not None else candidates[0]
    base["predicted"] = float(predicted)
    base["relative_error"] = _rel_error(predicted, ref_value)
    note = ("; " + "; ".join(notes)) if notes else ""
    if hit is None:
        err = base["relative_error"]
        detail = f"relative error {err:.3g}" if err is not None else "reference is 0, answer is not"
        return _grade(False, Outcome.WRONG,
                      f"{float(predicted):.6g} vs {float(ref_value):.6g}: {detail} > {rel_tol:g}{note}", base)
    if strict_format and (sig_ok is False or sci_ok is False):
        problems = []
        if sig_ok is False:
            problems.append(f"{fmt.sig_figs} significant figures required, {q.mantissa!r} written")
        if sci_ok is False:
            problems.append("scientific notation required")
        return _grade(False, Outcome.WRONG,
                      "value within tolerance but format wrong: " + "; ".join(problems) + note, base)
    return _grade(True, Outcome.CORRECT, f"within {rel_tol:g} relative tolerance{note}", base)


def _shown(text: object, limit: int = 200) -> str:
    """``repr(text)``, cut to ``limit`` characters with the length named: a reason stays one line."""
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}... ({len(str(text))} characters)"

"""The audit of a family of released variants without a solution: scaling and power-law consistency.

When a variant's changed constants amount to a pure change of units, the answer must scale by the
matching power (``scaling_violation``); the answers are fitted as a product of powers of the
changed constants, and a law that fits all variants but one names the outlier
(``power_law_outlier``; ``no_power_law`` when none fits). Smaller checks: unparseable answers,
equal constants with different answers, changing significant-figure instructions.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from decimal import Decimal

import numpy as np

from physeval.answers.written import parse_written_number
from physeval.units import unit_dimension

from ..problems import Problem
from .audit_finding import Finding
from .plain import Constant, find_constants, read_instruction

__all__ = ["audit_family"]

_BASE = ("length", "mass", "time", "current", "temperature", "substance", "luminosity")


_SIMPLE_EXPONENTS = sorted(
    {0.0}
    | {s * v for s in (1, -1) for v in (0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0, 4 / 3, 1.5, 2.0, 2.5, 3.0, 4.0)}
)


_CORE_EXPONENTS = [-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0]


def _half_ulp(answer: str, value: Decimal) -> float:
    """Relative half-unit of the last written digit of ``answer`` (its rounding uncertainty)."""
    text = answer.strip().split("\\")[0].strip().lstrip("+-")
    mantissa = Decimal(text) if text and text.replace(".", "", 1).isdigit() else value
    exponent = mantissa.as_tuple().exponent
    if not isinstance(exponent, int) or mantissa == 0:
        return 1e-12
    ulp = float(Decimal(1).scaleb(exponent)) * (float(abs(value)) / float(abs(mantissa)))
    return 0.5 * ulp / float(abs(value))


def _dim_vector(unit: str) -> np.ndarray:
    vec = np.zeros(len(_BASE))
    for name, exp in unit_dimension(unit):
        if name in _BASE:
            vec[_BASE.index(name)] = float(exp)
    return vec


def audit_family(problem_id: str, members: Sequence[Problem]) -> list[Finding]:
    """Consistency checks of one family of variants (variant ``"0"`` is the reference)."""
    ordered = sorted(members, key=lambda p: (0, int(p.variant)) if p.variant.isdigit() else (1, p.variant))
    if len(ordered) < 2 or ordered[0].variant != "0":
        return []
    findings: list[Finding] = []
    answers: list[Decimal] = []
    for p in ordered:
        value = parse_written_number(p.answer)
        if value is None:
            findings.append(Finding(problem_id, p.variant, "unparseable_answer", "low",
                                    f"the stated answer {p.answer!r} is not a number", {"answer": p.answer}))
            return findings
        answers.append(value)
    instructions = [read_instruction(p.question) for p in ordered]
    figs = [i.sig_figs if i else None for i in instructions]
    if len(set(figs)) > 1:
        odd = [p.variant for p, f in zip(ordered, figs) if f != figs[0]]
        findings.append(Finding(problem_id, ",".join(odd), "format_inconsistent", "low",
                                f"the required significant figures change within the family: {figs}",
                                {"sig_figs": dict(zip([p.variant for p in ordered], figs))}))
    consts = [find_constants(p.question) for p in ordered]
    shape = [(c.unit) for c in consts[0]]
    if any([(c.unit) for c in cs] != shape for cs in consts[1:]):
        findings.append(Finding(problem_id, None, "structure_mismatch", "low",
                                "variants do not state the same constants in the same order; family not checked",
                                {"counts": [len(cs) for cs in consts]}))
        return findings
    base = consts[0]
    y0 = answers[0]
    if y0 == 0 or any(a == 0 for a in answers) or any((a > 0) != (y0 > 0) for a in answers):
        return findings  # ratios undefined; nothing more to say without a solution
    changed: list[list[int]] = []
    logs: list[np.ndarray] = []
    for cs in consts[1:]:
        idx = [j for j, (a, b) in enumerate(zip(base, cs)) if a.value != b.value]
        if any(base[j].value == 0 or (cs[j].value > 0) != (base[j].value > 0) for j in idx):
            return findings
        changed.append(idx)
        logs.append(np.array([math.log(float(cs[j].value / base[j].value)) if j in idx else 0.0
                              for j in range(len(base))]))
    # each answer's tolerance: its written precision (x1.5 for rounded intermediates), at least
    # 0.25 % so a pair differs by >= 0.5 % before it is reported (graders accept 1 %)
    tol = [max(1.5 * _half_ulp(p.answer, a), 0.0025) for p, a in zip(ordered, answers)]
    ratios = [math.log(float(a / y0)) for a in answers[1:]]
    masked = [_masked(p.question, cs) for p, cs in zip(ordered, consts)]
    for k, (p, idx) in enumerate(zip(ordered[1:], changed)):
        if not idx and abs(ratios[k]) > tol[0] + tol[k + 1]:
            same_text = masked[k + 1] == masked[0]
            findings.append(Finding(
                problem_id, p.variant, "same_constants_different_answer", "high" if same_text else "low",
                f"variant {p.variant} states the same constants as variant 0 but answers {p.answer.strip()} "
                f"instead of {ordered[0].answer.strip()}"
                + ("" if same_text else " (its wording differs, which may explain it)"),
                {"same_text": same_text},
            ))
    findings.extend(_scaling_check(problem_id, ordered, base, logs, ratios, tol, answers))
    findings.extend(_power_law_check(problem_id, ordered, consts, changed, answers, tol))
    return findings


def _masked(question: str, constants: Sequence[Constant]) -> str:
    out, pos = [], 0
    for c in constants:
        out.append(question[pos : c.start])
        out.append("#")
        pos = c.end
    out.append(question[pos:])
    return "".join(out)


def _scaling_check(problem_id: str, ordered: Sequence[Problem], base: Sequence[Constant], logs: Sequence[np.ndarray],
                   ratios: Sequence[float], tol: Sequence[float], answers: Sequence[Decimal]) -> list[Finding]:
    """A variant whose changes amount to a change of units must rescale the answer accordingly."""
    if not base or any(not c.unit and c.value != 0 for c in base):
        return []  # a constant of unknown dimension could absorb any rescaling
    instruction = read_instruction(ordered[0].question)
    answer_dim = _dim_vector(instruction.unit if instruction else "")
    keep = [j for j, c in enumerate(base) if c.value != 0]
    dims = np.array([_dim_vector(base[j].unit) for j in keep])
    findings = []
    for k, (p, full_log) in enumerate(zip(ordered[1:], logs)):
        log_r = full_log[keep]
        if not log_r.any():
            continue
        # Is the change a pure change of units?  dims @ log_lambda = log_r must be solvable ...
        sol, *_ = np.linalg.lstsq(dims, log_r, rcond=None)
        if np.max(np.abs(dims @ sol - log_r)) > 1e-9:
            continue
        # ... and the answer's scaling determined (answer_dim in the row space of dims).
        coef, *_ = np.linalg.lstsq(dims.T, answer_dim, rcond=None)
        if np.max(np.abs(dims.T @ coef - answer_dim)) > 1e-9:
            continue
        predicted = float(answer_dim @ sol)
        gap = ratios[k] - predicted
        if abs(gap) > tol[0] + tol[k + 1]:
            expected = float(answers[0]) * math.exp(predicted)
            findings.append(Finding(
                problem_id, p.variant, "scaling_violation", "medium",
                f"variant {p.variant} changes its constants only as a change of units would, so its answer "
                f"should be {expected:.6g} (scaled from variant 0), but it states {p.answer.strip()} "
                f"({abs(math.expm1(gap)):.2%} off); suspect unless the answer depends on a constant the "
                f"text does not state (g, c, h, a molar mass, ...)",
                {"stated": float(answers[k + 1]), "expected_by_scaling": expected,
                 "answer_ratio": math.exp(ratios[k]), "predicted_ratio": math.exp(predicted),
                 "changed": {base[j].name: [float(base[j].value), float(base[j].value) * math.exp(full_log[j])]
                             for j in range(len(base)) if full_log[j]}},
            ))
    return findings


def _fits(residuals: np.ndarray, tol: np.ndarray) -> np.ndarray:
    """Rows of ``residuals`` (log y - a . log x) that one constant log-prefactor explains within ``tol``."""
    return np.max(residuals - tol, axis=1) <= np.min(residuals + tol, axis=1)


def _power_law_check(problem_id: str, ordered: Sequence[Problem], consts: Sequence[Sequence[Constant]],
                     changed: Sequence[list[int]], answers: Sequence[Decimal], tol: Sequence[float]) -> list[Finding]:
    """Fit y = C * prod x_j^a_j over the changed constants, exponents among simple rationals.

    A law that fits every variant but one names that variant as the outlier (medium); no law
    at all is reported for the family (low: the formula may simply not be a power law).
    """
    cols = sorted({j for idx in changed for j in idx})
    if not cols or len(cols) > 4:
        return []
    logx = np.array([[math.log(abs(float(cs[j].value))) for j in cols] for cs in consts])
    logy = np.array([math.log(abs(float(a))) for a in answers])
    t = np.array(tol)
    grid = np.array(list(itertools.product(_SIMPLE_EXPONENTS, repeat=len(cols))))
    residuals = logy[None, :] - grid @ logx.T  # (laws, variants)
    if _fits(residuals, t).any():
        return []
    names = [consts[0][j].name for j in cols]
    outliers = []
    n = len(ordered)
    for k in range(n):
        rest = [i for i in range(n) if i != k]
        if len(rest) < len(cols) + 1:
            continue
        # every changed constant must still vary among the remaining variants, or the law is free
        if any(np.ptp(logx[rest, c]) == 0 for c in range(len(cols))):
            continue
        ok = _fits(residuals[:, rest], t[rest])
        if len(rest) == len(cols) + 1:  # as many unknowns as points: only the simplest laws count
            ok &= np.all(np.isin(grid, _CORE_EXPONENTS), axis=1)
        if ok.any():
            row = int(np.argmax(ok))
            law = grid[row]
            low = np.max(residuals[row, rest] - t[rest])
            high = np.min(residuals[row, rest] + t[rest])
            expected = math.exp((low + high) / 2 + float(law @ logx[k]))
            outliers.append((k, law, expected))
    if len(outliers) == 1:
        k, law, expected = outliers[0]
        law_text = " * ".join(f"{nm}^{_frac(a)}" for nm, a in zip(names, law) if a) or "constant"
        stated = float(answers[k])
        return [Finding(
            problem_id, ordered[k].variant, "power_law_outlier", "medium",
            f"the other variants follow answer ∝ {law_text}, which predicts {expected:.6g} for variant "
            f"{ordered[k].variant}, but it states {ordered[k].answer.strip()} ({abs(stated / expected - 1):.2%} off)",
            {"law": {nm: float(a) for nm, a in zip(names, law)}, "stated": stated, "expected_by_law": expected},
        )]
    fit, *_ = np.linalg.lstsq(np.c_[np.ones(n), logx], logy, rcond=None)
    exps = {nm: round(float(e), 4) for nm, e in zip(names, fit[1:])}
    return [Finding(
        problem_id, None, "no_power_law", "low",
        f"no power law with simple exponents in the changed constants ({', '.join(names)}) explains the "
        f"variants (least-squares exponents {exps}); suspect unless the formula is not a power law",
        {"exponents": exps, "stated": [float(a) for a in answers]},
    )]


def _frac(x: float) -> str:
    from fractions import Fraction

    f = Fraction(x).limit_denominator(12)
    return str(f.numerator) if f.denominator == 1 else f"({f.numerator}/{f.denominator})"

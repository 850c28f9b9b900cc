"""Answer audit: recompute problems that have a solution and check families of variants for consistency.

Why: released datasets contain wrong answers (ABench Phy_B's mid 10 variants 1-3 disagree with
the formula that reproduces its variant 0). The audit lists suspects *with the evidence*:

* **Recomputation** (``answer_mismatch``, high): a problem with a solution (a formula over its
  constants' names, see :mod:`.plain`, or a bank :class:`Template`) whose stated answer is more
  than ``rel_tol`` away from the recomputed one. A solution *entry* (a mapping ``{solution, constants,
  answer_unit}`` or a Phy_B :class:`~physeval.variation.abench_phy_b.PhyBSolution`) passes its physical
  constants and answer unit to :func:`.plain.recompute` and is judged by the rule its variants were
  confirmed by (``rel_tol`` or the stated answer's written precision); a variant the entry records as a
  text the converter misreads is ``unread_variant`` (low), not a data error.
* **Figures** (``figure_mismatch``, its own severity ``figures``, between medium and low): a
  released answer within 1 % of a Phy_B solution entry's value that is still not the exact value
  at the significant figures its instruction asks (``459.2`` where 458.33 asks for 4 figures),
  unless the entry's constants at their textbook figures (g = 9.80, R = 8.31) give it; the
  entry's ``figure_errors`` records each. A variant the entry records as ``ill_posed`` (no answer
  satisfies its text) is ``ill_posed`` (medium), with no recomputed value.
* **Dimensional scaling** (``scaling_violation``, medium): when a variant's changed constants
  amount to a pure change of units (e.g. only the one velocity changes while lengths stay), the
  answer must scale by the matching power; a different answer is inconsistent with *any*
  formula, unless the problem depends on an unstated dimensional constant (stated in the
  evidence).
* **Power-law fit** (``power_law_outlier`` medium, ``no_power_law`` low): the answer is fitted
  as a product of powers of the changed constants (log-linear, exponents searched among simple
  rationals, written precision as tolerance); a law that fits all variants but one names the
  outlier; a family that no such law explains is listed as a weaker suspect.
* Smaller checks: unparseable answers, variants whose constants match but answers differ, and
  significant-figure instructions that change within a family.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from physeval.answers.written import parse_written_number
from physeval.answers.written import written_precision as _written_precision
from physeval.units import unit_dimension

from ..problems import Problem
from .engine import make_variant
from .plain import Constant, find_constants, read_instruction, recompute
from .template import PLACEHOLDER, Template

__all__ = ["Finding", "audit_problems", "audit_family", "phy_b_consistency", "read_abench_csv", "SEVERITY_ORDER"]

SEVERITY_ORDER = {"high": 0, "medium": 1, "figures": 2, "low": 3}
_BASE = ("length", "mass", "time", "current", "temperature", "substance", "luminosity")
_SIMPLE_EXPONENTS = sorted(
    {0.0}
    | {s * v for s in (1, -1) for v in (0.25, 1 / 3, 0.5, 2 / 3, 0.75, 1.0, 4 / 3, 1.5, 2.0, 2.5, 3.0, 4.0)}
)

_CORE_EXPONENTS = [-3.0, -2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 3.0]


@dataclass(frozen=True)
class Finding:
    """One suspect answer (or family), why it is suspect, and the numbers that show it.

    Attributes:
        problem_id: The problem (family) id.
        variant: The suspect variant, or ``None`` for the family as a whole.
        kind: ``answer_mismatch``, ``figure_mismatch``, ``ill_posed``, ``unread_variant``,
            ``documented_error``, ``scaling_violation``,
            ``power_law_outlier``, ``no_power_law``,
            ``same_constants_different_answer``, ``format_inconsistent``, ``unparseable_answer``,
            ``solution_error``, ``template_mismatch`` or ``structure_mismatch``.
        severity: ``high``, ``medium``, ``figures`` or ``low``.
        message: One readable sentence.
        evidence: The numbers behind it (stated and expected answers, ratios, fitted exponents).
    """

    problem_id: str
    variant: str | None
    kind: str
    severity: str
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return _jsonable(asdict(self))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --------------------------------------------------------------------------- recomputation

def _template_values(template: Template, question: str) -> list[Decimal] | None:
    """The parameter values written in ``question`` if it is a rendering of ``template``."""
    import re

    parts = PLACEHOLDER.split(template.text)
    pattern = ""
    for i, part in enumerate(parts):
        if i % 2 == 0:
            pattern += re.escape(part)
        else:
            pattern += rf"(?P<{part}__{i}>[-−]?\d+(?:\.\d+)?(?:\s*\\times\s*10\^\{{[-−]?\d+\}})?)"
    match = re.match(pattern, question.strip())
    if not match:
        return None
    seen: dict[str, Decimal] = {}
    for key, text in match.groupdict().items():
        name = key.rsplit("__", 1)[0]
        value = parse_written_number(text)
        if value is None or (name in seen and seen[name] != value):
            return None
        seen[name] = value
    try:
        return [seen[p.name] for p in template.parameters]
    except KeyError:
        return None


def _recompute_one(problem: Problem, solution: Any, rel_tol: float) -> list[Finding]:
    stated = parse_written_number(problem.answer)
    if stated is None:
        return [Finding(problem.id, problem.variant, "unparseable_answer", "low",
                        f"the stated answer {problem.answer!r} is not a number", {"answer": problem.answer})]
    if isinstance(solution, Template):
        values = _template_values(solution, problem.question)
        if values is None:
            return [Finding(problem.id, problem.variant, "template_mismatch", "medium",
                            f"the question text is not a rendering of template {solution.id}",
                            {"template": solution.id})]
        try:
            variant = make_variant(solution, int(problem.variant) if problem.variant.isdigit() else 0, values)
        except Exception as exc:  # a tampered text can make the template unevaluable
            return [Finding(problem.id, problem.variant, "solution_error", "medium",
                            f"template {solution.id} cannot be evaluated at the written values: {exc}", {})]
        expected = Decimal(variant.value)
        source = f"template {solution.id}"
    else:
        formula, options, documented = _solution_options(solution, problem.variant)
        ill_posed = (getattr(solution, "ill_posed", None) or {}).get(problem.variant)
        if ill_posed:  # no answer satisfies the text: nothing to recompute
            return [Finding(problem.id, problem.variant, "ill_posed", "medium",
                            f"stated answer {problem.answer.strip()}, but the question is ill-posed: {ill_posed}",
                            {"stated": float(stated), "documented": ill_posed})]
        value, reason = recompute(problem.question, formula, **options)
        unread = _unread_variant(solution, problem.variant) if value is None else ""
        if unread:  # the entry records this text as one its formula cannot read (a missing coefficient...)
            return [Finding(problem.id, problem.variant, "unread_variant", "low",
                            f"the solution cannot read this variant ({reason}); the entry says: {unread}",
                            {"notes": unread})]
        if value is None:
            return [Finding(problem.id, problem.variant, "solution_error", "medium",
                            f"the supplied solution cannot be evaluated: {reason}", {"solution": formula})]
        expected = value
        source = "supplied solution"
        if options:  # a solution entry (Phy_B): the rule its variants were confirmed by
            rel = abs(stated - expected) / abs(stated) if stated != 0 else abs(expected)
            allowed = max(rel_tol, _written_precision(problem.answer, stated))
            if float(rel) <= allowed:
                return _figures_one(problem, solution, stated, expected)
            unread = _unread_variant(solution, problem.variant)
            if unread:  # the entry records this text as one the converter misreads: not a data error
                return [Finding(problem.id, problem.variant, "unread_variant", "low",
                                f"the solution gives {float(expected):.6g} against the stated "
                                f"{problem.answer.strip()}, but the entry records this variant's text as misread: "
                                f"{unread}",
                                {"stated": float(stated), "recomputed": float(expected), "notes": unread})]
            evidence = {"stated": float(stated), "recomputed": float(expected), "relative_error": float(rel),
                        "source": "solution entry", **({"documented": documented} if documented else {})}
            return [Finding(problem.id, problem.variant, "answer_mismatch", "high",
                            f"stated answer {problem.answer.strip()} but the solution gives {float(expected):.6g} "
                            f"({float(rel):.2%} off, beyond {rel_tol:.0%} and the written precision)"
                            + (f"; documented: {documented}" if documented else ""), evidence)]
    rel = abs(stated - expected) / abs(expected) if expected != 0 else abs(stated)
    if rel > Decimal(str(rel_tol)):
        return [Finding(
            problem.id, problem.variant, "answer_mismatch", "high",
            f"stated answer {problem.answer.strip()} but the {source} gives {float(expected):.6g} "
            f"({float(rel):.2%} off)",
            {"stated": float(stated), "recomputed": float(expected), "relative_error": float(rel), "source": source},
        )]
    return []


def _figures_one(problem: Problem, solution: Any, stated: Decimal, expected: Decimal) -> list[Finding]:
    """A released answer within 1 % that is not the exact value at the figures its instruction asks
    (``figure_mismatch``, severity ``figures``); a Phy_B entry's constants at their textbook figures
    may explain a last-figure difference (see :func:`~physeval.variation.abench_phy_b.figures_verdict`)."""
    if not hasattr(solution, "figure_errors"):
        return []
    from .abench_phy_b import figures_verdict, written_as_asked

    if figures_verdict(solution, problem.question, stated, expected) is not False:
        return []
    asked = written_as_asked(problem.question, expected)
    recorded = solution.figure_errors.get(problem.variant)
    rel = abs(stated - expected) / abs(expected) if expected != 0 else abs(stated)
    evidence = {"stated": float(stated), "recomputed": float(expected), "asked": asked, "relative_error": float(rel),
                "source": "solution entry", **({"documented": recorded.reason} if recorded else {})}
    return [Finding(problem.id, problem.variant, "figure_mismatch", "figures",
                    f"stated answer {problem.answer.strip()} is within 1 % ({float(rel):.2%}) but wrong at the asked "
                    f"figures: the exact {float(expected):.7g} is written {asked}"
                    + ("; recorded in the solution entry" if recorded else "; NOT recorded in the solution entry"),
                    evidence)]


def _unread_variant(solution: Any, variant: str) -> str:
    """The entry's notes when it records ``variant`` as neither confirmed nor a dataset error (else "")."""
    confirmed = getattr(solution, "confirmed", None)
    errors = getattr(solution, "dataset_errors", None)
    ill_posed = getattr(solution, "ill_posed", None) or {}
    if confirmed is None or errors is None or variant in confirmed or variant in errors or variant in ill_posed:
        return ""
    return str(getattr(solution, "notes", "") or "unconfirmed in the solution entry")


def _solution_options(solution: Any, variant: str) -> tuple[Any, dict[str, Any], str]:
    """(formula, ``recompute`` options, documented reason) of a supplied solution.

    A solution is a formula (an expression or a list of steps), a mapping ``{solution, constants,
    answer_unit}``, or a Phy_B solution entry (anything with ``solution`` and ``options()``, such as
    :class:`physeval.variation.abench_phy_b.PhyBSolution`); the entry's recorded dataset error for
    ``variant``, if any, gives the documented reason.
    """
    if hasattr(solution, "solution") and callable(getattr(solution, "options", None)):
        opts = solution.options()
        errors = getattr(solution, "dataset_errors", {}) or {}
        documented = errors[variant].reason if variant in errors else ""
        return solution.solution, {"constants": opts.get("constants") or {},
                                   "answer_unit": opts.get("answer_unit")}, documented
    if isinstance(solution, Mapping) and "solution" in solution:
        return solution["solution"], {"constants": dict(solution.get("constants") or {}),
                                      "answer_unit": solution.get("answer_unit")}, ""
    return solution, {}, ""


# --------------------------------------------------------------------------- families

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


# --------------------------------------------------------------------------- entry points

def audit_problems(
    problems: Iterable[Problem],
    solutions: Mapping[str, str | Sequence[str] | Template] | None = None,
    *,
    rel_tol: float = 0.01,
    families: bool = True,
) -> list[Finding]:
    """Audit ``problems``: recompute those with a solution, check every family of variants.

    ``solutions`` maps a problem id to a formula over its constants' names (an expression, a list
    of ``name = expression`` steps, or LaTeX equations; see :func:`physeval.variation.template_from_plain`)
    or to the :class:`Template` that generated it; families without a solution get the heuristic
    consistency checks (see the module docstring). Findings are sorted by severity, then id.
    Never raises on bad data: a problem that cannot be checked yields a finding saying why.
    """
    items = list(problems)
    solutions = dict(solutions or {})
    findings: list[Finding] = []
    groups: dict[str, list[Problem]] = defaultdict(list)
    for p in items:
        groups[p.id].append(p)
        if p.id in solutions:
            findings.extend(_recompute_one(p, solutions[p.id], rel_tol))
    if families:
        for pid, members in groups.items():
            if len(members) > 1 and pid not in solutions:  # a solution already decided each variant
                try:
                    findings.extend(audit_family(pid, members))
                except (ValueError, ArithmeticError) as exc:
                    findings.append(Finding(pid, None, "structure_mismatch", "low", f"family not checked: {exc}", {}))
    return sorted(findings, key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), _id_key(f.problem_id), str(f.variant)))


def _id_key(pid: str) -> tuple[int, Any]:
    return (0, int(pid)) if pid.isdigit() else (1, pid)


def read_abench_csv(path: str | Path) -> list[Problem]:
    """ABench rows as Problems (``mid`` -> id, ``subid`` -> variant), read by the one ABench loader.

    ``path`` is a CSV file; a file with a ``subid`` column is read as Phy_B, else as Phy_A.
    """
    from physeval.tasks.abench_data import load_abench

    with open(path, encoding="utf-8-sig", newline="") as handle:
        header = handle.readline()
    return load_abench(path, "b" if "subid" in header else "a")


def phy_b_consistency(path: str | Path, solutions: Mapping[str, Any] | None = None) -> list[Finding]:
    """The ABench Phy_B consistency check: audit every mid family of ``Phy_B_dynamic_100.csv``.

    ``path`` is the CSV or the folder holding it.
    """
    from physeval.tasks.abench_data import load_abench

    return audit_problems(load_abench(path, "b"), solutions)

"""The audit by recomputation: a problem with a solution, its stated answer against the solution's value.

``answer_mismatch`` (high) beyond 1 % and the written precision; ``figure_mismatch`` (severity
``figures``) within 1 % but not the exact value at the asked figures (Phy_B entries);
``ill_posed`` and ``unread_variant`` where the entry records the text as such; ``solution_error``
and ``template_mismatch`` when the solution cannot be evaluated on the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from physeval.answers.written import parse_written_number
from physeval.answers.written import written_precision as _written_precision

from ..problems import Problem
from .audit_finding import Finding
from .engine import make_variant
from .plain import recompute
from .template import PLACEHOLDER, Template

__all__ = ["recompute_findings"]

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


def recompute_findings(problem: Problem, solution: Any, rel_tol: float) -> list[Finding]:
    """The findings of one problem recomputed with its ``solution`` (none when the answer holds)."""
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

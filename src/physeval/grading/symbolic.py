"""Symbolic grading: equivalence that never depends on machine speed, plus EED and dimensions.

Equivalence is decided by a seeded numeric probe first: every free symbol gets a random
positive rational value (the same values on both sides), both expressions are evaluated to
40 significant digits at several points and compared with a relative tolerance of 1e-9. A
difference at any point settles "not equivalent". Agreement everywhere is confirmed
symbolically -- ``expand`` and then ``simplify`` of the difference under positive
assumptions -- but only for expressions within operation budgets (``count_ops`` and the
estimated number of terms of the expansion, :func:`physeval.answers.bounds.expanded_terms`);
when a budget is exceeded or simplification cannot reach zero the verdict is an explicit
``undecided`` that names the budget. What an answer can become (``10^{10^{10}}``,
``9999999!``) is bounded before any of this, when it is read (``too_large``). The
maintained PHYBench pipeline bounds the same work by 30 s / 10 s wall-clock timeouts, so
its verdicts change with machine load; these do not.

:func:`grade_symbolic` extracts the final answer of a response (first ``\\boxed{}`` by
default, as PHYBench publishes), scores it with :func:`physeval.grading.eed.eed` and, when
symbol dimensions are known, checks dimensions. :func:`grade_symbolic_many` does the same
for many pairs in the shared worker pool (:mod:`physeval.grading.pool`) with results
identical to serial grading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from physeval.answers.extract import extract_final_answer
from physeval.answers.latex import check_compat
from physeval.grading._never_raise import check_box, error_grade, never_raises
from physeval.grading.eed import DEFAULT_BUDGET, TreeBudget
from physeval.grading.equivalence import (
    PROBE_DIGITS,
    PROBE_POINTS,
    REL_TOL,
    SYMBOLIC_EXPAND_BUDGET,
    SYMBOLIC_OPS_BUDGET,
    Equivalence,
    check_equivalence,
    pipeline_equivalence,
)
from physeval.grading.grades import SymbolicGrade
from physeval.problems import Outcome

__all__ = [
    "Equivalence",
    "SymbolicGrade",
    "check_equivalence",
    "pipeline_equivalence",
    "grade_symbolic",
    "grade_symbolic_many",
    "prose_answer",
    "PROBE_POINTS",
    "PROBE_DIGITS",
    "REL_TOL",
    "SYMBOLIC_OPS_BUDGET",
    "SYMBOLIC_EXPAND_BUDGET",
]

_TEXT_GROUP = r"\\(?:text|textrm|textbf|textit|textsf|texttt|textnormal|mbox)\s*\{([^{}]*)\}"
_PROSE = re.compile(rf"(?:{_TEXT_GROUP}|[\s.,;:!?'\"()\\-])+")


def prose_answer(extracted: str) -> str | None:
    """The words of an answer that is only text, such as ``\\text{see above}``; ``None`` when it
    holds any mathematics.

    An answer is prose when it is nothing but text-mode groups (``\\text{}``, ``\\textrm{}``,
    ``\\mbox{}``, ...) and punctuation, and their words hold a run of two letters or more and
    no digit. ``\\text{5 m/s}`` (a digit) and ``v = g t \\text{ (down)}`` (mathematics outside
    the text) are not prose and are graded as expressions. Why: read as algebra, the letters of
    "see above" become a product of eight symbols, and a reply that gave no expression would
    count as a wrong expression instead of an unparseable one.
    """
    groups = re.findall(_TEXT_GROUP, extracted)
    if not groups or not _PROSE.fullmatch(extracted):
        return None
    words = " ".join(" ".join(groups).split())
    return words if re.search(r"[A-Za-z]{2}", words) and not re.search(r"\d", words) else None


@never_raises(error_grade(SymbolicGrade, score=0.0), options={"compat": check_compat, "box": check_box})
def grade_symbolic(
    response: str,
    reference: str,
    *,
    box: str = "first",
    compat: str | None = None,
    dimensions: Mapping[str, str] | None = None,
    budget: TreeBudget | None = DEFAULT_BUDGET,
) -> SymbolicGrade:
    """Grade one response against a LaTeX reference: extraction, equivalence, EED, dimensions.

    ``box`` picks the first (PHYBench's published rule) or last ``\\boxed{}``;
    ``compat="phybench"`` reproduces the maintained pipeline; ``dimensions`` maps symbols
    (LaTeX or plain names) to dimensions such as ``"length/time"`` or ``"kg*m/s**2"``;
    ``budget`` bounds EED's simplification (:class:`physeval.grading.eed.TreeBudget`; ``None``:
    unbounded). Never raises on bad input.
    """
    from physeval.answers.latex import check_compat
    from physeval.grading.eed import eed

    check_compat(compat)
    extraction = extract_final_answer(response or "", box=box)  # type: ignore[arg-type]
    if extraction.text is None:
        return SymbolicGrade(
            correct=False,
            outcome=Outcome.NO_ANSWER,
            reason="no final answer found",
            score=0.0,
            extracted=None,
            extraction_rule=extraction.rule,
        )
    words = prose_answer(extraction.text) if compat is None else None  # the pipeline reads text as algebra
    if words is not None:
        return SymbolicGrade(
            correct=False,
            outcome=Outcome.UNPARSEABLE,
            reason=f"the answer is text, not an expression: {words[:80]!r}",
            score=0.0,
            extracted=extraction.text,
            equivalent=False,
            eed_score=0.0,
            extraction_rule=extraction.rule,
        )
    result = eed(reference, extraction.text, compat=compat, budget=budget)
    consistent = matches = None
    dimension_reason = ""
    if dimensions:
        from physeval.grading.dimensions import check_dimensions

        check = check_dimensions(extraction.text, reference, dimensions, compat=compat)
        consistent, matches, dimension_reason = check.consistent, check.matches, check.reason
    outcome = result.outcome
    if outcome == Outcome.WRONG and matches is False:
        outcome = Outcome.DIMENSION_MISMATCH
    return SymbolicGrade(
        correct=result.equivalent is True,
        outcome=outcome,
        reason=result.reason,
        score=result.score / 100.0,
        extracted=extraction.text,
        equivalent=result.equivalent,
        eed_score=result.score,
        eed_distance=result.distance,
        eed_size=result.size,
        eed_rel_distance=result.rel_distance,
        extraction_rule=extraction.rule,
        dimension_consistent=consistent,
        dimension_matches=matches,
        dimension_reason=dimension_reason,
        budget=result.budget,
    )


def _grade_item(item: tuple[str, str, str, str | None, Mapping[str, str] | None]) -> SymbolicGrade:
    response, reference, box, compat, dimensions = item
    try:
        return grade_symbolic(response, reference, box=box, compat=compat, dimensions=dimensions)
    except Exception as exc:  # defensive: a worker must always answer
        return SymbolicGrade(correct=False, outcome=Outcome.ERROR, reason=f"{type(exc).__name__}: {exc}", score=0.0)


def _timed_out(item: tuple[str, str, str, str | None, Mapping[str, str] | None]) -> SymbolicGrade:
    return SymbolicGrade(correct=False, outcome=Outcome.TIMEOUT, score=0.0,
                         reason="grading outlived the last-resort guard: its worker was killed")


def grade_symbolic_many(
    pairs: Iterable[tuple[str, str]],
    *,
    processes: int | None = None,
    box: str = "first",
    compat: str | None = None,
    dimensions: Mapping[str, str] | Sequence[Mapping[str, str] | None] | None = None,
    timeout: float | None = None,
) -> list[SymbolicGrade]:
    """Grade ``(response, reference)`` pairs in the shared worker pool; results identical to serial.

    SymPy holds the GIL, so parallelism needs processes: :func:`physeval.grading.pool.grade_many`
    (one pool per process, started once, warm caches kept). Pairs sharing a reference are
    submitted together so its cached simplification is reused, and results come back in input
    order, identical to serial grading. ``processes=None`` uses the shared pool
    (``PHYSEVAL_GRADING_PROCESSES`` or the CPU count); 0 or 1 grades in this process; another
    number starts a pool of that size for this call. ``dimensions`` is one mapping for all
    pairs or one (or ``None``) per pair. ``timeout`` (seconds per pair, off by default) is the
    last-resort guard: a pair still running then gets the outcome ``timeout``.
    """
    from physeval.answers.latex import check_compat
    from physeval.grading.pool import grade_many

    check_compat(compat)
    pairs = list(pairs)
    if dimensions is None or isinstance(dimensions, Mapping):
        per_pair: list[Mapping[str, str] | None] = [dimensions] * len(pairs)
    else:
        per_pair = list(dimensions)
        if len(per_pair) != len(pairs):
            raise ValueError("dimensions must be one mapping or one entry per pair")
    items = [(str(r or ""), str(ref or ""), box, compat, d) for (r, ref), d in zip(pairs, per_pair)]
    return grade_many(_grade_item, items, processes=processes, group=lambda item: item[1], timeout=timeout,
                      on_timeout=_timed_out if timeout is not None else None)

"""The Expression Edit Distance (EED) score of PHYBench, exact and deterministic.

PHYBench (arXiv 2504.16074) gives partial credit by the edit distance between the expression
trees of the reference and the answer. Trees are built from the *simplified* SymPy
expressions: ``number_<value>`` for Integer, Float, Rational, pi, E, oo, -oo and I;
``symbol_<name>``; ``operator_Add``/``operator_Mul``/``operator_Pow`` with SymPy's canonical
argument order; ``function_<name>``. Inserting, deleting and relabelling a node costs 1
(relabelling to an equal label 0); inserting or deleting a whole subtree of ``s`` nodes costs
``min(s, 0.6 (s - 5) + 5)``; the distance is the extended Zhang-Shasha algorithm over ordered
trees; ``size`` is the reference tree's node count and the score is 100 for an equivalent
answer, else ``max(0, 60 - 100 d / size)``.

Unlike the maintained pipeline nothing here depends on wall-clock time. What an answer can
become is bounded before any arithmetic (:mod:`physeval.answers.bounds`: ``10^{10^{10}}``,
``9999999!`` or ``(a+b)^{100000}`` are ``too_large``, with the bound named); simplification
runs only within operation budgets (``count_ops`` and the estimated size of the expansion;
over budget, a side is simplified by parts, every subexpression within the budget in full
(:mod:`physeval.grading.eed_partial`), and ``budget`` says which budget ran out); the
equivalence check is a seeded numeric probe confirmed symbolically under a budget (see
:mod:`physeval.grading.symbolic`).

The trees and their distance live in :mod:`physeval.grading.eed_tree`, the budget and the
budgeted simplification in :mod:`physeval.grading.eed_budget`; every public name is importable
from here as well.

Work is done once per process: every verdict is cached by the pair of *normalised* texts,
and every side's simplified form and tree by its normalised text, so a reference scored
against many answers is simplified once and an answer repeated across K samples, variants
or models costs once. An equivalent answer needs no tree at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from physeval.answers.bounds import TOO_LARGE
from physeval.answers.latex import (
    COMPAT_PHYBENCH,
    EMPTY,
    MAX_PARSE_CHARS,
    check_compat,
    latex_to_sympy,
    normalize_latex,
    parse_normalized,
    relation_left,
    strip_to_rhs,
)
from physeval.answers.latex import TOO_LARGE as TOO_LARGE_CONVERSION
from physeval.grading._never_raise import error_result, never_raises
from physeval.grading.eed_budget import (
    DEFAULT_BUDGET,
    TREE_EXPAND_BUDGET,
    TREE_SIMPLIFY_BUDGET,
    TRIG_HELD_BUDGET,
    UNBOUNDED,
    TreeBudget,
    held_whole,
    simplify_budgeted,
)
from physeval.grading.eed_relations import (
    KIND_MISMATCH,
    UNREAD_WORDS,
    choose_part,
    relation_mismatch,
    same_equation,
    unquoted,
)
from physeval.grading.eed_tree import (
    PUBLISHED,
    EEDScoring,
    _build_tree,
    _distance,
    _Tree,
    _UnsupportedNode,
    expression_tree,
    subtree_cost,
    tree_distance,
)
from physeval.problems import Outcome

__all__ = [
    "EEDScoring",
    "PUBLISHED",
    "EEDResult",
    "TreeBudget",
    "DEFAULT_BUDGET",
    "UNBOUNDED",
    "TREE_EXPAND_BUDGET",
    "TREE_SIMPLIFY_BUDGET",
    "eed",
    "expression_tree",
    "tree_distance",
    "subtree_cost",
]

TOO_LONG = "too_long"
UNSUPPORTED = "unsupported"


@dataclass(frozen=True)
class EEDResult:
    """The EED verdict for one (reference, answer) pair.

    Attributes:
        score: 0-100; 100 when the answer is equivalent to the reference.
        rel_distance: ``distance / size``; 0.0 for an equivalent answer, ``None`` when no
            distance was computed (early exit or failure).
        size: Node count of the reference tree; ``None`` when no tree was needed or built.
        distance: The tree edit distance; 0.0 for an equivalent answer, ``None`` when unknown.
        equivalent: True/False, or ``None`` when undecided or not comparable.
        outcome: ``correct``, ``wrong``, ``no_answer``, ``unparseable``, ``unsupported``,
            ``too_long``, ``too_large`` (the answer asks for a number or polynomial beyond
            :mod:`physeval.answers.bounds`), ``undecided`` or ``error`` (the reference itself
            failed; a too-large reference is an error too).
        reason: Why, in words.
        budget: Which operation budget ran out (``""`` when none did): a side whose
            simplification was over budget is scored on the tree of its form simplified by parts,
            or with its hyperbolic functions held whole.
    """

    score: float
    rel_distance: float | None
    size: int | None
    distance: float | None
    equivalent: bool | None
    outcome: str
    reason: str = ""
    budget: str = ""


# --------------------------------------------------------------------------------------
# Simplification (budgeted) and the cached trees
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Simplified:
    """One normalised answer's simplified form and tree (``tree`` is None when none can be built)."""

    expr: Any
    tree: _Tree | None
    problem: str = ""
    budget: str = ""


@lru_cache(maxsize=16384)
def _simplified_tree(normalized: str, compat: str | None, budget: TreeBudget | None = DEFAULT_BUDGET) -> _Simplified:
    """Simplified expression and tree of one normalised LaTeX text, once per process and, through
    :mod:`physeval.disk_cache`, once per machine.

    Keyed by the normal form (with the mode and the budget), so raw answers that normalise
    alike (and an answer repeated across samples, variants or models) share one simplification. ``lru_cache`` is safe to
    call from several threads (two threads may at worst compute the same entry twice).
    """
    from physeval import disk_cache

    cached = disk_cache.get("tree", normalized, compat, budget)
    if isinstance(cached, _Simplified):
        return cached
    result = _simplified_tree_uncached(normalized, compat, budget)
    if "RecursionError" not in result.problem:  # depends on the caller's stack: not for the disk
        disk_cache.put("tree", normalized, compat, budget, result)
    return result


def _simplified_tree_uncached(normalized: str, compat: str | None, budget: TreeBudget | None) -> _Simplified:
    conv = parse_normalized(normalized, compat)
    if compat is not None and budget is not None:
        budget = budget.pipeline()
    simplified, note = simplify_budgeted(conv.expr, budget)
    # Over the budget the tree is built on the form simplified by parts; the compat mode's
    # equivalence test keeps the unsimplified form, as the pipeline's does after its timeout. A
    # side simplified with its hyperbolic functions held whole was simplified in full (the
    # pipeline's simplify ends within its timeout there): that form is kept.
    expr = conv.expr if note and not held_whole(note) else simplified
    try:
        return _Simplified(expr, _build_tree(simplified), "", note)
    except _UnsupportedNode as exc:
        return _Simplified(expr, None, str(exc), note)
    except (RecursionError, ValueError) as exc:  # ValueError: a number too long to print
        return _Simplified(expr, None, f"no tree: {type(exc).__name__}", note)


def _relation_result(reference: str, answer: str, why: str, scoring: EEDScoring,
                     budget: TreeBudget | None) -> EEDResult:
    """A wrong answer whose right side equals the reference's: scored on the trees of each
    relation written as one difference (left side minus right side); 0 for another kind of
    relation (``T \\neq mg`` against ``T = mg``), which the trees cannot tell apart."""
    if why.startswith(KIND_MISMATCH):
        return EEDResult(0.0, None, None, None, False, Outcome.WRONG, why)
    def difference(text: str) -> str:
        text = unquoted(text)
        return f"{relation_left(text)} - \\left({strip_to_rhs(text)}\\right)"

    scored = eed(difference(reference), difference(answer), scoring=scoring, budget=budget)
    score = min(scored.score, scoring.initial_score)  # never 100: the relations differ
    return EEDResult(score, scored.rel_distance, scored.size, scored.distance, False, Outcome.WRONG,
                     f"{why}; scored on the relations as differences", scored.budget)


def _too_long(reference: str, answer: str, compat: str | None) -> bool:
    """PHYBench's rule: an answer over three times the reference's length scores 0. The pipeline
    measures the raw texts, so ``T^{\\prime}`` against ``T'`` was too long; the default mode
    measures the normal forms too (``T'`` both), and the answer is too long only when both are
    (and, in :func:`eed`, only when it is not equivalent: ``m\\cdot g\\cdot h`` is right against ``mgh``)."""
    if len(answer) <= 3 * len(reference):
        return False
    if compat is not None or _far_too_long(reference, answer):
        return True
    return len(normalize_latex(answer)) > 3 * len(normalize_latex(reference))


def _far_too_long(reference: str, answer: str) -> bool:
    """Over ten times the reference, or past what is parsed: too long at once, unread (a parser
    bomb took 3 s to normalise)."""
    return len(answer) > min(10 * len(reference), MAX_PARSE_CHARS)


_CROSS = "\\bar{times}"
"""How the normal form writes a ``\\times`` between letters (a cross product): a commutative symbol."""
_CROSS_OPERANDS = re.compile(
    r"(\\[A-Za-z]+\s*\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9](?:_\{[^{}]*\}|_[A-Za-z0-9])?|[)}])\s*"
    + re.escape(_CROSS) + r"\s*(\\[A-Za-z]+\s*\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z0-9]|[({])")


def _cross_products(normalized: str) -> list[tuple[str, str]]:
    """The operands written on each side of each cross product, in order: two texts whose lists
    differ (``v \\times B`` against ``B \\times v``) may differ by a sign the commutative symbol hides."""
    if _CROSS not in normalized:
        return []
    return sorted((a.replace(" ", ""), b.replace(" ", "")) for a, b in _CROSS_OPERANDS.findall(normalized)) + [
        ("count", str(normalized.count(_CROSS)))]


_TOO_LONG_RESULT = EEDResult(0.0, None, None, None, None, TOO_LONG, "answer more than 3x the reference's length")


def _early_exit(reference: str, answer: str, compat: str | None) -> EEDResult | None:
    if not answer or not answer.strip():
        return EEDResult(0.0, None, None, None, None, Outcome.NO_ANSWER, "empty answer")
    for marker in ("\\int", "\\sum"):
        if marker in answer or marker in reference:
            return EEDResult(0.0, None, None, None, None, UNSUPPORTED, f"{marker} is not scored")
    if answer == reference:
        return EEDResult(100.0, 0.0, None, 0.0, True, Outcome.CORRECT, "identical strings")
    if _too_long(reference, answer, compat) and (compat is not None or _far_too_long(reference, answer)):
        return _TOO_LONG_RESULT
    return None


@never_raises(error_result(EEDResult, score=0.0, rel_distance=None, size=None, distance=None, equivalent=None),
              options={"compat": check_compat})
def eed(reference: str, answer: str, *, compat: str | None = None, scoring: EEDScoring = PUBLISHED,
        budget: TreeBudget | None = DEFAULT_BUDGET) -> EEDResult:
    """Score ``answer`` against ``reference`` (both LaTeX) with PHYBench's EED; never raises.

    ``compat="phybench"`` reproduces the maintained pipeline's preprocessing and its
    equivalence test (structural equality after ``simplify``, ``simplify(expand(a - b)) == 0``,
    ``a.equals(b)``), with operation budgets in place of its wall-clock timeouts. ``scoring``
    changes the scoring constants (robustness checks); the default is the published EED.
    ``budget`` bounds the simplification behind each side's tree (:class:`TreeBudget`; the
    result's ``budget`` names the count that ran out); ``budget=UNBOUNDED`` always simplifies,
    as the published definition does, and is possibly unbounded in time. In the default mode
    the budget never changes a verdict; in the compat mode, as in the pipeline (whose timeout
    it replaces), the equivalence test runs on the forms it leaves.
    """
    check_compat(compat)
    reference = "" if reference is None else str(reference)
    answer = "" if answer is None else str(answer)
    early = _early_exit(reference, answer, compat)
    if early is not None:
        return early
    if compat is None:
        part, several = choose_part(reference, answer)
        if part is None and several.startswith(UNREAD_WORDS):
            return EEDResult(0.0, None, None, None, None, Outcome.UNDECIDED, several)
        if part is None:
            return EEDResult(0.0, None, None, None, False, Outcome.WRONG, several)
        if part != answer:
            answer = part
            early = _early_exit(reference, answer, compat)
            if early is not None:
                return early
    ref = latex_to_sympy(reference, compat=compat)
    if not ref.ok:
        return EEDResult(0.0, None, None, None, None, Outcome.ERROR, f"reference: {ref.reason}")
    ans = latex_to_sympy(answer, compat=compat)
    if not ans.ok:
        outcome = {EMPTY: Outcome.NO_ANSWER, TOO_LARGE_CONVERSION: TOO_LARGE}.get(ans.outcome, Outcome.UNPARSEABLE)
        return EEDResult(0.0, None, None, None, None, outcome, ans.reason)
    try:
        long_answer = compat is None and _too_long(reference, answer, compat)
        if long_answer and _equivalence(ref.normalized, ans.normalized) is not True:
            return _TOO_LONG_RESULT  # the rule scores a long answer 0; an equivalent one is still right
        result = _score(ref.normalized, ans.normalized, compat, scoring, budget)
        if result.outcome == Outcome.CORRECT and compat is None:
            differ = relation_mismatch(reference, answer, _equivalence)
            if differ:
                return _relation_result(reference, answer, differ, scoring, budget)
            if _cross_products(ref.normalized) != _cross_products(ans.normalized):
                # the pipeline's \times between letters is a commutative symbol: a x b would equal b x a
                return EEDResult(0.0, None, None, None, None, Outcome.UNDECIDED,
                                 "a cross product (\\times between letters): the order of its factors is not checked")
        elif compat is None:
            rearranged = same_equation(reference, answer)
            if rearranged:
                return EEDResult(100.0, 0.0, None, 0.0, True, Outcome.CORRECT, rearranged)
        return result
    except Exception as exc:  # a SymPy failure must not escape a grader
        return EEDResult(0.0, None, None, None, None, Outcome.ERROR, f"{type(exc).__name__}: {exc}")


def _form_scored(notes: list[str]) -> str:
    """How the form a tree was built on was simplified, from the sides' budget notes."""
    if not all(held_whole(note) for note in notes):
        return "simplified by parts"
    if any(TRIG_HELD_BUDGET in note for note in notes):
        return "simplified with some trigonometric or hyperbolic functions held whole"
    return "simplified with its hyperbolic functions held whole"


def _equivalence(reference: str, answer: str) -> bool | None:
    """Two normalised texts in the default mode: ``True`` proven equivalent, ``False`` shown to
    differ, ``None`` undecided."""
    return True if reference == answer else _verdict(reference, answer, None, DEFAULT_BUDGET).equivalent


@lru_cache(maxsize=65536)
def _verdict(reference: str, answer: str, compat: str | None, budget: TreeBudget | None) -> Any:
    """The equivalence verdict for two *normalised* texts, once per process. It does not depend
    on the scoring constants, so rescoring under other constants (PHYBench C.2, six settings)
    decides it once per pair instead of once per setting."""
    from physeval.grading.equivalence import check_equivalence, pipeline_equivalence

    if compat == COMPAT_PHYBENCH:
        return pipeline_equivalence(_simplified_tree(reference, compat, budget).expr,
                                    _simplified_tree(answer, compat, budget).expr)
    return check_equivalence(parse_normalized(reference, compat).expr, parse_normalized(answer, compat).expr)


@lru_cache(maxsize=65536)
def _score(reference: str, answer: str, compat: str | None, scoring: EEDScoring = PUBLISHED,
           budget: TreeBudget | None = DEFAULT_BUDGET) -> EEDResult:
    """The verdict for two *normalised* texts, once per process (thread-safe ``lru_cache``)."""
    if reference == answer:
        return EEDResult(100.0, 0.0, None, 0.0, True, Outcome.CORRECT, "identical normalised answers")
    verdict = _verdict(reference, answer, compat, budget)  # the scoring constants never change it
    if compat == COMPAT_PHYBENCH:
        ref = _simplified_tree(reference, compat, budget)
        ans = _simplified_tree(answer, compat, budget)
    if verdict.equivalent:
        return EEDResult(100.0, 0.0, None, 0.0, True, Outcome.CORRECT, verdict.reason)
    if compat != COMPAT_PHYBENCH:
        # Only a non-equivalent answer needs trees; both simplifications are cached per text.
        ref = _simplified_tree(reference, compat, budget)
        ans = _simplified_tree(answer, compat, budget)
    notes = [(side, note) for side, note in (("reference", ref.budget), ("answer", ans.budget)) if note]
    ran_out = "; ".join(f"{side} {note}" for side, note in notes)
    form = _form_scored([note for _, note in notes])
    equivalent = False if verdict.equivalent is False else None
    outcome = Outcome.WRONG if equivalent is False else Outcome.UNDECIDED
    reason = verdict.reason + (f"; tree of the form {form} ({ran_out})" if ran_out else "")
    if ref.tree is None:
        return EEDResult(0.0, None, None, None, equivalent, Outcome.ERROR, f"reference tree: {ref.problem}", ran_out)
    if ans.tree is None:
        return EEDResult(0.0, None, ref.tree.size, None, equivalent, outcome, f"{reason}; answer tree: {ans.problem}",
                         ran_out)
    distance = _distance(ans.tree, ref.tree, scoring)
    size = ref.tree.size
    if distance == 0.0:
        # Identical simplified trees: the pipeline scores this 100 (its equivalence checks
        # could not see it). Report it as equivalent.
        return EEDResult(100.0, 0.0, size, 0.0, True, Outcome.CORRECT, "identical simplified trees", ran_out)
    score = max(0.0, scoring.initial_score - scoring.scoring_slope * distance / size)
    return EEDResult(score, distance / size, size, distance, equivalent, outcome, reason, ran_out)

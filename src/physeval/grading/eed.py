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
over budget, the tree of the unsimplified form is scored, as the pipeline does after its
timeout, and ``budget`` says which budget ran out); the equivalence check is a seeded numeric
probe confirmed symbolically under a budget (see :mod:`physeval.grading.symbolic`).

Work is done once per process: every verdict is cached by the pair of *normalised* texts,
and every side's simplified form and tree by its normalised text, so a reference scored
against many answers is simplified once and an answer repeated across K samples, variants
or models costs once. An equivalent answer needs no tree at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from physeval.answers.bounds import TOO_LARGE, expanded_terms
from physeval.answers.latex import (
    COMPAT_PHYBENCH,
    EMPTY,
    check_compat,
    latex_to_sympy,
    parse_normalized,
)
from physeval.answers.latex import TOO_LARGE as TOO_LARGE_CONVERSION
from physeval.grading._never_raise import error_result, never_raises
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

# Expressions with more operations than this, or whose expansion would have more terms than
# TREE_EXPAND_BUDGET, are not simplified before building a tree; the pipeline's analogue is
# a 30 s wall-clock timeout that returns the unsimplified form.
TREE_SIMPLIFY_BUDGET = 250
TREE_EXPAND_BUDGET = 300

TOO_LONG = "too_long"
UNSUPPORTED = "unsupported"

_INITIAL_SCORE = 60.0
_SCORING_SLOPE = 100.0
_BAR_SIZE = 5.0
_DISCOUNT_SLOPE = 0.6


@dataclass(frozen=True)
class EEDScoring:
    """The constants of EED's scoring, for checking the metric's robustness (PHYBench C.2).

    The defaults are the published ones: score = max(0, ``initial_score`` - ``scoring_slope`` d /
    size) for a wrong answer, and a whole subtree of s nodes costs min(s, ``discount_slope`` (s -
    ``bar_size``) + ``bar_size``) to insert or delete; ``subtree_discount=False`` makes it s (every
    node paid for).
    """

    initial_score: float = _INITIAL_SCORE
    scoring_slope: float = _SCORING_SLOPE
    bar_size: float = _BAR_SIZE
    discount_slope: float = _DISCOUNT_SLOPE
    subtree_discount: bool = True


PUBLISHED = EEDScoring()
"""The published EED scoring (what :func:`eed` uses unless told otherwise)."""


@dataclass(frozen=True)
class TreeBudget:
    """How much simplification one side's EED tree may cost, measured in counts, never in seconds.

    Before simplifying a side, EED measures its parsed form; above any limit that side's
    *unsimplified* tree is scored, and the result's ``budget`` says which count ran out. That is
    the official pipeline's fallback after its 30 s ``simplify_time_limit``, decided by counts
    that are the same on every machine, in every process and under any load (each is a sum or a
    maximum over sets of subexpressions, so no iteration order enters). Equivalence verdicts (and
    so accuracy) never depend on it in the default mode: it only decides which tree a wrong
    answer's partial credit is measured on. Hashable, so it keys the caches.

    The counts, each aimed at the step of ``simplify`` it makes expensive (calibrated on the 100
    PHYBench references and ``bench/eed.py``'s pairs so that no pair takes over 2 s on one core):

    * ``max_ops``: ``count_ops`` of the expression;
    * ``max_terms``: the estimated terms of its expansion
      (:func:`physeval.answers.bounds.expanded_terms`);
    * ``max_radical_terms``: the expanded terms of every base of a fractional power of a sum,
      added up (each radical is a generator of the polynomial ``cancel`` works on);
    * ``max_function_load``: the number of function nodes times the operations inside their
      arguments (``trigsimp`` and ``factor`` on trigonometric and exponential forms);
    * ``max_degree`` and ``max_degree_generators``: the total degree of the numerator and
      denominator of the ``together`` form, and that degree times their number of generators
      (the gcd in ``cancel``).
    """

    max_ops: int = TREE_SIMPLIFY_BUDGET
    max_terms: int = TREE_EXPAND_BUDGET
    max_radical_terms: int = 6
    max_function_load: int = 39
    max_degree: int = 13
    max_degree_generators: int = 119

    def exceeded(self, expr: Any) -> str:
        """``""`` when ``expr`` may be simplified, else which count ran out, in words."""
        import sympy

        ops = sympy.count_ops(expr)
        if ops > self.max_ops:
            return f"simplify budget: {ops} operations > {self.max_ops}"
        terms = expanded_terms(expr, cap=10 * self.max_terms)
        if terms > self.max_terms:
            return f"expand budget: about {terms} terms > {self.max_terms}"
        radicals = [p for p in expr.atoms(sympy.Pow) if not p.exp.is_Integer and isinstance(p.base, sympy.Add)]
        radical_terms = sum(expanded_terms(p.base, cap=10 * self.max_terms) for p in radicals)
        if radical_terms > self.max_radical_terms:
            return f"radical budget: {radical_terms} terms under fractional powers > {self.max_radical_terms}"
        functions = expr.atoms(sympy.Function)
        load = len(functions) * sum(sympy.count_ops(a) for f in functions for a in f.args)
        if load > self.max_function_load:
            return f"function budget: {len(functions)} functions x their arguments' operations = {load} " \
                   f"> {self.max_function_load}"
        degree, generators = _together_degree(expr, 10 * self.max_terms)
        if degree > self.max_degree:
            return f"degree budget: together form of total degree {degree} > {self.max_degree}"
        if degree * generators > self.max_degree_generators:
            return f"degree budget: together form of degree {degree} x {generators} generators " \
                   f"> {self.max_degree_generators}"
        return ""


def _together_degree(expr: Any, cap: int) -> tuple[int, int]:
    """Total degree and number of generators of the numerator and denominator of ``together(expr)``.

    (0, 0) when a part is not a polynomial SymPy can read; a part whose expansion would exceed
    ``cap`` terms counts as degree ``cap`` (over any budget), without expanding it.
    """
    import sympy

    numerator, denominator = sympy.fraction(sympy.together(expr))
    generators: set[Any] = set()
    degree = 0
    for part in (numerator, denominator):
        if expanded_terms(part, cap=cap) >= cap:
            return cap, 1
        try:
            poly = sympy.Poly(part)
        except Exception:  # a constant, or not a polynomial in any generators: nothing to cancel
            continue
        generators |= set(poly.gens)
        degree = max(degree, poly.total_degree())
    return degree, len(generators)


DEFAULT_BUDGET = TreeBudget()
"""The default budget: no PHYBench pair takes over 2 s on one core (see ``bench/eed.py``)."""

UNBOUNDED = None
"""``budget=UNBOUNDED``: always simplify, as the published definition does. Possibly unbounded in
time (SymPy's ``simplify`` has no bound of its own); for studies, not for graders in a loop."""


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
            simplification was over budget is scored on the tree of its unsimplified form.
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
# Trees
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Tree:
    """A tree in postorder: labels, leftmost-leaf descendants, keyroots, subtree sizes, parents."""

    labels: tuple[str, ...]
    lmd: tuple[int, ...]
    keyroots: tuple[int, ...]
    sizes: tuple[int, ...]
    parents: tuple[int, ...]

    @property
    def size(self) -> int:
        return len(self.labels)


class _UnsupportedNode(ValueError):
    pass


def _label(expr: Any) -> str:
    import sympy

    if isinstance(expr, (sympy.Integer, sympy.Float, sympy.Rational)) or expr in (
        sympy.pi,
        sympy.E,
        sympy.oo,
        -sympy.oo,
        sympy.I,
    ):
        return f"number_{expr}"
    if isinstance(expr, sympy.Symbol):
        return f"symbol_{expr}"
    if isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow)):
        return f"operator_{type(expr).__name__}"
    if isinstance(expr, sympy.Function):
        return f"function_{expr.func.__name__}"
    raise _UnsupportedNode(f"unsupported SymPy node {type(expr).__name__}: {expr}")


def _is_inner(expr: Any) -> bool:
    import sympy

    return isinstance(expr, (sympy.Add, sympy.Mul, sympy.Pow, sympy.Function))


def expression_tree(expr: Any) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """The postorder labels and parent indices (-1 for the root) of ``expr``'s EED tree.

    Raises ``ValueError`` for a node type the published tree does not define (e.g. ``zoo``).
    """
    tree = _build_tree(expr)
    return tree.labels, tree.parents


def _build_tree(expr: Any) -> _Tree:
    """Postorder enumeration, iteratively (deep expressions must not hit the recursion limit)."""
    labels: list[str] = []
    lmd: list[int] = []
    sizes: list[int] = []
    parents: list[int] = []
    # frames: [expr, label, next child, first postorder index, children's postorder indices]
    stack: list[list[Any]] = [[expr, _label(expr), 0, 0, []]]
    while stack:
        frame = stack[-1]
        node = frame[0]
        args = node.args if _is_inner(node) else ()
        if frame[2] == 0:
            frame[3] = len(labels)
        if frame[2] < len(args):
            child = args[frame[2]]
            frame[2] += 1
            stack.append([child, _label(child), 0, 0, []])
            continue
        stack.pop()
        index = len(labels)
        for c in frame[4]:
            parents[c] = index
        labels.append(frame[1])
        lmd.append(frame[3])
        sizes.append(index + 1 - frame[3])
        parents.append(-1)
        if stack:
            stack[-1][4].append(index)
    keyroot_of: dict[int, int] = {}
    for i, leftmost in enumerate(lmd):
        keyroot_of[leftmost] = i  # the highest node with this leftmost leaf
    return _Tree(tuple(labels), tuple(lmd), tuple(sorted(keyroot_of.values())), tuple(sizes), tuple(parents))


def subtree_cost(size: int, scoring: EEDScoring = PUBLISHED) -> float:
    """Cost of inserting or deleting a whole subtree of ``size`` nodes: min(s, 0.6 (s - 5) + 5)."""
    if size <= 1:
        return 1.0
    if not scoring.subtree_discount:
        return float(size)
    return min(float(size), scoring.discount_slope * (size - scoring.bar_size) + scoring.bar_size)


def _distance(a: _Tree, b: _Tree, scoring: EEDScoring = PUBLISHED) -> float:
    """Extended Zhang-Shasha distance (single-node and whole-subtree insert/delete)."""
    codes: dict[str, int] = {}
    alab = [codes.setdefault(x, len(codes)) for x in a.labels]
    blab = [codes.setdefault(x, len(codes)) for x in b.labels]
    al, bl = a.lmd, b.lmd
    adel = [subtree_cost(s, scoring) for s in a.sizes]
    bins = [subtree_cost(s, scoring) for s in b.sizes]
    treedists = [[0.0] * b.size for _ in range(a.size)]
    for x in a.keyroots:
        ax = al[x]
        rows = x - ax + 2
        for y in b.keyroots:
            by = bl[y]
            cols = y - by + 2
            fd = [[0.0] * cols for _ in range(rows)]
            first = fd[0]
            for j in range(by, y + 1):
                first[j - by + 1] = first[bl[j] - by] + bins[j]
            for i in range(ax, x + 1):
                ii = i - ax + 1
                ali = al[i]
                prev = fd[ii - 1]
                row = fd[ii]
                left = fd[ali - ax]
                row[0] = left[0] + adel[i]
                dcost = adel[i]
                lab = alab[i]
                is_tree_i = ali == ax
                td = treedists[i]
                for j in range(by, y + 1):
                    jj = j - by + 1
                    blj = bl[j]
                    cost = prev[jj] + 1.0
                    t = row[jj - 1] + 1.0
                    if t < cost:
                        cost = t
                    t = left[jj] + dcost
                    if t < cost:
                        cost = t
                    t = row[blj - by] + bins[j]
                    if t < cost:
                        cost = t
                    if is_tree_i and blj == by:
                        t = prev[jj - 1] + (0.0 if lab == blab[j] else 1.0)
                        if t < cost:
                            cost = t
                        td[j] = cost
                    else:
                        t = left[blj - by] + td[j]
                        if t < cost:
                            cost = t
                    row[jj] = cost
    return treedists[-1][-1]


def tree_distance(reference: Any, answer: Any) -> float:
    """The EED tree edit distance between two SymPy expressions (as given, not simplified)."""
    return _distance(_build_tree(answer), _build_tree(reference))


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


def _simplify_budgeted(expr: Any, budget: TreeBudget | None = DEFAULT_BUDGET) -> tuple[Any, str]:
    """``simplify`` under positive assumptions, as the pipeline does, when within ``budget``.

    Returns the expression and ``""``, or the expression unsimplified and which budget ran out
    (the pipeline's analogue is its 30 s timeout, after which it also keeps the original).
    ``budget=None`` (:data:`UNBOUNDED`) always simplifies.
    """
    import sympy

    try:
        if budget is not None:
            over = budget.exceeded(expr)
            if over:
                return expr, over
        positive, back = sympy.posify(expr)
        return sympy.simplify(positive).subs(back), ""
    except Exception as exc:  # SymPy raising on an odd expression: keep it unsimplified
        return expr, f"simplify failed: {type(exc).__name__}"


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
    simplified, note = _simplify_budgeted(conv.expr, budget)
    try:
        return _Simplified(simplified, _build_tree(simplified), "", note)
    except _UnsupportedNode as exc:
        return _Simplified(simplified, None, str(exc), note)
    except (RecursionError, ValueError) as exc:  # ValueError: a number too long to print
        return _Simplified(simplified, None, f"no tree: {type(exc).__name__}", note)


def _early_exit(reference: str, answer: str) -> EEDResult | None:
    if not answer or not answer.strip():
        return EEDResult(0.0, None, None, None, None, Outcome.NO_ANSWER, "empty answer")
    for marker in ("\\int", "\\sum"):
        if marker in answer or marker in reference:
            return EEDResult(0.0, None, None, None, None, UNSUPPORTED, f"{marker} is not scored")
    if answer == reference:
        return EEDResult(100.0, 0.0, None, 0.0, True, Outcome.CORRECT, "identical strings")
    if len(answer) > 3 * len(reference):
        return EEDResult(0.0, None, None, None, None, TOO_LONG, "answer more than 3x the reference's length")
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
    early = _early_exit(reference, answer)
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
        return _score(ref.normalized, ans.normalized, compat, scoring, budget)
    except Exception as exc:  # a SymPy failure must not escape a grader
        return EEDResult(0.0, None, None, None, None, Outcome.ERROR, f"{type(exc).__name__}: {exc}")


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
    ran_out = "; ".join(f"{side} {note}" for side, note in (("reference", ref.budget), ("answer", ans.budget)) if note)
    equivalent = False if verdict.equivalent is False else None
    outcome = Outcome.WRONG if equivalent is False else Outcome.UNDECIDED
    reason = verdict.reason + (f"; tree of the unsimplified form ({ran_out})" if ran_out else "")
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

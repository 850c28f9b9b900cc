"""Inject one error into the LaTeX of a reference solution, by rule, and truncate it.

PHYBench (arXiv 2504.16074, section 5.2 and appendix G) tells superficial from genuine
reasoning by handing a model a reference solution cut off after an injected error and asking
it to continue. This module is the error catalogue. Every rule works on the solution's math
(``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``, ``equation``/``align``/``gather``
environments; the *equations* of a solution are those spans, in order) except the prose half of
``swap_law``:

==================== ================================================================================
kind                 rule (one site, chosen by the seed)
==================== ================================================================================
remove_square        ``X^2`` / ``X^{2}`` -> ``X``
reverse_operator     a binary ``+`` <-> ``-``, or ``\\cdot`` / ``\\times`` -> ``/``
drop_term            one additive term of a sum with two or more terms is removed (with its sign)
delete_constant      a physical constant (``\\hbar``, ``h``, ``c``, ``G``, ``g``, ``k_B``,
                     ``\\varepsilon_0``, ``\\epsilon_0``, ``\\mu_0``, ``N_A``) is deleted with its
                     exponent (an emptied group becomes ``1``)
swap_law             a named law in the prose is replaced by a wrong one (energy <-> momentum
                     conservation, adiabatic <-> isothermal, elastic <-> inelastic, series <->
                     parallel, ...), or a formula of one law by another's (``\\frac{1}{2}mv^2`` ->
                     ``mv``, ``\\frac{1}{2}I\\omega^2`` -> ``I\\omega``, ``\\frac{1}{2}kx^2`` -> ``kx``)
change_coefficient   a number that is not an index or exponent, ``n`` -> ``n + 1`` (``\\frac{1}{2}``
                     -> ``\\frac{1}{3}``)
combined             two conflicting cues: two perturbations of different kinds at two different
                     equations (a prose law swap and a formula change when the text has a law name)
==================== ================================================================================

A candidate edit is **rejected and counted** when it leaves the text unchanged (``unchanged``),
when it leaves an equation unparsable (``unparsable``: unbalanced braces, or a piece of the
equation -- the parts between ``=``, ``&``, ``\\\\`` and the like -- that converted to SymPy before
and does not after), or when every piece still converts and is equivalent to what it was
(``no_effect``: ``1^2`` -> ``1``); a piece longer than :data:`MAX_PARSE_CHARS` is checked
structurally only (balanced braces, no empty argument, no dangling operator). Candidates are
tried in an order shuffled by
``random.Random(f"{seed}|{problem id}|{kind}")``, at most :data:`MAX_ATTEMPTS` per kind, so the
same seed gives the same edit on every machine.

Only equations that leave at least one equation after them are perturbed (the model must have
something to continue). :func:`truncate` cuts the solution at the end of the line holding a
chosen equation: by default the (last) perturbed one.

Each accepted edit is a :class:`Perturbation`: kind, rule, the equation's index, character
offsets in the original solution, the changed snippet before/after and the whole equation
before/after. :func:`implied_answer` computes the answer the perturbed derivation implies where
that can be done mechanically: ``equation`` (the perturbed equation stated a result equivalent to
the reference answer: the implied answer is its perturbed right-hand side) or ``carried`` (the
perturbed fragment occurs verbatim in the reference answer: the same edit applied there).
"""


from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from math import ceil

from physeval.probes.edit_checks import MAX_PARSE_CHARS, check_edit, comparable
from physeval.probes.edits import Candidate, Perturbation, PerturbationResult
from physeval.probes.implied import ImpliedAnswer, implied_answer
from physeval.probes.latex_spans import MathSpan, find_equations
from physeval.probes.rules import CONSTANTS, FORMULA_LAWS, PROSE_LAWS, RULES, math_candidates, prose_candidates

__all__ = [
    "BASE_KINDS",
    "CONSTANTS",
    "FORMULA_LAWS",
    "KINDS",
    "MAX_ATTEMPTS",
    "MAX_PARSE_CHARS",
    "PROSE_LAWS",
    "Candidate",
    "ImpliedAnswer",
    "MathSpan",
    "Perturbation",
    "PerturbationResult",
    "candidates",
    "check_edit",
    "comparable",
    "describe",
    "find_equations",
    "implied_answer",
    "perturb",
    "truncate",
    "truncation_index",
]


BASE_KINDS: tuple[str, ...] = tuple(RULES)
KINDS: tuple[str, ...] = (*BASE_KINDS, "combined")
MAX_ATTEMPTS = 50
"""Candidate edits tried per kind and solution before the kind is given up (an operation budget)."""


# --------------------------------------------------------------------------- candidates


def candidates(text: str, kind: str, *, equations: Sequence[MathSpan] | None = None,
               eligible: Iterable[int] | None = None) -> list[Candidate]:
    """Every site where ``kind`` (a base kind) could edit ``text``, in text order.

    ``eligible`` limits math edits to those equation indices, and prose edits to text before the
    end of the last eligible equation.
    """
    if kind not in BASE_KINDS:
        raise ValueError(f"unknown perturbation kind {kind!r}; known: {', '.join(BASE_KINDS)}")
    spans = list(equations) if equations is not None else find_equations(text)
    allowed = set(eligible) if eligible is not None else {s.index for s in spans}
    found: list[Candidate] = []
    for span in spans:
        if span.index in allowed:
            found.extend(math_candidates(text, span, kind))
    if kind == "swap_law" and allowed:
        limit = max(s.end for s in spans if s.index in allowed)
        found.extend(c for c in prose_candidates(text, spans) if c.end <= limit)
    found.sort(key=lambda c: (c.start, c.end))
    return found


# --------------------------------------------------------------------------- perturb


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _context(text: str, candidate: Candidate, equations: Sequence[MathSpan]) -> tuple[str, str]:
    if candidate.equation is not None:
        span = equations[candidate.equation]
        a, b = span.start, span.end
    else:
        a = text.rfind("\n", 0, candidate.start) + 1
        b = text.find("\n", candidate.end)
        b = len(text) if b < 0 else b
    before = text[a:b]
    after = text[a:candidate.start] + candidate.after + text[candidate.end:b]
    return before, after


def _accept(text: str, kind: str, found: list[Candidate], rng: random.Random, equations: Sequence[MathSpan],
            rejected: Counter[str], budget: list[int], exclude: set[int]) -> Perturbation | None:
    order = list(found)
    rng.shuffle(order)
    for cand in order:
        if cand.equation is not None and cand.equation in exclude:
            continue
        if budget[0] <= 0:
            rejected["budget"] += 1
            return None
        budget[0] -= 1
        why = check_edit(text, cand, equations)
        if why:
            rejected[why] += 1
            continue
        before, after = _context(text, cand, equations)
        return Perturbation(kind, cand.rule, cand.equation, cand.start, cand.end, _line_of(text, cand.start),
                            cand.before, cand.after, before, after, cand.token, cand.fragment_before,
                            cand.fragment_after)
    return None


def _apply(text: str, edits: Sequence[Perturbation]) -> str:
    for edit in sorted(edits, key=lambda p: p.start, reverse=True):
        text = text[:edit.start] + edit.after + text[edit.end:]
    return text


def perturb(text: str, kind: str, *, seed: int = 0, key: str = "", eligible: Iterable[int] | None = None,
            max_attempts: int = MAX_ATTEMPTS) -> PerturbationResult:
    """Apply one perturbation of ``kind`` to the solution ``text`` (deterministic for ``seed`` and ``key``).

    ``key`` (the problem id) makes different problems draw differently from one seed;
    ``eligible`` limits the equations that may be edited (default: all but the last one).
    Raises ``ValueError`` for an unknown kind.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown perturbation kind {kind!r}; known: {', '.join(KINDS)}")
    equations = find_equations(text)
    allowed = sorted(set(eligible) if eligible is not None else range(max(0, len(equations) - 1)))
    rng = random.Random(f"{seed}|{key}|{kind}")
    rejected: Counter[str] = Counter()
    budget = [max_attempts]
    if kind != "combined":
        found = candidates(text, kind, equations=equations, eligible=allowed)
        if not found:
            return PerturbationResult(kind, None, (), {"no_site": 1}, 0)
        edit = _accept(text, kind, found, rng, equations, rejected, budget, set())
        tried = max_attempts - budget[0]
        if edit is None:
            return PerturbationResult(kind, None, (), dict(rejected), tried)
        return PerturbationResult(kind, _apply(text, [edit]), (edit,), dict(rejected), tried)
    # combined: a prose law swap plus a formula change when the text names a law, else two math kinds
    prose = [c for c in candidates(text, "swap_law", equations=equations, eligible=allowed) if c.equation is None]
    math_kinds = [k for k in BASE_KINDS if k != "swap_law"]
    rng.shuffle(math_kinds)
    first: Perturbation | None = None
    if prose:
        first = _accept(text, "swap_law", prose, rng, equations, rejected, budget, set())
    edits: list[Perturbation] = [first] if first else []
    for math_kind in math_kinds:
        if len(edits) == 2:
            break
        if any(e.kind == math_kind for e in edits):
            continue
        used = {e.equation for e in edits if e.equation is not None}
        found = [c for c in candidates(text, math_kind, equations=equations, eligible=allowed)
                 if not _overlaps(c, edits)]
        if found:
            edit = _accept(text, math_kind, found, rng, equations, rejected, budget, used)
            if edit is not None:
                edits.append(edit)
    tried = max_attempts - budget[0]
    if len(edits) < 2:
        if not rejected:
            rejected["no_site"] += 1
        return PerturbationResult(kind, None, (), dict(rejected), tried)
    return PerturbationResult(kind, _apply(text, edits), tuple(sorted(edits, key=lambda e: e.start)),
                              dict(rejected), tried)


def _overlaps(candidate: Candidate, edits: Sequence[Perturbation]) -> bool:
    return any(candidate.start < e.end and e.start < candidate.end for e in edits)


# --------------------------------------------------------------------------- truncation


def truncation_index(n_equations: int, fraction: float) -> int:
    """The 0-based index of the equation after which a solution of ``n_equations`` is cut at ``fraction``:
    equation ``ceil(fraction * n_equations)`` counted from 1, at least the first."""
    if not 0 < fraction <= 1:
        raise ValueError(f"truncation fraction must be in (0, 1], not {fraction}")
    return max(0, min(n_equations - 1, ceil(fraction * n_equations - 1e-9) - 1))


def truncate(text: str, equation: int, *, equations: Sequence[MathSpan] | None = None) -> str:
    """``text`` up to the end of the line holding the end of equation ``equation`` (0-based)."""
    spans = list(equations) if equations is not None else find_equations(text)
    if not spans:
        return text
    span = spans[max(0, min(equation, len(spans) - 1))]
    cut = text.find("\n", span.end)
    return (text if cut < 0 else text[:cut]).rstrip()


def describe(result: PerturbationResult) -> str:
    """One line per edit: ``kind: rule at equation k (line n): 'before' -> 'after'``."""
    lines = []
    for p in result.perturbations:
        where = f"equation {p.equation}" if p.equation is not None else "prose"
        lines.append(f"{p.kind}: {p.rule} at {where} (line {p.line}): {p.before!r} -> {p.after!r}")
    return "\n".join(lines)

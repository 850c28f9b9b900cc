"""The perturbation rules, one family a module, and the registry that names them by kind.

Each rule reads one equation's LaTeX (and which characters are command names or text arguments)
and returns every :class:`~physeval.probes.rules.site.Site` it could edit; :func:`math_candidates`
turns those into :class:`~physeval.probes.edits.Candidate` edits of the solution. A new kind is a
function here and a line in :data:`RULES`.
"""

from __future__ import annotations

from collections.abc import Callable

from physeval.probes.edits import Candidate
from physeval.probes.latex_spans import MathSpan
from physeval.probes.latex_structure import masked
from physeval.probes.rules.coefficients import change_coefficient
from physeval.probes.rules.constants import CONSTANTS, delete_constant
from physeval.probes.rules.laws import FORMULA_LAWS, PROSE_LAWS, prose_candidates, swap_law
from physeval.probes.rules.operators import drop_term, reverse_operator
from physeval.probes.rules.site import Site
from physeval.probes.rules.squares import remove_square

__all__ = ["CONSTANTS", "FORMULA_LAWS", "PROSE_LAWS", "RULES", "Rule", "math_candidates", "prose_candidates"]

Rule = Callable[[str, list[bool]], list[Site]]


RULES: dict[str, Rule] = {
    "remove_square": remove_square,
    "reverse_operator": reverse_operator,
    "drop_term": drop_term,
    "delete_constant": delete_constant,
    "swap_law": swap_law,
    "change_coefficient": change_coefficient,
}
"""The base kinds, in the order the probe lists them, and the rule of each."""


def math_candidates(text: str, span: MathSpan, kind: str) -> list[Candidate]:
    """Every edit ``kind`` proposes inside the equation ``span`` of ``text`` (offsets in ``text``)."""
    math = text[span.inner_start:span.inner_end]
    base = span.inner_start
    found = []
    for site in RULES[kind](math, masked(math)):
        frag_b = frag_a = ""
        if site.segment is not None:
            s0, e0 = site.segment
            frag_b = math[s0:e0]
            frag_a = math[s0:site.start] + site.after + math[site.end:e0]
        found.append(Candidate(kind, site.rule, span.index, base + site.start, base + site.end,
                               math[site.start:site.end], site.after, frag_b.strip(), frag_a.strip(), site.token))
    return found

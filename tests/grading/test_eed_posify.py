"""EED's positive form is SymPy's ``posify``, put in and taken out with ``xreplace`` instead of ``subs``.

``subs`` with a dictionary walks the tree once per symbol (sorted); ``xreplace`` once. For a
symbol-for-symbol replacement both rebuild the same nodes, so the simplified trees must be
identical, node for node, to the ones ``posify`` and ``subs`` give: here on hand-written forms
that exercise assumptions (roots, absolute values, logarithms of products, powers of powers),
on texts over the budget (simplified by parts) and on PHYBench references.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy

from physeval.answers.latex import latex_to_sympy
from physeval.grading.eed_budget import DEFAULT_BUDGET, simplify_budgeted


def _with_subs(expr: sympy.Basic) -> tuple[sympy.Basic, str]:
    """The simplified form as it was computed before: ``posify``, ``simplify``, ``subs`` back."""
    from physeval.grading.eed_partial import simplify_by_parts

    over = DEFAULT_BUDGET.exceeded(expr)
    positive, back = sympy.posify(expr)
    if over:
        return simplify_by_parts(positive, DEFAULT_BUDGET).subs(back), over
    return sympy.simplify(positive).subs(back), ""


FORMS = [
    r"\sqrt{x^2 y^2}", r"|a b| + \sqrt{(a-b)^2}", r"\ln(a b^2) - 2\ln b", r"(x^a)^b + (x^2)^{1/2}",
    r"\frac{\sqrt{m g}}{\sqrt{m}} \sqrt{\frac{l}{g}}", r"e^{\ln x + \ln y}", r"\frac{1}{2} m v^{2} + m g h",
    r"\frac{q b}{2\pi \varepsilon_0} (x^2 + y^2 + z^2)^{-3/2}", r"\sin^2\theta + \cos^2\theta - 1",
    r"\frac{x^{3} - y^{3}}{x - y}", r"\arctan\frac{v}{c} + \frac{|a|}{a}",
    r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{2}",  # over the radical budget: simplified by parts
    r"(a+b)^{40} (a+c)^{40} + d",  # over the expand budget
]


@pytest.mark.parametrize("compat", [None, "phybench"])
@pytest.mark.parametrize("text", FORMS)
def test_the_simplified_form_is_the_one_subs_gave(text: str, compat: str | None) -> None:
    expr = latex_to_sympy(text, compat=compat).expr
    ours, theirs = simplify_budgeted(expr), _with_subs(expr)
    assert sympy.srepr(ours[0]) == sympy.srepr(theirs[0]) and ours[1] == theirs[1]


def test_phybench_references_simplify_to_the_same_trees(shared_data: Path) -> None:
    path = shared_data / "phybench" / "PHYBench-fullques_v1.json"
    from physeval.answers.latex import strip_to_rhs

    answers = [str(r.get("answer") or "") for r in json.loads(path.read_text(encoding="utf-8"))]
    checked = 0
    for answer in [a for a in answers if a][::5]:
        text = strip_to_rhs(answer.replace("$", " ").replace("\\[", " ").replace("\\]", " "))
        expr = latex_to_sympy(text).expr
        if not isinstance(expr, sympy.Basic):
            continue
        ours, theirs = simplify_budgeted(expr), _with_subs(expr)
        assert sympy.srepr(ours[0]) == sympy.srepr(theirs[0]), text
        checked += 1
    assert checked >= 15

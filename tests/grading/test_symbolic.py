"""Symbolic grading: equivalence, extraction, outcomes, determinism, process pool."""

import pytest
import sympy

from physeval.grading.symbolic import (
    SymbolicGrade,
    check_equivalence,
    grade_symbolic,
    grade_symbolic_many,
)
from physeval.problems import Grade

REFERENCE = r"$$T_2 = 2mg + 4m \frac{v_0^2}{l}$$"


def test_equivalent_answer_in_a_realistic_response() -> None:
    response = (
        "<think>maybe \\boxed{0}</think> The tension is found from Newton's law.\n"
        "$$\\boxed{T_2 = 2m\\left(g + \\dfrac{2 v_{0}^{2}}{l}\\right)}$$"
    )
    grade = grade_symbolic(response, REFERENCE)
    assert isinstance(grade, SymbolicGrade) and isinstance(grade, Grade)
    assert grade.correct and grade.equivalent is True
    assert grade.eed_score == 100 and grade.score == 1.0
    assert grade.extraction_rule == "boxed_first"
    assert grade.extracted.startswith("T_2")


def test_first_box_is_the_published_rule_and_last_is_an_option() -> None:
    response = r"First \boxed{2mg} then corrected: \boxed{2mg + 4m\frac{v_0^2}{l}}"
    assert not grade_symbolic(response, REFERENCE).correct
    assert grade_symbolic(response, REFERENCE, box="last").correct


def test_wrong_answer_gets_partial_credit() -> None:
    grade = grade_symbolic(r"\boxed{2mg+2\frac{mv_0^2}{l}}", r"2mg+4\frac{mv_0^2}{l}")
    assert not grade.correct and grade.outcome == "wrong"
    assert round(grade.eed_score, 2) == 46.67 and grade.eed_size == 15 and grade.eed_distance == 2
    assert grade.to_dict()["eed_score"] == grade.eed_score


def test_no_answer_and_malformed_answers_are_explicit() -> None:
    assert grade_symbolic("I do not know.", REFERENCE).outcome == "no_answer"
    assert grade_symbolic(r"\boxed{\frac{2m}{}}", REFERENCE).outcome == "unparseable"
    assert grade_symbolic(r"\boxed{}", REFERENCE).outcome == "no_answer"


def test_model_output_styles() -> None:
    cases = [
        (r"\boxed{\hbar \omega_{0}}", r"\hbar\omega_0", True),
        (r"\boxed{v \leq \sqrt{2 g h}}", r"\sqrt{2gh}", False),  # a bound is not the value (an outside review)
        (r"\boxed{E \approx \frac{1}{2} m v^2 \approx 3 J}", r"\frac{1}{2}mv^2", False),
        (r"\boxed{\left(\frac{q}{4\pi\epsilon_0 r^2}\right)}", r"\frac{q}{4\pi\varepsilon_0 r^2}", True),
        (r"\boxed{m_e c^2}", r"m_{e}c^{2}", True),
    ]
    for response, reference, expected in cases:
        assert grade_symbolic(response, reference).correct is expected, response


def test_numeric_probe_and_symbolic_confirmation() -> None:
    x, y = sympy.symbols("x y", positive=True)
    assert check_equivalence(sympy.sqrt(x**2 * y), x * sympy.sqrt(y)).equivalent is True
    verdict = check_equivalence(sympy.sin(x) ** 2 + sympy.cos(x) ** 2, sympy.Integer(1))
    assert verdict.equivalent is True and verdict.method == "symbolic"
    differ = check_equivalence(x + y, x - y)
    assert differ.equivalent is False and differ.method == "numeric"


def test_the_probe_evaluates_undefined_functions_through_one_fixed_function() -> None:
    # An unknown initial value such as \eta_k(0) used to leave the probe without a valid point,
    # and simplify then ran on the difference (22 s on the PHYBench pipeline's regression pair
    # 698) to end undecided. Equal for every function means equal for one: a difference is real.
    f, g = sympy.Function("u_0"), sympy.Function("eta_k")
    x, y = sympy.symbols("x y", positive=True)
    differ = check_equivalence(g(0) * (1 + x), g(0) + x * g(1))
    assert differ.equivalent is False and differ.method == "numeric", differ
    for reference, near_miss in [(f(x) + f(y), f(x + y)), (2 * f(x), f(2 * x)), (f(x) * f(y), f(x * y))]:
        assert check_equivalence(reference, near_miss).equivalent is False
    same = check_equivalence(g(0) * (1 + x), g(0) + x * g(0))
    assert same.equivalent is True and same.method == "symbolic", same  # agreement is still proven
    derivative = check_equivalence(sympy.Derivative(f(x), x), 2 * sympy.Derivative(f(x), x))
    assert derivative.equivalent is not True  # derivatives of unknown functions: left to simplify
    q, e, c = sympy.Function("q"), sympy.Symbol("E"), sympy.Symbol("c")
    for written, product in [(q(e), sympy.Symbol("q") * e), (q(c**2), sympy.Symbol("q") * c**2),
                             (sympy.Function("gamma")(c), sympy.Symbol("gamma") * c)]:
        ambiguous = check_equivalence(written, product)  # q(E) may be q times E
        assert ambiguous.equivalent is None, ambiguous


def test_a_pipeline_regression_pair_with_an_unknown_function_is_decided_by_the_probe() -> None:
    from physeval.grading.eed import eed

    reference = (r"\frac{(p+4\nu k^2)\eta_k(0)+\eta'_k(0)}{(p+2\nu k^2)^2+(g+\frac{\tau}{\rho} k^2)k \tanh(kh)"
                 r" - 4\nu^{3/2}k^3\frac{\sqrt{p+\nu k^2}\tanh(kh)}{\tanh\left(\sqrt{\frac{p+\nu k^2}{\nu}}h\right)}}")
    answer = r"\frac{\eta_k(0)(p + 2\nu k^2) + \eta'_k(0)}{p^2 + 2\nu k^2 p + \frac{\tau k^3 \tanh(kh)}{\rho}}"
    result = eed(reference, answer)
    assert result.outcome == "wrong" and "values differ" in result.reason, result
    # the pipeline's test has distance 58.4 of 110 nodes (6.91): it reads \eta'_k(0) as \eta_k(0);
    # here the prime is a symbol of its own, in a tree of 113 nodes
    assert (result.distance, result.size, round(result.score, 2)) == (58.4, 113, 8.32)


def test_close_but_different_values_are_not_equivalent() -> None:
    x = sympy.Symbol("x")
    assert check_equivalence(x, x * (1 + sympy.Rational(1, 10**6))).equivalent is False


def test_over_budget_is_undecided_not_wrong() -> None:
    x = sympy.Symbol("x")
    big = sum(sympy.sin(k * x) ** 2 + sympy.cos(k * x) ** 2 for k in range(1, 60))
    verdict = check_equivalence(big, sympy.Integer(59))
    assert verdict.equivalent is None and verdict.method == "undecided"
    assert "budget" in verdict.reason


PAIRS = [
    (r"\boxed{2mg+2\frac{mv_0^2}{l}}", r"2mg+4\frac{mv_0^2}{l}"),
    (r"\boxed{a-b}", "a+b"),
    (r"\boxed{\frac{m v^2}{2}}", r"\frac{1}{2}mv^2"),
    (r"\boxed{\sqrt{g h}}", r"\sqrt{2gh}"),
    (r"no box", r"x"),
    (r"\boxed{\frac{1}{}}", r"x + y"),
    (r"\boxed{2\pi\sqrt{\frac{l}{g}}}", r"T = 2\pi\sqrt{l/g}"),
]


def test_repeated_runs_are_identical() -> None:
    first = [grade_symbolic(r, ref).to_dict() for r, ref in PAIRS]
    second = [grade_symbolic(r, ref).to_dict() for r, ref in PAIRS]
    assert first == second


def test_process_pool_matches_serial() -> None:
    serial = grade_symbolic_many(PAIRS, processes=1)
    pooled = grade_symbolic_many(PAIRS, processes=2)
    assert [g.to_dict() for g in pooled] == [g.to_dict() for g in serial]
    assert [g.to_dict() for g in serial] == [grade_symbolic(r, ref).to_dict() for r, ref in PAIRS]


def test_dimensions_flow_into_the_grade() -> None:
    dims = {"m": "mass", "g": "length/time**2", "v_0": "length/time", "l": "length"}
    wrong_dim = grade_symbolic(r"\boxed{2g + 4\frac{v_0^2}{l}}", r"2mg+4\frac{mv_0^2}{l}", dimensions=dims)
    assert wrong_dim.dimension_consistent is True and wrong_dim.dimension_matches is False
    assert wrong_dim.outcome == "dimension_mismatch"
    right = grade_symbolic(r"\boxed{2mg+4\frac{mv_0^2}{l}}", r"2mg+4\frac{mv_0^2}{l}", dimensions=dims)
    assert right.correct and right.dimension_matches is True


@pytest.mark.slow
@pytest.mark.timeout(3000)
def test_scores_do_not_change_on_a_slowed_machine() -> None:
    """Grade under `nice` while another process burns CPU: the verdicts must not move.

    The process's own timeout is a hang guard, not a clock on the work: under ``nice -n 19`` beside
    CI's two workers and two busy loops the grading got so little CPU that 120 s ran out (CI)."""
    import json
    import shutil
    import subprocess
    import sys

    script = (
        "import json, sys\n"
        "from physeval.grading.symbolic import grade_symbolic\n"
        "pairs = json.loads(sys.argv[1])\n"
        "print(json.dumps([grade_symbolic(r, ref).to_dict() for r, ref in pairs]))\n"
    )
    burner = subprocess.Popen([sys.executable, "-c", "import time\nt=time.time()\nwhile time.time()-t<10: pass"])
    try:
        command = [sys.executable, "-c", script, json.dumps(PAIRS[:4])]
        if shutil.which("nice"):
            command = ["nice", "-n", "19", *command]
        slowed = json.loads(subprocess.run(command, capture_output=True, text=True, check=True, timeout=1500).stdout)
    finally:
        burner.kill()
        burner.wait()
    assert slowed == [grade_symbolic(r, ref).to_dict() for r, ref in PAIRS[:4]]


@pytest.mark.parametrize(("response", "prose"), [
    (r"\boxed{\text{see above}}", True),
    (r"\boxed{\textbf{No.}}", True),
    (r"\boxed{\text{the ball stops}\,\text{at rest}}", True),
    (r"\boxed{\mbox{undefined}}", True),
    (r"\boxed{\text{5 m/s}}", False),  # a value in text mode: graded as one
    (r"\boxed{v = \frac{g t^2}{2}\text{ (downwards)}}", False),  # mathematics outside the text
    (r"\boxed{\text{The answer is } v=\frac{gt^2}{2}}", False),
    (r"\boxed{\text{v}}", False),  # one letter is a symbol, not a word
])
def test_text_answers_are_unparseable_not_wrong_algebra(response: str, prose: bool) -> None:
    grade = grade_symbolic(response, r"v=\frac{g t^2}{2}")
    if prose:
        assert (grade.outcome, grade.correct, grade.score, grade.eed_score) == ("unparseable", False, 0.0, 0.0)
        assert grade.reason.startswith("the answer is text, not an expression")
    else:
        assert grade.outcome != "unparseable" and "text, not an expression" not in grade.reason
    pipeline = grade_symbolic(response, "x", compat="phybench")  # the maintained pipeline, bug for bug
    assert "text, not an expression" not in pipeline.reason

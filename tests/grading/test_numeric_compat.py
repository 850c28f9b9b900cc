"""compat="abench": the official ABench evaluator's verdicts, reproduced.

Rows: (response, reference, question, expected correct, expected outcome). The rows marked
"differs" are where physeval's own grader disagrees on purpose; both verdicts are asserted.
"""

from __future__ import annotations

import pytest

from physeval.grading.compat.abench import abench_boxed_content, abench_delete_units, abench_value
from physeval.grading.numeric import grade_numeric

Q_KMS = "Find v. (Results should be expressed with units of $ \\mathrm{\\;{km}}/\\mathrm{s} $,and rounded to 2 significant figures)"
Q_J = "求热量。 (结果以$ \\mathrm{\\;J}  $为单位，保留3位有效数字)"
Q_C = "求温度。 (结果以$ { \\circ  }\\mathrm{C} $为单位，保留2位有效数字)"
Q_UA = "求电流。 (结果以$ \\mu \\mathrm{A} $为单位，保留3位有效数字)"
Q = "求比值。 (结果保留3位有效数字)"

# (response, reference, question, abench correct, abench outcome, physeval correct)
CASES = [
    # the documented rejections
    ("\\boxed{3.0e5}", "3.0 \\times 10^{5}", Q, False, "unparseable", True),
    ("\\boxed{3.0E+05}", "3.0 \\times 10^{5}", Q, False, "unparseable", True),
    ("\\boxed{\\text{4}}", "4", Q, False, "unparseable", True),
    ("\\boxed{1{,}000}", "1000", Q, False, "unparseable", True),
    ("\\boxed{1,000}", "1000", Q, False, "unparseable", True),
    ("\\boxed{30000\\ \\mathrm{m/s}}", "30", Q_KMS, False, "wrong", True),
    ("\\boxed{30000 m/s}", "30", Q_KMS, False, "wrong", True),
    ("\\boxed{2.97\\times10^{-6}\\,\\mathrm{A}}", "2.97", Q_UA, False, "wrong", True),
    ("\\boxed{193\\,\\mathrm{K}}", "- 80", Q_C, False, "wrong", True),
    ("\\boxed{1.01}", "1", Q, False, "wrong", True),  # float round-off at exactly 1 %
    # units stripped without conversion: a wrong unit passes
    ("\\boxed{5\\,\\mathrm{m}}", "5", Q_J, True, "correct", False),
    ("\\boxed{2.97\\,\\mathrm{V}}", "2.97", Q_UA, True, "correct", False),
    # agreement on ordinary answers
    ("\\boxed{2.97}", "2.97", Q_UA, True, "correct", True),
    ("\\boxed{2.97\\,\\mu\\mathrm{A}}", "2.97", Q_UA, True, "correct", True),
    ("\\boxed{- 50}", "- 50", Q_J, True, "correct", True),
    ("\\boxed{-50\\,\\mathrm{J}}", "- 50", Q_J, True, "correct", True),
    ("\\boxed{500 \\text{J}}", "500", Q_J, True, "correct", True),
    ("\\boxed{1.4 \\times 10^{-2}}", "1.4 \\times 10^{-2}", Q, True, "correct", True),
    ("\\boxed{1.4 \\cdot 10^{-2}}", "1.4 \\times 10^{-2}", Q, True, "correct", True),
    ("\\boxed{5.7 \\times  {10}^{9}}", "5.7 \\times  {10}^{9}", Q, True, "correct", True),
    ("\\boxed{\\frac{1}{2}}", "0.5", Q, True, "correct", True),
    ("\\boxed{\\sqrt{2}}", "1.41", Q, True, "correct", True),
    ("\\boxed{2\\pi}", "6.28", Q, True, "correct", True),
    ("\\boxed{v = 5.0\\,\\mathrm{m/s}}", "5", Q, True, "correct", True),
    ("\\boxed{h \\approx 0.46}", "0.46", Q, True, "correct", True),
    ("\\boxed{10\\%}", "10\\%", Q, True, "correct", True),
    ("\\boxed{0.014}", "1.4 \\times 10^{-2}", Q, True, "correct", True),
    ("\\boxed{3.10}", "2.97", Q_UA, False, "wrong", False),
    ("\\boxed{6^{\\circ}}", "6", Q, True, "correct", True),
    # extraction differences
    ("Final answer: 7", "7", Q, False, "no_answer", True),
    ("\\fbox{7}", "7", Q, False, "no_answer", True),
    ("\\boxed{7} <think>\\boxed{8}</think>", "8", Q, True, "correct", False),
    ("I give up.", "7", Q, False, "no_answer", False),
    ("\\boxed{5 \\text{ or } 7}", "5", Q, False, "wrong", False),  # "or" deleted as a unit: 5 7 is read
    ("\\boxed{\\sqrt{2gh}}", "3", Q, False, "wrong", False),  # falls back to the one number, 2
    ("\\boxed{\\sqrt{2gh}}", "2", Q, True, "correct", False),
]


@pytest.mark.parametrize(("response", "reference", "question", "correct", "outcome", "physeval_correct"), CASES)
def test_abench_compat_verdicts(
    response: str, reference: str, question: str, correct: bool, outcome: str, physeval_correct: bool
) -> None:
    grade = grade_numeric(response, reference, question, compat="abench")
    assert (grade.correct, grade.outcome) == (correct, outcome), grade.reason
    assert grade.compat == "abench" and grade.reason.startswith("abench")
    assert grade_numeric(response, reference, question).correct is physeval_correct


def test_boxed_content_is_the_last_rfind() -> None:
    assert abench_boxed_content("\\boxed{1} \\boxed{\\frac{2}{3}}") == "\\frac{2}{3}"
    assert abench_boxed_content("\\boxed{1") is None


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("30000\\ \\mathrm{m/s}", "30000\\ "),
        ("5\\,\\text{J}", "5\\,"),
        ("1.2\\,\\mathrm{m}\\cdot\\mathrm{s}^{-1}", "1.2\\,"),
        ("\\text{4}", ""),
    ],
)
def test_units_are_deleted_not_converted(text: str, left: str) -> None:
    assert abench_delete_units(text) == left


def test_value_refuses_free_symbols() -> None:
    assert abench_value("x + 1") is None
    assert abench_value("1.5 \\times 10^{3}") == 1500.0


@pytest.mark.parametrize("text", ["10^{10^{10}}", "9999999!", "2^{2^{2^{2^{2}}}}"])
def test_value_beyond_the_bounds_does_not_evaluate(text: str) -> None:
    # the official code computes these for hours (a ten-billion-digit integer); the guard is the test timeout
    assert abench_value(text) is None
    grade = grade_numeric(f"\\boxed{{{text}}}", "1", compat="abench")
    assert grade.correct is False and grade.outcome in ("wrong", "unparseable")

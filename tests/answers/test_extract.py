"""Final-answer extraction: boxes first, then an explicit final-answer line."""

from __future__ import annotations

import pytest

from physeval.answers.extract import extract_final_answer, find_boxed, strip_reasoning


@pytest.mark.parametrize(
    ("response", "text", "rule"),
    [
        ("so $\\boxed{42}$.", "42", "boxed_last"),
        ("first \\boxed{1}, then \\boxed{2}", "2", "boxed_last"),
        ("\\fbox{3.5\\,\\mathrm{m}}", "3.5\\,\\mathrm{m}", "boxed_last"),
        ("\\boxed{\\frac{1}{2}}", "\\frac{1}{2}", "boxed_last"),
        ("<think>\\boxed{1}</think> so \\boxed{2}", "2", "boxed_last"),
        ("<think>\\boxed{1}</think> Answer: 7", "7", "final_line"),
        ("The final answer is: 7", "7", "final_line"),
        ("The final answer is 7 m/s.", "7 m/s", "final_line"),
        ("**Final answer:** $42$ m", "42 m", "final_line"),
        ("**Answer**: 7 kg", "7 kg", "final_line"),
        ("答案：\\(3.2\\,\\mathrm{m}\\)。", "3.2\\,\\mathrm{m}", "final_line"),
        ("最终答案为 12 J", "12 J", "final_line"),
        ("Final answer:\n$$\n v = 3 \\text{ m/s}\n$$\n", "v = 3 \\text{ m/s}", "final_line"),
        ("Answer: 1\nmore text\nFinal Answer: 2", "2", "final_line"),
        ("no answer given here", None, "none"),
        ("answer key: 5", None, "none"),
        ("truncated \\boxed{3.0 \\times 10^{", None, "none"),
        ("", None, "none"),
    ],
)
def test_extract_final_answer(response: str, text: str | None, rule: str) -> None:
    got = extract_final_answer(response)
    assert (got.text, got.rule) == (text, rule)


def test_first_box_rule() -> None:
    assert extract_final_answer("\\boxed{1} then \\boxed{2}", box="first").text == "1"


def test_bad_box_rule_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        extract_final_answer("x", box="middle")  # type: ignore[arg-type]


def test_find_boxed_balances_braces() -> None:
    assert find_boxed("\\boxed{\\frac{a}{b}} and \\boxed{ {1} }") == ["\\frac{a}{b}", "{1}"]


def test_unterminated_think_drops_the_rest() -> None:
    assert "secret" not in strip_reasoning("visible <think> secret")

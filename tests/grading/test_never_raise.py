"""Public graders return an outcome on any input; an internal failure is an ``error`` grade naming it.

Covers ``grade_numeric`` (and its ``compat="abench"`` mode), ``grade_symbolic``, ``eed`` and the
judge-reply parser, on garbage (empty and None-like strings, unbalanced braces, ``\\frac{``,
binary junk, huge strings) and on non-string values, plus the guard itself: the reason carries
the exception type, message and the line that raised, and bad options still raise.
(Hostile inputs that cost a lot of work, such as power towers, are tests/grading/test_bounds.py.)
"""

from __future__ import annotations

import pytest

from physeval.grading import _never_raise
from physeval.grading._never_raise import GRADER_ERROR_PREFIX, error_grade, never_raises
from physeval.grading.eed import EEDResult, eed
from physeval.grading.numeric import NumericGrade, grade_numeric
from physeval.grading.symbolic import SymbolicGrade, grade_symbolic
from physeval.problems import Grade, Outcome
from physeval.scenes.judge import PARSE_ERROR, ParsedReply, parse_judge_reply

KJ_ZH = "气体吸收的热量 Q。 (结果以$ \\mathrm{\\;kJ}  $为单位，保留3位有效数字)"

def _outcome(name: object) -> bool:
    """An outcome is a short machine name (tracks add their own: too_long, too_large, budget, ...)."""
    return isinstance(name, str) and name.replace("_", "").isalpha() and name.islower()


GARBAGE = [
    "", " ", "None", "null", "nan", "\\boxed{", "\\boxed{}", "\\boxed{\\frac{}", "\\frac{", "\\boxed{\\frac{",
    "}}}}{{{", "{" * 8 + "1", "\\boxed{" + "{" * 8 + "1" + "}" * 8 + "}", "\\boxed{\\left(}", "\\boxed{\\sqrt[}",
    "\x00\x01\x02\xff\ufffd", bytes(range(256)).decode("latin-1"), "\\boxed{\\mathrm{",
    "\\boxed{5\\,\\mathrm{m\\,s^{-}}}", "\\boxed{\\text{\\}}", "$$$$", "<think>\\boxed{1}", "\\boxed{-}",
    "\\boxed{1e999999}", "\\boxed{\\begin{pmatrix}1\\\\2\\end{pmatrix}}", "\\boxed{1}" * 500,
]
HUGE = "x" * 200_000  # as a response only: reading a huge *reference* is test_bounds' business


def _not_a_bug(reason: str) -> None:
    assert not reason.startswith(GRADER_ERROR_PREFIX), reason


@pytest.mark.parametrize("text", GARBAGE + [HUGE])
@pytest.mark.parametrize("compat", [None, "abench"])
def test_grade_numeric_returns_an_outcome_on_garbage(text: str, compat: str | None) -> None:
    for response, reference, question in ((text, "700", KJ_ZH), ("\\boxed{700}", text[:300], KJ_ZH),
                                          ("\\boxed{700}", "700", text[:300])):
        grade = grade_numeric(response, reference, question, compat=compat)
        assert isinstance(grade, NumericGrade) and _outcome(grade.outcome)
        _not_a_bug(grade.reason)
        assert grade.correct == (grade.outcome == Outcome.CORRECT)


@pytest.mark.parametrize("text", GARBAGE)
def test_symbolic_and_eed_return_an_outcome_on_garbage(text: str) -> None:
    grade = grade_symbolic(text, "\\frac{1}{2} m v^{2}")
    assert isinstance(grade, SymbolicGrade) and _outcome(grade.outcome)
    _not_a_bug(grade.reason)
    for reference, answer in ((text, "m v"), ("\\frac{1}{2} m v^{2}", text)):
        result = eed(reference, answer)
        assert isinstance(result, EEDResult) and _outcome(result.outcome) and 0 <= result.score <= 100
        _not_a_bug(result.reason)


def test_huge_answers_return_an_outcome() -> None:
    assert _outcome(grade_symbolic(HUGE, "x").outcome)
    assert eed("x", HUGE).outcome == "too_long"


@pytest.mark.parametrize("text", GARBAGE + [HUGE])
def test_judge_reply_parser_returns_a_reading_on_garbage(text: str) -> None:
    parsed = parse_judge_reply(text, ["1", "2"])
    assert isinstance(parsed, ParsedReply) and set(parsed.results) == {"1", "2"}
    assert parsed.method != PARSE_ERROR, parsed.problems


@pytest.mark.parametrize("value", [None, 7, 7.5, ["a"], b"\\boxed{7}"])
def test_non_string_inputs_give_an_outcome_never_an_exception(value: object) -> None:
    results: list[Grade | EEDResult] = [
        grade_numeric(value, "7", ""),  # type: ignore[arg-type]
        grade_numeric("\\boxed{7}", value, ""),  # type: ignore[arg-type]
        grade_numeric("\\boxed{7}", "7", value),  # type: ignore[arg-type]
        grade_numeric(value, "7", value, compat="abench"),  # type: ignore[arg-type]
        grade_symbolic(value, "x"),  # type: ignore[arg-type]
        grade_symbolic("\\boxed{x}", value),  # type: ignore[arg-type]
        eed(value, "x"),  # type: ignore[arg-type]
        eed("x", value),  # type: ignore[arg-type]
    ]
    for result in results:
        assert _outcome(result.outcome)
        if result.reason.startswith(GRADER_ERROR_PREFIX):  # a type the signature does not allow
            assert result.outcome == Outcome.ERROR and "Error: " in result.reason
    parsed = parse_judge_reply(value, ["1"])  # type: ignore[arg-type]
    assert parsed.results == {"1": False} or parsed.method != PARSE_ERROR


def test_an_internal_failure_becomes_an_error_grade_that_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from physeval.grading import numeric

    def broken(text: str) -> None:
        raise RuntimeError("unit table corrupted")

    monkeypatch.setattr(numeric, "parse_quantity", broken)
    grade = grade_numeric("\\boxed{7\\,\\mathrm{J}}", "7", "")
    assert (grade.correct, grade.outcome) == (False, "error")
    assert grade.reason.startswith("grader error: RuntimeError: unit table corrupted (at ")
    assert "test_never_raise.py" in grade.reason and "in broken" in grade.reason
    with pytest.raises(RuntimeError):
        grade_numeric.__wrapped__("\\boxed{7\\,\\mathrm{J}}", "7", "")  # type: ignore[attr-defined]


def test_the_judge_parser_failing_is_an_error_reading_with_every_label(monkeypatch: pytest.MonkeyPatch) -> None:
    from physeval.scenes.judge import reply as judge

    def broken(text: str) -> tuple[list[object], str]:
        raise KeyError("index")

    monkeypatch.setattr(judge, "_find_items", broken)
    parsed = parse_judge_reply('[{"index": 1, "result": true}]', ["1", "Q2"])
    assert parsed.method == PARSE_ERROR and parsed.results == {"1": False, "2": False}
    assert parsed.missing == ("1", "2") and parsed.problems[0].startswith("grader error: KeyError: 'index'")


def test_bad_options_are_programming_errors_and_still_raise() -> None:
    with pytest.raises(ValueError, match="compat"):
        grade_numeric("\\boxed{2}", "2", compat="mathverify")
    with pytest.raises(ValueError, match="box"):
        grade_numeric("\\boxed{2}", "2", box="middle")
    with pytest.raises(ValueError):
        grade_symbolic("\\boxed{x}", "x", compat="mathverify")
    with pytest.raises(ValueError):
        grade_symbolic("\\boxed{x}", "x", box="middle")
    with pytest.raises(ValueError):
        eed("x", "x", compat="mathverify")


def test_the_guard_lets_interrupts_through_and_keeps_the_signature() -> None:
    @never_raises(error_grade(Grade))
    def grader(response: str) -> Grade:
        """Doc."""
        if response == "stop":
            raise KeyboardInterrupt
        return Grade(True, Outcome.CORRECT, "ok")

    assert grader.__name__ == "grader" and grader.__doc__ == "Doc."
    assert grader("x").correct
    with pytest.raises(KeyboardInterrupt):
        grader("stop")


def test_error_reason_is_bounded_and_names_where() -> None:
    try:
        raise ValueError("x" * 10_000)
    except ValueError as exc:
        reason = _never_raise.error_reason(exc)
    assert reason.startswith("grader error: ValueError: xxx") and len(reason) < 500
    assert "test_never_raise.py" in reason

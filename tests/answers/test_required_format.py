"""Reading a question's closing instruction: the quick paths find exactly what the patterns find.

``required_format`` locates ABench's instruction by walking back from its closing bracket and
tries each unit phrasing only when the body holds the text it needs. Each shortcut is held here
to the regular expression that defines it: on generated texts built from the pieces that matter
(brackets of both widths, nested groups, the keywords in any case, the characters that
``re.IGNORECASE`` folds oddly), and on every question of the shared ABench data.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physeval.answers import units
from physeval.answers.units import required_format

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "abench"

_INSTRUCTION_PIECES = st.sampled_from([
    "(", ")", "（", "）", " ", "\n", "x", "结果", "Results should", "result should", "RESULTS  SHOULD",
    "reſults should", "(a)", "(（b）)", "保留3位有效数字", "rounded to 2 significant figures",
])
_BODY_PIECES = st.sampled_from([
    "以", "$", " m/s ", "为单位", "，", "with units of", "Units Of", "unit of", "OF", "of", " km ", ",",
    "and", "ſ", "ı", "\\mathrm{J}", " ", "保留3位有效数字", "使用科学计数法", "scientific notation",
    "3 significant figures", "(", ")",
])


def _instruction_by_regex(tail: str) -> str | None:
    match = units._INSTRUCTION.search(tail)
    return match.group(0) if match else None


def _unit_phrase_by_regex(body: str) -> re.Match[str] | None:
    return (units._UNIT_ZH.search(body) or units._UNIT_EN.search(body)
            or units._UNIT_ZH_PLAIN.search(body) or units._UNIT_EN_PLAIN.search(body))


def _span(match: re.Match[str] | None) -> tuple[str, int, int] | None:
    return (match.re.pattern, *match.span("u")) if match else None


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.lists(_INSTRUCTION_PIECES, max_size=16).map("".join))
def test_the_walk_back_finds_the_instruction_the_pattern_finds(tail: str) -> None:
    assert units._instruction(tail) == _instruction_by_regex(tail)


@pytest.mark.parametrize("tail", [
    "求速度。 (结果以$ \\mathrm{m/s} $为单位，保留3位有效数字)",
    "Find v. (Results should be expressed with units of $ m/s $ (SI), and rounded to 3 significant figures)  \n",
    "(结果 (a)(b) 保留2位有效数字)",
    "(结果 (b)c)d)",  # a group's ")" inside another group: no instruction
    "(结果 ((a)) 保留2位)",  # nested groups: no instruction
    "(结果 （a） 保留2位)",  # a full-width pair outside a group: no instruction
    "(结果 (（a）) 保留2位）",  # full-width inside a group, a full-width close
    "（结果保留2位有效数字）", "x (Results should) (Results should)", "(结果)", "结果)", ")", "", "  ",
])
def test_instructions_written_every_way_read_as_the_pattern_reads_them(tail: str) -> None:
    assert units._instruction(tail) == _instruction_by_regex(tail)


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.lists(_BODY_PIECES, max_size=14).map("".join))
def test_the_unit_phrase_is_the_first_pattern_that_matches(body: str) -> None:
    assert _span(units._unit_phrase(body)) == _span(_unit_phrase_by_regex(body))


def test_every_abench_question_reads_as_the_patterns_read_it() -> None:
    if not (DATA / "Phy_A_fixed_400.csv").is_file():
        pytest.skip("../shared/data/abench is absent")
    from physeval.tasks.abench_data import load_abench

    questions = [p.question for p in load_abench(DATA, "a") + load_abench(DATA, "b")]
    differ = []
    for question in questions:
        for tail in (question[-600:], question[-600:] + " \n", question[-600:-1]):
            body = _instruction_by_regex(tail)
            if units._instruction(tail) != body or (
                    body is not None and _span(units._unit_phrase(body)) != _span(_unit_phrase_by_regex(body))):
                differ.append(tail[-120:])
    assert differ == []
    assert sum(required_format(q).sig_figs is not None for q in questions) == len(questions)

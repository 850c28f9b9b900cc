"""The 800 ABench-Physics reference answers: each parses and, boxed, grades correct against itself."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from physeval.answers.quantity import parse_quantity
from physeval.answers.units import required_format
from physeval.grading.numeric import grade_numeric
from physeval.tasks.abench_data import load_abench

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "abench"


@pytest.fixture(scope="module")
def problems() -> list:
    if not (DATA / "Phy_A_fixed_400.csv").is_file() or not (DATA / "Phy_B_dynamic_100.csv").is_file():
        pytest.skip("../shared/data/abench is absent")
    return load_abench(DATA, "a") + load_abench(DATA, "b")


def test_there_are_800(problems: list) -> None:
    assert len(problems) == 800


def test_every_reference_parses(problems: list) -> None:
    bad = [(p.id, p.variant, p.answer) for p in problems if not parse_quantity(p.answer).ok]
    assert bad == []


def test_every_boxed_reference_grades_correct(problems: list) -> None:
    bad = []
    for p in problems:
        grade = grade_numeric(f"The answer is $\\boxed{{{p.answer}}}$.", p.answer, p.question)
        if not grade.correct:
            bad.append((p.id, p.variant, p.answer, grade.reason))
    assert bad == []


def test_every_boxed_reference_grades_correct_in_abench_mode(problems: list) -> None:
    bad = [
        (p.id, p.variant, p.answer)
        for p in problems
        if not grade_numeric(f"\\boxed{{{p.answer}}}", p.answer, p.question, compat="abench").correct
    ]
    assert bad == []


def test_the_required_unit_is_found_whenever_stated(problems: list) -> None:
    stated = [p for p in problems if re.search(r"为单位|units of", p.question[-300:])]
    assert len(stated) > 500
    missing = [(p.id, p.variant) for p in stated if not required_format(p.question).unit]
    assert missing == []


def test_significant_figures_are_found_for_every_question(problems: list) -> None:
    assert [p.id for p in problems if required_format(p.question).sig_figs is None] == []

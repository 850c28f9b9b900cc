"""The required unit, read from the ways people write it, and phrasings that are not a unit.

Every numeric dataset not written in ABench's template states its unit in prose; the grader must
read it there (``30000 m/s`` against ``30`` km/s is right), and must not read "in the figure" or
"in m" (m a mass) as a unit. The same unit can be given explicitly: a ``unit`` field in ``jsonl``
data, a ``unit`` column for TRL, ``extra_info["unit"]`` for verl.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval.answers.stated_unit import stated_unit
from physeval.answers.units import required_format
from physeval.grading.numeric import grade_numeric
from physeval.rewards import compute_score, numeric_reward, trl_reward
from physeval.tasks.registry import get_task

# The five phrasings of the issue: each asks for km/s, and 30000 m/s against 30 is right.
ISSUE_PHRASINGS = [
    "What is v? Give the answer in km/s.",
    "What is v? Answer in km/s",
    r"Express v in \mathrm{km/s}",
    "What is v (in km/s)?",
    "Find v in km/s",
]

# (question, the unit read as written, or None)
UNIT_TABLE: list[tuple[str, str | None]] = [
    *[(q, r"\mathrm{km/s}" if "mathrm" in q else "km/s") for q in ISSUE_PHRASINGS],
    ("A car brakes to rest. What is its initial speed in units of km/s?", "km/s"),
    ("Give your answer in units of eV, to three significant figures.", "eV"),
    ("Express your answer in $\\mathrm{kJ}$.", "$\\mathrm{kJ}$"),
    ("State the period in s and the amplitude ...", "s"),
    ("Find the wavelength (in nm) of the emitted photon.", "nm"),
    ("Find v in m/s as shown in the figure.", "m/s"),
    ("Find v in km/s, to 3 significant figures.", "km/s"),
    ("What is the change in kinetic energy in J when it lands?", "J"),
    ("Find the increase in temperature in K.", "K"),
    ("What is the current in A?", "A"),
    ("Find the current in the resistor R in A.", "A"),
    ("A rope 3 m long hangs from a hook. Find the height of its centre of mass in m.", "m"),
    ("Answer in kPa.", "kPa"),
    ("Unit: km/s.", "km/s"),
    ("求探测器的速度 v。单位：km/s", "km/s"),
    ("求探测器的速度 v（单位：km/s）", "km/s"),
    ("求探测器的速度 v，以 km/s 为单位。", "km/s"),
    ("求探测器的速度 v，结果用 km/s 表示。", "km/s"),
    # not units
    ("As shown in the figure, find v.", None),
    ("A block of mass m slides down the incline. Find its height in m.", None),  # m is the mass
    ("Find the tension in terms of m and g.", None),
    ("Express the speed in terms of g and h.", None),
    ("A ball falls in a vacuum. What is v?", None),
    ("Give your answer in the form a/b.", None),
    ("In the lab frame, what is v?", None),
    ("Give the answer in SI units.", None),
    ("Express the answer in scientific notation.", None),
    ("Find the speed in a frame moving at c/2.", None),
    ("What is v in this case?", None),
    ("Find the charge on the capacitor C in C.", None),  # C is the capacitor
    ("What is the tension in the rope?", None),
    ("Write your answer in LaTeX.", None),
]


@pytest.mark.parametrize(("question", "unit"), UNIT_TABLE, ids=[q for q, _ in UNIT_TABLE])
def test_unit_table(question: str, unit: str | None) -> None:
    assert stated_unit(question) == unit
    assert required_format(question).unit == unit


@pytest.mark.parametrize("question", ISSUE_PHRASINGS)
def test_30000_m_per_s_is_30_km_per_s_in_every_phrasing(question: str) -> None:
    grade = grade_numeric(r"\boxed{30000\ \mathrm{m/s}}", "30", question)
    assert grade.correct, grade.reason
    assert "converted m / s -> km / s" in grade.reason


def test_a_symbol_is_not_a_unit_so_nothing_is_converted() -> None:
    # "in m" where m is the mass: no unit to convert to, so 3000 m/s is kept and is wrong against 3 (km/s).
    grade = grade_numeric(r"\boxed{3000\ \mathrm{m}}", "3", "A block of mass m slides. Find its height in m.")
    assert grade.unit_required is None and not grade.correct


def test_the_abench_instruction_still_wins() -> None:
    question = "Find v in m/s. (Results should be expressed with units of $ \\mathrm{km/s} $, and rounded to 2 significant figures)"
    assert required_format(question).unit == "\\mathrm{km/s}"


def test_an_explicit_unit_wins_over_the_question() -> None:
    assert grade_numeric(r"\boxed{30000\ \mathrm{m/s}}", "30", "What is v?", unit="km/s").correct
    assert not grade_numeric(r"\boxed{30000\ \mathrm{m/s}}", "30", "What is v?").correct


def test_jsonl_unit_field_grades_in_that_unit(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    lines = [{"id": 1, "question": "How fast is the probe? Express v in m/s as shown.", "answer": "30", "unit": "km/s"},
             {"id": 2, "question": "How fast is the probe?", "answer": "30", "unit": "km/s"}]
    data.write_text("".join(json.dumps(x) + "\n" for x in lines))
    task = get_task("jsonl", data=str(data))
    first, second = task.load()
    assert first.question == lines[0]["question"]  # it states a unit: the question is left as written
    assert "units of $ \\mathrm{km/s} $" in second.question  # it states none: the model is told
    for problem in (first, second):
        assert task.grade(problem, r"\boxed{30000\ \mathrm{m/s}}").correct


def test_rewards_take_the_unit_column_and_extra_info() -> None:
    response = r"so \boxed{30000\ \mathrm{m/s}}"
    assert numeric_reward(response, "30", "What is v?", unit="km/s") == 1.0
    reward = trl_reward("numeric")
    assert reward(prompts=["What is v?", "What is v?"], completions=[response, response], answer=["30", "30"],
                  unit=["km/s", None]) == [1.0, 0.0]
    assert compute_score("abench", response, "30", {"question": "What is v?", "unit": "km/s"})["score"] == 1.0
    assert compute_score("abench", response, "30", {"question": "What is v? Give the answer in km/s."})["score"] == 1.0

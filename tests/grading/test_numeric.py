"""physeval's own numeric grader, on realistic model answers.

Each row: (response, reference, question, expected correct, expected outcome, a fragment of the reason).
"""

from __future__ import annotations

import json

import pytest

from physeval.grading.numeric import NumericGrade, grade_numeric
from physeval.problems import Grade

Q_NONE = "求比值。 (结果保留3位有效数字)"
Q_SCI = "求概率比。 (结果使用科学计数法，保留2位有效数字)"
Q_KMS = "Find the speed. (Results should be expressed with units of $ \\mathrm{\\;{km}}/\\mathrm{s} $,and rounded to 2 significant figures)"
Q_MS = "求速度。 (结果以$ \\mathrm{\\;m}/\\mathrm{s} $为单位，保留3位有效数字)"
Q_UA = "求电流。 (结果以$ \\mu \\mathrm{A} $为单位，保留3位有效数字)"
Q_J = "求热量。 (结果以$ \\mathrm{\\;J}  $为单位，保留3位有效数字)"
Q_J_SCI = "求能量。 (结果使用科学计数法，以$ \\mathrm{\\;J} $为单位，保留3位有效数字)"
Q_KJ = "Find the work. (Results should be expressed with units of $ \\mathrm{\\;{kJ}} $,and rounded to 3 significant figures)"
Q_CM = "求距离。 (结果以$ \\mathrm{\\;{cm}} $为单位，保留2位有效数字)"
Q_M = "求距离。 (结果以$ \\mathrm{\\;m} $为单位，保留3位有效数字)"
Q_C = "At what temperature? (Results should be expressed with units of $ { \\circ  }\\mathrm{C} $,and rounded to 2 significant figures)"
Q_K = "求温度。 (结果以$ \\mathrm{\\;K} $为单位，保留5位有效数字)"
Q_DEG = "求仰角。 (结果以$ { \\circ $为单位，保留1位有效数字)"
Q_EV = "求能量。 (结果以$ \\mathrm{{eV}} $为单位，保留3位有效数字)"
Q_MEV = "Find Q. (Results should be expressed with units of $ \\mathrm{{MeV}} $,and rounded to 4 significant figures)"
Q_PA = "求压强。 (结果使用科学计数法，以$ \\mathrm{\\;{Pa}} $为单位，保留2位有效数字)"
Q_ATM = "求压强。 (结果以$ \\mathrm{{atm}} $为单位，保留2位有效数字)"
Q_MA = "求电流。 (结果以$ \\mathrm{\\;A} $为单位，保留2位有效数字)"
Q_OHM = "Find R. (Results should be expressed and rounded to 2 significant figures)"
Q_MS2 = "求加速度。 (结果以$ \\mathrm{\\;m}/{\\mathrm{s}}^{2} $为单位，保留2位有效数字)"
Q_MIN = "求时间。 (结果以$ \\mathrm{\\;{min}} $为单位，保留2位有效数字)"
Q_PRIME = "Find y'. (Results should be expressed with units of $ {\\prime $,and rounded to 1 significant figures)"
Q_NM = "求波长。 (结果以$ \\mathrm{\\;{nm}} $为单位，保留3位有效数字)"
Q_KG_M3 = "求密度。 (结果以$ \\mathrm{\\;{kg}}/{\\mathrm{m}}^{3} $为单位，保留2位有效数字)"

SOLUTION = "We apply energy conservation: $\\frac{1}{2}mv^2 = mgh$, hence $v = \\sqrt{2gh}$.\n"

CASES = [
    # --- plain numbers, signs, the dataset's own forms
    (SOLUTION + "Thus $\\boxed{2.97}$", "2.97", Q_UA, True, "correct", "within"),
    (SOLUTION + "\\boxed{2.98}", "2.97", Q_UA, True, "correct", "within"),
    (SOLUTION + "\\boxed{3.10}", "2.97", Q_UA, False, "wrong", "relative error"),
    ("The heat absorbed is \\boxed{- 50}", "- 50", Q_J, True, "correct", "within"),
    ("\\boxed{-50}", "- 50", Q_J, True, "correct", "within"),
    ("\\boxed{50}", "- 50", Q_J, False, "wrong", "relative error"),
    ("\\boxed{+500}", "  500", Q_J, True, "correct", "within"),
    ("\\boxed{500.}", "  500", Q_J, True, "correct", "within"),
    ("\\boxed{0}", "0", Q_NONE, True, "correct", "within"),
    ("\\boxed{0.0}", "0", Q_NONE, True, "correct", "within"),
    ("\\boxed{0.001}", "0", Q_NONE, False, "wrong", "reference is 0"),
    ("\\boxed{1.01}", "1", Q_NONE, True, "correct", "within"),  # exactly 1 %: exact arithmetic accepts
    ("\\boxed{1.0101}", "1", Q_NONE, False, "wrong", "relative error"),
    ("\\boxed{0.99}", "1", Q_NONE, True, "correct", "within"),
    ("\\boxed{0.9899}", "1", Q_NONE, False, "wrong", "relative error"),
    # --- scientific notation in every spelling
    ("\\boxed{1.4 \\times 10^{-2}}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{1.4\\times10^{-2}}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{1.4 \\cdot 10^{-2}}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{1.4 × 10^{-2}}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{1.4e-2}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{1.4E-02}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{1.4\\mathrm{e}{-2}}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{0.014}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{14 \\times 10^{-3}}", "1.4 \\times 10^{-2}", Q_SCI, True, "correct", "within"),
    ("\\boxed{1.4 \\times 10^{-3}}", "1.4 \\times 10^{-2}", Q_SCI, False, "wrong", "relative error"),
    ("\\boxed{3.0e5}", "3.0 \\times 10^{8}", Q_NONE, False, "wrong", "relative error"),
    ("\\boxed{3.0E+08}", "3.0 \\times 10^{8}", Q_NONE, True, "correct", "within"),
    ("\\boxed{10^{-3}}", "1.0 \\times 10^{-3}", Q_NONE, True, "correct", "within"),
    ("\\boxed{5.7 \\times  {10}^{9}}", "5.7 \\times  {10}^{9}", Q_NONE, True, "correct", "within"),
    ("\\boxed{−1.2×10⁻³}", "-1.2 \\times 10^{-3}", Q_NONE, True, "correct", "within"),
    ("\\boxed{2.0\u2009×\u200910^{4}}", "2.0 \\times 10^{4}", Q_NONE, True, "correct", "within"),
    # --- thousands separators and spaces
    ("\\boxed{1,000}", "1000", Q_NONE, True, "correct", "within"),
    ("\\boxed{1{,}000}", "1000", Q_NONE, True, "correct", "within"),
    ("\\boxed{1\\,000}", "1000", Q_NONE, True, "correct", "within"),
    ("\\boxed{1 000}", "1000", Q_NONE, True, "correct", "within"),
    ("\\boxed{1\u00a0000}", "1000", Q_NONE, True, "correct", "within"),
    ("\\boxed{12{,}345.6}", "12345.6", Q_NONE, True, "correct", "within"),
    # --- percent
    ("\\boxed{10\\%}", "10\\%", Q_NONE, True, "correct", "within"),
    ("\\boxed{10}", "10\\%", Q_NONE, True, "correct", "within"),
    ("\\boxed{0.1}", "10\\%", Q_NONE, True, "correct", "within"),
    ("\\boxed{50\\%}", "0.5", Q_NONE, True, "correct", "percent"),
    ("\\boxed{49\\%}", "49", Q_NONE, True, "correct", "percent"),
    ("\\boxed{61.9\\%}", "61.9\\%", Q_NONE, True, "correct", "within"),
    ("\\boxed{62.9\\%}", "61.9\\%", Q_NONE, False, "wrong", "relative error"),
    # --- symbolic forms
    ("\\boxed{\\frac{1}{2}}", "0.5", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\dfrac{1}{3}}", "0.333", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\tfrac{2}{3}}", "0.667", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\sqrt{2}}", "1.41", Q_NONE, True, "correct", "within"),
    ("\\boxed{2\\pi}", "6.28", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\frac{\\sqrt{3}}{2}\\,\\mathrm{m/s}}", "0.866", Q_MS, True, "correct", "within"),
    ("\\boxed{3 + 4}", "7", Q_NONE, True, "correct", "within"),
    ("\\boxed{2^{10}}", "1024", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\frac{1}{2}\\times 9.8 \\times 2^2}", "19.6", Q_NONE, True, "correct", "within"),
    # --- = and \approx chains, wrappers
    ("\\boxed{v = 5.0\\,\\mathrm{m/s}}", "5", Q_MS, True, "correct", "within"),
    ("\\boxed{v \\approx 5.0\\,\\mathrm{m\\,s^{-1}}}", "5", Q_MS, True, "correct", "within"),
    ("\\boxed{Q = \\frac{1}{2} \\cdot 10 = 5\\,\\text{J}}", "5", Q_J, True, "correct", "within"),
    ("\\boxed{h = \\frac{v^2}{2g} \\approx 0.46}", "0.46", Q_M, True, "correct", "within"),
    ("\\boxed{\\text{4}}", "4", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\mathrm{4}}", "4", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\operatorname{4.0}}", "4", Q_NONE, True, "correct", "within"),
    ("\\boxed{\\text{approximately } 12}", "12", Q_NONE, True, "correct", "within"),
    ("\\boxed{5 \\text{ or } 5.0}", "5", Q_NONE, True, "correct", "within"),
    # --- units: conversion with pint
    ("\\boxed{30000\\ \\mathrm{m/s}}", "30", Q_KMS, True, "correct", "converted"),
    ("\\boxed{3 \\times 10^{4}\\,\\mathrm{m\\,s^{-1}}}", "30", Q_KMS, True, "correct", "converted"),
    ("\\boxed{30\\,\\mathrm{km/s}}", "30", Q_KMS, True, "correct", "within"),
    ("\\boxed{108000\\,\\mathrm{km/h}}", "30", Q_KMS, True, "correct", "converted"),
    ("\\boxed{2.97\\,\\mu\\mathrm{A}}", "2.97", Q_UA, True, "correct", "within"),
    ("\\boxed{2.97\\times10^{-6}\\,\\mathrm{A}}", "2.97", Q_UA, True, "correct", "converted"),
    ("\\boxed{2.97\\times10^{-3}\\,\\mathrm{mA}}", "2.97", Q_UA, True, "correct", "converted"),
    ("\\boxed{2.97\\,\\mathrm{A}}", "2.97", Q_UA, False, "wrong", "converted"),
    ("\\boxed{0.5\\,\\mathrm{kJ}}", "500", Q_J, True, "correct", "converted"),
    ("\\boxed{500\\,\\text{J}}", "0.5", Q_KJ, True, "correct", "converted"),
    ("\\boxed{5.0 \\times 10^{2}\\ \\mathrm{J}}", "500", Q_J, True, "correct", "within"),
    ("\\boxed{120\\,\\mathrm{mm}}", "12", Q_CM, True, "correct", "converted"),
    ("\\boxed{0.12\\ \\mathrm{m}}", "12", Q_CM, True, "correct", "converted"),
    ("\\boxed{12 \\text{ cm}}", "0.12", Q_M, True, "correct", "converted"),
    ("\\boxed{1.60 \\times 10^{-19}\\,\\mathrm{J}}", "1.00", Q_EV, True, "correct", "converted"),
    ("\\boxed{17.36\\,\\mathrm{MeV}}", "17.36", Q_MEV, True, "correct", "within"),
    ("\\boxed{1.736 \\times 10^{7}\\,\\mathrm{eV}}", "17.36", Q_MEV, True, "correct", "converted"),
    ("\\boxed{0.99\\,\\mathrm{atm}}", "1.0 \\times 10^{5}", Q_PA, True, "correct", "converted"),
    ("\\boxed{101\\,\\mathrm{kPa}}", "1.0", Q_ATM, True, "correct", "converted"),
    ("\\boxed{250\\,\\mathrm{mA}}", "0.25", Q_MA, True, "correct", "converted"),
    ("\\boxed{9.8\\,\\mathrm{m/s^2}}", "9.8", Q_MS2, True, "correct", "within"),
    ("\\boxed{9.8\\,\\mathrm{m\\cdot s^{-2}}}", "9.8", Q_MS2, True, "correct", "within"),
    ("\\boxed{1.5\\,\\mathrm{h}}", "90", Q_MIN, True, "correct", "converted"),
    ("\\boxed{5.0 \\times 10^{-7}\\,\\mathrm{m}}", "500", Q_NM, True, "correct", "converted"),
    ("\\boxed{5000\\,\\text{\\AA}}", "500", Q_NM, True, "correct", "converted"),
    ("\\boxed{1.0\\,\\mathrm{g/cm^3}}", "1.0 \\times 10^{3}", Q_KG_M3, True, "correct", "converted"),
    # --- temperatures with offsets
    ("\\boxed{-80\\,^\\circ\\mathrm{C}}", "- 80", Q_C, True, "correct", "within"),
    ("\\boxed{193\\,\\mathrm{K}}", "- 80", Q_C, True, "correct", "converted"),
    ("\\boxed{-80 ℃}", "- 80", Q_C, True, "correct", "within"),
    ("\\boxed{100\\,^{\\circ}C}", "373.15", Q_K, True, "correct", "converted"),
    ("\\boxed{100}", "373.15", Q_K, False, "wrong", "relative error"),
    # --- angles
    ("\\boxed{6^\\circ}", "6", Q_DEG, True, "correct", "within"),
    ("\\boxed{6^{\\circ}}", "6", Q_DEG, True, "correct", "within"),
    ("\\boxed{0.1047\\,\\mathrm{rad}}", "6", Q_DEG, True, "correct", "converted"),
    ("\\boxed{6°}", "6", Q_DEG, True, "correct", "within"),
    # --- dimension mismatch
    ("\\boxed{5\\,\\mathrm{m}}", "5", Q_J, False, "dimension_mismatch", "does not convert"),
    ("\\boxed{30\\,\\mathrm{km}}", "30", Q_KMS, False, "dimension_mismatch", "does not convert"),
    ("\\boxed{2.97\\,\\mathrm{V}}", "2.97", Q_UA, False, "dimension_mismatch", "does not convert"),
    ("\\boxed{300\\,\\mathrm{K}}", "26.85", Q_M, False, "dimension_mismatch", "does not convert"),
    # --- units with no required unit, or a required "unit" that is a source-text leftover
    ("\\boxed{4.2\\,\\Omega}", "4.2", Q_OHM, True, "correct", "kept"),
    ("\\boxed{9}", " 9", Q_PRIME, True, "correct", "within"),
    ("\\boxed{9\\,\\mathrm{mm}}", " 9", Q_PRIME, True, "correct", "kept"),
    ("\\boxed{24 \\text{ fringes}}", "24", Q_NONE, True, "correct", "ignored"),
    ("\\boxed{24 条}", "24", Q_NONE, True, "correct", "ignored"),
    # --- extraction: final-answer lines, think blocks, first/last box
    ("So we get\n**Final answer:** $42$ m", "42", Q_M, True, "correct", "within"),
    ("The final answer is: 7", "7", Q_NONE, True, "correct", "within"),
    ("Final answer: 3.0 \\times 10^{8} m/s", "3.0 \\times 10^{8}", Q_MS, True, "correct", "within"),
    ("答案：\\(3.2\\,\\mathrm{m}\\)。", "3.2", Q_M, True, "correct", "within"),
    ("最终答案为 12 J", "12", Q_J, True, "correct", "within"),
    ("<think>maybe \\boxed{1}</think>The result is \\boxed{2}", "2", Q_NONE, True, "correct", "within"),
    ("<think>maybe \\boxed{2}</think>The result is \\boxed{1}", "2", Q_NONE, False, "wrong", "relative error"),
    ("First guess \\boxed{1}, corrected: \\boxed{2}", "2", Q_NONE, True, "correct", "within"),
    # --- no answer, ambiguous, unparseable
    ("I could not solve this problem.", "2", Q_NONE, False, "no_answer", "no \\boxed{}"),
    ("", "2", Q_NONE, False, "no_answer", "no \\boxed{}"),
    ("<think>long reasoning that never ends \\boxed{2}", "2", Q_NONE, False, "no_answer", "no \\boxed{}"),
    ("\\boxed{}", "2", Q_NONE, False, "no_answer", "empty"),
    ("\\boxed{3.0 \\times 10^{", "3.0 \\times 10^{8}", Q_NONE, False, "no_answer", "no \\boxed{}"),
    ("\\boxed{5 \\text{ or } 7}", "5", Q_NONE, False, "ambiguous", "different values"),
    ("\\boxed{v_1 = 3\\,\\mathrm{m/s},\\ v_2 = 5\\,\\mathrm{m/s}}", "3", Q_MS, False, "ambiguous", "different values"),
    ("\\boxed{\\pm 3}", "3", Q_NONE, False, "ambiguous", "pm"),
    ("\\boxed{x = \\frac{-b \\pm \\sqrt{b^2-4ac}}{2a}}", "3", Q_NONE, False, "ambiguous", "pm"),
    ("\\boxed{\\sqrt{2gh}}", "3", Q_NONE, False, "unparseable", "free symbol"),
    ("\\boxed{2x}", "3", Q_NONE, False, "unparseable", "free symbol"),
    ("\\boxed{v_0}", "3", Q_NONE, False, "unparseable", "free symbol"),
    ("\\boxed{(1, 2, 3)}", "3", Q_NONE, False, "unparseable", "tuple"),
    ("\\boxed{\\vec{F} = 3\\hat{i} + 4\\hat{j}}", "5", Q_NONE, False, "unparseable", "vector"),
    ("\\boxed{v < 3\\,\\mathrm{m/s}}", "3", Q_MS, False, "unparseable", "inequality"),
    ("\\boxed{\\text{single longitudinal mode}}", "4", Q_NONE, False, "unparseable", "no number"),
    ("\\boxed{\\text{undefined}}", "4", Q_NONE, False, "unparseable", "no number"),
]


@pytest.mark.parametrize(("response", "reference", "question", "correct", "outcome", "reason"), CASES)
def test_grade_numeric(response: str, reference: str, question: str, correct: bool, outcome: str, reason: str) -> None:
    grade = grade_numeric(response, reference, question)
    assert (grade.correct, grade.outcome) == (correct, outcome), grade.reason
    assert reason in grade.reason


def test_predicted_is_in_the_reference_unit() -> None:
    grade = grade_numeric("\\boxed{30000\\ \\mathrm{m/s}}", "30", Q_KMS)
    assert grade.predicted == pytest.approx(30.0)
    assert grade.reference_value == 30.0
    assert grade.unit_required == "\\mathrm{\\;{km}}/\\mathrm{s}"
    assert grade.unit_given == "\\mathrm{m/s}"
    assert grade.extraction_rule == "boxed_last"


def test_grade_is_a_json_serialisable_grade() -> None:
    grade = grade_numeric("\\boxed{2.97}", "2.97", Q_UA)
    assert isinstance(grade, Grade) and isinstance(grade, NumericGrade)
    assert json.loads(json.dumps(grade.to_dict()))["predicted"] == 2.97


def test_rel_tol_is_a_parameter() -> None:
    assert not grade_numeric("\\boxed{1.04}", "1", Q_NONE).correct
    assert grade_numeric("\\boxed{1.04}", "1", Q_NONE, rel_tol=0.05).correct


@pytest.mark.parametrize(
    ("response", "question", "sig_ok", "sci_ok"),
    [
        ("\\boxed{2.97}", Q_UA, True, None),
        ("\\boxed{2.970}", Q_UA, False, None),
        ("\\boxed{3}", Q_UA, False, None),
        ("\\boxed{1.4 \\times 10^{-2}}", Q_SCI, True, True),
        ("\\boxed{0.014}", Q_SCI, True, False),
        ("\\boxed{1.40e-2}", Q_SCI, False, True),
        ("\\boxed{500}", Q_J, True, None),
    ],
)
def test_format_is_reported(response: str, question: str, sig_ok: bool | None, sci_ok: bool | None) -> None:
    reference = {Q_UA: "2.97", Q_SCI: "1.4 \\times 10^{-2}", Q_J: "500"}[question]
    grade = grade_numeric(response, reference, question)
    assert (grade.sig_figs_ok, grade.scientific_ok) == (sig_ok, sci_ok)
    if grade.correct and (sig_ok is False or sci_ok is False):
        strict = grade_numeric(response, reference, question, strict_format=True)
        assert not strict.correct and "format" in strict.reason


def test_strict_format_keeps_well_formed_answers_correct() -> None:
    assert grade_numeric("\\boxed{1.4 \\times 10^{-2}}", "1.4 \\times 10^{-2}", Q_SCI, strict_format=True).correct


def test_first_box_rule() -> None:
    assert grade_numeric("\\boxed{2} or maybe \\boxed{3}", "2", Q_NONE, box="first").correct


def test_unreadable_reference_is_an_error_not_an_exception() -> None:
    grade = grade_numeric("\\boxed{2}", "see figure", Q_NONE)
    assert grade.outcome == "error" and not grade.correct


def test_unknown_compat_mode_is_a_programming_error() -> None:
    with pytest.raises(ValueError):
        grade_numeric("\\boxed{2}", "2", compat="mathverify")

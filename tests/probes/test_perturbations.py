"""The perturbation catalogue on solution fragments written for these tests (before/after), the
rejection of edits that change nothing or break the LaTeX, truncation and the implied answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from physeval.probes.perturbations import (
    KINDS,
    Candidate,
    candidates,
    check_edit,
    find_equations,
    implied_answer,
    perturb,
    truncate,
    truncation_index,
)

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "phybench"

# Each fragment ends with an equation that is never perturbed: the model must have something to continue.
TAIL = r" then \( y = 0 \)"

RULES = [
    # (kind, solution fragment, the one edit expected, the poisoned fragment)
    ("remove_square", r"The energy is \( E = \frac{p^2}{2m} \)", ("X^2 -> X", "^2", ""),
     r"The energy is \( E = \frac{p}{2m} \)"),
    ("reverse_operator", r"\[ F = m g - k v \]", ("- -> +", "-", "+"), r"\[ F = m g + k v \]"),
    ("reverse_operator", r"\[ P = F \cdot v \]", ("\\cdot -> /", "\\cdot", "/"), r"\[ P = F / v \]"),
    ("delete_constant", r"\[ E = \hbar \omega \]", ("delete \\hbar", "\\hbar", ""), r"\[ E =  \omega \]"),
    ("delete_constant", r"\[ \lambda = \frac{h}{p} \]", ("delete h", "h", "1"), r"\[ \lambda = \frac{1}{p} \]"),
    ("swap_law", "By conservation of energy,\n\\[ E_1 = E_2 \\]",
     ("conservation of energy -> conservation of momentum", "conservation of energy", "conservation of momentum"),
     "By conservation of momentum,\n\\[ E_1 = E_2 \\]"),
    ("swap_law", r"\[ K = \frac{1}{2} m v^2 \]", ("kinetic energy -> momentum", "\\frac{1}{2} m v^2", "m v"),
     r"\[ K = m v \]"),
    ("change_coefficient", r"\[ T = 2 \pi \sqrt{\frac{l}{g}} \]", ("2 -> 3", "2", "3"),
     r"\[ T = 3 \pi \sqrt{\frac{l}{g}} \]"),
]


@pytest.mark.parametrize(("kind", "fragment", "edit", "poisoned"), RULES)
def test_each_rule_edits_its_site(kind: str, fragment: str, edit: tuple[str, str, str], poisoned: str) -> None:
    text = fragment + TAIL
    result = perturb(text, kind, seed=0, key="fragment")
    assert result.ok, result.rejected
    (p,) = result.perturbations
    assert (p.rule, p.before, p.after) == edit
    assert result.text == poisoned + TAIL
    assert text[p.start:p.end] == p.before  # the location is the edited characters of the original
    assert p.context_before in text and p.context_after in result.text


def test_drop_term_removes_one_term_with_its_sign() -> None:
    text = r"\[ E = \frac{1}{2} m v^2 + m g h \]" + TAIL
    sites = {(c.before.strip(), c.after) for c in candidates(text, "drop_term")}
    assert sites == {(r"\frac{1}{2} m v^2 +", ""), ("+ m g h", "")}
    poisoned = {perturb(text, "drop_term", seed=s).text for s in range(12)}
    assert poisoned == {r"\[ E = m g h \]" + TAIL, r"\[ E = \frac{1}{2} m v^2 \]" + TAIL}


def test_a_leading_minus_moves_to_the_next_term() -> None:
    text = r"\[ a = - b + c \]" + TAIL
    first = next(c for c in candidates(text, "drop_term") if c.before.strip().startswith("-"))
    assert first.after == ""  # "- b +" goes: the remaining term keeps its own sign


def test_unary_minus_and_scripts_are_left_alone() -> None:
    text = r"\[ x = e^{-i \omega t} + x_{2} \]" + TAIL
    assert [c.before for c in candidates(text, "reverse_operator")] == ["+"]  # not the exponent's minus
    assert candidates(text, "change_coefficient") == []  # the 2 is an index, not a coefficient


def test_single_letter_constants_only_as_symbols() -> None:
    text = r"\[ E = h \nu + h_1 + \mathrm{ch} + \hbar \]" + TAIL
    assert [c.token for c in candidates(text, "delete_constant")] == ["h", "\\hbar"]


def test_combined_makes_two_conflicting_cues() -> None:
    text = "By conservation of energy,\n\\[ \\frac{1}{2} m v^2 = m g h \\]" + TAIL
    result = perturb(text, "combined", seed=0, key="c")
    assert result.ok
    kinds = [p.kind for p in result.perturbations]
    assert len(kinds) == 2 and kinds[0] == "swap_law" and result.perturbations[0].equation is None
    assert kinds[1] != "swap_law" and result.perturbations[1].equation == 0


def test_edits_that_change_nothing_are_rejected_and_counted() -> None:
    text = r"\[ y = a + b \]" + TAIL
    plus = text.index("+")
    blank = Candidate("reverse_operator", "whitespace only", 0, plus, plus + 1, "+", "+ ")
    assert check_edit(text, blank, find_equations(text)) == "unchanged"
    result = perturb(r"\[ y = 1^2 x \]" + TAIL, "remove_square", seed=0)
    assert not result.ok and result.text is None and result.rejected == {"no_effect": 1}


def test_edits_that_break_the_latex_are_rejected_and_counted() -> None:
    result = perturb(r"\[ E = m \cdot c^2 \]" + TAIL, "delete_constant", seed=0)  # leaves "m \cdot"
    assert not result.ok and result.rejected == {"unparsable": 1}
    assert perturb(r"\[ y = x \]" + TAIL, "remove_square").rejected == {"no_site": 1}


def test_the_seed_decides_and_repeats() -> None:
    text = r"\[ a = b + c - d + e \]" + TAIL
    first = [perturb(text, "reverse_operator", seed=s, key="k").perturbations[0].start for s in range(10)]
    again = [perturb(text, "reverse_operator", seed=s, key="k").perturbations[0].start for s in range(10)]
    assert first == again and len(set(first)) > 1


def test_last_equation_is_never_perturbed_by_default() -> None:
    text = r"\[ a = b \] and \[ v = x^2 \]"
    assert perturb(text, "remove_square").rejected == {"no_site": 1}
    assert perturb(text, "remove_square", eligible=[1]).ok


def test_truncation_at_an_equation_and_at_a_fraction() -> None:
    text = "one\n\\[ a = 1 \\] two\nthree \\( b = 2 \\)\n\\[ c = 3 \\]\n\\[ d = 4 \\]\nend"
    assert len(find_equations(text)) == 4
    assert truncate(text, 0) == "one\n\\[ a = 1 \\] two"
    assert truncate(text, 1).endswith("three \\( b = 2 \\)")
    assert [truncation_index(4, f) for f in (0.1, 0.25, 0.5, 0.51, 1.0)] == [0, 0, 1, 2, 3]
    with pytest.raises(ValueError):
        truncation_index(4, 0)


def test_implied_answer_when_the_edit_is_carried_into_the_answer() -> None:
    solution = ("The photon energy is\n\\[ E = \\frac{h c}{\\lambda} \\]\nso\n"
                "\\[ v = \\sqrt{\\frac{2}{m}\\left(\\frac{h c}{\\lambda} - W\\right)} \\]")
    reference = r"\sqrt{\frac{2}{m}\left(\frac{h c}{\lambda} - W\right)}"
    result = perturb(solution, "delete_constant", seed=0)
    implied = implied_answer(solution, reference, result.perturbations)
    token = result.perturbations[0].token
    assert implied.method == "carried"
    # written in the probe's normal form: one spelling, no sizing commands
    expected = {"h": r"\sqrt{\frac{2}{m}(\frac{c}{\lambda}-W)}", "c": r"\sqrt{\frac{2}{m}(\frac{h}{\lambda}-W)}"}
    assert implied.answer == expected[token]


def test_implied_answer_when_the_edited_equation_stated_the_answer() -> None:
    solution = "\\[ v = \\sqrt{2 g h} \\]\nnumerically\n\\[ v \\approx 14 \\]"
    result = perturb(solution, "change_coefficient", seed=0)
    implied = implied_answer(solution, r"\sqrt{2 g h}", result.perturbations)
    assert (implied.method, implied.answer) == ("equation", r"\sqrt{3 g h}")


def test_prose_edits_imply_nothing_computable() -> None:
    solution = "By conservation of energy,\n\\[ E_1 = E_2 \\]" + TAIL
    result = perturb(solution, "swap_law", seed=0)
    assert implied_answer(solution, "E_2", result.perturbations).method == "none"


def test_real_solutions_every_kind() -> None:
    path = DATA / "PHYBench-fullques_v1.json"
    if not path.is_file():
        pytest.skip("PHYBench data not available")
    from physeval.tasks.phybench_data import load_phybench

    problems = load_phybench(path)[:4]
    applied = 0
    for problem in problems:
        solution = problem.meta["solution"]
        for kind in KINDS:
            result = perturb(solution, kind, seed=3, key=problem.id)
            assert result == perturb(solution, kind, seed=3, key=problem.id)
            if not result.ok:
                continue
            applied += 1
            assert result.text != solution
            for p in result.perturbations:
                assert solution[p.start:p.end] == p.before and p.context_after in result.text
    assert applied >= 12


def test_remove_square_records_the_squared_symbol_not_its_coefficient() -> None:
    text = r"\[ A = 3R^{2} + k r_{0}^2 + 2\omega_1^{2} + (z-c)^2 + \frac{a}{b}^2 \]" + TAIL
    bases = [c.token for c in candidates(text, "remove_square")]
    assert bases == ["R", "r_{0}", "\\omega_1", "(z-c)", "\\frac{a}{b}"]

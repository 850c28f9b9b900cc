"""The exact Phy_B audit: ``audit abench-b`` recomputes every released answer with the solution entries
and reports exactly the recorded wrong answers (high, both values); problems without a solution keep
the heuristic family checks; ``vary abench-b:MID`` shows one problem's released and fresh variants."""

from __future__ import annotations

from pathlib import Path

import pytest

from physeval.problems import Problem
from physeval.variation.abench_phy_b import load_phy_b_solutions
from physeval.variation.audit import audit_problems
from physeval.variation.commands import audit_command, vary_command
from physeval.variation.plain import parse_written_number

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "abench"
SOLUTIONS = load_phy_b_solutions()


@pytest.fixture(scope="module")
def findings() -> list[dict[str, object]]:
    if not (DATA / "Phy_B_dynamic_100.csv").is_file():
        pytest.skip("ABench data not present at ../shared/data/abench")
    return audit_command("abench-b", data=DATA)


def test_the_exact_audit_reports_every_recorded_error_and_nothing_else_high(findings: list[dict]) -> None:
    high = {(f["problem_id"], f["variant"]): f for f in findings if f["severity"] == "high"}
    recorded = {(mid, subid): error for mid, entry in SOLUTIONS.items()
                for subid, error in entry.dataset_errors.items()}
    assert set(high) == set(recorded)
    for key, error in recorded.items():
        evidence = high[key]["evidence"]
        assert float(evidence["stated"]) == pytest.approx(float(parse_written_number(error.stated)))
        assert float(evidence["recomputed"]) == pytest.approx(float(parse_written_number(error.recomputed)), rel=0.05)
        # (the recorded value is the exact one rounded to the asked figures: at 2 figures up to 3 % away)


def test_confirmed_variants_are_flagged_only_at_their_recorded_figures(findings: list[dict]) -> None:
    flagged = {(f["problem_id"], f["variant"]): f for f in findings if f["variant"] is not None}
    confirmed = {(mid, s) for mid, entry in SOLUTIONS.items() if entry.solution for s in entry.confirmed}
    figures = {(mid, s): error for mid, entry in SOLUTIONS.items() for s, error in entry.figure_errors.items()}
    assert set(flagged) & confirmed == set(figures)
    for key, error in figures.items():
        finding = flagged[key]
        assert (finding["kind"], finding["severity"]) == ("figure_mismatch", "figures")
        assert finding["evidence"]["asked"] == error.recomputed and finding["evidence"]["documented"]


def test_figure_errors_have_their_own_severity(findings: list[dict]) -> None:
    limited = audit_command("abench-b", data=DATA, min_severity="figures")
    assert {f["severity"] for f in limited} == {"high", "medium", "figures"}
    high = audit_command("abench-b", data=DATA, min_severity="medium")
    assert "figures" not in {f["severity"] for f in high}


def test_ill_posed_variants_have_no_recomputed_answer(findings: list[dict]) -> None:
    ill = {(f["problem_id"], f["variant"]): f for f in findings if f["kind"] == "ill_posed"}
    assert set(ill) == {("80", "2"), ("80", "3"), ("6", "1"), ("6", "2"), ("6", "3"), ("48", "1"), ("48", "3")}
    assert all(f["severity"] == "medium" and "recomputed" not in f["evidence"] for f in ill.values())


def test_problems_without_a_formula_keep_the_heuristic_checks(findings: list[dict]) -> None:
    formula = {mid for mid, entry in SOLUTIONS.items() if entry.solution}
    exact = ("answer_mismatch", "documented_error", "unread_variant", "solution_error", "figure_mismatch", "ill_posed")
    heuristic = {f["problem_id"] for f in findings if f["kind"] not in exact}
    assert heuristic and not heuristic & formula


def test_an_entry_passes_its_constants_and_answer_unit_to_the_recomputation() -> None:
    question = (r"A stone falls from rest for \( t = 2.0 \, \mathrm{s} \). How far does it fall? "
                r"(Results should be expressed with units of $\mathrm{cm}$, and rounded to 3 significant figures)")
    good = Problem(id="q", question=question, answer="1960", variant="0")
    bad = Problem(id="q", question=question, answer="2000", variant="1")
    entry = {"solution": "g*t**2/2", "constants": {"g": "9.8 m/s^2"}}
    found = audit_problems([good, bad], {"q": entry})
    assert [(f.variant, f.kind, f.severity) for f in found] == [("1", "answer_mismatch", "high")]
    assert found[0].evidence["recomputed"] == pytest.approx(1960)
    # without the constant the formula cannot be evaluated: said, not guessed
    assert {f.kind for f in audit_problems([good], {"q": "g*t**2/2"})} == {"solution_error"}


def test_a_stated_answer_within_one_percent_but_wrong_at_the_asked_figures() -> None:
    from physeval.variation.abench_phy_b import PhyBSolution

    question = (r"A car covers \( 5500 \, \mathrm{m} \) in \( 12 \, \mathrm{s} \). Find its mean speed. "
                r"(Results should be expressed with units of $\mathrm{m/s}$, and rounded to 4 significant figures)")
    entry = PhyBSolution(mid="q", status="varied", solution="c1/c2", confirmed=("0", "1", "2"))
    stated = {"0": "458.3", "1": "459.2", "2": "458.4"}  # exact 458.333...: right, 0.19 % off, a last-digit slip
    found = audit_problems([Problem(id="q", question=question, answer=a, variant=v) for v, a in stated.items()],
                           {"q": entry})
    assert [(f.variant, f.kind, f.severity) for f in found] == [("1", "figure_mismatch", "figures"),
                                                                 ("2", "figure_mismatch", "figures")]
    assert found[0].evidence["asked"] == "458.3" and "NOT recorded" in found[0].message


def test_vary_shows_one_problem(findings: list[dict]) -> None:
    mid = next(m for m, e in SOLUTIONS.items() if e.varied and e.dataset_errors)
    rows = vary_command(f"abench-b:{mid}", 3, 2, data=DATA)
    assert [r["index"] for r in rows] == ["0", "1", "2", "3", "f1", "f2", "f3"]
    assert all(r["meta"].get("dataset_error") for r in rows if r["index"] in SOLUTIONS[mid].dataset_errors)
    assert rows[4:] == vary_command(f"abench-b:{mid}", 3, 2, data=DATA)[4:]
    static = next(m for m, e in SOLUTIONS.items() if not e.varied)
    assert {r["meta"]["fresh"] for r in vary_command(f"abench-b:{static}", 3, 2, data=DATA)} == {"static"}

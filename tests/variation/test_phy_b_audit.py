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
        assert float(evidence["recomputed"]) == pytest.approx(float(parse_written_number(error.recomputed)), rel=0.01)


def test_confirmed_variants_are_never_flagged(findings: list[dict]) -> None:
    flagged = {(f["problem_id"], f["variant"]) for f in findings if f["variant"] is not None}
    confirmed = {(mid, s) for mid, entry in SOLUTIONS.items() if entry.solution for s in entry.confirmed}
    assert not flagged & confirmed


def test_problems_without_a_formula_keep_the_heuristic_checks(findings: list[dict]) -> None:
    formula = {mid for mid, entry in SOLUTIONS.items() if entry.solution}
    heuristic = {f["problem_id"] for f in findings if f["kind"] not in ("answer_mismatch", "documented_error",
                                                                          "unread_variant", "solution_error")}
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


def test_vary_shows_one_problem(findings: list[dict]) -> None:
    mid = next(m for m, e in SOLUTIONS.items() if e.varied and e.dataset_errors)
    rows = vary_command(f"abench-b:{mid}", 3, 2, data=DATA)
    assert [r["index"] for r in rows] == ["0", "1", "2", "3", "f1", "f2", "f3"]
    assert all(r["meta"].get("dataset_error") for r in rows if r["index"] in SOLUTIONS[mid].dataset_errors)
    assert rows[4:] == vary_command(f"abench-b:{mid}", 3, 2, data=DATA)[4:]
    static = next(m for m, e in SOLUTIONS.items() if not e.varied)
    assert {r["meta"]["fresh"] for r in vary_command(f"abench-b:{static}", 3, 2, data=DATA)} == {"static"}

"""The answer audit flags planted wrong answers and wrong variants, and reports ABench Phy_B suspects."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from physeval.problems import Problem
from physeval.variation import audit_command, audit_problems, phy_b_consistency, resolve_template, vary

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "abench"
SUFFIX = r" (Results should be expressed with units of $ \mathrm{h} $,and rounded to 3 significant figures)"


def _bank_family(tid: str = "opt_thin_lens_image") -> list[Problem]:
    return [v.to_problem() for v in vary(tid, 4, seed=0)]


def _trip(d: str, v: str, answer: str, variant: str) -> Problem:
    text = rf"A train covers \( {d}\,\mathrm{{km}} \) at a steady \( {v}\,\mathrm{{km/h}} \). How long does the trip take?"
    return Problem(id="trip", question=text + SUFFIX, answer=answer, variant=variant)


def test_correct_bank_family_has_no_findings() -> None:
    template = resolve_template("opt_thin_lens_image")
    assert audit_problems(_bank_family(), {"opt_thin_lens_image": template}) == []


def test_planted_wrong_answer_is_flagged_with_evidence() -> None:
    family = _bank_family()
    family[2] = dataclasses.replace(family[2], answer="99.9")
    findings = audit_problems(family, {"opt_thin_lens_image": resolve_template("opt_thin_lens_image")})
    assert [(f.variant, f.kind, f.severity) for f in findings] == [("2", "answer_mismatch", "high")]
    assert findings[0].evidence["stated"] == 99.9
    assert findings[0].evidence["recomputed"] == pytest.approx(float(family[2].answer if False else vary("opt_thin_lens_image", 4)[2].value))
    json.dumps([f.to_dict() for f in findings])


def test_planted_wrong_variant_is_flagged() -> None:
    # variant 3's text was edited (a new object distance) but its answer was not recomputed
    family = _bank_family()
    old = vary("opt_thin_lens_image", 4)[3].params["d_o"]
    family[3] = dataclasses.replace(family[3], question=family[3].question.replace(f"d_o = {old}", "d_o = 50.0"))
    findings = audit_problems(family, {"opt_thin_lens_image": resolve_template("opt_thin_lens_image")})
    assert [(f.variant, f.kind) for f in findings] == [("3", "answer_mismatch")]


def test_formula_solutions_recompute_plain_problems() -> None:
    family = [_trip("120", "80", "1.50", "0"), _trip("150", "80", "1.88", "1"), _trip("120", "60", "2.00", "2")]
    assert audit_problems(family, {"trip": "c1/c2"}) == []
    findings = audit_problems(family, {"trip": "2*c1/c2"})  # a wrong formula
    assert {f.kind for f in findings} == {"answer_mismatch"}


def test_family_without_solution_names_the_outlier_variant() -> None:
    family = [_trip("120", "80", "1.50", "0"), _trip("160", "80", "2.00", "1"),
              _trip("200", "80", "2.80", "2"),  # should be 2.50
              _trip("240", "80", "3.00", "3")]
    findings = audit_problems(family)
    kinds = {(f.variant, f.kind) for f in findings}
    assert ("2", "power_law_outlier") in kinds
    outlier = next(f for f in findings if f.kind == "power_law_outlier")
    assert outlier.evidence["expected_by_law"] == pytest.approx(2.5, rel=1e-3)
    assert all(f.variant == "2" for f in findings if f.severity != "low")


def test_change_of_units_must_rescale_the_answer() -> None:
    # only the speed changes, so the time must scale as 1/v; variant 1 does not
    family = [_trip("120", "80", "1.50", "0"), _trip("120", "40", "2.80", "1"), _trip("120", "60", "2.00", "2")]
    findings = audit_problems(family)
    scaling = [f for f in findings if f.kind == "scaling_violation"]
    assert [f.variant for f in scaling] == ["1"]
    assert scaling[0].evidence["expected_by_scaling"] == pytest.approx(3.0)


def test_consistent_family_is_quiet() -> None:
    family = [_trip("120", "80", "1.50", "0"), _trip("120", "40", "3.00", "1"), _trip("90", "60", "1.50", "2")]
    assert [f for f in audit_problems(family) if f.severity != "low"] == []


def test_same_constants_different_answer() -> None:
    family = [_trip("120", "80", "1.50", "0"), _trip("120", "80", "1.75", "1")]
    findings = audit_problems(family)
    assert [(f.variant, f.kind, f.severity) for f in findings] == [("1", "same_constants_different_answer", "high")]


def test_bank_self_audit_finds_nothing_serious() -> None:
    assert [f for f in audit_command("bank-numeric") if f["severity"] == "high"] == []


def _phy_b() -> Path:
    path = DATA / "Phy_B_dynamic_100.csv"
    if not path.is_file():
        pytest.skip("ABench data not present at ../shared/data/abench")
    return path


def test_phy_b_mid_10_is_among_the_suspects() -> None:
    findings = phy_b_consistency(_phy_b())
    suspects = {f.problem_id for f in findings if f.severity in ("high", "medium")}
    assert "10" in suspects
    mid10 = [f for f in findings if f.problem_id == "10" and f.kind == "scaling_violation"]
    assert {f.variant for f in mid10} >= {"1", "2"}  # only the final speed changes there: t must scale as 1/v


def test_phy_b_mid_10_with_a_solution_shows_variants_1_to_3_wrong() -> None:
    # accelerate over d to speed v (time 2d/v), then v = k/x with k = v d: time (L^2 - d^2)/(2 v d)
    solution = ["t1 = 2*c2/c3", "t2 = (c1**2 - c2**2)/(2*c3*c2)", "t1 + t2"]
    findings = phy_b_consistency(_phy_b(), solutions={"10": solution})
    mid10 = [f for f in findings if f.problem_id == "10"]
    assert sorted(f.variant for f in mid10 if f.kind == "answer_mismatch") == ["1", "2", "3"]
    assert all(f.severity == "high" for f in mid10 if f.kind == "answer_mismatch")


def test_audit_command_reads_abench_and_reports_missing_data(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="Phy_B_dynamic_100.csv"):
        audit_command("abench-b", data=tmp_path)
    path = _phy_b()
    rows = audit_command("abench-b", data=path.parent, min_severity="medium")
    assert rows and all(r["severity"] in ("high", "medium") for r in rows)
    json.dumps(rows)

"""Test-time scaling: unbiased pass@k, subset-mean maj@k, and the decay fit on known curves."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from analysis.rows import row, store_run
from physeval.analysis.scaling import (
    decay,
    expected_majority,
    fit_decay,
    maj_curve,
    pass_curve,
    scaling_curves,
)
from physeval.graded import graded_outcomes


def _item(pid: str, pattern: str, keys: str) -> list:  # type: ignore[type-arg]
    return [row(pid, c == "1", sample=i, answer_key=k) for i, (c, k) in enumerate(zip(pattern, keys))]


def test_pass_and_maj_curves_by_hand() -> None:
    # One item, 4 samples: right, wrong (B), wrong (B), right; answer classes A B B A.
    outcomes = graded_outcomes(_item("1", "1001", "ABBA"))
    # pass@k = 1 - C(2, k) / C(4, k): 1/2, 1 - 1/6, 1, 1
    assert [p.value for p in pass_curve(outcomes)] == pytest.approx([0.5, 5 / 6, 1.0, 1.0])
    # maj@2 over the 6 pairs: AB->A, AB->A, AA->A, BB->B, BA->B, BA->B: 3/6; maj@3: ABB, ABA, ABA, BBA -> 2/4
    # maj@4: A and B tie, A seen first -> 1; maj@1 = accuracy
    assert [p.value for p in maj_curve(outcomes)] == pytest.approx([0.5, 0.5, 0.5, 1.0])
    assert expected_majority(outcomes, 5) is None


def test_maj_beyond_the_subset_budget_is_sampled_reproducibly() -> None:
    outcomes = graded_outcomes(_item("1", "10" * 8, "AB" * 8))
    value = expected_majority(outcomes, 8, budget=100)
    assert value == expected_majority(outcomes, 8, budget=100) and 0.3 < value < 0.8  # type: ignore[operator]


def test_fit_recovers_known_parameters() -> None:
    ks = np.arange(1, 11)
    values = decay(ks, 0.8, 0.3, 0.5)
    upper, improvement, rate = fit_decay(ks, values)  # type: ignore[misc]
    assert (upper, improvement, rate) == pytest.approx((0.8, 0.3, 0.5), abs=1e-6)
    assert fit_decay([1, 2, 3], [0.1, 0.2, 0.3]) is None  # three points cannot fix three parameters honestly


def test_run_curves_fit_and_extrapolate_with_an_interval(tmp_path: Path) -> None:
    # 40 problems, 8 samples each; problem i is solved on sample s with chance p_i (fixed by a seeded draw).
    rng = np.random.default_rng(0)
    rows = []
    for i in range(40):
        p = rng.uniform(0.05, 0.9) if i % 4 else 0.0  # every fourth problem is never solved
        rows += [row(str(i), bool(rng.random() < p), sample=s) for s in range(8)]
    run = store_run(tmp_path / "run", rows)
    curves = scaling_curves(run, extrapolate=[16, 64])
    assert curves.samples == 8 and len(curves.pass_at) == 8 and curves.pass_at[0].n == 40
    assert not curves.maj_at and any("maj@k omitted" in n for n in curves.notes)
    fit = curves.pass_fit
    assert fit is not None and fit.points == 8 and fit.n == 40
    assert fit.upper_bound <= 0.75 + 0.05  # a quarter of the problems are never solved
    assert fit.upper_bound - fit.improvement == pytest.approx(curves.pass_at[0].value, abs=0.03)
    at16 = fit.extrapolations[0]
    assert at16.k == 16 and at16.ci_low <= at16.value <= at16.ci_high and at16.fits > 150
    assert math.isclose(fit.predict(16), at16.value)


def test_too_few_samples_give_no_fit_and_say_why(tmp_path: Path) -> None:
    run = store_run(tmp_path / "run", _item("1", "10", "AB"))
    curves = scaling_curves(run)
    assert curves.pass_fit is None and any("K = 2" in n for n in curves.notes)


def test_a_rate_never_extrapolates_above_one() -> None:
    # A curve still rising steeply at K: unconstrained, the upper bound would exceed 1.
    ks = np.arange(1, 6)
    upper, improvement, rate = fit_decay(ks, [0.5, 0.62, 0.74, 0.86, 0.98])  # type: ignore[misc]
    assert upper == 1.0 and improvement > 0
    assert float(decay([64], upper, improvement, rate)[0]) <= 1.0


def _voting_run(tmp_path: Path, seed: int) -> list:  # type: ignore[type-arg]
    """30 problems, 4 samples: right answers share a class, wrong ones split over 1-3 classes."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(30):
        p = rng.uniform(0.0, 0.7)
        wrong_classes = int(rng.integers(1, 4))
        for s in range(4):
            ok = bool(rng.random() < p)
            rows.append(row(str(i), ok, sample=s, answer_key="R" if ok else f"W{int(rng.integers(0, wrong_classes))}"))
    return rows


def test_maj_fit_stays_at_or_below_pass_fit(tmp_path: Path) -> None:
    curves = scaling_curves(store_run(tmp_path / "run", _voting_run(tmp_path, 31)), extrapolate=[8, 16],
                            resamples=50)
    maj, passing = curves.maj_fit, curves.pass_fit
    assert maj is not None and passing is not None and maj.describes_data
    # Fitted alone (bound 1), maj@k would extrapolate above pass@k: maj@16 0.747 > pass@16 0.742.
    alone = fit_decay([p.k for p in curves.maj_at], [p.value for p in curves.maj_at])
    assert alone is not None and float(decay([16], *alone)[0]) > passing.predict(16)
    assert all(m.value <= p.value + 1e-12 for m, p in zip(curves.maj_at, curves.pass_at))  # the data, by definition
    assert maj.upper_bound <= passing.upper_bound + 1e-12
    for m, p in zip(maj.extrapolations, passing.extrapolations):
        assert m.value <= p.value + 1e-12 and m.ci_high <= 1.0
    assert any("maj@k: the upper bound sits on its constraint (pass@k's upper bound)" in n for n in curves.notes)


def test_a_falling_maj_curve_is_reported_as_not_described_and_not_extrapolated(tmp_path: Path) -> None:
    # Every problem: sample 0 right (class A), samples 1-7 wrong with one shared class B.
    # maj@1 = 1/8; maj@2: a pair holding sample 0 ties A-B and A, seen first, wins: 7 of 28 = 1/4;
    # maj@k for k >= 3: B outnumbers A in every subset: 0. The curve falls: 1/8, 1/4, 0, ..., 0.
    rows = [row(str(i), s == 0, sample=s, answer_key="A" if s == 0 else "B") for i in range(6) for s in range(8)]
    curves = scaling_curves(store_run(tmp_path / "run", rows), extrapolate=[16])
    assert [p.value for p in curves.maj_at] == pytest.approx([1 / 8, 1 / 4, 0, 0, 0, 0, 0, 0])
    fit = curves.maj_fit
    assert fit is not None and not fit.describes_data and fit.extrapolations == ()
    assert fit.r_squared < 0.75 and "does not describe the data" in fit.problem
    assert any(n.startswith("maj@k: the decay form does not describe the data") for n in curves.notes)


def test_the_fitted_curve_never_leaves_zero_to_one() -> None:
    # A jump from 0 to a plateau: unconstrained, the fit starts below 0 at k = 1 (U - D < 0).
    upper, improvement, rate = fit_decay([1, 2, 3, 4, 5], [0.0, 0.3, 0.33, 0.34, 0.34])  # type: ignore[misc]
    assert 0.0 <= upper - improvement and upper <= 1.0
    assert float(decay([1], upper, improvement, rate)[0]) >= 0.0

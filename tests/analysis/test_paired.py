"""Paired comparison: a bootstrap on a small table checked against its exact distribution."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from analysis.rows import row, store_run
from physeval.analysis.paired import (
    BOOTSTRAP_MIN_PROBLEMS,
    PairingError,
    compare_pair,
    compare_runs,
    p_text,
    paired_bootstrap,
    percent_text,
    sign_flip_test,
    tiers,
)


def _exact_bootstrap(diffs: list[float]) -> tuple[float, float]:
    """P*(mean > 0) and P*(mean = 0) over all n^n equally likely resamples."""
    n = len(diffs)
    means = [np.mean([diffs[i] for i in idx]) for idx in itertools.product(range(n), repeat=n)]
    return float(np.mean([m > 1e-12 for m in means])), float(np.mean([abs(m) <= 1e-12 for m in means]))


def test_bootstrap_matches_the_exact_resampling_distribution() -> None:
    # Four problems: A right and B wrong on two, the reverse on one, a tie on one.
    diffs = [1.0, 1.0, -1.0, 0.0]
    # By hand: a resample draws a (+1)s, b (-1)s, c zeros; it has 4!/(a! b! c!) * 2^a orderings of 256.
    # Mean > 0 (a > b): 16 + 32 + 32 + 48 + 24 + 8 = 160; mean = 0 (a = b): 24 + 24 + 1 = 49; below: 47.
    pos, zero = _exact_bootstrap(diffs)
    assert (round(pos * 256), round(zero * 256)) == (160, 49)
    low, high, p_value, confidence = paired_bootstrap(diffs, resamples=40_000)
    assert confidence == pytest.approx((160 + 49 / 2) / 256, abs=0.01)  # 0.721
    assert p_value == pytest.approx(2 * (47 + 49) / 256, abs=0.02)  # 2 * P*(d <= 0) = 0.75
    assert (low, high) == (-0.5, 1.0)
    assert paired_bootstrap(diffs) == paired_bootstrap(diffs)  # seeded: reproducible


def test_a_sure_difference_and_no_difference() -> None:
    assert paired_bootstrap([1.0] * 5)[2:] == (0.0, 1.0)  # p below 1/resamples, full confidence
    assert paired_bootstrap([0.0] * 5)[2:] == (1.0, 0.5)


def test_pairing_by_problem_and_variant_with_partial_overlap(tmp_path: Path) -> None:
    # A holds problems 1-4, B holds 2-5; problem 2 has two variants in both.
    a = store_run(tmp_path / "a", [row("1", True), row("2", True), row("2", True, variant="1"), row("3", True),
                                   row("4", False)], model="A")
    b = store_run(tmp_path / "b", [row("2", False), row("2", True, variant="1"), row("3", False), row("4", False),
                                   row("5", True)], model="B")
    diff = compare_pair(a, b)
    # common problems 2, 3, 4: A = (1, 1, 0), B = (0.5, 0, 0) -> mean difference (0.5 + 1 + 0) / 3
    assert diff.n == 3 and diff.diff == pytest.approx(0.5) and diff.value_a == pytest.approx(2 / 3)
    assert (diff.overlap.common_items, diff.overlap.only_a, diff.overlap.only_b) == (4, 1, 1) and diff.overlap.partial
    assert diff.n_samples == 8 and "A is better than B" in diff.sentence


def test_pairing_refuses_different_tasks_and_different_questions(tmp_path: Path) -> None:
    a = store_run(tmp_path / "a", [row("1", True)], task="bank-numeric")
    b = store_run(tmp_path / "b", [row("1", True)], task="bank-symbolic")
    with pytest.raises(PairingError, match="different tasks"):
        compare_pair(a, b)
    c = store_run(tmp_path / "c", [row("1", True, question="another question")], task="bank-numeric")
    with pytest.raises(PairingError, match="different questions"):
        compare_pair(a, c)
    d = store_run(tmp_path / "d", [row("9", True)], task="bank-numeric")
    with pytest.raises(PairingError, match="share no problem"):
        compare_pair(a, d)


def test_tiers_follow_who_beats_whom(tmp_path: Path) -> None:
    # 30 problems: S right on all, M on 20, W on 19 of M's (same ones, minus one): S beats both, M ties W.
    runs = []
    for name, right in (("S", 30), ("M", 20), ("W", 19)):
        runs.append(store_run(tmp_path / name, [row(str(i), i < right) for i in range(30)], model=name))
    comparison = compare_runs(runs)
    assert comparison.tiers == (("S",), ("M", "W"))
    by_pair = {(p.a, p.b): p for p in comparison.pairs}
    # S - M: ten differences of +1, twenty of 0: only the all-plus pattern of 2^10 reaches the sum 10
    assert by_pair["S", "M"].diff == pytest.approx(10 / 30)
    assert by_pair["S", "M"].confidence == pytest.approx(1 - 2 ** -11)
    assert by_pair["S", "M"].p_value == pytest.approx(2 / 2 ** 10)
    # 99.95 % is not a certainty: it never prints as 100.0 %
    assert "S is better than M with > 99.9% confidence (p = 0.002, n = 30)" == by_pair["S", "M"].sentence
    assert (percent_text(1.0), percent_text(0.5), percent_text(0.0004)) == ("100.0%", "50.0%", "< 0.1%")
    assert by_pair["M", "W"].confidence < 0.99
    assert tiers(["x", "y"], []) == (("x", "y"),)


def _enumerated(diffs: list[float]) -> tuple[float, float]:
    """Two-sided p and mid-p confidence by listing every sign pattern (the definition, slowly)."""
    observed = sum(diffs)
    sums = [sum(s * d for s, d in zip(signs, diffs)) for signs in itertools.product((1, -1), repeat=len(diffs))]
    p = sum(abs(t) >= abs(observed) - 1e-9 for t in sums) / len(sums)
    below = sum(t < observed - 1e-9 for t in sums) / len(sums)
    equal = sum(abs(t - observed) <= 1e-9 for t in sums) / len(sums)
    return p, below + equal / 2


def test_five_problems_give_the_exact_sign_flip_p_not_a_bootstrap_zero(tmp_path: Path) -> None:
    # A right on 5 problems, B right on problem 4 only: differences (1, 1, 1, 0, 1), four non-zero.
    # By hand: of the 2^4 sign patterns only all-plus and all-minus reach |sum| = 4, so p = 2/16;
    # confidence = P(S < 4) + P(S = 4) / 2 = 15/16 + 1/32.
    a = store_run(tmp_path / "a", [row(str(i), True) for i in range(5)], model="A")
    b = store_run(tmp_path / "b", [row(str(i), i == 3) for i in range(5)], model="B")
    comparison = compare_runs([a, b])
    pair = comparison.pairs[0]
    assert pair.p_value == 0.125 and pair.confidence == pytest.approx(15 / 16 + 1 / 32)
    assert "exact" in pair.test and "2^4" in pair.test
    assert comparison.tiers == (("A", "B"),)  # 96.9 % < 99 %: not separated
    assert pair.n < BOOTSTRAP_MIN_PROBLEMS and np.isnan(pair.ci_low) and "no interval" in pair.interval
    assert "p = 0.125, n = 5" in pair.sentence


@pytest.mark.parametrize("diffs", [
    [0.25, 0.5, -0.25, 0.75, 0.0, 1.0, 0.5, -0.5, 0.25],  # accuracy with K = 4: the grid path
    [1 / 3, 2 / 3, -1 / 3, 1.0, 1 / 3, 0.0, 2 / 3],       # K = 3: thirds
    [12.5, -3.1, 40.2, 7.7, 0.4, 19.9, -8.8, 5.5],         # EED differences: every pattern enumerated
])
def test_sign_flip_matches_listing_every_pattern(diffs: list[float]) -> None:
    result = sign_flip_test(diffs)
    p, confidence = _enumerated([d for d in diffs if d])
    assert result.p_value == pytest.approx(p, abs=1e-12) and result.confidence == pytest.approx(confidence, abs=1e-12)
    assert result.method.startswith("sign-flip test, exact")


def test_many_irregular_differences_use_a_seeded_monte_carlo_never_zero() -> None:
    diffs = [((i * 37) % 101) / 7.3 + 0.013 * i for i in range(40)]  # 40 positive, off every grid
    result = sign_flip_test(diffs)
    assert "Monte Carlo" in result.method and result.p_value == pytest.approx(1 / 10_001)
    assert sign_flip_test(diffs) == result
    assert sign_flip_test([0.0, 0.0]).p_value == 1.0 and sign_flip_test([0.0]).confidence == 0.5
    assert (p_text(1 / 10_001), p_text(0.0625), p_text(0.0)) == ("1.0e-04", "0.062", "0.0e+00")


def test_a_metric_the_runs_do_not_have_is_refused(tmp_path: Path) -> None:
    a = store_run(tmp_path / "a", [row(str(i), True) for i in range(3)], model="A")
    b = store_run(tmp_path / "b", [row(str(i), False) for i in range(3)], model="B")
    for metric, needs in (("eed", "EED scores"), ("playable_rate", "scene programs"), ("delta", "problems in several variants")):
        with pytest.raises(PairingError, match=f"cannot pair on {metric}: .* needs {needs}.*these runs have: "
                                               "accuracy$"):
            compare_runs([a, b], metric)


def test_delta_is_paired_problem_by_problem(tmp_path: Path) -> None:
    # Two problems with variants 0 and 1. A: problem 1 static right, variant 1 wrong (delta 1);
    # problem 2 both right (delta 0). B: problem 1 both right (0); problem 2 static right, variant 1 wrong (1).
    a = store_run(tmp_path / "a", [row("1", True), row("1", False, variant="1"), row("2", True),
                                   row("2", True, variant="1")], model="A")
    b = store_run(tmp_path / "b", [row("1", True), row("1", True, variant="1"), row("2", True),
                                   row("2", False, variant="1")], model="B")
    pair = compare_runs([a, b], "delta").pairs[0]
    assert (pair.value_a, pair.value_b, pair.diff) == (0.5, 0.5, 0.0)  # differences (+1, -1): p = 1
    assert pair.p_value == 1.0 and pair.confidence == 0.5


def test_dynamic_accuracy_pairs_only_problems_whose_planned_variants_were_all_graded(tmp_path: Path) -> None:
    # Problems 1 and 2 are planned with variants 0 and 1. Run A never answered problem 2's variant 1
    # (its variant 0 is right); B answered everything right. Problem 2 is left out of A's dynamic
    # accuracy, so the pair stands on problem 1 alone: A 1 x 0 = 0, B 1 x 1 = 1.
    from physeval.metrics import Plan
    from physeval.plan import PLAN_META
    from physeval.store import RunStore

    a = tmp_path / "a"
    with RunStore(a) as store:
        store.set_meta(PLAN_META, Plan.of([("1", "0"), ("1", "1"), ("2", "0"), ("2", "1")]).to_dict())
    run_a = store_run(a, [row("1", True), row("1", False, variant="1"), row("2", True)], model="A")
    run_b = store_run(tmp_path / "b", [row("1", True), row("1", True, variant="1"), row("2", True),
                                       row("2", True, variant="1")], model="B")
    pair = compare_runs([run_a, run_b], "dynamic_accuracy").pairs[0]
    assert (pair.value_a, pair.value_b, pair.n) == (0.0, 1.0, 1)

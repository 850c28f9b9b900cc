"""Metrics: unbiased pass@k, dynamic accuracy, majority vote, reproducible intervals."""

from __future__ import annotations

import math

import pytest

from physeval.metrics import (
    SampleOutcome, accuracy_metrics, bootstrap_ci, breakdown_metrics, dynamic_metrics, majority_metrics, pass_at_k,
)


def _o(pid: str, variant: str, sample: int, correct: bool, **kw) -> SampleOutcome:  # type: ignore[no-untyped-def]
    return SampleOutcome(pid, variant, sample, correct, **kw)


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (1, 1, 1, 1.0), (1, 0, 1, 0.0), (4, 1, 1, 0.25), (4, 1, 2, 0.5), (4, 2, 2, 1 - 1 / 6), (8, 0, 8, 0.0),
    (8, 1, 8, 1.0), (10, 3, 5, 1 - math.comb(7, 5) / math.comb(10, 5)),
])
def test_pass_at_k_matches_the_combinatorial_formula(n: int, c: int, k: int, expected: float) -> None:
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_needs_enough_samples() -> None:
    with pytest.raises(ValueError, match="at least 4"):
        pass_at_k(2, 1, 4)


def test_accuracy_is_a_mean_over_problems_not_samples() -> None:
    outcomes = [_o("a", "0", s, s == 0) for s in range(4)] + [_o("b", "0", s, True) for s in range(4)]
    metrics = accuracy_metrics(outcomes)
    assert metrics["accuracy"].value == pytest.approx((0.25 + 1.0) / 2)
    assert metrics["avg@4"].value == metrics["accuracy"].value
    assert metrics["pass@4"].value == 1.0 and metrics["pass@4"].n == 2


def test_dynamic_accuracy_needs_every_variant_of_a_sample() -> None:
    outcomes = [
        _o("p1", "0", 0, True), _o("p1", "1", 0, True), _o("p1", "2", 0, True),    # survives variation
        _o("p2", "0", 0, True), _o("p2", "1", 0, False), _o("p2", "2", 0, True),   # memorised
        _o("p3", "0", 0, False), _o("p3", "1", 0, True), _o("p3", "2", 0, True),   # lucky variants only
    ]
    m = dynamic_metrics(outcomes)
    assert m["static_accuracy"].value == pytest.approx(2 / 3)
    assert m["dynamic_accuracy"].value == pytest.approx(1 / 3)
    assert m["delta"].value == pytest.approx(1 / 3)
    assert m["variant_1_accuracy"].value == pytest.approx(2 / 3)


def test_dynamic_pass_at_k_counts_samples_where_all_variants_hold() -> None:
    outcomes = [_o("p", v, s, not (s == 0 and v == "1")) for v in "01" for s in range(2)]
    m = dynamic_metrics(outcomes)
    assert m["dynamic_accuracy"].value == 0.5 and m["dynamic_pass@2"].value == 1.0


def test_majority_vote_uses_answer_classes_and_breaks_ties_by_first_seen() -> None:
    outcomes = [_o("a", "0", 0, False, answer_key="3"), _o("a", "0", 1, True, answer_key="4"),
                _o("a", "0", 2, True, answer_key="4"),
                _o("b", "0", 0, True, answer_key="x"), _o("b", "0", 1, False, answer_key="y"),
                _o("b", "0", 2, False, answer_key="z")]
    assert majority_metrics(outcomes)["maj@3"].value == pytest.approx(1.0)


def test_bootstrap_interval_is_reproducible_and_brackets_the_mean() -> None:
    values = [1.0] * 30 + [0.0] * 70
    low, high = bootstrap_ci(values)
    assert (low, high) == bootstrap_ci(values)
    assert low < 0.3 < high and 0.2 < low and high <= 0.41  # about +-1.96 * sqrt(.3 * .7 / 100)


def test_breakdown_names_each_group() -> None:
    outcomes = [_o("a", "0", 0, True, meta={"language": "en"}), _o("b", "0", 0, False, meta={"language": "zh"})]
    m = breakdown_metrics(outcomes, "language")
    assert m["language=en/accuracy"].value == 1.0 and m["language=zh/accuracy"].value == 0.0

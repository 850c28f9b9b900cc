"""Paired comparison: a bootstrap on a small table checked against its exact distribution."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest

from analysis.rows import row, store_run
from physeval.analysis.paired import (
    PairingError,
    compare_pair,
    compare_runs,
    paired_bootstrap,
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
    assert by_pair["S", "M"].diff == pytest.approx(10 / 30) and by_pair["S", "M"].confidence == 1.0
    assert by_pair["M", "W"].confidence < 0.99
    assert tiers(["x", "y"], []) == (("x", "y"),)

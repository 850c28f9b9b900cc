"""Metrics: the declared order of reduction (samples -> item -> variants -> problems), unbiased
pass@k, majority vote over answer classes, dynamic metrics, reproducible intervals.

The table below gives each case's right values, worked by hand in the comments.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest

from physeval.metrics import (
    MetricSet,
    Plan,
    SampleOutcome,
    accuracy_metrics,
    bootstrap_ci,
    breakdown_metrics,
    dynamic_metrics,
    item_pass_at,
    majority_metrics,
    metric_from_values,
    pass_at_k,
    reduce_metric,
    with_plan,
)
from physeval.tasks.base import Task
from physeval.tasks.registry import get_task


def _o(pid: str, variant: str, sample: int, correct: bool, **kw: Any) -> SampleOutcome:
    return SampleOutcome(pid, variant, sample, correct, **kw)


def _item(pid: str, variant: str, pattern: str, keys: Sequence[str] | None = None) -> list[SampleOutcome]:
    """An item's samples: ``pattern`` "10" = sample 0 right, sample 1 wrong; ``keys`` the answer classes."""
    return [_o(pid, variant, s, c == "1", answer_key=keys[s] if keys else None) for s, c in enumerate(pattern)]


class _Static(Task):
    name = "static-fixture"


class _Dynamic(Task):
    name = "dynamic-fixture"
    dynamic = True


# (case, task class, outcomes, {metric: (value, n problems, n samples)}, metrics that must be absent, note)
TABLE: list[tuple[str, type[Task], list[SampleOutcome], dict[str, tuple[float, int, int]], set[str], str | None]] = [
    ("static K=1",
     _Static, _item("a", "0", "1") + _item("b", "0", "0") + _item("c", "0", "1"),
     {"accuracy": (2 / 3, 3, 3)},
     {"avg@1", "pass@1", "maj@1"}, None),

    # The brief's example: 4 variants, K = 2, only variant 0 ever right. One urn of 8 samples
    # would give pass@2 = 1 - C(6,2)/C(8,2) = 13/28 = 0.464; per variant it is (1+0+0+0)/4.
    # Dynamic: variant 1 never right, so dynamic accuracy and dynamic pass@2 are 0, delta 1 - 0.
    ("dynamic K=2, only variant 0 right, no answer classes",
     _Dynamic, _item("p", "0", "11") + _item("p", "1", "00") + _item("p", "2", "00") + _item("p", "3", "00"),
     {"accuracy": (0.25, 1, 8), "avg@2": (0.25, 1, 8), "pass@2": (0.25, 1, 8),
      "static_accuracy": (1.0, 1, 2), "dynamic_accuracy": (0.0, 1, 8), "delta": (1.0, 1, 8),
      "static_pass@2": (1.0, 1, 2), "dynamic_pass@2": (0.0, 1, 8)},
     {"maj@2", "static_maj@2", "dynamic_maj@2"}, "maj@2 omitted"),

    # maj@2 with classes: a ("7" right, "5" wrong): tie -> "7", seen first -> 1; b ("5" wrong,
    # "7" right): tie -> "5" -> 0; c (both "1", wrong) -> 0. maj@2 = 1/3.
    # accuracy (.5 + .5 + 0)/3 = 1/3; pass@2 (1 + 1 + 0)/3 = 2/3.
    ("static K=2, majority ties go to the class seen first",
     _Static, _item("a", "0", "10", "75") + _item("b", "0", "01", "57") + _item("c", "0", "00", "11"),
     {"accuracy": (1 / 3, 3, 6), "pass@2": (2 / 3, 3, 6), "maj@2": (1 / 3, 3, 6)},
     set(), None),

    # p: v0 "11" (7,7); v1 "10" (7,5) -> maj v0 = 1, v1 = 1 (tie, "7" first). q: v0 "00" (1,1) -> 0;
    # v1 "11" (2,2) -> 1.
    # accuracy: p (1 + .5)/2 = .75, q (0 + 1)/2 = .5 -> .625. pass@2: p 1, q (0+1)/2 -> .75.
    # maj@2 per variant: p 1, q .5 -> .75; dynamic maj@2: p 1*1, q 0*1 -> .5; static maj@2: (1 + 0)/2.
    # static accuracy (1 + 0)/2; dynamic accuracy: p 1 * .5, q 0 * 1 -> .25; delta ((1-.5) + 0)/2.
    # static pass@2 (1 + 0)/2; dynamic pass@2: p 1*1, q 0*1 -> .5.
    ("dynamic K=2 with answer classes",
     _Dynamic, _item("p", "0", "11", "77") + _item("p", "1", "10", "75")
     + _item("q", "0", "00", "11") + _item("q", "1", "11", "22"),
     {"accuracy": (0.625, 2, 8), "pass@2": (0.75, 2, 8), "maj@2": (0.75, 2, 8),
      "static_accuracy": (0.5, 2, 4), "dynamic_accuracy": (0.25, 2, 8), "delta": (0.25, 2, 8),
      "static_pass@2": (0.5, 2, 4), "dynamic_pass@2": (0.5, 2, 8),
      "static_maj@2": (0.5, 2, 4), "dynamic_maj@2": (0.5, 2, 8)},
     set(), None),

    # One problem, K = 4: v0 "1100" (a,a,b,c) -> majority "a", right; v1 "1000" (x,y,y,z) -> "y", wrong.
    # accuracy (.5 + .25)/2; dynamic accuracy .5 * .25 = .125; both variants have a right sample
    # among 4, so pass@4, static and dynamic pass@4 are 1; maj@4 (1 + 0)/2, dynamic maj@4 1 * 0.
    ("dynamic K=4",
     _Dynamic, _item("p", "0", "1100", "aabc") + _item("p", "1", "1000", "xyyz"),
     {"accuracy": (0.375, 1, 8), "pass@4": (1.0, 1, 8), "maj@4": (0.5, 1, 8),
      "static_accuracy": (0.5, 1, 4), "dynamic_accuracy": (0.125, 1, 8), "delta": (0.375, 1, 8),
      "static_pass@4": (1.0, 1, 4), "dynamic_pass@4": (1.0, 1, 8),
      "static_maj@4": (1.0, 1, 4), "dynamic_maj@4": (0.0, 1, 8)},
     set(), None),

    # Unequal sample counts: a has 4 samples (1 right), b only 2 (both right). accuracy uses every
    # sample: (.25 + 1)/2 over 6 samples; pass@4 needs 4 samples, so it stands on a alone.
    ("static K=4, unequal sample counts",
     _Static, _item("a", "0", "1000") + _item("b", "0", "11"),
     {"accuracy": (0.625, 2, 6), "avg@4": (0.625, 2, 6), "pass@4": (1.0, 1, 4)},
     {"maj@4"}, "pass@4: 1 of 2 items have fewer than 4 samples"),

    # p: v0 "11", v1 "0" (one sample); q: v0 "10", v1 "01". accuracy: p (1 + 0)/2, q (.5 + .5)/2.
    # pass@2 per variant: p's v1 has no pass@2, so p = v0 = 1; q (1 + 1)/2 -> 1 over 2 + 4 samples.
    # p's v1 lacks a planned sample, so p is left out of every dynamic metric (a note names it):
    # dynamic accuracy q .5 * .5 = .25; dynamic pass@2 q 1 * 1; static (1 + .5)/2; delta q .5 - .25.
    ("dynamic K=2, unequal sample counts",
     _Dynamic, _item("p", "0", "11") + _item("p", "1", "0") + _item("q", "0", "10") + _item("q", "1", "01"),
     {"accuracy": (0.5, 2, 7), "pass@2": (1.0, 2, 6), "static_accuracy": (0.75, 2, 4),
      "dynamic_accuracy": (0.25, 1, 4), "delta": (0.25, 1, 4), "static_pass@2": (1.0, 2, 4),
      "dynamic_pass@2": (1.0, 1, 4)},
     {"maj@2"}, "dynamic metrics leave out 1 of 2 problems whose planned variants were not all graded"),
]


@pytest.mark.parametrize(("case", "task_class", "outcomes", "expected", "absent", "note"), TABLE,
                         ids=[row[0] for row in TABLE])
def test_metric_table(case: str, task_class: type[Task], outcomes: list[SampleOutcome],
                      expected: dict[str, tuple[float, int, int]], absent: set[str], note: str | None) -> None:
    metrics = task_class().metrics(outcomes)
    assert isinstance(metrics, MetricSet)
    for name, (value, n, n_samples) in expected.items():
        assert name in metrics, f"{case}: {name} missing from {list(metrics)}"
        got = metrics[name]
        assert (got.value, got.n, got.n_samples) == (pytest.approx(value), n, n_samples), f"{case}: {name}"
    assert not absent & set(metrics), f"{case}: {absent & set(metrics)} should be omitted"
    if note is None:
        assert not any("omitted" in n or "left out" in n for n in metrics.notes), metrics.notes
    else:
        assert any(note in n for n in metrics.notes), metrics.notes


def test_dynamic_pass_at_k_with_more_samples_than_k_is_a_product_of_unbiased_estimates() -> None:
    # v0: 2 right of 4 -> pass@2 = 1 - C(2,2)/C(4,2) = 5/6; v1: 1 right of 4 -> 1 - C(3,2)/C(4,2) = 1/2.
    outcomes = _item("p", "0", "1100") + _item("p", "1", "1000")
    dynamic_pass_2 = reduce_metric(outcomes, item_pass_at(2), "product")
    assert dynamic_pass_2 is not None and dynamic_pass_2.value == pytest.approx(5 / 6 * 1 / 2)
    # dynamic accuracy is dynamic pass@1: (2/4) * (1/4)
    dynamic_pass_1 = reduce_metric(outcomes, item_pass_at(1), "product")
    assert dynamic_pass_1 is not None
    assert dynamic_pass_1.value == pytest.approx(dynamic_metrics(outcomes)["dynamic_accuracy"].value) == 0.125


def test_per_variant_accuracy_is_a_breakdown_not_a_name() -> None:
    outcomes = [
        _o("p1", "0", 0, True), _o("p1", "1", 0, True), _o("p1", "2", 0, True),    # survives variation
        _o("p2", "0", 0, True), _o("p2", "1", 0, False), _o("p2", "2", 0, True),   # memorised
        _o("p3", "0", 0, False), _o("p3", "1", 0, True), _o("p3", "2", 0, True),   # lucky variants only
    ]
    m = dynamic_metrics(outcomes)
    assert m["static_accuracy"].value == pytest.approx(2 / 3)
    assert m["dynamic_accuracy"].value == pytest.approx(1 / 3)
    assert m["delta"].value == pytest.approx(1 / 3)
    assert list(m.breakdowns["variant"]) == ["0", "1", "2"]
    assert m.breakdowns["variant"]["1"]["accuracy"].value == pytest.approx(2 / 3)
    assert not any("variant" in name for name in m)


def test_scene_rates_reduce_per_item_then_per_problem() -> None:
    def sample(pid: str, s: int, stage: int, correct: bool = False, tokens: int = 0, seconds: float = 0.0,
               ) -> SampleOutcome:
        # stage: 0 no code, 1 executable, 2 rendered, 3 playable and judged
        grade = {"executable": stage >= 1, "rendered": stage >= 2, "playable": stage >= 3, "judged": stage >= 3,
                 "judge_tokens": tokens, "judge_seconds": seconds}
        return _o(pid, "0", s, correct, meta={"domain": "mechanics" if pid == "a" else "optics"}, grade=grade)

    outcomes = [sample("a", 0, 3, True, 100, 2.0), sample("a", 1, 1),
                sample("b", 0, 0), sample("b", 1, 3, False, 300, 4.0)]
    m = get_task("bank-scene").metrics(outcomes)
    # a: executable 2/2, rendered 1/2, playable 1/2, right 1/2; b: executable 1/2, rendered 1/2, ...
    expected = {"executable_rate": 0.75, "executable_pass@2": 1.0, "render_rate": 0.5, "render_pass@2": 1.0,
                "playable_rate": 0.5, "playable_pass@2": 1.0, "accuracy": 0.25, "avg@2": 0.25, "pass@2": 0.5}
    for name, value in expected.items():
        assert (m[name].value, m[name].n, m[name].n_samples) == (pytest.approx(value), 2, 4), name
    # judge cost per judged sample: a 100 tokens, b 300 -> 200 over the 2 judged samples
    assert (m["judge_tokens_per_judged_sample"].value, m["judge_tokens_per_judged_sample"].n_samples) == (200.0, 2)
    assert m["judge_seconds_per_judged_sample"].value == pytest.approx(3.0)
    assert m.breakdowns["domain"]["mechanics"]["accuracy"].value == 0.5
    assert m.breakdowns["domain"]["optics"]["executable_rate"].value == 0.5


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
    assert metrics["pass@4"].value == 1.0 and metrics["pass@4"].n == 2 and metrics["pass@4"].n_samples == 8


def test_majority_vote_uses_answer_classes_and_breaks_ties_by_first_seen() -> None:
    outcomes = [_o("a", "0", 0, False, answer_key="3"), _o("a", "0", 1, True, answer_key="4"),
                _o("a", "0", 2, True, answer_key="4"),
                _o("b", "0", 0, True, answer_key="x"), _o("b", "0", 1, False, answer_key="y"),
                _o("b", "0", 2, False, answer_key="z")]
    assert majority_metrics(outcomes)["maj@3"].value == pytest.approx(1.0)


def test_majority_without_answer_classes_is_omitted_with_a_note() -> None:
    outcomes = [_o("a", "0", s, s == 0) for s in range(3)]
    result = majority_metrics(outcomes)
    assert "maj@3" not in result and any("maj@3 omitted" in note for note in result.notes)


def test_bootstrap_interval_is_reproducible_and_brackets_the_mean() -> None:
    values = [1.0] * 30 + [0.0] * 70
    low, high = bootstrap_ci(values)
    assert (low, high) == bootstrap_ci(values)
    assert low < 0.3 < high and 0.2 < low and high <= 0.41  # about +-1.96 * sqrt(.3 * .7 / 100)


def test_one_problem_has_no_interval_not_a_zero_width_one() -> None:
    assert all(math.isnan(x) for x in bootstrap_ci([0.75]))
    m = metric_from_values([0.75])
    assert m.value == 0.75 and m.n == 1 and math.isnan(m.ci_low) and math.isnan(m.ci_high)
    assert bootstrap_ci([0.5, 0.5]) == (0.5, 0.5)  # two problems that agree: the bootstrap's own answer


def test_breakdown_is_a_mapping_of_groups() -> None:
    outcomes = [_o("a", "0", 0, True, meta={"language": "en"}), _o("b", "0", 0, False, meta={"language": "zh"})]
    m = breakdown_metrics(outcomes, "language")
    assert m.breakdowns["language"]["en"]["accuracy"].value == 1.0
    assert m.breakdowns["language"]["zh"]["accuracy"].value == 0.0
    assert len(m) == 0  # no ungrouped metric
    assert m.to_dict()["breakdowns"]["language"]["zh"]["accuracy"]["n_samples"] == 1


def test_merging_metric_sets_keeps_groups_and_notes() -> None:
    left = MetricSet(notes=("x",)) | breakdown_metrics([_o("a", "0", 0, True, meta={"k": "1"})], "k")
    both = left | breakdown_metrics([_o("b", "0", 0, False, meta={"k": "2"})], "k") | MetricSet(notes=("x", "y"))
    assert list(both.breakdowns["k"]) == ["1", "2"] and both.notes == ("x", "y")


def test_a_problem_short_of_a_planned_variant_is_not_dynamically_right() -> None:
    # p answers all 4 planned variants right, q only 3 of its 4 (also right): dynamic accuracy is p's 1
    # over n = 1, not 1 over 2; per-variant accuracy still uses q's graded samples (1 over 2 problems).
    outcomes = [_o("p", v, 0, True) for v in "0123"] + [_o("q", v, 0, True) for v in "012"]
    keys = [(pid, v) for pid in "pq" for v in "0123"]
    planned = with_plan(outcomes, Plan.named_by(outcomes, keys))
    metrics = _Dynamic().metrics(planned)
    assert (metrics["dynamic_accuracy"].value, metrics["dynamic_accuracy"].n) == (1.0, 1)
    assert (metrics["accuracy"].value, metrics["accuracy"].n) == (1.0, 2)
    assert any("q (variant 3: 0 of 1 samples graded)" in n for n in metrics.notes), metrics.notes
    # without the plan, q's three variants look like the whole family
    assert _Dynamic().metrics(outcomes)["dynamic_accuracy"].n == 2

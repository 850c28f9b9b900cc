"""Metrics over sample records: accuracy, avg@k, unbiased pass@k, maj@k, dynamic accuracy.

Every metric is first reduced to one value per problem, then averaged; the 95 % interval
is a percentile bootstrap over problems with a fixed seed, so a summary is reproducible. A
sample that errored (no answer from the model) counts as wrong: it stays in the
denominator, and the error count is reported beside the metrics.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "Metric", "SampleOutcome", "bootstrap_ci", "pass_at_k", "metric_from_values",
    "accuracy_metrics", "dynamic_metrics", "rate_metrics", "mean_score_metric", "breakdown_metrics", "majority_metrics",
    "outcomes_from_rows",
]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = 20240601


@dataclass(frozen=True)
class Metric:
    """A metric's value with its 95 % bootstrap interval over ``n`` problems."""

    value: float
    ci_low: float
    ci_high: float
    n: int

    def to_dict(self) -> dict[str, float | int]:
        """``{"value", "ci_low", "ci_high", "n"}``."""
        return {"value": self.value, "ci_low": self.ci_low, "ci_high": self.ci_high, "n": self.n}


@dataclass(frozen=True)
class SampleOutcome:
    """The slice of a sample record that metrics need."""

    problem_id: str
    variant: str
    sample: int
    correct: bool
    score: float | None = None
    answer_key: str | None = None
    meta: Mapping[str, Any] | None = None
    grade: Mapping[str, Any] | None = None


def outcomes_from_rows(rows: Iterable[Any]) -> list[SampleOutcome]:
    """Turn run-store rows into outcomes (an errored sample is a wrong one)."""
    out = []
    for row in rows:
        grade = row.grade or {}
        out.append(SampleOutcome(row.problem_id, row.variant, row.sample, bool(row.correct),
                                 row.score, grade.get("answer_key"), row.problem_meta or {}, grade))
    return out


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k (Chen et al. 2021): 1 - C(n-c, k) / C(n, k)."""
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.prod((n - c - i) / (n - i) for i in range(k))


def bootstrap_ci(values: Sequence[float], *, resamples: int = BOOTSTRAP_RESAMPLES,
                 seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Percentile 95 % interval of the mean of ``values`` (one value per problem)."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return (math.nan, math.nan)
    if arr.size == 1 or np.all(arr == arr[0]):
        return (float(arr[0]) if arr.size == 1 else float(arr.mean()),) * 2
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, arr.size, size=(resamples, arr.size))
    means = arr[idx].mean(axis=1)
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)))


def metric_from_values(values: Sequence[float]) -> Metric:
    """Mean of per-problem values with its bootstrap interval."""
    if not values:
        return Metric(math.nan, math.nan, math.nan, 0)
    low, high = bootstrap_ci(values)
    return Metric(float(np.mean(values)), low, high, len(values))


def _by_problem(outcomes: Iterable[SampleOutcome]) -> dict[str, list[SampleOutcome]]:
    grouped: dict[str, list[SampleOutcome]] = defaultdict(list)
    for o in outcomes:
        grouped[o.problem_id].append(o)
    return grouped


def _k_of(outcomes: Sequence[SampleOutcome]) -> int:
    return max((o.sample for o in outcomes), default=-1) + 1


def accuracy_metrics(outcomes: Sequence[SampleOutcome], *, prefix: str = "") -> dict[str, Metric]:
    """``accuracy`` (mean over problems of the fraction of correct samples), and with K > 1
    samples ``avg@K`` (the same number, named as papers do) and unbiased ``pass@K``."""
    groups = _by_problem(outcomes)
    if not groups:
        return {}
    per_problem = [float(np.mean([o.correct for o in g])) for g in groups.values()]
    metrics = {f"{prefix}accuracy": metric_from_values(per_problem)}
    k = _k_of(outcomes)
    if k > 1:
        metrics[f"{prefix}avg@{k}"] = metrics[f"{prefix}accuracy"]
        passes = []
        for g in groups.values():
            n, c = len(g), sum(o.correct for o in g)
            passes.append(pass_at_k(n, c, min(k, n)))
        metrics[f"{prefix}pass@{k}"] = metric_from_values(passes)
    return metrics


def rate_metrics(outcomes: Sequence[SampleOutcome], name: str, flag: Callable[[SampleOutcome], bool]) -> dict[str, Metric]:
    """``name`` = mean over problems of the fraction of samples where ``flag`` holds; with K > 1
    samples also ``name_avg@K`` and ``name_pass@K`` (e.g. ``executable_rate``, ``executable_pass@8``)."""
    relabelled = [SampleOutcome(o.problem_id, o.variant, o.sample, bool(flag(o))) for o in outcomes]
    base = name.removesuffix("_rate")
    out = {}
    for key, metric in accuracy_metrics(relabelled).items():
        out[name if key == "accuracy" else f"{base}_{key}"] = metric
    return out


def dynamic_metrics(outcomes: Sequence[SampleOutcome]) -> dict[str, Metric]:
    """Dynamic-set metrics: a problem counts only when every one of its variants is right.

    ``static_accuracy`` is variant ``"0"`` alone, ``dynamic_accuracy`` requires all variants
    within the same sample index, ``delta`` = static - dynamic (per problem, so its interval is
    paired), ``variant_<v>_accuracy`` per variant; with K > 1 samples, ``pass@K`` of each.
    """
    groups = _by_problem(outcomes)
    if not groups:
        return {}
    k = _k_of(outcomes)
    static_vals, dynamic_vals, delta_vals = [], [], []
    static_pass, dynamic_pass = [], []
    per_variant: dict[str, list[float]] = defaultdict(list)
    for g in groups.values():
        by_sample: dict[int, dict[str, bool]] = defaultdict(dict)
        for o in g:
            by_sample[o.sample][o.variant] = o.correct
        variants = sorted({o.variant for o in g})
        static_hits = [by_sample[s].get("0", False) for s in range(k)]
        dynamic_hits = [all(by_sample[s].get(v, False) for v in variants) for s in range(k)]
        s_val, d_val = float(np.mean(static_hits)), float(np.mean(dynamic_hits))
        static_vals.append(s_val)
        dynamic_vals.append(d_val)
        delta_vals.append(s_val - d_val)
        static_pass.append(pass_at_k(k, sum(static_hits), k))
        dynamic_pass.append(pass_at_k(k, sum(dynamic_hits), k))
        for v in variants:
            per_variant[v].append(float(np.mean([by_sample[s].get(v, False) for s in range(k)])))
    metrics = {
        "static_accuracy": metric_from_values(static_vals),
        "dynamic_accuracy": metric_from_values(dynamic_vals),
        "delta": metric_from_values(delta_vals),
    }
    for v in sorted(per_variant, key=lambda x: (len(x), x)):
        metrics[f"variant_{v}_accuracy"] = metric_from_values(per_variant[v])
    if k > 1:
        metrics[f"static_pass@{k}"] = metric_from_values(static_pass)
        metrics[f"dynamic_pass@{k}"] = metric_from_values(dynamic_pass)
    return metrics


def mean_score_metric(outcomes: Sequence[SampleOutcome], name: str, *, scale: float = 1.0) -> dict[str, Metric]:
    """Mean partial-credit score per problem (e.g. EED), scaled; missing scores count 0."""
    groups = _by_problem(outcomes)
    vals = [float(np.mean([(o.score or 0.0) * scale for o in g])) for g in groups.values()]
    return {name: metric_from_values(vals)} if vals else {}


def majority_metrics(outcomes: Sequence[SampleOutcome]) -> dict[str, Metric]:
    """``maj@K``: the most frequent answer class among a problem's K samples decides.

    Samples are grouped by their grade's ``answer_key`` (an equivalence-class label set by
    the grader); samples without one are their own class. Ties go to the class seen first.
    """
    k = _k_of(outcomes)
    if k <= 1:
        return {}
    vals = []
    for g in _by_problem(outcomes).values():
        ordered = sorted(g, key=lambda o: (o.variant, o.sample))
        labels = [o.answer_key if o.answer_key is not None else f"__sample{o.sample}" for o in ordered]
        counts = Counter(labels)
        best = max(counts.values())
        winner = next(label for label in labels if counts[label] == best)
        vals.append(float(any(o.correct for o, label in zip(ordered, labels) if label == winner)))
    return {f"maj@{k}": metric_from_values(vals)}


def breakdown_metrics(outcomes: Sequence[SampleOutcome], key: str,
                      compute: Callable[[Sequence[SampleOutcome]], dict[str, Metric]] = accuracy_metrics,
                      ) -> dict[str, Metric]:
    """``compute`` within each value of the problem meta field ``key``: ``<key>=<value>/<metric>``."""
    groups: dict[str, list[SampleOutcome]] = defaultdict(list)
    for o in outcomes:
        value = (o.meta or {}).get(key)
        if value is not None and value != "":
            groups[str(value)].append(o)
    out: dict[str, Metric] = {}
    if len(groups) < 1:
        return out
    for value in sorted(groups):
        for name, metric in compute(groups[value]).items():
            out[f"{key}={value}/{name}"] = metric
    return out

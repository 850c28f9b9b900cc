"""Paired comparison of runs: differences per problem with a paired bootstrap, p-values, tiers.

Two runs are paired by item (problem id and variant): only items both runs hold are kept,
each run's items are reduced to per-problem values exactly as its metric is (see
:mod:`physeval.metrics`), and the difference A - B is taken problem by problem. The paired
bootstrap resamples problems (with replacement, a fixed seed, so a comparison is reproducible)
and reads off:

- the 95 % percentile interval of the mean difference;
- a two-sided p-value for "no difference": ``2 * min(P*(d <= 0), P*(d >= 0))``, capped at 1
  (0 means below ``1 / resamples``);
- the confidence that A is better than B: ``P*(d > 0) + P*(d = 0) / 2``.

Tiers, as in PHYBench C.1: tier 1 holds the runs that no other run beats at ``level``
confidence (default 99 %); they are set aside and tier 2 is found the same way among the rest.

Pairing refuses (:class:`PairingError`, with the reason) runs of different tasks, of different
data files (their recorded SHA-256 differ), runs whose common items were asked different
questions, and runs without a common item; a partial overlap is reported in :class:`Overlap`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from physeval.analysis.runs import Run, run_labels
from physeval.errors import UserError
from physeval.metrics import (
    Across,
    ItemValue,
    SampleOutcome,
    item_fraction,
    item_mean_score,
    problem_values,
)

__all__ = [
    "METRICS",
    "PAIRED_RESAMPLES",
    "PAIRED_SEED",
    "Comparison",
    "Overlap",
    "PairedDifference",
    "PairingError",
    "compare_pair",
    "compare_runs",
    "paired_bootstrap",
    "paired_values",
    "tiers",
]

PAIRED_RESAMPLES = 10_000
PAIRED_SEED = 20240602
_TIE = 1e-12


def _flag(name: str) -> Callable[[SampleOutcome], bool]:
    return lambda o: bool((o.grade or {}).get(name))


METRICS: dict[str, tuple[Callable[[], ItemValue], Across]] = {
    "accuracy": (lambda: item_fraction(), "mean"),
    "static_accuracy": (lambda: item_fraction(), "static"),
    "dynamic_accuracy": (lambda: item_fraction(), "product"),
    "eed": (lambda: item_mean_score(100.0), "mean"),
    "executable_rate": (lambda: item_fraction(_flag("executable")), "mean"),
    "render_rate": (lambda: item_fraction(_flag("rendered")), "mean"),
    "playable_rate": (lambda: item_fraction(_flag("playable")), "mean"),
}
"""Metric name -> (the item reduction, the reduction across variants) that pairing uses."""

MetricName = Literal["accuracy", "static_accuracy", "dynamic_accuracy", "eed", "executable_rate", "render_rate",
                     "playable_rate"]


class PairingError(UserError):
    """Two runs cannot be paired; the message says why."""


@dataclass(frozen=True)
class Overlap:
    """Items (problem, variant) both runs hold, and those only one holds; problems paired."""

    common_items: int
    only_a: int
    only_b: int
    problems: int

    @property
    def partial(self) -> bool:
        """Whether either run holds items the other lacks."""
        return bool(self.only_a or self.only_b)


@dataclass(frozen=True)
class PairedDifference:
    """A - B on ``metric`` over ``n`` paired problems (``n_samples`` samples of both runs)."""

    a: str
    b: str
    metric: str
    value_a: float
    value_b: float
    diff: float
    ci_low: float
    ci_high: float
    p_value: float
    confidence: float
    n: int
    n_samples: int
    overlap: Overlap
    resamples: int

    @property
    def sentence(self) -> str:
        """"A is better than B with X % confidence" (or B than A when the difference is negative)."""
        if self.confidence >= 0.5:
            return f"{self.a} is better than {self.b} with {100 * self.confidence:.1f} % confidence"
        return f"{self.b} is better than {self.a} with {100 * (1 - self.confidence):.1f} % confidence"


@dataclass(frozen=True)
class Comparison:
    """Every pair of ``labels`` compared on ``metric``, and the tiers at ``level``."""

    labels: tuple[str, ...]
    metric: str
    pairs: tuple[PairedDifference, ...]
    tiers: tuple[tuple[str, ...], ...]
    level: float


def paired_bootstrap(diffs: Sequence[float], *, resamples: int = PAIRED_RESAMPLES, seed: int = PAIRED_SEED,
                     ) -> tuple[float, float, float, float]:
    """(ci_low, ci_high, two-sided p-value, confidence that the mean difference is > 0)."""
    arr = np.asarray(diffs, dtype=float)
    if arr.size == 0:
        raise ValueError("a paired bootstrap needs at least one difference")
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, arr.size, size=(resamples, arr.size))].mean(axis=1)
    pos, neg = float(np.mean(means > _TIE)), float(np.mean(means < -_TIE))
    zero = 1.0 - pos - neg
    p_value = min(1.0, 2.0 * min(neg + zero, pos + zero))
    return (float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5)), p_value, pos + zero / 2)


def paired_values(a: Run, b: Run, metric: str = "accuracy",
                  ) -> tuple[dict[str, tuple[float, float, int]], Overlap]:
    """Problem id -> (A's value, B's value, samples of both) over the items both runs hold."""
    if metric not in METRICS:
        raise UserError(f"unknown metric {metric!r} for pairing: use one of {', '.join(METRICS)}")
    if a.task != b.task:
        raise PairingError(f"cannot pair {a.path} ({a.task}) with {b.path} ({b.task}): they ran different tasks")
    if a.data_sha256 and b.data_sha256 and dict(a.data_sha256) != dict(b.data_sha256):
        raise PairingError(f"cannot pair {a.path} with {b.path}: they read different data files "
                           "(their recorded SHA-256 differ), so the problem sets differ")
    questions_a, questions_b = _questions(a), _questions(b)
    common = questions_a.keys() & questions_b.keys()
    differing = sum(questions_a[k] != questions_b[k] for k in common)
    if differing:
        raise PairingError(f"cannot pair {a.path} with {b.path}: {differing} of {len(common)} common items were "
                           "asked different questions (different problem sets under the same ids)")
    if not common:
        raise PairingError(f"cannot pair {a.path} with {b.path}: they share no problem")
    item, across = METRICS[metric]
    values_a = problem_values([o for o in a.outcomes() if (o.problem_id, o.variant) in common], item(), across)
    values_b = problem_values([o for o in b.outcomes() if (o.problem_id, o.variant) in common], item(), across)
    paired = {pid: (values_a[pid][0], values_b[pid][0], values_a[pid][1] + values_b[pid][1])
              for pid in values_a if pid in values_b}
    overlap = Overlap(len(common), len(questions_a.keys() - common), len(questions_b.keys() - common), len(paired))
    return paired, overlap


def compare_pair(a: Run, b: Run, metric: str = "accuracy", *, labels: tuple[str, str] | None = None,
                 resamples: int = PAIRED_RESAMPLES, seed: int = PAIRED_SEED) -> PairedDifference:
    """The paired difference A - B on ``metric`` (see the module doc)."""
    paired, overlap = paired_values(a, b, metric)
    if not paired:
        raise PairingError(f"cannot pair {a.path} with {b.path}: no common problem has a {metric} value in both")
    label_a, label_b = labels or (a.model, b.model)
    va = np.array([v[0] for v in paired.values()])
    vb = np.array([v[1] for v in paired.values()])
    low, high, p_value, confidence = paired_bootstrap(va - vb, resamples=resamples, seed=seed)
    return PairedDifference(label_a, label_b, metric, float(va.mean()), float(vb.mean()), float((va - vb).mean()),
                            low, high, p_value, confidence, len(paired), sum(v[2] for v in paired.values()), overlap,
                            resamples)


def compare_runs(runs: Sequence[Run], metric: str = "accuracy", *, level: float = 0.99,
                 resamples: int = PAIRED_RESAMPLES, seed: int = PAIRED_SEED) -> Comparison:
    """Every pair of ``runs`` (in order: A before B) and the tiers at ``level`` confidence."""
    if len(runs) < 2:
        raise UserError("a paired comparison needs at least two runs")
    labels = run_labels(runs)
    pairs = tuple(compare_pair(runs[i], runs[j], metric, labels=(labels[i], labels[j]), resamples=resamples,
                               seed=seed) for i, j in combinations(range(len(runs)), 2))
    return Comparison(tuple(labels), metric, pairs, tiers(labels, pairs, level), level)


def tiers(labels: Sequence[str], pairs: Sequence[PairedDifference], level: float = 0.99) -> tuple[tuple[str, ...], ...]:
    """Group ``labels`` into tiers: each tier is those no remaining label beats at ``level``."""
    beats: set[tuple[str, str]] = set()
    for p in pairs:
        if p.confidence >= level:
            beats.add((p.a, p.b))
        elif 1 - p.confidence >= level:
            beats.add((p.b, p.a))
    remaining, out = list(labels), []
    while remaining:
        tier = [x for x in remaining if not any((y, x) in beats for y in remaining if y != x)]
        if not tier:  # a cycle of "beats" cannot happen with one bootstrap per pair, but never loop
            tier = list(remaining)
        out.append(tuple(tier))
        remaining = [x for x in remaining if x not in tier]
    return tuple(out)


def _questions(run: Run) -> dict[tuple[str, str], str]:
    """(problem, variant) -> the text of the messages it was asked (sample 0's, as stored)."""
    out: dict[tuple[str, str], str] = {}
    for r in run.rows:
        out.setdefault((r.problem_id, r.variant), repr(r.messages))
    return out

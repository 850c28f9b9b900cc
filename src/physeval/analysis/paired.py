"""Paired comparison of runs: differences per problem, an exact sign-flip test, intervals, tiers.

Two runs are paired by item (problem id and variant): only items both runs hold are kept,
each run's items are reduced to per-problem values exactly as its metric is (see
:mod:`physeval.metrics`), and the difference d = A - B is taken problem by problem.

The test (:func:`sign_flip_test`). Under "no difference between the models" each problem's
difference is as likely to be +d as -d, so the 2^n sign patterns of the n differences are
equally likely; the p-value is the share of patterns whose sum is at least as far from 0 as the
observed one. It is computed exactly (the distribution of the sum convolved on the grid the
differences lie on, e.g. multiples of 1/K for accuracy, or every pattern enumerated for a few
differences); otherwise by a fixed-seed Monte Carlo draw of :data:`PAIRED_RESAMPLES` patterns
(``p = (1 + hits) / (1 + draws)``, never 0). The method is named in every result. Valid at any n: with 5 problems all
won by A it gives p = 2/32 = 0.0625, where a bootstrap claims p < 1e-4.

- two-sided ``p_value``: P(|S| >= |s|), S the sum under random signs, s the observed one;
- ``confidence`` that A is better than B: the one-sided mid-p complement P(S < s) + P(S = s) / 2
  (0.5 when every difference is 0; at most 1 - 2^-(n+1), so 5 problems never reach 99 %);
- the 95 % interval of the mean difference: a paired bootstrap percentile interval (problems
  resampled with replacement, fixed seed), reported only from :data:`BOOTSTRAP_MIN_PROBLEMS`
  problems on, where its coverage holds up; below, no interval (NaN) and the result says so.

Tiers, as in PHYBench C.1: tier 1 holds the runs that no other run beats at ``level``
confidence (default 99 %); they are set aside and tier 2 is found the same way among the rest.

Pairing refuses (:class:`PairingError`, with the reason) runs of different tasks, of different
data files (their recorded SHA-256 differ), runs whose common items were asked different
questions, runs without a common item, and a metric the runs do not have (EED of numeric runs,
render rates of non-scene runs, static/dynamic/delta of runs without variants, scene accuracy
without a judge); a partial overlap is reported in :class:`Overlap`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Literal

import numpy as np

from physeval.analysis.runs import Run, run_labels
from physeval.errors import UserError
from physeval.metrics import (
    SampleOutcome,
    item_fraction,
    item_mean_score,
    problem_values,
    with_plan,
)

__all__ = [
    "BOOTSTRAP_MIN_PROBLEMS",
    "ENUMERATE_MAX",
    "EXACT_OPERATIONS",
    "GRID_MAX",
    "METRICS",
    "PAIRED_RESAMPLES",
    "PAIRED_SEED",
    "Comparison",
    "Overlap",
    "PairedDifference",
    "PairedMetric",
    "PairingError",
    "SignFlip",
    "compare_pair",
    "compare_runs",
    "paired_bootstrap",
    "applicable_metrics",
    "paired_values",
    "p_text",
    "percent_text",
    "sign_flip_test",
    "tiers",
]

PAIRED_RESAMPLES = 10_000
PAIRED_SEED = 20240602
BOOTSTRAP_MIN_PROBLEMS = 20
EXACT_OPERATIONS = 20_000_000
ENUMERATE_MAX = 16
GRID_MAX = 360
_TIE = 1e-12


ProblemValues = Callable[[Sequence[SampleOutcome]], dict[str, tuple[float, int]]]


@dataclass(frozen=True)
class PairedMetric:
    """What pairing compares: per-problem values of a run, and which runs have them.

    ``values`` maps a run's outcomes to problem id -> (value, samples); ``applies`` says whether
    a run measured the metric at all, and ``needs`` names what a run lacks when it did not.
    """

    values: ProblemValues
    applies: Callable[[Run], bool]
    needs: str


def _flag(name: str) -> Callable[[SampleOutcome], bool]:
    return lambda o: bool((o.grade or {}).get(name))


def _values(item: Callable[[], Callable[[Sequence[SampleOutcome]], float | None]], across: str = "mean",
            ) -> ProblemValues:
    return lambda outcomes: problem_values(outcomes, item(), across)  # type: ignore[arg-type]


def _delta(outcomes: Sequence[SampleOutcome]) -> dict[str, tuple[float, int]]:
    static = problem_values(outcomes, item_fraction(), "static")
    dynamic = problem_values(outcomes, item_fraction(), "product")
    return {pid: (static[pid][0] - dynamic[pid][0], dynamic[pid][1]) for pid in static if pid in dynamic}


def _has_grade(key: str) -> Callable[[Run], bool]:
    return lambda run: any(key in (r.grade or {}) for r in run.graded)


def _judged(run: Run) -> bool:
    return run.track != "scene" or any((r.grade or {}).get("judged") for r in run.graded)


def _scene(run: Run) -> bool:
    return run.track == "scene" or _has_grade("stage")(run)


def _dynamic(run: Run) -> bool:
    return run.dynamic


_SCENE_NEEDS = "scene programs (a scene run)"
_DYNAMIC_NEEDS = "problems in several variants (a dynamic run)"
METRICS: dict[str, PairedMetric] = {
    "accuracy": PairedMetric(_values(item_fraction), _judged, "a judge's verdicts (scene accuracy needs a judge)"),
    "static_accuracy": PairedMetric(_values(item_fraction, "static"), _dynamic, _DYNAMIC_NEEDS),
    "dynamic_accuracy": PairedMetric(_values(item_fraction, "product"), _dynamic, _DYNAMIC_NEEDS),
    "delta": PairedMetric(_delta, _dynamic, _DYNAMIC_NEEDS),
    "eed": PairedMetric(_values(lambda: item_mean_score(100.0)), _has_grade("eed_score"),
                        "EED scores (a symbolic run)"),
    "executable_rate": PairedMetric(_values(lambda: item_fraction(_flag("executable"))), _scene, _SCENE_NEEDS),
    "render_rate": PairedMetric(_values(lambda: item_fraction(_flag("rendered"))), _scene, _SCENE_NEEDS),
    "playable_rate": PairedMetric(_values(lambda: item_fraction(_flag("playable"))), _scene, _SCENE_NEEDS),
}
"""Metric name -> how pairing reads it. ``delta`` is static - dynamic accuracy per problem
(ABench's central quantity), so its paired difference is Δ_A - Δ_B."""

MetricName = Literal["accuracy", "static_accuracy", "dynamic_accuracy", "delta", "eed", "executable_rate",
                     "render_rate", "playable_rate"]


def applicable_metrics(runs: Sequence[Run]) -> list[str]:
    """The metrics every one of ``runs`` has, in :data:`METRICS` order."""
    return [name for name, m in METRICS.items() if all(m.applies(r) for r in runs)]


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
    test: str = ""
    interval: str = ""

    @property
    def sentence(self) -> str:
        """"A is better than B with X % confidence" (or B than A when the difference is negative)."""
        if self.confidence >= 0.5:
            return (f"{self.a} is better than {self.b} with {percent_text(self.confidence)} confidence "
                    f"(p = {p_text(self.p_value)}, n = {self.n})")
        return (f"{self.b} is better than {self.a} with {percent_text(1 - self.confidence)} confidence "
                f"(p = {p_text(self.p_value)}, n = {self.n})")


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


@dataclass(frozen=True)
class SignFlip:
    """The sign-flip test of paired differences: two-sided p, the confidence that their mean
    is > 0 (one-sided mid-p complement), the number of non-zero differences and the method."""

    p_value: float
    confidence: float
    nonzero: int
    method: str


def sign_flip_test(diffs: Sequence[float], *, draws: int = PAIRED_RESAMPLES, seed: int = PAIRED_SEED) -> SignFlip:
    """The sign-flip test of ``diffs``: exact where it can be counted, else Monte Carlo (module doc).

    Exact in two cases: the differences lie on a grid of step 1/L (L <= :data:`GRID_MAX`, as
    accuracy differences do with L = K samples), when the distribution of the sum is convolved
    on that grid within :data:`EXACT_OPERATIONS` array steps; or at most :data:`ENUMERATE_MAX`
    non-zero differences, when every sign pattern is enumerated.
    """
    arr = np.asarray([float(d) for d in diffs if abs(d) > _TIE])  # a zero is the same under either sign
    m = int(arr.size)
    if m == 0:
        return SignFlip(1.0, 0.5, 0, "sign-flip test (every difference is 0)")
    observed = float(arr.sum())
    grid = _grid(arr)
    if grid is not None and m * (2 * int(np.abs(np.rint(arr * grid)).sum()) + 1) <= EXACT_OPERATIONS:
        steps = np.abs(np.rint(arr * grid)).astype(int)
        span = int(steps.sum())
        dist = np.zeros(2 * span + 1)
        dist[span] = 1.0  # P(sum = 0) before any difference; index = sum * grid + span
        for step in steps:
            dist = (np.roll(dist, int(step)) + np.roll(dist, -int(step))) / 2  # no wrap: |sum| <= span
        sums = (np.arange(2 * span + 1) - span) / grid
        method = f"sign-flip test, exact (the sum of the {m} non-zero differences over all 2^{m} sign patterns)"
        return _sign_flip_result(sums, dist, observed, m, method)
    if m <= ENUMERATE_MAX:
        signs = 1.0 - 2.0 * ((np.arange(2 ** m)[:, None] >> np.arange(m)) & 1)
        method = f"sign-flip test, exact (all 2^{m} sign patterns of the {m} non-zero differences)"
        return _sign_flip_result(signs @ arr, np.full(2 ** m, 2.0 ** -m), observed, m, method)
    rng = np.random.default_rng(seed)
    sums = (rng.choice((-1.0, 1.0), size=(draws, m)) * arr).sum(axis=1)
    result = _sign_flip_result(sums, np.full(draws, 1.0 / draws), observed, m, "")
    hits = int(np.count_nonzero(np.abs(sums) >= abs(observed) - _tol(observed)))
    return SignFlip((1 + hits) / (1 + draws), result.confidence, m,
                    f"sign-flip test, Monte Carlo ({draws} random sign patterns, seed {seed}, p = (1 + hits) / "
                    f"(1 + {draws})) of the {m} non-zero differences")


def _tol(observed: float) -> float:
    return 1e-9 * max(1.0, abs(observed))


def _sign_flip_result(sums: Any, weights: Any, observed: float, m: int, method: str) -> SignFlip:
    tol = _tol(observed)
    extreme = float(weights[np.abs(sums) >= abs(observed) - tol].sum())
    below = float(weights[sums < observed - tol].sum())
    equal = float(weights[np.abs(sums - observed) <= tol].sum())
    return SignFlip(min(1.0, extreme), min(1.0, below + equal / 2), m, method)


def _grid(arr: Any) -> int | None:
    """The smallest L <= :data:`GRID_MAX` with every ``arr * L`` an integer, if any."""
    for grid in range(1, GRID_MAX + 1):
        scaled = arr * grid
        if np.all(np.abs(scaled - np.rint(scaled)) < 1e-6):
            return grid
    return None


def percent_text(share: float) -> str:
    """A confidence in percent, one decimal, that never rounds to a certainty it is not:
    0.9995 prints as ``> 99.9%`` (not ``100.0%``), 0.0004 as ``< 0.1%``; exactly 1 or 0 stay."""
    if not math.isfinite(share):
        return "-"
    if 0.999 < share < 1.0:
        return "> 99.9%"
    if 0.0 < share < 0.001:
        return "< 0.1%"
    return f"{100 * share:.1f}%"


def p_text(p: float) -> str:
    """A p-value for display: three decimals, or two significant digits below 0.001 (never "0.000")."""
    if not math.isfinite(p):
        return "-"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def paired_values(a: Run, b: Run, metric: str = "accuracy",
                  ) -> tuple[dict[str, tuple[float, float, int]], Overlap]:
    """Problem id -> (A's value, B's value, samples of both) over the items both runs hold."""
    if metric not in METRICS:
        raise UserError(f"unknown metric {metric!r} for pairing: use one of {', '.join(METRICS)}")
    lacking = [r for r in (a, b) if not METRICS[metric].applies(r)]
    if lacking:
        usable = applicable_metrics([a, b])
        raise PairingError(f"cannot pair on {metric}: {', '.join(str(r.path) for r in lacking)} "
                           f"({', '.join(dict.fromkeys(r.task for r in lacking))}) did not measure it, it needs "
                           f"{METRICS[metric].needs}; these runs have: {', '.join(usable) or 'no common metric'}")
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
    reduce = METRICS[metric].values
    # each run's plan rides along: a problem it did not fully grade stays out of its dynamic values
    values_a = reduce(with_plan([o for o in a.outcomes() if (o.problem_id, o.variant) in common], a.plan))
    values_b = reduce(with_plan([o for o in b.outcomes() if (o.problem_id, o.variant) in common], b.plan))
    paired = {pid: (values_a[pid][0], values_b[pid][0], values_a[pid][1] + values_b[pid][1])
              for pid in values_a if pid in values_b}
    overlap = Overlap(len(common), len(questions_a.keys() - common), len(questions_b.keys() - common), len(paired))
    return paired, overlap


def compare_pair(a: Run, b: Run, metric: str = "accuracy", *, labels: tuple[str, str] | None = None,
                 resamples: int = PAIRED_RESAMPLES, seed: int = PAIRED_SEED) -> PairedDifference:
    """The paired difference A - B on ``metric``: sign-flip p and confidence, and the bootstrap
    interval from :data:`BOOTSTRAP_MIN_PROBLEMS` problems on (see the module doc)."""
    paired, overlap = paired_values(a, b, metric)
    if not paired:
        raise PairingError(f"cannot pair {a.path} with {b.path}: no common problem has a {metric} value in both")
    label_a, label_b = labels or (a.model, b.model)
    va = np.array([v[0] for v in paired.values()])
    vb = np.array([v[1] for v in paired.values()])
    diffs = va - vb
    test = sign_flip_test(diffs.tolist(), draws=resamples, seed=seed)
    if len(diffs) >= BOOTSTRAP_MIN_PROBLEMS:
        low, high, _, _ = paired_bootstrap(diffs, resamples=resamples, seed=seed)
        interval = f"paired bootstrap percentile interval ({resamples} resamples of the {len(diffs)} problems)"
    else:
        low = high = math.nan
        interval = (f"no interval: {len(diffs)} problems, fewer than the {BOOTSTRAP_MIN_PROBLEMS} a bootstrap "
                    "interval needs")
    return PairedDifference(label_a, label_b, metric, float(va.mean()), float(vb.mean()), float(diffs.mean()),
                            low, high, test.p_value, test.confidence, len(paired), sum(v[2] for v in paired.values()),
                            overlap, resamples, test.method, interval)


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
        if not tier:  # a cycle of "beats" cannot happen with one test per pair, but never loop
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

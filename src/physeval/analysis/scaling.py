"""Test-time scaling: pass@k and maj@k for k = 1..K, and PHYBench's exponential-decay fit.

Curves. From an item's n samples, pass@k is the unbiased estimator of Chen et al. (2021) and
maj@k the exact mean, over every k-subset of the n samples (sample order kept, so a tie goes
to the class seen first, as :func:`physeval.metrics.item_majority` decides), of "the most
frequent answer class is right"; above :data:`MAJ_SUBSETS` subsets a fixed-seed sample of that
many subsets stands in for all of them. Items with fewer than k samples have no value at k;
each point is reduced over variants and problems like every metric, with its interval and n.

Fit. ``f(k) = U - D * exp(-r * (k - 1))``: ``U`` the upper bound the curve approaches,
``D = U - f(1)`` the improvement still achievable over one sample, ``r`` the decay rate (the
three quantities of PHYBench's Table 7), by least squares (:func:`fit_decay`, numpy only).
Extrapolations to larger k carry a 95 % interval from
refitting on problems resampled with replacement (fixed seed): it says how much the estimate
moves with the problems drawn, and it assumes the decay form holds beyond K, which no data can
check; a fit needs at least four points (K >= 4: one more than the three parameters).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np

from physeval.analysis.runs import Run
from physeval.metrics import (
    SampleOutcome,
    item_majority,
    item_pass_at,
    metric_from_values,
    problem_values,
    samples_per_item,
)

__all__ = [
    "FIT_RESAMPLES",
    "FIT_SEED",
    "MAJ_SUBSETS",
    "CurvePoint",
    "DecayFit",
    "Extrapolation",
    "ScalingCurves",
    "decay",
    "expected_majority",
    "fit_decay",
    "maj_curve",
    "pass_curve",
    "scaling_curves",
]

MAJ_SUBSETS = 2000
FIT_RESAMPLES = 200
FIT_SEED = 20240603
MIN_FIT_POINTS = 4


@dataclass(frozen=True)
class CurvePoint:
    """The curve at ``k``: value with its 95 % interval over ``n`` problems."""

    k: int
    value: float
    ci_low: float
    ci_high: float
    n: int


@dataclass(frozen=True)
class Extrapolation:
    """The fitted curve at ``k`` (beyond the data) with its resampling interval; ``fits`` of
    ``resamples`` refits converged."""

    k: int
    value: float
    ci_low: float
    ci_high: float
    fits: int
    resamples: int


@dataclass(frozen=True)
class DecayFit:
    """``f(k) = upper_bound - improvement * exp(-rate * (k - 1))`` fitted to ``points`` points."""

    upper_bound: float
    improvement: float
    rate: float
    rmse: float
    points: int
    n: int
    extrapolations: tuple[Extrapolation, ...] = ()

    def predict(self, k: float) -> float:
        """The fitted value at ``k``."""
        return float(decay(np.asarray([k], dtype=float), self.upper_bound, self.improvement, self.rate)[0])


@dataclass(frozen=True)
class ScalingCurves:
    """One run's curves for k = 1..``samples`` and their fits (``None`` with a note when not fitted)."""

    label: str
    samples: int
    pass_at: tuple[CurvePoint, ...]
    maj_at: tuple[CurvePoint, ...]
    pass_fit: DecayFit | None
    maj_fit: DecayFit | None
    notes: tuple[str, ...] = ()


def decay(k: Any, upper: float, improvement: float, rate: float) -> Any:
    """``upper - improvement * exp(-rate * (k - 1))`` (numpy arrays in, arrays out)."""
    return upper - improvement * np.exp(-rate * (np.asarray(k, dtype=float) - 1.0))


def fit_decay(ks: Sequence[float], values: Sequence[float], *, upper_max: float = 1.0,
              ) -> tuple[float, float, float] | None:
    """Least-squares ``(U, D, r)`` of :func:`decay` through the points (``U <= upper_max``, 1 for a
    rate; ``D >= 0``; ``r`` in [1e-4, 50]); ``None`` with fewer than :data:`MIN_FIT_POINTS`
    points or non-finite values.

    For a fixed ``r`` the model is linear in ``U`` and ``D``, so ``r`` is searched (a log grid,
    then golden-section refinement of the best cell) with ``U`` and ``D`` solved exactly at
    each ``r``: a global minimum over the bounds, fast enough to refit hundreds of resamples.
    """
    x, y = np.asarray(ks, dtype=float), np.asarray(values, dtype=float)
    if x.size < MIN_FIT_POINTS or not np.all(np.isfinite(y)):
        return None

    def solve(rates: Any) -> tuple[Any, Any, Any]:
        basis = np.exp(-np.outer(np.atleast_1d(rates), x - 1.0))  # one row per rate
        b_mean, y_mean = basis.mean(axis=1, keepdims=True), y.mean()
        spread = ((basis - b_mean) ** 2).sum(axis=1)
        cov = ((basis - b_mean) * (y - y_mean)).sum(axis=1)
        slope = np.where(spread > 1e-15, cov / np.where(spread > 1e-15, spread, 1.0), 0.0)
        improvement = np.maximum(0.0, -slope)  # y = U - D * basis, D >= 0
        upper = y_mean + improvement * b_mean[:, 0]
        capped = upper > upper_max  # the bound is active: U = upper_max, D by least squares alone
        if np.any(capped):
            fixed = np.maximum(0.0, (basis * (upper_max - y)).sum(axis=1) / (basis ** 2).sum(axis=1))
            upper, improvement = np.where(capped, upper_max, upper), np.where(capped, fixed, improvement)
        return upper, improvement, ((upper[:, None] - improvement[:, None] * basis - y) ** 2).sum(axis=1)

    grid = np.geomspace(1e-4, 50.0, 400)
    best = int(np.argmin(solve(grid)[2]))
    lo, hi = np.log(grid[max(best - 1, 0)]), np.log(grid[min(best + 1, grid.size - 1)])
    golden = (math.sqrt(5) - 1) / 2
    for _ in range(60):
        a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
        losses = solve(np.exp([a, b]))[2]
        if losses[0] <= losses[1]:
            hi = b
        else:
            lo = a
    rate = math.exp((lo + hi) / 2)
    upper, improvement, _ = solve(rate)
    upper, improvement = float(upper[0]), float(improvement[0])
    return (upper, improvement, rate)


def expected_majority(samples: Sequence[SampleOutcome], k: int, *, budget: int = MAJ_SUBSETS,
                      seed: int = FIT_SEED) -> float | None:
    """maj@k of one item: the mean over its k-subsets (see the module doc); ``None`` when n < k."""
    n = len(samples)
    if n < k:
        return None
    vote = item_majority(k)
    if math.comb(n, k) <= budget:
        subsets: Sequence[Sequence[int]] = list(combinations(range(n), k))
    else:
        rng = np.random.default_rng(seed)
        subsets = [sorted(rng.choice(n, size=k, replace=False).tolist()) for _ in range(budget)]
    return float(np.mean([vote([samples[i] for i in subset]) for subset in subsets]))


def _curve(outcomes: Sequence[SampleOutcome], K: int, item: Callable[[int], Callable[[Sequence[SampleOutcome]], Any]],
           ) -> tuple[tuple[CurvePoint, ...], dict[str, list[float]]]:
    points: list[CurvePoint] = []
    per_problem: dict[str, list[float]] = {}
    for k in range(1, K + 1):
        values = problem_values(outcomes, item(k))
        if not values:
            continue
        m = metric_from_values([v for v, _ in values.values()], n_samples=sum(n for _, n in values.values()))
        points.append(CurvePoint(k, m.value, m.ci_low, m.ci_high, m.n))
        for pid, (v, _) in values.items():
            per_problem.setdefault(pid, []).append(v)
    full = {pid: vs for pid, vs in per_problem.items() if len(vs) == len(points)}
    return tuple(points), full


def pass_curve(outcomes: Sequence[SampleOutcome], K: int | None = None) -> tuple[CurvePoint, ...]:
    """Unbiased pass@k for k = 1..K (default: the most samples of any item)."""
    return _curve(outcomes, K or samples_per_item(outcomes), item_pass_at)[0]


def maj_curve(outcomes: Sequence[SampleOutcome], K: int | None = None) -> tuple[CurvePoint, ...]:
    """maj@k for k = 1..K, each the mean over k-subsets of an item's samples."""
    return _curve(outcomes, K or samples_per_item(outcomes), lambda k: lambda s: expected_majority(s, k))[0]


def _fit(points: Sequence[CurvePoint], per_problem: dict[str, list[float]], extrapolate: Sequence[int],
         resamples: int, seed: int) -> DecayFit | None:
    if len(points) < MIN_FIT_POINTS:
        return None
    ks = [p.k for p in points]
    ys = [p.value for p in points]
    params = fit_decay(ks, ys)
    if params is None:
        return None
    rmse = float(np.sqrt(np.mean((decay(ks, *params) - np.asarray(ys)) ** 2)))
    matrix = np.asarray(list(per_problem.values()), dtype=float)
    extrapolations = []
    if matrix.shape[0] >= 2 and extrapolate:
        rng = np.random.default_rng(seed)
        refits = []
        for _ in range(resamples):
            curve = matrix[rng.integers(0, matrix.shape[0], size=matrix.shape[0])].mean(axis=0)
            refit = fit_decay(ks, curve)
            if refit is not None:
                refits.append(refit)
        for k in extrapolate:
            value = float(decay([k], *params)[0])
            draws = [float(decay([k], *p)[0]) for p in refits]
            low, high = (float(np.percentile(draws, 2.5)), float(np.percentile(draws, 97.5))) if draws else (
                math.nan, math.nan)
            extrapolations.append(Extrapolation(k, value, low, high, len(refits), resamples))
    return DecayFit(params[0], params[1], params[2], rmse, len(points), matrix.shape[0], tuple(extrapolations))


def scaling_curves(run: Run, *, extrapolate: Sequence[int] | None = None, resamples: int = FIT_RESAMPLES,
                   seed: int = FIT_SEED, label: str | None = None) -> ScalingCurves:
    """pass@k and maj@k curves of ``run`` with their fits, extrapolated to ``extrapolate`` (default 2K, 4K)."""
    outcomes = run.outcomes()
    K = samples_per_item(outcomes)
    notes: list[str] = []
    extra = list(extrapolate) if extrapolate is not None else [2 * K, 4 * K]
    pass_points, pass_pp = _curve(outcomes, K, item_pass_at)
    has_classes = any(o.answer_key is not None for o in outcomes)
    if has_classes:
        maj_points, maj_pp = _curve(outcomes, K, lambda k: lambda s: expected_majority(s, k))
    else:
        maj_points, maj_pp = (), {}
        notes.append("maj@k omitted: no grade carries an answer class")
    if K < MIN_FIT_POINTS:
        notes.append(f"no decay fit: it needs samples for k = 1..{MIN_FIT_POINTS} at least, the run has K = {K}")
    pass_fit = _fit(pass_points, pass_pp, extra, resamples, seed)
    maj_fit = _fit(maj_points, maj_pp, extra, resamples, seed) if maj_points else None
    if K >= MIN_FIT_POINTS and pass_fit is None:
        notes.append("the pass@k decay fit did not converge")
    return ScalingCurves(label or run.model, K, pass_points, maj_points, pass_fit, maj_fit, tuple(notes))

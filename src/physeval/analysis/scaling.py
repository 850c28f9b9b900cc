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
Constraints: ``0 <= D <= U <= 1`` keeps the curve
in [0, 1]; maj@k's ``U`` is at most pass@k's and every maj@k extrapolation at most pass@k's at
the same k (maj@k <= pass@k always; both refit on the same resampled problems). A fit that
explains less than :data:`MIN_R_SQUARED` of its points' variance (a falling or zigzag curve)
does not describe the data: it is reported as such, with no extrapolation, and not drawn; a
bound that the fit ends on is reported as a limit, not an estimate.
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
    "MIN_R_SQUARED",
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
MIN_R_SQUARED = 0.75
FLAT_RANGE = 0.01


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
    """``f(k) = upper_bound - improvement * exp(-rate * (k - 1))`` fitted to ``points`` points.

    ``r_squared`` is the share of the points' variance the fit explains; ``problem`` says why
    the fit does not describe the data (then it has no extrapolation and is not drawn);
    ``at_bound`` that the upper bound sits on its constraint (1, or pass@k's bound for maj@k),
    so the data did not determine it.
    """

    upper_bound: float
    improvement: float
    rate: float
    rmse: float
    points: int
    n: int
    extrapolations: tuple[Extrapolation, ...] = ()
    r_squared: float = math.nan
    problem: str = ""
    at_bound: bool = False

    @property
    def describes_data(self) -> bool:
        """Whether the decay form fits the points (see :data:`MIN_R_SQUARED`)."""
        return not self.problem

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
    rate; ``0 <= D <= U``, so the curve stays in [0, ``upper_max``]; ``r`` in [1e-4, 50]);
    ``None`` with fewer than :data:`MIN_FIT_POINTS` points or non-finite values.

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
        negative = improvement > upper + 1e-12  # f(1) = U - D < 0: the floor is active, D = U
        if np.any(negative):
            rise = 1.0 - basis  # y = U * (1 - basis)
            floor = np.clip((rise * y).sum(axis=1) / np.maximum((rise ** 2).sum(axis=1), 1e-15), 0.0, upper_max)
            upper, improvement = np.where(negative, floor, upper), np.where(negative, floor, improvement)
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


def _fit_problem(ks: Sequence[int], ys: Sequence[float], params: tuple[float, float, float]) -> tuple[float, str]:
    """(R^2, why the fit does not describe the points or "")."""
    y = np.asarray(ys, dtype=float)
    residual = float(((decay(ks, *params) - y) ** 2).sum())
    total = float(((y - y.mean()) ** 2).sum())
    r_squared = 1.0 - residual / total if total > 0 else 1.0
    if float(y.max() - y.min()) <= FLAT_RANGE:
        return r_squared, ""  # a flat curve: the flat fit describes it
    if r_squared < MIN_R_SQUARED:
        trend = (f"the curve falls from {y[0]:.3f} to {y[-1]:.3f}" if y[-1] < y[0] else
                 f"the points from {y[0]:.3f} to {y[-1]:.3f} do not follow a levelling-off curve")
        return r_squared, (f"the decay form does not describe the data (R^2 = {r_squared:.2f} < {MIN_R_SQUARED}; "
                           f"{trend}): not extrapolated")
    return r_squared, ""


def _fit(points: Sequence[CurvePoint], per_problem: dict[str, list[float]], extrapolate: Sequence[int],
         draws: Sequence[Any], pids: Sequence[str], *, ceiling: tuple[DecayFit, list[Any]] | None = None,
         ) -> tuple[DecayFit | None, list[Any]]:
    """The fit of ``points`` and its refits on the shared problem ``draws`` (indices into ``pids``).

    With ``ceiling`` (pass@k's fit and refits) the fit is maj@k's: its upper bound is at most
    pass@k's, and every extrapolation (and each refit's) is at most pass@k's at that k, since
    maj@k <= pass@k for every k.
    """
    if len(points) < MIN_FIT_POINTS:
        return None, []
    ks = [p.k for p in points]
    ys = [p.value for p in points]
    ceiling_fit, ceiling_refits = ceiling if ceiling is not None else (None, [])
    upper_max = min(1.0, ceiling_fit.upper_bound) if ceiling_fit is not None else 1.0
    params = fit_decay(ks, ys, upper_max=upper_max)
    if params is None:
        return None, []
    rmse = float(np.sqrt(np.mean((decay(ks, *params) - np.asarray(ys)) ** 2)))
    r_squared, problem = _fit_problem(ks, ys, params)
    at_bound = params[0] >= upper_max - 1e-9 and params[1] > 0
    rows = [pid for pid in pids if pid in per_problem]
    matrix = np.asarray([per_problem[pid] for pid in rows], dtype=float)
    position = {pid: i for i, pid in enumerate(rows)}
    refits: list[Any] = []
    if matrix.shape[0] >= 2 and extrapolate and not problem:
        for i, draw in enumerate(draws):
            picked = [position[pids[j]] for j in draw if pids[j] in position]
            cap = ceiling_refits[i] if i < len(ceiling_refits) else None
            refit = fit_decay(ks, matrix[picked].mean(axis=0),
                              upper_max=min(1.0, cap[0]) if cap is not None else upper_max) if picked else None
            refits.append(refit)

    def at(k: int, p: Any, cap: Any) -> float:
        value = float(decay([k], *p)[0])
        return min(value, float(decay([k], *cap)[0])) if cap is not None else value

    extrapolations = []
    if refits:
        for k in extrapolate:
            value = at(k, params, (ceiling_fit.upper_bound, ceiling_fit.improvement, ceiling_fit.rate)
                       if ceiling_fit is not None else None)
            values = [at(k, p, ceiling_refits[i] if i < len(ceiling_refits) else None)
                      for i, p in enumerate(refits) if p is not None]
            low, high = (float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))) if values else (
                math.nan, math.nan)
            extrapolations.append(Extrapolation(k, value, low, high, len(values), len(draws)))
    fit = DecayFit(params[0], params[1], params[2], rmse, len(points), matrix.shape[0], tuple(extrapolations),
                   r_squared, problem, at_bound)
    return fit, refits


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
    pids = sorted(set(pass_pp) | set(maj_pp))
    rng = np.random.default_rng(seed)
    draws = [rng.integers(0, len(pids), size=len(pids)) for _ in range(resamples)] if len(pids) >= 2 else []
    pass_fit, pass_refits = _fit(pass_points, pass_pp, extra, draws, pids)
    maj_fit = None
    if maj_points:
        ceiling = (pass_fit, pass_refits) if pass_fit is not None and pass_fit.describes_data else None
        maj_fit, _ = _fit(maj_points, maj_pp, extra, draws, pids, ceiling=ceiling)
    if K >= MIN_FIT_POINTS and pass_fit is None:
        notes.append("the pass@k decay fit did not converge")
    for kind, fit in (("pass@k", pass_fit), ("maj@k", maj_fit)):
        if fit is not None and fit.problem:
            notes.append(f"{kind}: {fit.problem}")
        elif fit is not None and fit.at_bound:
            bound = "1" if kind == "pass@k" or pass_fit is None else "pass@k's upper bound"
            notes.append(f"{kind}: the upper bound sits on its constraint ({bound}): the curve has not levelled "
                         f"off by k = {K}, so U = {fit.upper_bound:.3f} is a limit, not an estimate")
    return ScalingCurves(label or run.model, K, pass_points, maj_points, pass_fit, maj_fit, tuple(notes))

"""Sample efficiency of a partial-credit score versus accuracy (PHYBench's EED argument).

For two runs on the same problems, each metric gives per-problem paired differences d_i.
How well the metric separates the models is the paired t statistic t = mean(d) / se(d); the
number of problems needed for a given significance scales as 1 / t^2, so the score's sample
efficiency relative to accuracy is (t_score / t_accuracy)^2 (> 1: the score needs fewer
problems). Computed from run stores alone; per-problem values follow the order of reduction of
:mod:`physeval.metrics` (samples of an item, then the variants of a problem).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from physeval.graded import graded_outcomes
from physeval.metrics import SampleOutcome, problem_values
from physeval.store import RunStore

__all__ = ["PairEfficiency", "per_problem_means", "paired_t", "sample_efficiency"]


@dataclass(frozen=True)
class PairEfficiency:
    """How well accuracy and the partial-credit score separate two runs."""

    run_a: str
    run_b: str
    problems: int
    accuracy_diff: float
    score_diff: float
    t_accuracy: float
    t_score: float
    efficiency: float


def per_problem_means(run_dir: str | Path) -> dict[str, tuple[float, float]]:
    """Problem id -> (accuracy, mean score) over the graded samples (:mod:`physeval.graded`: an
    error is left out, as ``summary.json`` leaves it out): each the mean over an item's samples,
    then over the problem's variants. A sample without a score scores its correctness (1 or 0)."""
    from physeval.plan import recorded_plan

    with RunStore(run_dir) as store:
        rows = store.rows()
        outcomes = graded_outcomes(rows, recorded_plan(store, rows))
    accuracy = problem_values(outcomes, lambda samples: sum(o.correct for o in samples) / len(samples))
    score = problem_values(outcomes, lambda samples: sum(_score(o) for o in samples) / len(samples))
    return {pid: (accuracy[pid][0], score[pid][0]) for pid in accuracy}


def _score(o: SampleOutcome) -> float:
    return float(o.score) if o.score is not None else (1.0 if o.correct else 0.0)


def paired_t(diffs: Sequence[float]) -> float:
    """Mean / standard error of paired differences (inf when they are all equal and non-zero)."""
    n = len(diffs)
    if n < 2:
        return math.nan
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    if var == 0:
        return math.inf if mean else math.nan
    return mean / math.sqrt(var / n)


def sample_efficiency(run_dirs: Sequence[str | Path]) -> list[PairEfficiency]:
    """Every pair of runs: differences, t statistics and the score's efficiency over accuracy."""
    means = {str(d): per_problem_means(d) for d in run_dirs}
    out = []
    for a, b in combinations([str(d) for d in run_dirs], 2):
        shared = sorted(set(means[a]) & set(means[b]))
        acc_d = [means[a][p][0] - means[b][p][0] for p in shared]
        score_d = [means[a][p][1] - means[b][p][1] for p in shared]
        t_acc, t_score = paired_t(acc_d), paired_t(score_d)
        efficiency = (t_score / t_acc) ** 2 if t_acc and math.isfinite(t_acc) and math.isfinite(t_score) else math.nan
        out.append(PairEfficiency(a, b, len(shared), _mean(acc_d), _mean(score_d), t_acc, t_score, efficiency))
    return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan

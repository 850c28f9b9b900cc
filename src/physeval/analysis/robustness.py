"""Is EED's verdict robust to its own constants? PHYBench's C.2 check, over run stores.

For each scoring setting (the published one, other baseline scores, other subtree penalty
slopes, subtree discounting off) every graded symbolic sample is rescored with
:func:`physeval.grading.eed.eed` against its problem's reference; the order of reduction is the
usual one (samples of an item, then the item's variants, then problems). Each setting reports
the runs' mean EED and rank, how many runs changed rank against the published setting, and, for
every pair of runs, the sample efficiency of EED over accuracy, (t_EED / t_acc)^2 with paired t
statistics over the shared problems (:func:`physeval.stats.paired_t`), and PHYBench's Table 6:
the confidence that run A's EED beats run B's under that setting, with the two-sided p-value,
from the exact (or seeded Monte Carlo) sign-flip test of the per-problem EED differences
(:func:`physeval.analysis.paired.sign_flip_test`, the test ``physeval compare`` uses).

Rescoring is the slow part (every sample, every setting); ``progress`` is told after each run
of each setting, so a caller can show how far it got.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from physeval.analysis.paired import sign_flip_test
from physeval.errors import UserError
from physeval.graded import graded_rows
from physeval.grading.eed import PUBLISHED, EEDScoring, eed
from physeval.stats import paired_t
from physeval.store import RunStore

__all__ = ["DEFAULT_SETTINGS", "SettingResult", "metric_robustness"]

DEFAULT_SETTINGS: dict[str, EEDScoring] = {
    "published": PUBLISHED,
    "baseline 50": EEDScoring(initial_score=50.0),
    "baseline 70": EEDScoring(initial_score=70.0),
    "penalty slope 0.4": EEDScoring(discount_slope=0.4),
    "penalty slope 0.8": EEDScoring(discount_slope=0.8),
    "no subtree discount": EEDScoring(subtree_discount=False),
}


@dataclass(frozen=True)
class SettingResult:
    """One scoring setting: per run (label, mean EED over problems, rank), the rank changes against
    the published setting, per pair of runs (label A, label B, problems, efficiency), and per pair
    (label A, label B, confidence that A's EED is higher, two-sided p) from the sign-flip test."""

    setting: str
    runs: tuple[tuple[str, float, int], ...]
    rank_changes: int
    efficiency: tuple[tuple[str, str, int, float], ...]
    confidence: tuple[tuple[str, str, float, float], ...] = ()


def _references(run_dir: Path) -> dict[tuple[str, str], str]:
    from physeval.tasks.registry import get_task

    with RunStore(run_dir) as store:
        meta = store.run_meta()
    if meta is None:
        raise UserError(f"{run_dir}: the run does not record its task")
    task = get_task(meta.task, **meta.task_options)
    if task.track != "symbolic":
        raise UserError(f"{run_dir}: EED robustness needs a symbolic task, not {meta.task} ({task.track})")
    return {p.key: p.answer for p in task.load()}


def _per_problem(run_dir: Path, scoring: EEDScoring, references: Mapping[tuple[str, str], str],
                 ) -> dict[str, tuple[float, float]]:
    """Problem id -> (accuracy, EED 0-100), reduced item -> variants -> problem."""
    items: dict[str, dict[str, list[tuple[float, float]]]] = {}
    with RunStore(run_dir) as store:
        rows = graded_rows(store.rows())
    for row in rows:
        reference = references.get((row.problem_id, row.variant))
        extracted = (row.grade or {}).get("extracted")
        if reference is None:
            continue
        score = eed(reference, extracted, scoring=scoring).score if extracted else 0.0
        items.setdefault(row.problem_id, {}).setdefault(row.variant, []).append((float(bool(row.correct)), score))
    out = {}
    for pid, variants in items.items():
        accs = [sum(a for a, _ in v) / len(v) for v in variants.values()]
        eeds = [sum(s for _, s in v) / len(v) for v in variants.values()]
        out[pid] = (sum(accs) / len(accs), sum(eeds) / len(eeds))
    return out


def _ranks(means: Sequence[float]) -> list[int]:
    order = sorted(range(len(means)), key=lambda i: -means[i])
    ranks = [0] * len(means)
    for position, index in enumerate(order, start=1):
        ranks[index] = position
    return ranks


def metric_robustness(run_dirs: Sequence[str | Path], settings: Mapping[str, EEDScoring] | None = None,
                      labels: Sequence[str] | None = None,
                      progress: Callable[[str], None] | None = None) -> list[SettingResult]:
    """:class:`SettingResult` per setting (the published one first) for runs of one symbolic task;
    ``progress`` gets a line after each run of each setting is rescored."""
    paths = [Path(d) for d in run_dirs]
    if len(paths) < 2:
        raise UserError("metric robustness compares at least two runs")
    names = list(labels) if labels else [p.name for p in paths]
    chosen = dict(settings or DEFAULT_SETTINGS)
    chosen = {"published": chosen.pop("published", PUBLISHED), **chosen}
    references = [_references(p) for p in paths]
    results: list[SettingResult] = []
    published_ranks: list[int] = []
    for number, (setting, scoring) in enumerate(chosen.items(), start=1):
        per = []
        for index, (p, refs) in enumerate(zip(paths, references), start=1):
            per.append(_per_problem(p, scoring, refs))
            if progress is not None:
                progress(f"setting {number}/{len(chosen)} ({setting}): run {index}/{len(paths)} ({names[index - 1]}) "
                         "rescored")
        means = [sum(s for _, s in d.values()) / len(d) if d else math.nan for d in per]
        ranks = _ranks(means)
        if not published_ranks:
            published_ranks = ranks
        pairs = []
        confidence = []
        for i, j in combinations(range(len(paths)), 2):
            shared = sorted(set(per[i]) & set(per[j]))
            t_acc = paired_t([per[i][p][0] - per[j][p][0] for p in shared])
            eed_diffs = [per[i][p][1] - per[j][p][1] for p in shared]
            t_eed = paired_t(eed_diffs)
            ok = t_acc and math.isfinite(t_acc) and math.isfinite(t_eed)
            pairs.append((names[i], names[j], len(shared), (t_eed / t_acc) ** 2 if ok else math.nan))
            test = sign_flip_test(eed_diffs)
            confidence.append((names[i], names[j], test.confidence, test.p_value))
        changes = sum(1 for a, b in zip(ranks, published_ranks) if a != b)
        results.append(SettingResult(setting, tuple((n, m, r) for n, m, r in zip(names, means, ranks)), changes,
                                     tuple(pairs), tuple(confidence)))
    return results


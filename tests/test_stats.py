"""Sample efficiency: a partial-credit score that tracks quality separates runs with fewer problems."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from physeval.cli import main
from physeval.stats import paired_t, per_problem_means, sample_efficiency
from physeval.store import RunStore, SampleRow


def _run(path: Path, results: list[tuple[bool, float]]) -> Path:
    with RunStore(path) as store:
        for i, (correct, score) in enumerate(results):
            store.append(SampleRow(problem_id=str(i), variant="0", sample=0, status="answered", messages=[],
                                   correct=correct, score=score))
    return path


def test_paired_t() -> None:
    assert paired_t([1.0, 1.0, 1.0]) == math.inf and math.isnan(paired_t([0.0, 0.0]))
    assert paired_t([1.0, 0.0, 1.0, 0.0]) == pytest.approx(0.5 / (math.sqrt(1 / 3) / 2))


def test_a_graded_score_beats_accuracy_when_models_differ_by_degree(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    # Model A is usually closer than B but both are rarely exactly right: accuracy barely moves.
    a = _run(tmp_path / "a", [(i % 10 == 0, 0.5 + 0.02 * (i % 7)) for i in range(60)])
    b = _run(tmp_path / "b", [(i % 12 == 0, 0.4 + 0.02 * (i % 5)) for i in range(60)])
    [pair] = sample_efficiency([a, b])
    assert pair.problems == 60 and pair.score_diff > 0
    assert pair.efficiency > 1.0 and abs(pair.t_score) > abs(pair.t_accuracy)
    assert main(["stats", "sample-efficiency", str(a), str(b)]) == 0
    assert "efficiency" in capsys.readouterr().out


def test_per_problem_means_reduce_items_then_variants(tmp_path: Path) -> None:
    # variant 0: two right samples (score 1.0, 0.8); variant 1: one wrong sample (score 0.2).
    # Per item then per variant: accuracy (1 + 0)/2, score (0.9 + 0.2)/2 (pooled would say 2/3 and 2/3).
    with RunStore(tmp_path) as store:
        for variant, sample, correct, score in (("0", 0, True, 1.0), ("0", 1, True, 0.8), ("1", 0, False, 0.2)):
            store.append(SampleRow(problem_id="p", variant=variant, sample=sample, status="answered", messages=[],
                                   correct=correct, score=score))
    [(accuracy, score)] = per_problem_means(tmp_path).values()
    assert accuracy == pytest.approx(0.5) and score == pytest.approx(0.55)

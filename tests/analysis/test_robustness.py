"""EED's robustness to its own constants (PHYBench C.2), checked against hand-computed values."""

from __future__ import annotations

from pathlib import Path

import pytest

from physeval.analysis.robustness import metric_robustness
from physeval.cli import EXIT_OK, main
from physeval.grading.eed import PUBLISHED, EEDScoring, eed, subtree_cost
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedServer


def test_the_scoring_constants_change_exactly_what_they_should() -> None:
    assert subtree_cost(10) == 8.0  # min(10, 0.6 * (10 - 5) + 5)
    assert subtree_cost(10, EEDScoring(discount_slope=0.4)) == 7.0  # min(10, 0.4 * 5 + 5)
    assert subtree_cost(10, EEDScoring(subtree_discount=False)) == 10.0
    published = eed(r"2mg+4\frac{mv_0^2}{l}", r"2mg+2\frac{mv_0^2}{l}")
    assert round(published.score, 2) == 46.67 and published.distance == 2.0 and published.size == 15
    lower = eed(r"2mg+4\frac{mv_0^2}{l}", r"2mg+2\frac{mv_0^2}{l}", scoring=EEDScoring(initial_score=50.0))
    assert round(lower.score, 2) == 36.67  # 50 - 100 * 2 / 15
    assert eed("x", "x", scoring=EEDScoring(initial_score=10.0)).score == 100.0  # equivalent is always 100
    assert PUBLISHED == EEDScoring()


def _run(tmp_path: Path, name: str, right: set[int]) -> Path:
    task = get_task("bank-symbolic")
    problems = task.load()[:4]
    replies = {task.prompt(p)[-1]["content"]: (f"\\boxed{{{p.answer}}}" if i in right else "I cannot say.")
               for i, p in enumerate(problems)}
    out = tmp_path / name
    with ScriptedServer(lambda r: Reply.text(replies.get(r.prompt, "OK"))) as server:
        assert main(["run", "bank-symbolic", "--model", f"openai/{name}", "--base-url", server.base_url,
                     "--limit", "4", "--out", str(out), "--no-progress", "-T", "grading_processes=0"]) == EXIT_OK
    return out


def test_rank_changes_and_efficiency_per_setting(tmp_path: Path) -> None:
    strong = _run(tmp_path, "strong", {0, 1, 2, 3})
    half = _run(tmp_path, "half", {0, 2})
    results = metric_robustness([strong, half], labels=["strong", "half"])
    assert [r.setting for r in results][0] == "published" and len(results) == 6
    for result in results:
        # right answers score 100 and unanswered ones 0 under every setting: the means and ranks hold
        assert result.runs == (("strong", 100.0, 1), ("half", 50.0, 2)) and result.rank_changes == 0
        # per problem the EED difference is exactly 100x the accuracy difference: efficiency 1
        [(a, b, n, efficiency)] = result.efficiency
        assert (a, b, n) == ("strong", "half", 4) and efficiency == pytest.approx(1.0)
        # Table 6: EED differences (0, 100, 0, 100); of the 2^2 sign patterns of the two non-zero ones,
        # two reach |sum| = 200 (p = 1/2) and confidence = P(S < 200) + P(S = 200) / 2 = 3/4 + 1/8
        [(a, b, confidence, p)] = result.confidence
        assert (a, b, p) == ("strong", "half", 0.5) and confidence == pytest.approx(0.875)


def test_robustness_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    strong = _run(tmp_path, "strong", {0, 1, 2, 3})
    half = _run(tmp_path, "half", {1})
    assert main(["stats", "robustness", str(strong), str(half)]) == EXIT_OK
    captured = capsys.readouterr()
    out = captured.out
    assert "no subtree discount" in out and "baseline 50" in out
    assert "PHYBench Table 6" in " ".join(out.split()) and "strong > half" in out
    assert "setting 6/6 (no subtree discount): run 2/2 (half) rescored" in " ".join(captured.err.split())


def test_stats_robustness_has_its_own_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["stats", "robustness", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Rescore every symbolic sample" in out and "Table 6" in out

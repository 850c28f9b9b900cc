"""Re-grading costs no generation: exports score back to the same metrics, regrade never asks the model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from fixture_tasks import ArithmeticTask
from physeval import RunConfig, regrade_run, run_task, score_responses
from physeval.cli import EXIT_OK, main
from physeval.models import OpenAICompatibleModel
from physeval.problems import Grade, Problem
from physeval.store import RunStore
from physeval.tasks.registry import get_task, register_task
from physeval.testing import Reply, Request, ScriptedServer

register_task(ArithmeticTask)


def _bank_script(scale: float):  # type: ignore[no-untyped-def]
    """Answers every bank-numeric question with its reference times ``scale``, in the asked unit."""
    task = get_task("bank-numeric")
    answers = {}
    for problem in task.load():
        value = float(problem.answer.replace("\\times 10^{", "e").replace("}", "").replace(" ", ""))
        answers[task.prompt(problem)[-1]["content"]] = f"\\boxed{{{value * scale:.6g}\\ \\mathrm{{{problem.meta['unit']}}}}}"

    def script(request: Request) -> Reply:
        return Reply.text(answers.get(request.prompt, "no idea"))

    return script


def test_an_export_scores_back_to_the_runs_metrics(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["run", "arithmetic", "--model", "openai/m", "--base-url", arithmetic_server.base_url,
                 "--samples", "2", "--out", str(run), "--no-progress"]) == EXIT_OK
    assert main(["export", str(run), "--format", "jsonl", "--output", str(tmp_path / "all.jsonl")]) == EXIT_OK
    asked = len(arithmetic_server.requests)
    assert main(["score", "arithmetic", "--responses", str(tmp_path / "all.jsonl"),
                 "--out", str(tmp_path / "scored")]) == EXIT_OK
    assert len(arithmetic_server.requests) == asked
    original = json.loads((run / "summary.json").read_text())
    rescored = json.loads((tmp_path / "scored" / "summary.json").read_text())
    assert rescored["metrics"] == original["metrics"] and rescored["breakdowns"] == original["breakdowns"]


def test_regrade_with_a_new_option_changes_verdicts_without_a_request(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with ScriptedServer(_bank_script(1.03)) as server:  # 3 % off: wrong at the default 1 %
        assert main(["run", "bank-numeric", "--model", "openai/m", "--base-url", server.base_url,
                     "--limit", "3", "--out", str(run), "--no-progress", "--no-cache"]) == EXIT_OK
        asked = len(server.requests)
        before = json.loads((run / "summary.json").read_text())["metrics"]["accuracy"]["value"]
        assert before == 0.0
        assert main(["regrade", str(run), "--rel-tol", "0.05", "--out", str(tmp_path / "lenient")]) == EXIT_OK
        assert len(server.requests) == asked  # no request reached the model server
    after = json.loads((tmp_path / "lenient" / "summary.json").read_text())
    assert after["metrics"]["accuracy"]["value"] == 1.0
    assert after["provenance"]["regrades"][0]["options"] == {"rel_tol": 0.05}
    assert json.loads((run / "summary.json").read_text())["metrics"]["accuracy"]["value"] == 0.0  # untouched


class _FlakyGrader(ArithmeticTask):
    """Crashes on problem 2 until ``fixed`` is set: a grader bug fixed after the run."""

    name = "arithmetic-flaky-grader"
    fixed = False

    def grade(self, problem: Problem, response: str) -> Grade:
        if problem.id == "2" and not type(self).fixed:
            raise RuntimeError("grader bug")
        return super().grade(problem, response)


register_task(_FlakyGrader)


def test_a_crashed_grader_is_an_error_row_that_retry_and_regrade_pick_up(arithmetic_server: ScriptedServer,
                                                                         tmp_path: Path) -> None:
    model = OpenAICompatibleModel("m", arithmetic_server.base_url)
    config = RunConfig(use_cache=False)
    _FlakyGrader.fixed = False
    asyncio.run(run_task(_FlakyGrader(n=4), model, tmp_path / "run", config, show_progress=False))
    row = {r.problem_id: r for r in RunStore(tmp_path / "run").rows()}["2"]
    assert row.status == "error" and row.error_kind == "grader" and "grader bug" in (row.error_message or "")
    assert row.completion == "The sum is \\boxed{16}."  # 7 + 9: the answer is kept
    asked = len(arithmetic_server.requests)
    _FlakyGrader.fixed = True
    retried = asyncio.run(run_task(_FlakyGrader(n=4), OpenAICompatibleModel("m", arithmetic_server.base_url),
                                   tmp_path / "run", RunConfig(use_cache=False, retry_errors=True),
                                   show_progress=False))
    assert retried.regraded_now == 1 and len(arithmetic_server.requests) == asked  # graded again, not generated
    row = {r.problem_id: r for r in RunStore(tmp_path / "run").rows()}["2"]
    assert row.status == "answered" and row.correct is True


def test_regrade_in_place_records_itself(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["run", "arithmetic", "--model", "openai/m", "--base-url", arithmetic_server.base_url,
                 "--out", str(run), "--no-progress"]) == EXIT_OK
    summary, report = regrade_run(run)
    assert report.regraded == 12 and report.changed == 0 and report.run_dir == run
    assert summary.provenance.regrades[0]["regraded"] == 12


def test_score_reads_a_failed_row_of_an_export_as_nothing_to_grade(tmp_path: Path) -> None:
    responses = tmp_path / "r.jsonl"
    responses.write_text(
        json.dumps({"problem_id": "1", "variant": "0", "sample": 0, "status": "answered",
                    "completion": "\\boxed{11}"}) + "\n"
        + json.dumps({"problem_id": "2", "variant": "0", "sample": 0, "status": "error", "completion": None}) + "\n")
    summary, report = score_responses(ArithmeticTask(n=3), responses, run_dir=tmp_path / "s")
    assert report.graded == 1 and report.skipped_errors == 1
    assert summary.metrics["accuracy"].value == 1.0

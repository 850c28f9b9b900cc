"""phybench and bank-symbolic: served by a scripted model, graded in the process pool."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from physeval import RunConfig, run_task
from physeval.graded import graded_outcomes
from physeval.models import OpenAICompatibleModel
from physeval.problems import Problem
from physeval.store import RunStore
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedServer


def _phybench_file(tmp_path: Path) -> Path:
    # Three problems written for this test in the PHYBench record format.
    records = [
        {"id": 1, "tag": "MECHANICS", "content": "A mass m hangs from a spring k. Find the angular frequency.",
         "solution": "", "answer": r"\omega = \sqrt{\frac{k}{m}}"},
        {"id": 2, "tag": "MECHANICS", "content": "Tension in a pendulum string at the bottom?", "solution": "",
         "answer": r"2mg+4\frac{mv_0^2}{l}"},
        {"id": 3, "tag": "OPTICS", "content": "Image distance of a thin lens?", "solution": "",
         "answer": r"\frac{f d}{d-f}"},
    ]
    path = tmp_path / "PHYBench-fullques_v1.json"
    path.write_text(json.dumps(records))
    return path


def test_phybench_run_scores_equivalence_and_eed(tmp_path: Path) -> None:
    replies = {
        "angular frequency": r"so the answer is \boxed{\omega=\sqrt{k/m}}",          # equivalent rewrite
        "Tension": r"\boxed{2mg+2\frac{mv_0^2}{l}} and later \boxed{7}",             # first box counts
        "thin lens": "I cannot solve this.",
    }

    def model(request):  # type: ignore[no-untyped-def]
        return Reply.text(next(v for k, v in replies.items() if k in request.prompt))

    task = get_task("phybench", data=_phybench_file(tmp_path))
    with ScriptedServer(model) as server:
        asyncio.run(run_task(task, OpenAICompatibleModel("m", server.base_url), tmp_path / "run", RunConfig(preflight=False),
                             show_progress=False))
        assert "Put your final answer" in server.requests[0].prompt
    rows = {r.problem_id: r for r in RunStore(tmp_path / "run").rows()}
    assert rows["1"].correct and rows["1"].grade["eed_score"] == 100
    assert not rows["2"].correct and round(rows["2"].grade["eed_score"], 2) == 46.67
    assert rows["3"].outcome == "no_answer" and rows["3"].score == 0
    metrics = task.metrics(graded_outcomes(rows.values()))
    assert round(metrics["accuracy"].value, 4) == round(1 / 3, 4)
    assert round(metrics["eed_mean"].value, 2) == round((100 + 46.67) / 3, 2)
    assert "eed_mean" in metrics.breakdowns["tag"]["OPTICS"]


def test_pool_and_inline_grading_agree(tmp_path: Path) -> None:
    task = get_task("phybench", data=_phybench_file(tmp_path))
    inline = get_task("phybench", data=_phybench_file(tmp_path), grading_processes=0)
    problem = task.load()[1]
    from physeval.tasks.base import GradeContext

    response = r"\boxed{2mg + \frac{3 m v_0^2}{l}}"
    pooled = asyncio.run(task.agrade(problem, response, GradeContext()))
    assert pooled.to_dict() == asyncio.run(inline.agrade(problem, response, GradeContext())).to_dict()


def test_bank_symbolic_declares_dimensions_and_checks_them() -> None:
    task = get_task("bank-symbolic", grading_processes=0)
    problems = task.load()
    assert len(problems) >= 30 and all(p.meta.get("dimensions") for p in problems)
    problem: Problem = problems[0]
    right = task.grade(problem, f"\\boxed{{{problem.answer}}}")
    assert right.correct and right.dimension_matches is not False


def test_eed_budget_unbounded_always_simplifies() -> None:
    from physeval.tasks.tracks.symbolic import SymbolicOptions, _grade_job

    reference = r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{2}"
    response = r"\boxed{\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{3}}"
    assert SymbolicOptions().eed_budget == "default"
    assert "radical budget" in _grade_job(response, reference, "first", None, None).budget
    assert _grade_job(response, reference, "first", None, None, "unbounded").budget == ""

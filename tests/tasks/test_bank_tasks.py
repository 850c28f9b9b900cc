"""bank-numeric: a model that memorised the canonical problems loses its credit on the variants."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from physeval import RunConfig, run_task
from physeval.cli import main
from physeval.graded import graded_outcomes
from physeval.models import OpenAICompatibleModel
from physeval.store import RunStore
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedServer


def test_bank_numeric_is_the_default_dynamic_task() -> None:
    task = get_task("bank-numeric")
    problems = task.load()
    ids = {p.id for p in problems}
    assert task.dynamic and len(ids) >= 60 and len(problems) == 4 * len(ids)
    assert {p.variant for p in problems} == {"0", "1", "2", "3"}
    assert all("significant figures" in p.question for p in problems)
    assert get_task("bank-numeric", variants=2, variant_seed=5).load()[1].question != problems[1].question


def test_memorised_answers_fail_the_dynamic_metric(tmp_path: Path) -> None:
    task = get_task("bank-numeric", variants=3)
    problems = [p for p in task.load() if p.id in {"mech_projectile_range", "em_rc_discharge_time"}]
    canonical = {p.question.split("(Results")[0][:60]: p.answer for p in problems if p.variant == "0"}
    by_question = {p.question: p for p in problems}

    def memoriser(request):  # type: ignore[no-untyped-def]
        problem = by_question[request.prompt.split("Question: ", 1)[1]]
        if problem.variant == "0":
            return Reply.text(f"Worked it out: \\boxed{{{problem.answer}}}")
        return Reply.text("I recall this one: \\boxed{" + next(iter(canonical.values())) + "}")

    with ScriptedServer(memoriser) as server:
        asyncio.run(run_task(task, OpenAICompatibleModel("m", server.base_url), tmp_path, RunConfig(preflight=False),
                             problems=problems, show_progress=False))
    metrics = task.metrics(graded_outcomes(RunStore(tmp_path).rows()))
    assert metrics["static_accuracy"].value == 1.0 and metrics["dynamic_accuracy"].value == 0.0
    assert metrics["delta"].value == 1.0 and "accuracy" in metrics.breakdowns["domain"]["mechanics"]


def test_vary_command_is_deterministic(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["vary", "mech_projectile_range", "--n", "3", "--seed", "7"]) == 0
    first = capsys.readouterr().out
    assert main(["vary", "mech_projectile_range", "--n", "3", "--seed", "7", "--output", str(tmp_path / "v.jsonl")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "v.jsonl").read_text().splitlines()]
    assert [r["index"] for r in rows] == [0, 1, 2] and rows[2]["answer"] in first


def test_audit_of_the_bank_finds_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "bank-numeric", "--min-severity", "medium", "--json"]) == 0
    assert capsys.readouterr().out.strip() == ""


def test_audit_reports_phy_b_mid_10(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "abench-b", "--data", str(shared_data / "abench"), "--json"]) == 0
    findings = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert any(f["problem_id"] == "10" for f in findings)

"""bank-scene end to end: scripted model writes real programs, sandboxed renders, scripted judge."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from _scene_programs import RENDER_GUARD_S
from physeval import RunConfig, run_task
from physeval.models import OpenAICompatibleModel, RetryPolicy
from physeval.store import RunStore
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedServer

pytest.importorskip("cv2")

BALL_PROGRAM = '''```python
import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 15, (320, 240))
for i in range(30):
    frame = np.zeros((240, 320, 3), np.uint8)
    y = int(20 + 0.5 * 9.81 * (i / 15) ** 2 * 40)
    cv2.circle(frame, (160, min(y, 220)), 12, (0, 200, 255), -1)
    cv2.putText(frame, f"t={i/15:.2f}s", (5, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1)
    out.write(frame)
out.release()
```'''

RAISING_PROGRAM = "```python\nraise RuntimeError('no physics today')\n```"


def _model_reply(request):  # type: ignore[no-untyped-def]
    # The scene with two ions gets a program that raises; every other scene a working one.
    if "negative ion" in request.prompt:
        return Reply.text(RAISING_PROGRAM)
    return Reply.text("Here is the animation:\n" + BALL_PROGRAM)


def _judge_reply(request):  # type: ignore[no-untyped-def]
    body = request.body
    content = body["messages"][-1]["content"]
    if isinstance(content, str):  # the preflight's text-only check: a VLM answers it like any model
        return Reply.text("OK")
    images = [p for p in content if isinstance(p, dict) and p.get("type") == "image_url"]
    assert images and images[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    n = sum(1 for line in request.prompt.splitlines() if line[:1].isdigit())
    return Reply.text(json.dumps([{"index": i + 1, "analysis": "visible", "result": i != 1} for i in range(n)]))


def test_bank_scene_runs_renders_and_judges(tmp_path: Path) -> None:
    with ScriptedServer(_model_reply) as model_server, ScriptedServer(_judge_reply) as judge_server:
        task = get_task("bank-scene", judge=["openai/vlm"], judge_base_url=judge_server.base_url,
                        render_timeout=RENDER_GUARD_S, judge_frames=4)
        problems = task.load()[:2]
        model = OpenAICompatibleModel("m", model_server.base_url, retry=RetryPolicy(2, 0.01))
        asyncio.run(run_task(task, model, tmp_path, RunConfig(max_connections=2), problems=problems,
                             show_progress=False))
        assert len(judge_server.requests) >= 1
    rows = RunStore(tmp_path).rows()
    assert len(rows) == 2 and {r.grade["stage"] for r in rows} == {"playable", "error"}
    for row in rows:
        grade = row.grade
        assert grade["stage"] in ("playable", "error")
        if grade["stage"] == "playable":
            assert Path(grade["render"]["video_path"]).is_file()
            assert Path(grade["render"]["video_path"]).parent == tmp_path / "videos"
            assert grade["judged"] and grade["judge"]["per_question"]["2"] is False
            assert row.correct is False and grade["outcome"] == "wrong" and grade["judge_tokens"] > 0
        else:
            assert "no physics today" in grade["render"]["stderr_tail"] and not grade["judged"]
    from physeval.graded import graded_outcomes

    metrics = task.metrics(graded_outcomes(rows))
    assert {"executable_rate", "render_rate", "playable_rate", "accuracy"} <= set(metrics)
    assert metrics.breakdowns["domain"] and all("playable_rate" in m for m in metrics.breakdowns["domain"].values())


def test_without_judges_scenes_are_rendered_but_not_scored(tmp_path: Path) -> None:
    task = get_task("bank-scene", render_timeout=RENDER_GUARD_S)
    problem = task.load()[0]
    from physeval.tasks.base import GradeContext

    grade = asyncio.run(task.agrade(problem, BALL_PROGRAM, GradeContext(run_dir=tmp_path)))
    assert grade.stage == "playable" and grade.outcome == "unjudged" and grade.correct is False
    metrics = task.metrics([__import__("physeval.metrics", fromlist=["SampleOutcome"]).SampleOutcome(
        problem.id, "0", 0, False, meta=problem.meta, grade=grade.to_dict())])
    assert metrics["playable_rate"].value == 1.0 and "accuracy" not in metrics
    assert any("no sample was judged" in note for note in metrics.notes)


def test_no_code_is_an_explicit_outcome(tmp_path: Path) -> None:
    task = get_task("bank-scene")
    from physeval.tasks.base import GradeContext

    grade = asyncio.run(task.agrade(task.load()[0], "I would draw a ball.", GradeContext(run_dir=tmp_path)))
    assert grade.outcome == "no_code" and grade.stage == "no_code" and not grade.executable


def test_a_domain_no_sample_of_which_reached_the_judge_scores_zero_not_missing() -> None:
    from physeval.metrics import SampleOutcome

    def outcome(pid: str, domain: str, correct: bool, **grade: object) -> SampleOutcome:
        return SampleOutcome(pid, "0", 0, correct, meta={"domain": domain}, grade=grade)

    # optics: one judged, right; mechanics: two programs that never made a playable video.
    outcomes = [outcome("1", "optics", True, stage="judged", executable=True, rendered=True, playable=True,
                        judged=True, judge={"ratio": 1.0}),
                outcome("2", "mechanics", False, stage="error"),
                outcome("3", "mechanics", False, stage="rendered", executable=True, rendered=True)]
    metrics = get_task("bank-scene", judge=["openai/vlm"]).metrics(outcomes).to_dict()
    assert metrics["metrics"]["accuracy"]["value"] == pytest.approx(1 / 3)  # the two count as 0 overall
    mechanics = metrics["breakdowns"]["domain"]["mechanics"]
    assert mechanics["accuracy"]["value"] == 0.0 and mechanics["accuracy"]["n"] == 2  # and in their domain
    assert "judge_tokens_per_judged_sample" not in mechanics  # no judged sample, no judge cost
    unjudged = get_task("bank-scene").metrics(outcomes[1:]).to_dict()  # no judge at all: still not measured
    assert "accuracy" not in unjudged["metrics"]

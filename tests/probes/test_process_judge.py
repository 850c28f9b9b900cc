"""The process judge: rubric reading (malformed and out-of-range scores), the combined score, a
phybench run against a scripted judge that stores and aggregates the rubric, structured output
with its fallback, and the agreement statistics."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from physeval import RunConfig, run_task
from physeval.graded import graded_outcomes
from physeval.metrics import SampleOutcome
from physeval.models import OpenAICompatibleModel
from physeval.probes.judge_reply import ask_json, parse_json_object, validate
from physeval.probes.process_judge import SCHEMA, agreement, combined_score, read_rubric
from physeval.store import RunStore
from physeval.tasks.registry import get_task
from physeval.testing import Reply, ScriptedModel, ScriptedServer


def test_rubric_scores_are_read_and_never_clamped() -> None:
    scores, why, problems = read_rubric({"Physical Modelling": "80", "mathematical_derivation": 60.0,
                                         "completeness": "50/100", "justification": "ok"})
    assert scores == {"physical_modelling": 80.0, "mathematical_derivation": 60.0, "completeness": 50.0}
    assert why == "ok" and problems == ()
    scores, _, problems = read_rubric({"physical_modelling": 150, "mathematical_derivation": -5,
                                       "completeness": "good"})
    assert scores == {}
    assert problems == ("physical_modelling: 150 is outside 0-100", "mathematical_derivation: -5 is outside 0-100",
                        "completeness: not a number ('good')")
    assert read_rubric({"physical_modelling": True})[2][0] == "physical_modelling: not a number ('True')"


def test_combined_score_weights_the_answer() -> None:
    assert combined_score(True, 0.6) == pytest.approx(0.8)
    assert combined_score(False, 0.6, answer_weight=0.25) == pytest.approx(0.45)
    assert combined_score(True, None) is None
    with pytest.raises(ValueError):
        combined_score(True, 0.5, answer_weight=1.5)


def test_parse_json_object_forgives_prose_fences_and_near_json() -> None:
    assert parse_json_object('{"a": 1}', ["a"]) == ({"a": 1}, "json")
    assert parse_json_object('Here:\n```json\n{"a": 2}\n```\nthanks', ["a"]) == ({"a": 2}, "fenced")
    assert parse_json_object('I think {"note": 1} and {"a": 3, "b": 4} done', ["a"]) == ({"a": 3, "b": 4}, "embedded")
    assert parse_json_object("a: 5\nb: 'x'", ["a", "b"]) == ({"a": 5, "b": "x"}, "fields")
    assert parse_json_object("<think>{\"a\": 9}</think> nothing", ["a"]) == (None, "none")
    assert validate({"physical_modelling": 101}, SCHEMA) == [
        "$: missing 'mathematical_derivation'", "$: missing 'completeness'", "$: missing 'justification'",
        "$.physical_modelling: 101 is above the maximum 100"]
    assert validate({"physical_modelling": 7.5, "mathematical_derivation": 1, "completeness": 1,
                     "justification": "j"}, SCHEMA) == ["$.physical_modelling: expected an integer, got 7.5"]


def _records() -> list[dict]:
    # Written for this test in the PHYBench record format.
    solution = "Energy conservation gives\n\\[ m g h = \\frac{1}{2} m v^2 \\]\nso\n\\[ v = \\sqrt{2 g h} \\]"
    return [{"id": i, "tag": "MECHANICS", "content": f"Problem {i}: find the speed after a drop through h.",
             "solution": solution, "answer": r"\sqrt{2 g h}"} for i in range(1, 6)]


JUDGE_REPLIES = {
    "Problem 1:": '{"physical_modelling": 90, "mathematical_derivation": 80, "completeness": 70, '
                  '"justification": "close"}',
    "Problem 2:": 'Here is my grading.\n```json\n{"physical_modelling": 40, "mathematical_derivation": 20, '
                  '"completeness": 10, "justification": "wrong law"}\n```',
    "Problem 3:": '{"physical_modelling": 150, "mathematical_derivation": 80, "completeness": 70, '
                  '"justification": "x"}',
    "Problem 4:": "I refuse to grade this.",
    "Problem 5:": '{"physical_modelling": "100", "mathematical_derivation": 100, "completeness": "100/100", '
                  '"justification": "matches"}',
}


def test_phybench_run_with_a_scripted_process_judge(tmp_path: Path) -> None:
    data = tmp_path / "PHYBench-fullques_v1.json"
    data.write_text(json.dumps(_records()), encoding="utf-8")
    answers = {"Problem 1:": r"\boxed{\sqrt{2gh}}", "Problem 2:": r"\boxed{\sqrt{g h}}",
               "Problem 3:": r"\boxed{\sqrt{2 g h}}", "Problem 4:": r"\boxed{\sqrt{2 g h}}",
               "Problem 5:": r"\boxed{\sqrt{2 h g}}"}

    def pick(table: dict[str, str], prompt: str) -> str:
        return next(v for k, v in table.items() if k in prompt)

    model = ScriptedModel(lambda r: Reply.text(pick(answers, r.prompt)), name="process-run")
    with ScriptedServer(lambda r: Reply.text(pick(JUDGE_REPLIES, r.prompt))) as server:
        task = get_task("phybench", data=data, grading_processes=0, process_judge="openai/judge",
                        process_judge_base_url=server.base_url)
        asyncio.run(run_task(task, model, tmp_path / "run", RunConfig(preflight=False), show_progress=False))
        requests = list(server.requests)
    assert len(requests) == 5
    body = requests[0].body
    assert body["response_format"]["json_schema"]["schema"]["required"][:3] == [
        "physical_modelling", "mathematical_derivation", "completeness"]
    assert "## Reference solution" in requests[0].prompt and "m g h" in requests[0].prompt
    rows = {r.problem_id: r for r in RunStore(tmp_path / "run").rows()}
    grade = {pid: row.grade for pid, row in rows.items()}
    assert grade["1"]["process"]["outcome"] == "ok" and grade["1"]["process"]["justification"] == "close"
    assert grade["1"]["process_score"] == pytest.approx(0.5 * 0.9 + 0.3 * 0.8 + 0.2 * 0.7)
    assert grade["1"]["combined_score"] == pytest.approx(0.5 + 0.5 * 0.83)
    assert grade["2"]["process"]["method"] == "fenced" and not rows["2"].correct
    assert grade["2"]["combined_score"] == pytest.approx(0.5 * (0.5 * 0.4 + 0.3 * 0.2 + 0.2 * 0.1))
    assert grade["3"]["process"]["outcome"] == "invalid" and grade["3"]["process_score"] is None
    assert grade["3"]["process"]["problems"] == ["physical_modelling: 150 is outside 0-100"]
    assert grade["4"]["process"]["outcome"] == "unparseable" and grade["4"]["combined_score"] is None
    assert grade["5"]["process_score"] == pytest.approx(1.0)
    assert all(row.status == "answered" for row in rows.values())  # the answers stay graded
    metrics = task.metrics(graded_outcomes(rows.values()))
    assert metrics["accuracy"].value == pytest.approx(0.8)
    assert metrics["process_score"].value == pytest.approx((0.83 + 0.28 + 1.0) / 3)
    assert metrics["process_score"].n == 3
    assert metrics["process_physical_modelling"].value == pytest.approx((90 + 40 + 100) / 3)
    assert metrics["combined_score"].value == pytest.approx((0.915 + 0.14 + 1.0) / 3)
    assert "process judge: 1 invalid, 1 unparseable of 5 samples left out of the process metrics" in metrics.notes
    assert metrics["process_accuracy_agreement"].value == pytest.approx(1.0)  # 0.83, 1.0 right; 0.28 wrong
    assert metrics["process_accuracy_auc"].value == pytest.approx(1.0)


def test_structured_output_falls_back_when_the_server_refuses_it() -> None:
    def server_script(request):  # type: ignore[no-untyped-def]
        if "response_format" in request.body:
            return Reply.error(400, "response_format is not supported")
        return Reply.text('Sure: {"physical_modelling": 10, "mathematical_derivation": 20, "completeness": 30, '
                          '"justification": "j"}')

    async def ask(base_url: str):  # type: ignore[no-untyped-def]
        judge = OpenAICompatibleModel("judge", base_url)
        try:
            return await ask_json(judge, [{"role": "user", "content": "grade"}], SCHEMA, name="process")
        finally:
            await judge.aclose()

    with ScriptedServer(server_script) as server:
        reply = asyncio.run(ask(server.base_url))
        assert len(server.requests) == 2 and "response_format" not in server.requests[1].body
    assert reply.outcome == "ok" and reply.structured is False and reply.method == "embedded"
    assert reply.data["completeness"] == 30


def test_a_failing_judge_is_recorded_not_raised() -> None:
    judge = ScriptedModel(lambda r: Reply.error(401))
    reply = asyncio.run(ask_json(judge, [{"role": "user", "content": "grade"}], SCHEMA, name="process"))
    assert reply.outcome == "error" and reply.error_kind == "auth"


def test_process_prompt_can_be_replaced(tmp_path: Path) -> None:
    from physeval.errors import OptionError
    from physeval.probes.process_judge import load_prompt_file

    custom = tmp_path / "rubric.txt"
    custom.write_text("Grade {response} against {reference_solution}.", encoding="utf-8")
    assert load_prompt_file(custom).startswith("Grade")
    (tmp_path / "bad.txt").write_text("no placeholders", encoding="utf-8")
    with pytest.raises(OptionError, match="lacks"):
        load_prompt_file(tmp_path / "bad.txt")
    with pytest.raises(OptionError, match="answer_weight"):
        get_task("bank-symbolic", answer_weight=2)


def test_agreement_statistics_by_hand() -> None:
    def outcome(pid: str, correct: bool, process: float, eed: float) -> SampleOutcome:
        return SampleOutcome(pid, "0", 0, correct, grade={"process_score": process, "eed_score": eed})

    outcomes = [outcome("a", True, 0.9, 100), outcome("b", False, 0.6, 40), outcome("c", False, 0.2, 10),
                outcome("d", True, 0.4, 100)]
    stats = agreement(outcomes)
    assert stats["process_accuracy_agreement"] == pytest.approx(0.5)  # a and c agree; b and d do not
    assert stats["process_accuracy_auc"] == pytest.approx(3 / 4)  # (0.9 beats both, 0.4 beats 0.2 only)
    xs, ys = [0.9, 0.6, 0.2, 0.4], [100, 40, 10, 100]
    mx, my = sum(xs) / 4, sum(ys) / 4
    r = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / (
        sum((x - mx) ** 2 for x in xs) ** 0.5 * sum((y - my) ** 2 for y in ys) ** 0.5)
    assert stats["process_eed_correlation"] == pytest.approx(r)


def test_problems_without_a_reference_solution_are_not_sent() -> None:
    from physeval.probes.process_judge import judge_process

    judge = ScriptedModel(lambda r: Reply.text("{}"))
    verdict = asyncio.run(judge_process(judge, question="q", reference_solution=None, reference_answer="x",
                                        response="r"))
    assert verdict.outcome == "no_reference" and judge.requests == []


def test_preflight_checks_every_judge_before_the_run() -> None:
    from physeval.errors import ModelError

    with ScriptedServer(lambda r: Reply.text("OK"), model="judge") as good, \
            ScriptedServer(lambda r: Reply.text("OK"), model="other") as wrong:
        task = get_task("phybench-poison", data="unused", process_judge="openai/judge",
                        process_judge_base_url=good.base_url)
        asyncio.run(task.preflight())
        assert len(good.requests) == 1  # the one tiny test request
        task = get_task("phybench-poison", data="unused", process_judge="openai/judge",
                        process_judge_base_url=good.base_url, poison_judge="openai/judge",
                        poison_judge_base_url=wrong.base_url)
        with pytest.raises(ModelError) as raised:
            asyncio.run(task.preflight())
        assert raised.value.kind == "unknown_model"

"""The SimuScene judge protocol: its prompt, its reply schema and AgentFly's "Not sure" rule.

The rule (AgentFly ``pass_fail_reward``): "True" passes; "Not sure" passes when its confidence is
below 4; a missing or non-integer confidence reads as 1; everything else fails.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _judge_server import answer, make_frames, run_judges

from physeval.scenes.judge import (
    build_judge_prompt,
    decide_answers,
    parse_judge_reply,
    read_structured,
    reply_schema,
)
from physeval.scenes.judge.protocol import read_confidence
from physeval.testing import Reply, Request, ScriptedServer

QUESTIONS = [
    {"index": "1", "question": "Does the puck slide to the right?", "weight": 1.0},
    {"index": "2", "question": "Does the puck slow down?", "weight": 1.0},
]
SUMMARY = "A puck on ice, pushed to the right, slowing under friction."
SCENARIO = "A 0.2 kg puck slides on rough ice at 3 m/s."


@pytest.mark.parametrize(("raw", "expected"), [
    (5, 5), ("2", 2), (" 4 ", 4), (3.9, 3), (None, 1), ("high", 1), ("4.5", 1), (True, 1), (float("nan"), 1),
])
def test_confidence_is_read_as_agentfly_reads_it(raw: Any, expected: int) -> None:
    assert read_confidence(raw) == expected


@pytest.mark.parametrize(("confidence", "passes"), [(1, True), (3, True), (4, False), (5, False)])
def test_not_sure_passes_only_below_confidence_4_under_simuscene(confidence: int, passes: bool) -> None:
    results, unsure = {"1": True, "2": False}, {"2": confidence}
    assert decide_answers(results, unsure, "simuscene") == {"1": True, "2": passes}
    assert decide_answers(results, unsure, "physeval") == {"1": True, "2": False}


def test_an_explicit_false_never_passes_whatever_its_confidence() -> None:
    parsed = parse_judge_reply(json.dumps([{"index": "1", "result": "False", "confidence_score": 1},
                                           {"index": "2", "result": "Not sure", "confidence_score": "2"}]), ["1", "2"])
    assert parsed.results == {"1": False, "2": False} and parsed.unsure == {"2": 2}
    assert decide_answers(parsed.results, parsed.unsure, "simuscene") == {"1": False, "2": True}


def test_a_not_sure_without_confidence_reads_as_confidence_1() -> None:
    parsed = parse_judge_reply('[{"index": "1", "result": "True"}, {"index": "2", "result": "not sure"}]', ["1", "2"])
    assert parsed.unsure == {"2": 1}


def test_other_uncertain_words_are_plain_false_not_the_not_sure_class() -> None:
    parsed = parse_judge_reply('[{"index": "1", "result": "uncertain"}, {"index": "2", "result": "unclear"}]',
                               ["1", "2"])
    assert parsed.results == {"1": False, "2": False} and parsed.unsure == {}


def test_the_simuscene_schema_asks_for_the_three_results_and_a_confidence() -> None:
    item = reply_schema(["1", "2"], "simuscene")["properties"]["answers"]["items"]
    assert item["properties"]["result"]["enum"] == ["True", "False", "Not sure"]
    assert item["properties"]["confidence_score"] == {"type": "integer", "enum": [1, 2, 3, 4, 5]}
    assert set(item["required"]) == {"index", "question", "analysis", "result", "confidence_score"}
    with pytest.raises(ValueError):
        reply_schema(["1"], "paper")  # type: ignore[arg-type]


def _simuscene_answers(*rows: tuple[str, int]) -> str:
    return json.dumps({"answers": [{"index": str(i), "question": q["question"], "analysis": "seen",
                                    "result": result, "confidence_score": conf}
                                   for i, ((result, conf), q) in enumerate(zip(rows, QUESTIONS), 1)]})


def test_a_structured_simuscene_reply_records_its_not_sure_answers() -> None:
    parsed, problems = read_structured(_simuscene_answers(("True", 5), ("Not sure", 2)), ["1", "2"], "simuscene")
    assert problems == () and parsed is not None
    assert parsed.method == "structured" and parsed.results == {"1": True, "2": False} and parsed.unsure == {"2": 2}


@pytest.mark.parametrize("reply", [
    _simuscene_answers(("True", 5), ("Maybe", 2)),            # result outside the enum
    _simuscene_answers(("True", 5), ("True", 9)),             # confidence outside 1..5
    _simuscene_answers(("True", 5)),                          # question 2 unanswered
    json.dumps([{"index": "1", "result": "True"}]),           # a bare list, not the schema's object
])
def test_simuscene_replies_that_break_the_schema_are_not_structured(reply: str) -> None:
    parsed, problems = read_structured(reply, ["1", "2"], "simuscene")
    assert parsed is None and problems


def test_a_repeated_index_is_not_a_structured_reply() -> None:
    reply = json.dumps({"answers": [{"index": "1", "analysis": "", "result": True},
                                    {"index": "1", "analysis": "", "result": False}]})
    parsed, problems = read_structured(reply, ["1", "2"])
    assert parsed is None and "once" in problems[0]


def test_the_simuscene_prompt_shows_the_description_and_questions_not_the_scenario() -> None:
    prompt = build_judge_prompt(QUESTIONS, mode="video", summarize=SUMMARY, scenario=SCENARIO, protocol="simuscene")
    assert SUMMARY in prompt and SCENARIO not in prompt
    assert "1. Does the puck slide to the right?\n2. Does the puck slow down?" in prompt
    assert '"Not sure"' in prompt and "confidence_score" in prompt and "Viewpoint" in prompt
    own = build_judge_prompt(QUESTIONS, mode="video", summarize=SUMMARY, scenario=SCENARIO)
    assert SCENARIO in own and "confidence_score" not in own


def test_the_simuscene_code_review_prompt_numbers_the_dataset_questions_from_3() -> None:
    prompt = build_judge_prompt(QUESTIONS, mode="text", summarize=SUMMARY, protocol="simuscene")
    assert "Do not run the program" in prompt and "3. Does the puck slide to the right?" in prompt
    assert "Viewpoint" not in prompt


# ----------------------------------------------------------------- end to end, scripted server


def _serve_simuscene(reply: str) -> ScriptedServer:
    def script(request: Request) -> Reply:
        item = request.body["response_format"]["json_schema"]["schema"]["properties"]["answers"]["items"]
        assert "confidence_score" in item["properties"]
        return Reply.text(reply)

    return ScriptedServer(script)


def test_simuscene_protocol_end_to_end_a_low_confidence_not_sure_passes() -> None:
    with _serve_simuscene(_simuscene_answers(("True", 5), ("Not sure", 3))) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2), summarize=SUMMARY,
                             protocol="simuscene")
        prompt = server.requests[0].prompt
    run = verdict.judges[0]
    assert verdict.protocol == "simuscene" and run.reply_path == "structured" and run.unsure == {"2": 3}
    assert verdict.correct and verdict.per_question == {"1": True, "2": True}
    assert "confidence_score" in prompt


def test_simuscene_protocol_end_to_end_a_confident_not_sure_fails() -> None:
    with _serve_simuscene(_simuscene_answers(("True", 5), ("Not sure", 4))) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2), protocol="simuscene")
    assert not verdict.correct and verdict.per_question == {"1": True, "2": False}
    assert verdict.ratio == pytest.approx(0.5)


def test_the_rule_also_applies_on_the_forgiving_path() -> None:
    text = Reply.text('[{"index": "1", "result": "True", "confidence_score": "5"}, '
                      '{"index": "2", "result": "Not sure"}]')
    with ScriptedServer(lambda request: text) as server:
        simuscene = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2), protocol="simuscene")
        own = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2))
    assert simuscene.reply_paths == ("fallback_invalid",) and simuscene.correct
    assert not own.correct and own.per_question == {"1": True, "2": False}


def test_an_unknown_protocol_is_a_programming_error() -> None:
    with ScriptedServer(lambda request: answer(True, True)) as server, pytest.raises(ValueError, match="protocol"):
        run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(1), protocol="agentfly")

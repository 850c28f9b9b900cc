"""Judges ask for structured output first, against a local scripted server (127.0.0.1).

Three servers: one that honours ``response_format`` (it answers with the schema's object), one
that rejects the field with HTTP 400 (as a server without guided decoding does), and one that
accepts it but returns JSON that does not validate. The verdict records the path each judge took.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from _judge_server import answer, make_frames, run_judges

from physeval.models.base import Completion
from physeval.scenes.judge import judge_video
from physeval.testing import Reply, Request, ScriptedServer

QUESTIONS = [
    {"index": "1", "question": "Does the ball start at rest at the top?", "weight": 1.0},
    {"index": "2", "question": "Does the ball bounce off the floor?", "weight": 1.0},
    {"index": "3", "question": "Does the bounce height decrease after each impact?", "weight": 2.0},
]


def _answers(*results: Any, **extra: Any) -> str:
    return json.dumps({"answers": [{"index": str(i), "analysis": f"seen {i}", "result": r, **extra}
                                   for i, r in enumerate(results, 1)]})


def _schema(request: Request) -> dict[str, Any]:
    fmt = request.body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["strict"] is True
    return fmt["json_schema"]["schema"]


def test_a_server_that_honours_the_schema_is_read_on_the_structured_path() -> None:
    def honours(request: Request) -> Reply:
        item = _schema(request)["properties"]["answers"]["items"]
        assert item["properties"]["index"]["enum"] == ["1", "2", "3"]
        assert item["properties"]["result"] == {"type": "boolean"}
        return Reply.text(_answers(True, False, True))

    with ScriptedServer(honours) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(3))
        assert len(server.requests) == 1
    run = verdict.judges[0]
    assert (run.reply_path, run.parse_method, run.structured_error) == ("structured", "structured", None)
    assert verdict.reply_paths == ("structured",)
    assert verdict.per_question == {"1": True, "2": False, "3": True} and verdict.outcome == "wrong"
    assert run.analyses["2"] == "seen 2" and run.problems == ()
    assert json.loads(json.dumps(verdict.to_dict()))["judges"][0]["reply_path"] == "structured"


def test_a_server_that_rejects_response_format_is_asked_again_without_it() -> None:
    def rejects(request: Request) -> Reply:
        if "response_format" in request.body:
            return Reply.error(400, "response_format json_schema is not supported by this server")
        return answer(True, True, True)

    with ScriptedServer(rejects) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(3))
        first, second = server.requests
    assert "response_format" in first.body and "response_format" not in second.body
    assert first.body["messages"] == second.body["messages"]
    run = verdict.judges[0]
    assert run.reply_path == "fallback_rejected" and run.parse_method == "json"
    assert "HTTP 400" in (run.structured_error or "") and "not supported" in (run.structured_error or "")
    assert verdict.correct and verdict.outcome == "correct" and run.outcome == "ok"


def test_a_reply_that_does_not_validate_falls_back_to_the_forgiving_parser() -> None:
    # "result": "yes" is not a boolean and the object is cut off: invalid, but readable
    malformed = '{"answers": [{"index": "1", "analysis": "rests", "result": "yes"}, {"index": "2", "result": true}, '
    with ScriptedServer(lambda request: Reply.text(malformed, finish_reason="length")) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(3))
        assert len(server.requests) == 1  # an invalid reply is read, not asked again
    run = verdict.judges[0]
    assert run.reply_path == "fallback_invalid" and run.parse_method == "objects"
    assert "not JSON" in (run.structured_error or "")
    assert run.outcome == "partial" and run.missing == ("3",)
    assert verdict.per_question == {"1": True, "2": True, "3": False}


def test_valid_json_that_breaks_the_schema_is_also_a_fallback() -> None:
    wrong_type = json.dumps({"answers": [{"index": "1", "analysis": "", "result": "true"},
                                         {"index": "2", "analysis": "", "result": True},
                                         {"index": "3", "analysis": "", "result": True}]})
    with ScriptedServer(lambda request: Reply.text(wrong_type)) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2))
    run = verdict.judges[0]
    assert run.reply_path == "fallback_invalid" and "expected boolean" in (run.structured_error or "")
    assert verdict.correct  # the forgiving parser reads "true"


def test_a_plain_list_from_a_server_that_ignores_the_schema_is_still_read() -> None:
    with ScriptedServer(lambda request: answer(True, True, True)) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2))
    assert verdict.judges[0].reply_path == "fallback_invalid" and verdict.correct


def test_structured_false_sends_no_response_format() -> None:
    with ScriptedServer(lambda request: answer(True, True, True)) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2), structured=False)
        (request,) = server.requests
    assert "response_format" not in request.body
    assert verdict.reply_paths == ("text",) and verdict.judges[0].structured_error is None and verdict.correct


def test_an_ensemble_records_each_judges_path() -> None:
    def script(request: Request) -> Reply:
        model = request.body["model"]
        if model == "strict":
            return Reply.text(_answers(True, True, True))
        if model == "old" and "response_format" in request.body:
            return Reply.error(400, "unknown field response_format")
        return answer(True, True, False)

    with ScriptedServer(script) as server:
        verdict = run_judges(server, ["strict", "old", "loose"], questions=QUESTIONS, frames=make_frames(2))
    assert verdict.reply_paths == ("structured", "fallback_rejected", "fallback_invalid")
    assert verdict.per_question == {"1": True, "2": True, "3": False}


class _OldModel:
    """A model whose ``generate`` predates ``extra_body`` (as a third-party wrapper may)."""

    name = "old-wrapper"

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def generate(self, messages: list[dict[str, Any]], *, n: int = 1, temperature: float = 0.0,
                       top_p: float = 1.0, max_tokens: int | None = None, seed: int | None = None,
                       stop: list[str] | None = None) -> list[Completion]:
        self.calls.append({"n": n, "temperature": temperature})
        return [Completion(text=json.dumps([{"index": "1", "result": True}, {"index": "2", "result": True},
                                            {"index": "3", "result": True}]))]


def test_a_model_without_extra_body_is_asked_for_text() -> None:
    model = _OldModel()
    verdict = asyncio.run(judge_video(questions=QUESTIONS, judges=model, frames=make_frames(2)))
    assert len(model.calls) == 1 and verdict.reply_paths == ("text",) and verdict.correct

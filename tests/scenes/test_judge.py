"""The judge path end to end against a local OpenAI-compatible test server (127.0.0.1)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _judge_server import JudgeScript, Reply, answer, make_frames, run_judges

from physeval.scenes.judge import judge_video_sync
from physeval.testing import ScriptedServer

QUESTIONS = [
    {"index": "1", "question": "Does the ball start at rest at the top?", "weight": 1.0},
    {"index": "2", "question": "Does the ball bounce off the floor?", "weight": 1.0},
    {"index": "3", "question": "Does the bounce height decrease after each impact?", "weight": 2.0},
]


def _serve(**queues: list[Reply]) -> ScriptedServer:
    return ScriptedServer(JudgeScript(**queues))


# ----------------------------------------------------------------- single judge


def test_all_true_reply_is_correct_and_the_request_carries_16_stamped_frames() -> None:
    with _serve(vlm=[answer(True, True, True)]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(16))
        (request,) = server.requests
    assert verdict.correct and verdict.outcome == "correct" and verdict.score == 1.0
    assert verdict.per_question == {"1": True, "2": True, "3": True}
    assert verdict.n_frames == 16 and verdict.judges[0].outcome == "ok"
    parts = request.body["messages"][0]["content"]
    assert sum(p["type"] == "image_url" for p in parts) == 16
    assert any(p.get("text") == "Frame 16/16 at t = 15.00 s" for p in parts)
    assert request.body["model"] == "vlm" and request.body["temperature"] == 0.0
    assert "3. Does the bounce height decrease after each impact?" in parts[0]["text"]


def test_one_false_answer_makes_binary_wrong_and_ratio_partial() -> None:
    with _serve(vlm=[answer(True, False, True), answer(True, False, True)]) as server:
        binary = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(4))
        ratio = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(4), aggregation="ratio")
    assert not binary.correct and binary.outcome == "wrong" and binary.score == 0.0
    assert "2" in binary.reason
    assert ratio.score == pytest.approx(0.75) and ratio.ratio == pytest.approx(0.75)  # weights 1, 1, 2


def test_fenced_reply_with_prose_is_parsed() -> None:
    reply = Reply.text('Looking at the frames...\n```json\n[{"index": "1", "result": "yes"}, '
                       '{"index": "2", "result": "yes"}, {"index": "3", "result": "yes"}]\n```\nDone.')
    with _serve(vlm=[reply]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2))
    assert verdict.correct and verdict.judges[0].parse_method == "fenced"


def test_truncated_reply_keeps_complete_answers_and_records_the_missing_one() -> None:
    cut = '[{"index": "1", "result": true}, {"index": "2", "result": true}, {"index": "3", "analysis": "the heig'
    with _serve(vlm=[Reply.text(cut, finish_reason="length")]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2))
    run = verdict.judges[0]
    assert run.outcome == "partial" and run.missing == ("3",) and run.finish_reason == "length"
    assert verdict.per_question == {"1": True, "2": True, "3": False}
    assert not verdict.correct and verdict.outcome == "wrong"
    assert any("max_tokens" in p for p in verdict.problems)


def test_prose_without_json_is_unparseable_not_a_crash() -> None:
    with _serve(vlm=[Reply.text("The video looks great, everything is physically accurate!")]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2))
    assert verdict.outcome == "unparseable" and not verdict.correct and verdict.score == 0.0
    assert verdict.judges[0].reply.startswith("The video looks great")


def test_http_failures_after_retries_become_an_error_outcome() -> None:
    with _serve(vlm=[Reply.error(500), Reply.error(503)]) as server:
        verdict = run_judges(server, ["vlm"], attempts=2, questions=QUESTIONS, frames=make_frames(2))
        assert len(server.requests) == 2
    assert verdict.outcome == "error" and not verdict.correct
    run = verdict.judges[0]
    assert run.outcome == "error" and run.error_kind == "server_error" and "HTTP 503" in run.error
    json.dumps(verdict.to_dict())


def test_garbage_http_body_becomes_an_error_outcome() -> None:
    with _serve(vlm=[Reply.garbage(), Reply.garbage()]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, frames=make_frames(2))
    assert verdict.outcome == "error" and verdict.judges[0].error_kind == "bad_response"


def test_a_transient_failure_is_retried_by_the_client() -> None:
    with _serve(vlm=[Reply.error(429), answer(True, True, True)]) as server:
        verdict = run_judges(server, ["vlm"], attempts=3, questions=QUESTIONS, frames=make_frames(2))
    assert verdict.correct and verdict.judges_failed == 0


# ----------------------------------------------------------------- ensemble


def test_ensemble_majority_per_question() -> None:
    with _serve(a=[answer(True, True, False)], b=[answer(True, False, True)], c=[answer(True, True, True)]) as server:
        verdict = run_judges(server, ["a", "b", "c"], questions=QUESTIONS, frames=make_frames(3))
    assert verdict.votes == {"1": [True, True, True], "2": [True, False, True], "3": [False, True, True]}
    assert verdict.per_question == {"1": True, "2": True, "3": True}
    assert verdict.correct and [r.judge for r in verdict.judges] == ["a", "b", "c"]


def test_ensemble_tie_is_false() -> None:
    with _serve(a=[answer(True, True, True)], b=[answer(True, False, True)]) as server:
        verdict = run_judges(server, ["a", "b"], questions=QUESTIONS, frames=make_frames(3))
    assert verdict.per_question == {"1": True, "2": False, "3": True}
    assert not verdict.correct


def test_ensemble_with_a_failed_and_a_malformed_judge() -> None:
    with _serve(
        good=[answer(True, True, True)],
        down=[Reply.error(500), Reply.error(500)],
        sloppy=[Reply.text("[{'index': '1', 'result': 'yes'}, {'index': '2', 'result': 'yes'}]")],
    ) as server:
        verdict = run_judges(server, ["good", "down", "sloppy"], questions=QUESTIONS, frames=make_frames(3))
    outcomes = {r.judge: r.outcome for r in verdict.judges}
    assert outcomes == {"good": "ok", "down": "error", "sloppy": "partial"}
    assert verdict.judges_failed == 1
    # q1, q2: good + sloppy say true (2 of 3); q3: only good says true
    assert verdict.per_question == {"1": True, "2": True, "3": False}
    assert verdict.outcome == "wrong" and "1 of 3 judges failed" in verdict.reason


def test_cost_is_summed_over_judges_and_the_verdict_is_json() -> None:
    with _serve(a=[answer(True, True, True)], b=[answer(True, True, True)]) as server:
        verdict = run_judges(server, ["a", "b"], questions=QUESTIONS, frames=make_frames(2))
    assert verdict.prompt_tokens == sum(r.prompt_tokens for r in verdict.judges) > 0
    assert verdict.completion_tokens == sum(r.completion_tokens for r in verdict.judges) > 0
    assert verdict.judge_seconds > 0 and verdict.wall_seconds > 0
    data = json.loads(json.dumps(verdict.to_dict()))
    assert data["judges"][1]["judge"] == "b" and data["per_question"]["3"] is True


# ----------------------------------------------------------------- modes


def test_video_mode_sends_one_file_url(tmp_path: Path) -> None:
    video = tmp_path / "scene.mp4"
    video.write_bytes(b"\0" * 2048)
    with _serve(vlm=[answer(True, True, True)]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, mode="video", video_path=video)
        (request,) = server.requests
    parts = request.body["messages"][0]["content"]
    assert [p["type"] for p in parts].count("video_url") == 1
    assert parts[0]["video_url"]["url"] == video.resolve().as_uri()
    assert verdict.correct and verdict.mode == "video" and verdict.n_frames == 0


def test_text_mode_is_the_llm_as_judge_ablation() -> None:
    code = "import sys\nprint('no video here')\n"
    with _serve(llm=[answer(True, False, True, True, True)]) as server:
        verdict = run_judges(server, ["llm"], questions=QUESTIONS, mode="text", code=code)
        (request,) = server.requests
    prompt = request.body["messages"][0]["content"]
    assert "print('no video here')" in prompt and "image_url" not in json.dumps(request.body)
    assert verdict.per_question == {"executes": True, "saves_video": False, "1": True, "2": True, "3": True}
    assert not verdict.correct and "saves_video" in verdict.reason


def test_frames_are_sampled_from_a_real_video(tmp_path: Path) -> None:
    import av

    path = tmp_path / "tiny.mp4"
    with av.open(str(path), "w") as container:
        stream = container.add_stream("mpeg4", rate=10)
        stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
        stream.time_base = Fraction(1, 10)
        for k in range(20):
            img = np.full((48, 64, 3), (k * 12) % 256, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    with _serve(vlm=[answer(True, True, True)]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, video_path=path, n_frames=5)
        (request,) = server.requests
    images = [p for p in request.body["messages"][0]["content"] if p["type"] == "image_url"]
    assert verdict.correct and verdict.n_frames == 5 and len(images) == 5


def test_an_unreadable_video_is_an_error_outcome_without_any_request(tmp_path: Path) -> None:
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"not a video at all" * 100)
    with _serve(vlm=[answer(True, True, True)]) as server:
        verdict = run_judges(server, ["vlm"], questions=QUESTIONS, video_path=bad)
        assert server.requests == []
    assert verdict.outcome == "error" and "no frames" in verdict.reason


def test_missing_inputs_are_error_outcomes_without_any_request(tmp_path: Path) -> None:
    with _serve(vlm=[answer(True, True, True)]) as server:
        no_video = run_judges(server, ["vlm"], questions=QUESTIONS, mode="video", video_path=tmp_path / "nope.mp4")
        no_code = run_judges(server, ["vlm"], questions=QUESTIONS, mode="text")
        no_frames = run_judges(server, ["vlm"], questions=QUESTIONS)
        assert server.requests == []
    assert no_video.outcome == no_code.outcome == no_frames.outcome == "error"
    assert "video not found" in no_video.reason and "code" in no_code.reason
    assert no_frames.per_question == {"1": False, "2": False, "3": False}


def test_sync_wrapper_and_argument_errors() -> None:
    with pytest.raises(ValueError):
        judge_video_sync(questions=QUESTIONS, judges=[], frames=make_frames(1))

    class Fake:
        name = "fake"

        async def generate(self, messages, **kw):  # type: ignore[no-untyped-def]
            raise RuntimeError("boom")

    with pytest.raises(ValueError):
        judge_video_sync(questions=QUESTIONS, judges=Fake(), frames=make_frames(1), mode="audio")
    verdict = judge_video_sync(questions=QUESTIONS, judges=Fake(), frames=make_frames(1))
    assert verdict.outcome == "error" and "RuntimeError: boom" in verdict.judges[0].error

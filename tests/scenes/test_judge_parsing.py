"""Judge reply parsing, prompts, message shapes and aggregation (no network)."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from physeval.scenes.data import VerificationQuestion
from physeval.scenes.frames import Frame
from physeval.scenes.judge import (
    JudgeQuestion,
    aggregate,
    build_judge_messages,
    build_judge_prompt,
    ensemble_vote,
    judge_questions,
    normalize_index,
    parse_judge_reply,
)

LABELS = ["1", "2", "3"]
QUESTIONS = [
    {"index": "1", "question": "Does the ball fall?", "weight": 1.0},
    {"index": "2", "question": "Does the ball bounce?", "weight": 1.0},
    {"index": "3", "question": "Does the bounce height decrease?", "weight": 2.0},
]


def _frame(i: int, t: float) -> Frame:
    buf = io.BytesIO()
    Image.new("RGB", (32, 24), (10 * i, 50, 200)).save(buf, format="JPEG")
    return Frame(index=i, time_s=t, jpeg=buf.getvalue(), width=32, height=24)


# ----------------------------------------------------------------- parsing


def test_strict_json_list_is_read_with_analyses() -> None:
    reply = json.dumps([
        {"index": "1", "analysis": "it falls", "result": True},
        {"index": "2", "analysis": "it bounces", "result": True},
        {"index": "3", "analysis": "heights shrink", "result": False},
    ])
    parsed = parse_judge_reply(reply, LABELS)
    assert parsed.results == {"1": True, "2": True, "3": False}
    assert parsed.analyses["3"] == "heights shrink"
    assert parsed.missing == () and parsed.problems == () and parsed.method == "json"


def test_fenced_block_with_prose_around_it() -> None:
    reply = (
        "Let me look at the frames.\n```json\n"
        '[{"index": "1", "result": true}, {"index": "2", "result": true}, {"index": "3", "result": true}]\n'
        "```\nAll three hold."
    )
    parsed = parse_judge_reply(reply, LABELS)
    assert parsed.results == {"1": True, "2": True, "3": True}
    assert parsed.method == "fenced"


def test_list_followed_by_trailing_prose() -> None:
    reply = ('[{"index": 1, "result": "true"}, {"index": 2, "result": "false"}, {"index": 3, "result": "true"}]'
             ' I hope this helps!')
    parsed = parse_judge_reply(reply, LABELS)
    assert parsed.results == {"1": True, "2": False, "3": True}
    assert parsed.method == "embedded"


def test_truncated_list_recovers_complete_objects_and_records_the_rest() -> None:
    reply = '[{"index": "1", "result": true}, {"index": "2", "result": true}, {"index": "3", "analysis": "the ball bou'
    parsed = parse_judge_reply(reply, LABELS)
    assert parsed.results == {"1": True, "2": True, "3": False}
    assert parsed.missing == ("3",)
    assert parsed.method == "objects"
    assert any("3" in p and "counted false" in p for p in parsed.problems)


def test_unterminated_fence_is_also_recovered() -> None:
    reply = '```json\n[{"index": "1", "result": "yes"},\n {"index": "2", "result": "no"},\n {"index"'
    parsed = parse_judge_reply(reply, LABELS)
    assert parsed.results == {"1": True, "2": False, "3": False}
    assert parsed.missing == ("3",)


@pytest.mark.parametrize(
    "value, expected",
    [("yes", True), ("No", False), ("True", True), ("FALSE", False), ("Not sure", False),
     ("insufficient evidence", False), (1, True), (0, False), ("Yes, clearly", True)],
)
def test_result_spellings(value: object, expected: bool) -> None:
    parsed = parse_judge_reply(json.dumps([{"index": "1", "result": value}]), ["1"])
    assert parsed.results == {"1": expected}


def test_unreadable_result_counts_false_and_is_recorded() -> None:
    parsed = parse_judge_reply('[{"index": "1", "result": "maybe later"}]', ["1"])
    assert parsed.results == {"1": False}
    assert parsed.missing == ()
    assert any("unreadable result" in p for p in parsed.problems)


def test_missing_index_counts_false_and_is_recorded() -> None:
    parsed = parse_judge_reply('[{"index": "1", "result": true}, {"index": "3", "result": true}]', LABELS)
    assert parsed.results == {"1": True, "2": False, "3": True}
    assert parsed.missing == ("2",)


def test_unknown_and_duplicate_indices_are_recorded_not_trusted() -> None:
    reply = '[{"index": "1", "result": true}, {"index": "1", "result": false}, {"index": "9", "result": true}]'
    parsed = parse_judge_reply(reply, ["1", "2"])
    assert parsed.results == {"1": True, "2": False}
    assert any("twice" in p for p in parsed.problems)
    assert any("unknown question index" in p for p in parsed.problems)


def test_index_spellings_and_alternative_keys() -> None:
    reply = ('[{"id": "Q1", "answer": "yes"}, {"question_index": "2.", "verdict": false}, '
             '{"index": 3.0, "result": true}]')
    parsed = parse_judge_reply(reply, LABELS)
    assert parsed.results == {"1": True, "2": False, "3": True}


def test_wrapper_object_and_plain_mapping() -> None:
    wrapped = parse_judge_reply('{"results": [{"index": "1", "result": true}, {"index": "2", "result": false}]}',
                                ["1", "2"])
    assert wrapped.results == {"1": True, "2": False}
    mapping = parse_judge_reply('{"1": "yes", "2": "no"}', ["1", "2"])
    assert mapping.results == {"1": True, "2": False}


def test_python_literal_and_trailing_commas_are_repaired() -> None:
    literal = parse_judge_reply("[{'index': '1', 'result': True}, {'index': '2', 'result': False}]", ["1", "2"])
    assert literal.results == {"1": True, "2": False}
    repaired = parse_judge_reply('[{"index": "1", "result": true,},]', ["1"])
    assert repaired.results == {"1": True} and repaired.method.endswith("+repaired")


def test_bare_boolean_list_is_read_by_position_with_a_note() -> None:
    parsed = parse_judge_reply('[true, "no", true]', LABELS)
    assert parsed.results == {"1": True, "2": False, "3": True}
    assert any("by position" in p for p in parsed.problems)


def test_reasoning_block_is_not_read_as_the_answer() -> None:
    reply = '<think>[{"index": "1", "result": false}]</think>[{"index": "1", "result": true}]'
    assert parse_judge_reply(reply, ["1"]).results == {"1": True}


def test_garbage_and_empty_replies_are_all_false() -> None:
    for reply in ("I cannot see any video.", "", None, "[[[[", "{{{{"):
        parsed = parse_judge_reply(reply, LABELS)
        assert parsed.results == {"1": False, "2": False, "3": False}
        assert parsed.missing == tuple(LABELS) and parsed.method == "none"


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('[]{}",:truefalsindx 0123\n`\\')), max_size=120))
def test_parser_never_raises(reply: str) -> None:
    parsed = parse_judge_reply(reply, LABELS)
    assert set(parsed.results) == set(LABELS)
    assert all(isinstance(v, bool) for v in parsed.results.values())


def test_normalize_index() -> None:
    assert [normalize_index(x) for x in (1, "1", " Q1 ", "1.", "#1", 1.0, "01", "question 2")] == [
        "1", "1", "1", "1", "1", "1", "1", "2"]


# ----------------------------------------------------------------- prompt and messages


def test_prompt_lists_numbered_questions_and_the_reply_format() -> None:
    prompt = build_judge_prompt(QUESTIONS, n_frames=16, summarize="a ball and a floor")
    assert "1. Does the ball fall?" in prompt and "3. Does the bounce height decrease?" in prompt
    assert "16 frames" in prompt and "a ball and a floor" in prompt
    assert '"result": true' in prompt and "insufficient" in prompt


def test_frames_messages_carry_one_jpeg_part_and_time_stamp_per_frame() -> None:
    frames = [_frame(i, i * 0.5) for i in range(4)]
    (message,) = build_judge_messages(QUESTIONS, frames=frames)
    parts = message["content"]
    images = [p for p in parts if p["type"] == "image_url"]
    assert len(images) == 4
    assert all(p["image_url"]["url"].startswith("data:image/jpeg;base64,") for p in images)
    stamps = [p["text"] for p in parts if p["type"] == "text" and p["text"].startswith("Frame ")]
    assert stamps == [f"Frame {k + 1}/4 at t = {k * 0.5:.2f} s" for k in range(4)]
    # each time stamp immediately precedes its image
    for k, part in enumerate(parts):
        if part["type"] == "image_url":
            assert parts[k - 1]["text"].startswith("Frame ")


def test_video_message_is_one_file_url_part(tmp_path) -> None:  # type: ignore[no-untyped-def]
    video = tmp_path / "scene.mp4"
    video.write_bytes(b"\0" * 10)
    (message,) = build_judge_messages(QUESTIONS, mode="video", video_path=video)
    kinds = [p["type"] for p in message["content"]]
    assert kinds.count("video_url") == 1 and "image_url" not in kinds
    url = next(p for p in message["content"] if p["type"] == "video_url")["video_url"]["url"]
    assert url == video.resolve().as_uri() and url.startswith("file:///")


def test_text_mode_asks_execution_and_video_first_then_renumbers() -> None:
    jq = judge_questions(QUESTIONS, "text")
    assert [(q.key, q.label) for q in jq] == [
        ("executes", "1"), ("saves_video", "2"), ("1", "3"), ("2", "4"), ("3", "5")]
    (message,) = build_judge_messages(QUESTIONS, mode="text", code="print('hi')")
    assert isinstance(message["content"], str)
    assert "print('hi')" in message["content"]
    assert "1. Does the program run to completion" in message["content"]
    assert "5. Does the bounce height decrease?" in message["content"]


def test_missing_inputs_are_value_errors() -> None:
    with pytest.raises(ValueError):
        build_judge_messages(QUESTIONS, frames=[])
    with pytest.raises(ValueError):
        build_judge_messages(QUESTIONS, mode="video")
    with pytest.raises(ValueError):
        build_judge_messages(QUESTIONS, mode="text")


# ----------------------------------------------------------------- aggregation


def test_binary_and_weighted_ratio() -> None:
    qs = [VerificationQuestion(q["index"], q["question"], q["weight"]) for q in QUESTIONS]
    results = {"1": True, "2": False, "3": True}
    assert aggregate(results, qs, "binary") == (False, 0.0, 0.75)
    assert aggregate(results, qs, "ratio") == (False, 0.75, 0.75)
    assert aggregate(dict.fromkeys("123", True), qs, "binary") == (True, 1.0, 1.0)


def test_ratio_with_all_zero_weights_is_the_plain_fraction() -> None:
    qs = [JudgeQuestion("a", "1", "q", 0.0), JudgeQuestion("b", "2", "q", 0.0)]
    assert aggregate({"a": True}, qs, "ratio") == (False, 0.5, 0.5)


def test_majority_vote_ties_are_false() -> None:
    votes = [{"1": True, "2": True, "3": False}, {"1": True, "2": False, "3": False}, {"1": False, "2": True}]
    assert ensemble_vote(votes, ["1", "2", "3"]) == {"1": True, "2": True, "3": False}
    assert ensemble_vote(votes[:2], ["1", "2"]) == {"1": True, "2": False}
    assert ensemble_vote([], ["1"]) == {"1": False}


@pytest.mark.parametrize(
    "reply",
    ["{" * 200_000, '{"' * 100_000, "[" * 2_000 + "1," * 99_000, '{"a": [' * 1_000 + "1," * 99_000],
)
def test_pathological_replies_are_bounded_by_an_operation_budget(reply: str) -> None:
    parsed = parse_judge_reply(reply, LABELS)
    assert parsed.results == {"1": False, "2": False, "3": False} and parsed.method == "none"


def test_long_truncated_reply_still_recovers_its_objects() -> None:
    items = [{"index": str(i), "analysis": "x" * 1500, "result": i % 2 == 0} for i in range(1, 13)]
    cut = json.dumps(items)[:-800]
    parsed = parse_judge_reply(cut, [str(i) for i in range(1, 13)])
    assert parsed.missing == ("12",)
    assert [parsed.results[str(i)] for i in range(1, 12)] == [i % 2 == 0 for i in range(1, 12)]


def test_dataset_labels_that_collide_after_normalising_are_numbered_by_position() -> None:
    jq = judge_questions([{"index": "1", "question": "a"}, {"index": "01", "question": "b"}])
    assert [(q.key, q.label) for q in jq] == [("1", "1"), ("01", "2")]
    letters = judge_questions([{"index": "a", "question": "x"}, {"index": "b", "question": "y"}])
    assert [q.label for q in letters] == ["a", "b"]

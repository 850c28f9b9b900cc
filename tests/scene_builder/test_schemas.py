"""Every reply is read as one JSON object against its stage's schema, or gets a reason."""

from __future__ import annotations

import json

import pytest

from physeval.scene_builder.schemas import (
    BasicReply,
    PlausibilityReply,
    QuestionsReply,
    ReviewReply,
    parse_reply,
)

FOUR = ["Does a?", "Does b?", "Does c?", "Does d?"]


@pytest.mark.parametrize("text", [
    '{"questions": ["Does a?", "Does b?", "Does c?", "Does d?"]}',
    'Here you go:\n```json\n{"questions": ["Does a?", "Does b?", "Does c?", "Does d?"]}\n```\nAnything else?',
    '<think>count four</think>{"questions": ["Does  a?", "Does b?", "Does c?", "Does d?"], "extra": 1}',
])
def test_a_usable_reply_is_read_wherever_the_object_sits(text: str) -> None:
    value, reason = parse_reply(text, QuestionsReply)
    assert reason == "" and value is not None and value.questions == FOUR


@pytest.mark.parametrize("text, schema, reason", [
    ("", BasicReply, "the reply is empty"),
    ("Sure, two scenarios: a ball and a disk.", BasicReply, "the reply holds no JSON object"),
    ('{"scenarios": []}', BasicReply, "scenarios: List should have at least 1 item"),
    ('{"plausible": true}', PlausibilityReply, "renderable: Field required"),
    ('{"questions": ["Does a?", "Does a?", "Does b?", "Does c?"]}', QuestionsReply, "only 3 distinct questions"),
    (json.dumps({"questions": [f"Does {i} move?" for i in range(13)]}), QuestionsReply, "at most 12"),
    ('{"sufficient": "perhaps"}', ReviewReply, "sufficient: Input should be a valid boolean"),
])
def test_an_unusable_reply_says_why(text: str, schema: type, reason: str) -> None:
    value, why = parse_reply(text, schema)
    assert value is None and reason in why

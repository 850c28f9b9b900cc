"""Judge replies of every shape the parser reads, for the fresh-process thread test."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

LABELS = ["1", "2", "3"]

REPLIES = [
    json.dumps([{"index": "1", "analysis": "it falls", "result": True},
                {"index": "2", "result": "yes"}, {"index": "3", "result": False}]),
    "Looking at the frames.\n```json\n[{\"index\": 1, \"result\": true}, {\"index\": 2, \"result\": false}]\n```\nDone.",
    'Here is my verdict: [{"index": "Q1", "result": "true"}, {"index": "Q3", "result": "no"}] as requested.',
    '[{"index": "1", "result": true}, {"index": "2", "result": true}, {"index": "3", "res',  # cut off
    "[{'index': '1', 'result': True}, {'index': '2', 'result': False}, {'index': '3', 'result': True},]",
    json.dumps({"1": True, "2": "not sure", "3": {"result": "yes", "analysis": "shrinks"}}),
    json.dumps([True, False, True]),
    "<think>maybe [{\"index\": 1, \"result\": false}]</think>[{\"index\": 1, \"result\": true}]",
    '{"results": [{"id": 2, "verdict": "pass"}, {"id": 2, "verdict": "fail"}, {"id": 9, "verdict": "pass"}]}',
    "I cannot tell from these frames.",
    "",
    "{" * 5000,
    '[{"index": "1", "result": true}]' + " filler" * 20000,
]


def cases() -> list[tuple[str, Callable[[], Any]]]:
    """Every reply as (name, zero-argument parse call)."""
    from physeval.scenes.judge import parse_judge_reply

    return [(f"reply-{i}", lambda text=text: parse_judge_reply(text, LABELS)) for i, text in enumerate(REPLIES)]


def verdict(result: Any) -> Any:
    """The parsed reply as JSON."""
    import dataclasses

    return dataclasses.asdict(result)

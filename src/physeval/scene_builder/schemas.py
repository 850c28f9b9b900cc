"""What each model reply must contain, as pydantic schemas, and the one parser they all use.

A reply is usable only when it holds one JSON object (bare, or in a fenced block) that
validates against its stage's schema; :func:`parse_reply` returns the object or a short reason
that is sent back to the model (see :mod:`physeval.scene_builder.calls`) and, when the retries run
out, kept with the rejected record.
"""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

__all__ = [
    "MAX_QUESTIONS",
    "MIN_QUESTIONS",
    "BasicReply",
    "ComposeReply",
    "PlausibilityReply",
    "QuestionsReply",
    "ReviewReply",
    "parse_reply",
]

MIN_QUESTIONS = 4
MAX_QUESTIONS = 12

S = TypeVar("S", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


def _texts(values: list[str]) -> list[str]:
    cleaned = [" ".join(v.split()) for v in values]
    if any(not v for v in cleaned):
        raise ValueError("an entry is empty")
    return list(dict.fromkeys(cleaned))  # exact repeats collapse


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class BasicReply(_Reply):
    """Basic scenarios of one concept and the conditions that can be added to them."""

    scenarios: list[str] = Field(min_length=1)
    conditions: list[str] = Field(default_factory=list)

    _clean = field_validator("scenarios", "conditions")(_texts)


class ComposeReply(_Reply):
    """The full scenario text written from a basic scenario and its conditions."""

    scenario: str = Field(min_length=1)

    @field_validator("scenario")
    @classmethod
    def _strip(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the scenario is empty")
        return value.strip()


class PlausibilityReply(_Reply):
    """The checker's verdict on one candidate."""

    plausible: bool
    renderable: bool
    reason: str = ""


class QuestionsReply(_Reply):
    """A set of 4-12 yes/no verification questions."""

    questions: list[str] = Field(min_length=MIN_QUESTIONS, max_length=MAX_QUESTIONS)

    _clean = field_validator("questions")(_texts)

    @field_validator("questions")
    @classmethod
    def _enough_distinct(cls, values: list[str]) -> list[str]:
        if len(values) < MIN_QUESTIONS:
            raise ValueError(f"only {len(values)} distinct questions; at least {MIN_QUESTIONS} are needed")
        return values


class ReviewReply(_Reply):
    """The reviewer's summary of a scenario and its verdict on the question set."""

    entities: list[str] = Field(default_factory=list)
    relations: list[str] = Field(default_factory=list)
    summary: str = ""
    sufficient: bool
    missing: list[str] = Field(default_factory=list)


def parse_reply(text: str | None, schema: type[S]) -> tuple[S | None, str]:
    """``(object, "")`` when ``text`` holds a JSON object valid for ``schema``, else ``(None, reason)``."""
    if not text or not text.strip():
        return None, "the reply is empty"
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    decoded = None
    for candidate in candidates:
        candidate = candidate.strip()
        start, end = candidate.find("{"), candidate.rfind("}")
        if start < 0 or end <= start:
            continue
        try:
            decoded = json.loads(candidate[start:end + 1])
        except json.JSONDecodeError:
            continue
        break
    if decoded is None:
        return None, "the reply holds no JSON object"
    if not isinstance(decoded, dict):
        return None, "the reply's JSON is not an object"
    try:
        return schema.model_validate(decoded), ""
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'reply'}: {e['msg']}" for e in exc.errors()[:5])
        return None, f"the JSON does not match the schema: {problems}"

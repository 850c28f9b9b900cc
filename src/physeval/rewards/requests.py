"""The reward service's request bodies as pydantic models, and their errors as one readable line.

Why: a trainer that sends ``"completions": [1, 2]`` must hear at once which item is wrong
(``completions[0]: expected a string, got int``), not receive rewards of 0.0 for numbers quietly
turned into strings. The models are strict (no coercion), FastAPI publishes them in the service's
OpenAPI schema (``GET /openapi.json``), and :func:`describe_errors` turns pydantic's errors (or a
body that is not JSON at all) into the one line a 400 answers with.

The served track picks the models: references are answers (a string, a number or ``null``) on the
numeric and symbolic tracks, scenes (a bank id or an object with ``questions``) on the scene track.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, WithJsonSchema, model_validator
from pydantic_core import PydanticCustomError

__all__ = ["MAX_ID_CHARS", "describe_errors", "json_type", "request_models"]

MAX_ID_CHARS = 256
"""The longest request ``id`` accepted (it is echoed back whole)."""

_JSON_NAMES = {type(None): "null", bool: "bool", int: "int", float: "float", str: "string", list: "array",
               dict: "object", bytes: "bytes"}


def json_type(value: Any) -> str:
    """The JSON name of a value's type (``int`` and ``float`` kept apart: ``1`` and ``1.5`` differ)."""
    return _JSON_NAMES.get(type(value), type(value).__name__)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _answer(value: Any) -> Any:
    if value is None or isinstance(value, str) or _is_number(value):
        return value
    raise PydanticCustomError("answer_type", "expected a string, a number or null, got {got}",
                              {"got": json_type(value)})


def _scene(value: Any) -> Any:
    if isinstance(value, str | dict):
        return value
    raise PydanticCustomError("scene_type", "expected a scene id (string) or a scene object, got {got}",
                              {"got": json_type(value)})


def _request_id(value: Any) -> Any:
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    if isinstance(value, str):
        if len(value) > MAX_ID_CHARS:
            raise PydanticCustomError("id_too_long", "at most {limit} characters, got {got}",
                                      {"limit": MAX_ID_CHARS, "got": len(value)})
        return value
    raise PydanticCustomError("id_type", "expected a string, an integer or null, got {got}", {"got": json_type(value)})


Answer = Annotated[Any, PlainValidator(_answer),
                   WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "null"}]})]
Scene = Annotated[Any, PlainValidator(_scene), WithJsonSchema({"anyOf": [{"type": "string"}, {"type": "object"}]})]
RequestId = Annotated[Any, PlainValidator(_request_id),
                      WithJsonSchema({"anyOf": [{"type": "string", "maxLength": MAX_ID_CHARS}, {"type": "integer"},
                                                {"type": "null"}]})]


def _same_length(name: str, items: Sequence[Any] | None, count: int, what: str) -> None:
    if items is not None and len(items) != count:
        raise PydanticCustomError("length_mismatch", "{name}: {got} for {count} {what} (one each is needed)",
                                  {"name": name, "got": len(items), "count": count, "what": what})


class ScoreRequest(BaseModel):
    """``POST /score`` on the numeric and symbolic tracks."""

    model_config = ConfigDict(strict=True, extra="forbid")

    id: RequestId = Field(None, description="Echoed back as the answer's id.")
    completions: list[str] = Field(description="The rollouts' texts.")
    references: list[Answer] = Field(description="One answer per completion; null: not scored (reward null).")
    questions: list[str] | None = Field(None, description="One question per completion (the numeric track reads "
                                                          "the required unit from it).")

    @model_validator(mode="after")
    def _lengths(self) -> ScoreRequest:
        _same_length("references", self.references, len(self.completions), "completions")
        _same_length("questions", self.questions, len(self.completions), "completions")
        return self

    @property
    def items(self) -> list[Any]:
        """What each completion is scored against."""
        return list(self.references)


class SceneScoreRequest(ScoreRequest):
    """``POST /score`` on the scene track: ``scenes`` (or ``references``) are bank ids or scene objects."""

    references: list[Scene] | None = Field(None, description="The scenes, when `scenes` is not given.")  # type: ignore[assignment]
    scenes: list[Scene] | None = Field(None, description="One scene per completion: a bank id or an object with "
                                                         "`questions`; wins over `references`.")

    @model_validator(mode="after")
    def _lengths(self) -> SceneScoreRequest:
        if self.scenes is None and self.references is None:
            raise PydanticCustomError("scenes_missing", "scenes: required (one scene per completion)")
        _same_length("scenes" if self.scenes is not None else "references", self.items, len(self.completions),
                     "completions")
        _same_length("questions", self.questions, len(self.completions), "completions")
        return self

    @property
    def items(self) -> list[Any]:
        """The scene of each completion."""
        return list(self.scenes if self.scenes is not None else self.references or [])


class RewardModelRequest(BaseModel):
    """``POST /get_reward``: OpenRLHF's remote reward model (fields it may add later are ignored)."""

    model_config = ConfigDict(strict=True, extra="ignore")

    query: list[str] = Field(description="Each prompt followed by its response.")
    prompts: list[str] | None = Field(None, description="The prompts (cut from the front of each query).")
    labels: list[Answer] = Field(description="One reference per query; null: not scored (0, extra_logs.scored 0).")

    @model_validator(mode="after")
    def _lengths(self) -> RewardModelRequest:
        _same_length("prompts", self.prompts, len(self.query), "queries")
        _same_length("labels", self.labels, len(self.query), "queries")
        return self


class SceneRewardModelRequest(RewardModelRequest):
    """``POST /get_reward`` on the scene track: the labels are scenes."""

    labels: list[Scene] = Field(description="One scene per query: a bank id or an object with `questions`.")


def request_models(track: str) -> tuple[type[ScoreRequest], type[RewardModelRequest]]:
    """The ``/score`` and ``/get_reward`` body models of a track."""
    if track == "scene":
        return SceneScoreRequest, SceneRewardModelRequest
    return ScoreRequest, RewardModelRequest


_EXPECTED = {"string_type": "a string", "list_type": "a list", "int_type": "an integer", "float_type": "a number",
             "bool_type": "a bool", "dict_type": "an object"}
_BODY = "the body must be a JSON object"


def _where(loc: Sequence[Any]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def describe_errors(errors: Sequence[Mapping[str, Any]], fields: Sequence[str], content_type: str | None = None) -> str:
    """One line for a 400: the first problem (``completions[0]: expected a string, got int``), and how
    many more there are. ``errors`` are pydantic's (FastAPI puts ``body`` first in each location);
    ``fields`` are the model's, named when the body is not an object or has an unknown field."""
    if not errors:
        return _BODY
    first = errors[0]
    loc = list(first.get("loc") or ())
    if loc and loc[0] == "body":
        loc = loc[1:]
    kind = str(first.get("type", ""))
    value = first.get("input")
    shape = f"{_BODY} with {', '.join(fields)}"
    if kind == "json_invalid":
        detail = (first.get("ctx") or {}).get("error", "")
        line = f"the body is not valid JSON ({detail} at character {loc[0] if loc else 0}); {shape}"
    elif not loc and kind == "missing":
        line = f"the body is empty; {shape}"
    elif not loc and isinstance(value, bytes | bytearray):
        line = f"{shape}, sent as content-type application/json (the request said {content_type or 'none'})"
    elif not loc and kind in ("model_type", "model_attributes_type", "dict_type"):
        line = f"{shape}, got {json_type(value)}"
    elif kind == "extra_forbidden":
        line = f"{_where(loc)}: unknown field (the fields are {', '.join(fields)})"
    elif kind == "missing":
        line = f"{_where(loc)}: required"
    elif kind in _EXPECTED:
        line = f"{_where(loc)}: expected {_EXPECTED[kind]}, got {json_type(value)}"
    else:
        message = str(first.get("msg", kind))
        line = f"{_where(loc)}: {message}" if loc else message
    more = len(errors) - 1
    return line + (f" (and {more} more error{'s' * (more > 1)})" if more else "")

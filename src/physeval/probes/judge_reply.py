"""Ask a judge model for one JSON object: structured output first, a forgiving parser as fallback.

The probes' judges (process rubric, poison classification, equivalence) each want one JSON
object with a known schema. :func:`ask_json` sends the request with
``response_format = {"type": "json_schema", ...}`` (the OpenAI structured-output form that vLLM,
SGLang and hosted APIs accept, passed through ``extra_body``); a server that rejects the field
(a ``bad_request``) is asked once more without it. The reply is then read by
:func:`parse_json_object`: the whole reply as JSON, a fenced block, the first balanced ``{...}``
object holding an expected key, and finally ``key: value`` lines. :func:`validate` checks the
object against the (small) JSON-schema subset the probes use: ``type``, ``properties``,
``required``, ``minimum``/``maximum``, ``enum``.

Nothing here raises for a failed judge or a garbage reply: both come back as a
:class:`JsonReply` whose ``outcome`` says so (``error``, ``unparseable``).
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from physeval.answers.extract import strip_reasoning

__all__ = ["JsonReply", "ask_json", "parse_json_object", "response_format", "validate"]

_MAX_PARSE_CHARS = 200_000
_MAX_DECODES = 200  # raw_decode attempts per reply (an operation budget, not a clock)
_REPLY_KEEP = 20_000
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class JsonReply:
    """One judge's JSON answer.

    Attributes:
        judge: The judge model's name.
        outcome: ``ok`` (an object was read), ``unparseable`` (none could be) or ``error`` (the request failed).
        data: The object read (``{}`` unless ``ok``).
        method: ``json``, ``fenced``, ``embedded``, ``fields`` or ``none``.
        structured: Whether the server accepted ``response_format`` (``False``: asked again without it).
        error, error_kind: The failure for ``error``.
        reply: The raw reply (capped at 20 000 characters).
        prompt_tokens, completion_tokens, latency_s: Cost of the request(s).
    """

    judge: str
    outcome: str
    data: dict[str, Any]
    method: str = "none"
    structured: bool = False
    error: str | None = None
    error_kind: str | None = None
    reply: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


def response_format(name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The OpenAI ``response_format`` asking for ``schema`` strictly."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema), "strict": True}}


def _objects_in(text: str, keys: Sequence[str]) -> dict[str, Any] | None:
    budget = _MAX_DECODES
    for match in re.finditer(r"\{", text):
        if budget <= 0:
            return None
        budget -= 1
        try:
            value, _ = _DECODER.raw_decode(text, match.start())
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict) and (not keys or any(k in value for k in keys)):
            return value
    return None


def _fields(text: str, keys: Sequence[str]) -> dict[str, Any] | None:
    """``key: value`` / ``"key": value`` lines, for a reply that is almost JSON or plain prose."""
    found: dict[str, Any] = {}
    for key in keys:
        name = re.escape(key).replace("_", "[_ ]")
        pattern = re.compile(r"[\"']?" + name + r"[\"']?\s*[:=]\s*(\"(?:[^\"\\]|\\.)*\"|[^,\n}]+)", re.IGNORECASE)
        match = pattern.search(text)
        if match:
            raw = match.group(1).strip().rstrip(",").strip()
            try:
                found[key] = json.loads(raw)
            except json.JSONDecodeError:
                found[key] = raw.strip("\"'")
    return found or None


def parse_json_object(text: str | None, keys: Sequence[str] = ()) -> tuple[dict[str, Any] | None, str]:
    """The JSON object in a judge reply and how it was found (``json``, ``fenced``, ``embedded``,
    ``fields``), or ``(None, "none")``. ``keys`` are the expected keys (an embedded object must
    hold one; ``fields`` looks for them). Reasoning (``<think>``) is ignored. Never raises."""
    try:
        body = strip_reasoning(text or "")[:_MAX_PARSE_CHARS]
        stripped = body.strip()
        try:
            value = json.loads(stripped)
            if isinstance(value, dict):
                return value, "json"
        except (json.JSONDecodeError, RecursionError, ValueError):
            pass
        for match in _FENCE.finditer(body):
            try:
                value = json.loads(match.group(1).strip())
                if isinstance(value, dict):
                    return value, "fenced"
            except (json.JSONDecodeError, RecursionError, ValueError):
                continue
        value = _objects_in(body, keys)
        if value is not None:
            return value, "embedded"
        value = _fields(body, keys) if keys else None
        if value is not None:
            return value, "fields"
        return None, "none"
    except Exception:  # noqa: BLE001 - a parser bug must not lose the sample
        return None, "none"


_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "string": (str,), "boolean": (bool,),
                                       "integer": (int,), "number": (int, float), "array": (list,)}


def validate(data: Any, schema: Mapping[str, Any], path: str = "$") -> list[str]:
    """Problems of ``data`` against ``schema`` (the subset the probes use); ``[]`` when valid."""
    problems: list[str] = []
    kind = schema.get("type")
    if kind:
        types = _TYPES.get(kind, (object,))
        if isinstance(data, bool) and kind in ("integer", "number"):
            return [f"{path}: expected {kind}, got a boolean"]
        if kind == "integer" and isinstance(data, float) and not data.is_integer():
            return [f"{path}: expected an integer, got {data}"]
        if not isinstance(data, types):
            return [f"{path}: expected {kind}, got {type(data).__name__}"]
    if "enum" in schema and data not in schema["enum"]:
        problems.append(f"{path}: {data!r} is not one of {schema['enum']}")
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        if "minimum" in schema and data < schema["minimum"]:
            problems.append(f"{path}: {data} is below the minimum {schema['minimum']}")
        if "maximum" in schema and data > schema["maximum"]:
            problems.append(f"{path}: {data} is above the maximum {schema['maximum']}")
    if isinstance(data, dict):
        for key in schema.get("required", ()):
            if key not in data:
                problems.append(f"{path}: missing {key!r}")
        for key, sub in schema.get("properties", {}).items():
            if key in data:
                problems.extend(validate(data[key], sub, f"{path}.{key}"))
    return problems


async def ask_json(judge: Any, messages: list[dict[str, Any]], schema: Mapping[str, Any], *, name: str,
                   max_tokens: int = 2048, seed: int | None = None, structured: bool = True) -> JsonReply:
    """Ask ``judge`` (a :class:`physeval.models.Model`) for one object of ``schema``; never raises.

    With ``structured``, ``response_format`` goes in ``extra_body``; when the server refuses it
    (``bad_request``/``unsupported``) the same messages are sent once more without it.
    """
    judge_name = str(getattr(judge, "name", type(judge).__name__))
    keys = list(schema.get("properties", {}))
    started = time.perf_counter()
    used_structured = structured
    try:
        try:
            extra = {"response_format": response_format(name, schema)} if structured else None
            completions = await judge.generate(messages, n=1, temperature=0.0, top_p=1.0, max_tokens=max_tokens,
                                               seed=seed, extra_body=extra)
        except Exception as exc:
            if not structured or getattr(exc, "kind", None) not in ("bad_request", "unsupported"):
                raise
            used_structured = False
            completions = await judge.generate(messages, n=1, temperature=0.0, top_p=1.0, max_tokens=max_tokens,
                                               seed=seed)
        completion = completions[0]
    except Exception as exc:  # noqa: BLE001 - a failed judge is a recorded outcome
        return JsonReply(judge_name, "error", {}, error=f"{type(exc).__name__}: {str(exc)[:500]}",
                         error_kind=getattr(exc, "kind", None), structured=used_structured,
                         latency_s=time.perf_counter() - started)
    text = completion.text if isinstance(getattr(completion, "text", None), str) else ""
    usage = getattr(completion, "usage", None) or {}
    data, method = parse_json_object(text, keys)
    return JsonReply(judge_name, "ok" if data is not None else "unparseable", data or {}, method=method,
                     structured=used_structured, reply=text[:_REPLY_KEEP],
                     prompt_tokens=int(usage.get("prompt_tokens", 0) or 0),
                     completion_tokens=int(usage.get("completion_tokens", 0) or 0),
                     latency_s=time.perf_counter() - started)

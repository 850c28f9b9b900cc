"""Asking one judge: the request (structured output first), its timing and tokens, the reading.

A judge is asked with ``response_format = {"type": "json_schema", ...}`` (the schema of
:func:`~physeval.scenes.judge.protocol.reply_schema`), passed through the model's
``generate(..., extra_body=...)``; vLLM, SGLang and OpenAI constrain the reply to it. The reply
is read by :func:`~physeval.scenes.judge.reply.read_structured` when it validates, and by the
forgiving :func:`~physeval.scenes.judge.reply.parse_judge_reply` otherwise. The path taken is
recorded in :attr:`JudgeRun.reply_path`:

* ``structured``: the server honoured the schema and the reply validates;
* ``fallback_invalid``: asked with the schema, but the reply does not validate (a server that
  ignores ``response_format``, or a reply cut off by ``max_tokens``); read forgivingly;
* ``fallback_rejected``: the server refused ``response_format`` (HTTP 400); asked once more
  without it and read forgivingly;
* ``text``: structured output not asked for (``structured=False``, or a model whose
  ``generate`` takes no ``extra_body``).

A judge whose request fails (after the client's retries) is recorded with its error and votes
false on every question; nothing here raises for a failed judge or a garbage reply.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from physeval.models.base import Model
from physeval.probes.judge_reply import response_format
from physeval.scenes.judge.protocol import JudgeProtocol, reply_schema
from physeval.scenes.judge.questions import JudgeQuestion
from physeval.scenes.judge.reply import (
    PARSE_ERROR,
    ParsedReply,
    parse_judge_reply,
    read_structured,
)
from physeval.scenes.judge.voting import decide_answers

__all__ = ["DEFAULT_MAX_TOKENS", "REPLY_PATHS", "JudgeModel", "JudgeRun", "ask_judge"]

DEFAULT_MAX_TOKENS = 4096
_REPLY_KEEP = 20_000  # characters of each raw reply kept in the record
_REJECTED_KINDS = ("bad_request", "unsupported")  # a server refusing response_format

REPLY_PATHS = ("structured", "fallback_invalid", "fallback_rejected", "text")
"""The values of :attr:`JudgeRun.reply_path`, in the order the module doc explains them."""

JudgeModel = Model
"""Judges are ordinary models: anything that implements :class:`physeval.models.Model`."""


@dataclass(frozen=True)
class JudgeRun:
    """One judge's answer to one scene.

    Attributes:
        judge: The judge model's name.
        outcome: ``ok`` (every question answered), ``partial`` (some missing), ``unparseable``
            (no answer could be read) or ``error`` (the request failed, or the reply parser
            itself failed: ``error_kind="grader"``).
        results: ``question key -> bool`` after the protocol's rule (all false for
            ``error``/``unparseable``).
        analyses: ``question key -> the judge's analysis``.
        missing: Question keys the judge did not answer.
        problems: Parse problems (see :class:`~physeval.scenes.judge.reply.ParsedReply`).
        error: The failure message for ``error``.
        error_kind: The client's failure kind (``timeout``, ``server_error``...) if it gave one.
        parse_method: See :attr:`ParsedReply.method` (``structured`` on the structured path).
        finish_reason: As the server reported it (``length`` explains a truncated list).
        prompt_tokens: Tokens sent.
        completion_tokens: Tokens received.
        latency_s: Seconds the request took (both requests on ``fallback_rejected``).
        reply: The raw reply text (capped at 20 000 characters).
        reply_path: ``structured``, ``fallback_invalid``, ``fallback_rejected`` or ``text``.
        structured_error: Why the structured path was not used (the server's refusal, or what
            did not validate), ``None`` on the structured and text paths.
        unsure: ``question key -> confidence`` for the answers given as "Not sure".
    """

    judge: str
    outcome: str
    results: dict[str, bool] = field(default_factory=dict)
    analyses: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    error: str | None = None
    error_kind: str | None = None
    parse_method: str = "none"
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    reply: str = ""
    reply_path: str = "text"
    structured_error: str | None = None
    unsure: dict[str, int] = field(default_factory=dict)


def takes_extra_body(judge: Any) -> bool:
    """Whether ``judge.generate`` accepts ``extra_body`` (older third-party models may not)."""
    try:
        parameters = inspect.signature(judge.generate).parameters
    except (TypeError, ValueError):
        return True
    return "extra_body" in parameters or any(p.kind is p.VAR_KEYWORD for p in parameters.values())


async def ask_judge(
    judge: JudgeModel,
    messages: list[dict[str, Any]],
    jq: Sequence[JudgeQuestion],
    *,
    max_tokens: int,
    temperature: float,
    seed: int | None,
    protocol: JudgeProtocol = "physeval",
    structured: bool = True,
) -> JudgeRun:
    """Ask ``judge`` once (twice when the server refuses the schema) and read its answer."""
    name = str(getattr(judge, "name", type(judge).__name__))
    keys = [q.key for q in jq]
    labels = [q.label for q in jq]
    started = time.perf_counter()
    path = "structured" if structured and takes_extra_body(judge) else "text"
    structured_error: str | None = None
    try:
        if path == "structured":
            schema = reply_schema(labels, protocol)
            extra = {"response_format": response_format("scene_judge_answers", schema)}
            try:
                completions = await judge.generate(messages, n=1, temperature=temperature, top_p=1.0,
                                                   max_tokens=max_tokens, seed=seed, extra_body=extra)
            except Exception as exc:
                if getattr(exc, "kind", None) not in _REJECTED_KINDS:
                    raise
                path, structured_error = "fallback_rejected", f"{type(exc).__name__}: {str(exc)[:300]}"
                completions = await judge.generate(messages, n=1, temperature=temperature, top_p=1.0,
                                                   max_tokens=max_tokens, seed=seed)
        else:
            completions = await judge.generate(messages, n=1, temperature=temperature, top_p=1.0,
                                               max_tokens=max_tokens, seed=seed)
        completion = completions[0]
    except Exception as exc:  # noqa: BLE001 - a failed judge is a recorded outcome
        return JudgeRun(judge=name, outcome="error", results=dict.fromkeys(keys, False), missing=tuple(keys),
                        error=f"{type(exc).__name__}: {str(exc)[:500]}", error_kind=getattr(exc, "kind", None),
                        latency_s=time.perf_counter() - started, reply_path=path,
                        structured_error=structured_error)
    text = getattr(completion, "text", None)
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    parsed: ParsedReply | None = None
    if path == "structured":
        parsed, why = read_structured(text, labels, protocol)
        if parsed is None:
            path, structured_error = "fallback_invalid", "; ".join(why)
    if parsed is None:
        parsed = parse_judge_reply(text, labels)
    usage = getattr(completion, "usage", None)
    usage = usage if isinstance(usage, Mapping) else {}
    latency = getattr(completion, "latency_s", None)
    if path == "fallback_rejected" or not (isinstance(latency, (int, float)) and latency > 0):
        latency = time.perf_counter() - started
    return _run_from(parsed, jq, name=name, text=text, protocol=protocol, path=path,
                     structured_error=structured_error, finish=getattr(completion, "finish_reason", None),
                     usage=usage, latency=float(latency))


def _run_from(parsed: ParsedReply, jq: Sequence[JudgeQuestion], *, name: str, text: str,
              protocol: JudgeProtocol, path: str, structured_error: str | None, finish: Any,
              usage: Mapping[str, Any], latency: float) -> JudgeRun:
    by_label = {q.label: q.key for q in jq}
    unsure = {by_label[label]: conf for label, conf in parsed.unsure.items() if label in by_label}
    results = decide_answers({by_label[label]: value for label, value in parsed.results.items()}, unsure, protocol)
    analyses = {by_label[label]: value for label, value in parsed.analyses.items()}
    missing = tuple(by_label[label] for label in parsed.missing)
    problems = list(parsed.problems)
    if finish == "length" and missing:
        problems.append("the reply was cut off by max_tokens (finish_reason=length)")
    if parsed.method == PARSE_ERROR:
        outcome = "error"
    elif parsed.answered == 0:
        outcome = "unparseable"
    elif missing:
        outcome = "partial"
    else:
        outcome = "ok"
    failed = outcome == "error"
    return JudgeRun(
        judge=name, outcome=outcome, results=results, analyses=analyses, missing=missing,
        problems=tuple(problems), parse_method=parsed.method, finish_reason=finish,
        error=parsed.problems[0] if failed else None, error_kind="grader" if failed else None,
        prompt_tokens=int(usage.get("prompt_tokens", 0) or 0),
        completion_tokens=int(usage.get("completion_tokens", 0) or 0),
        latency_s=latency, reply=text[:_REPLY_KEEP], reply_path=path, structured_error=structured_error,
        unsure=unsure,
    )

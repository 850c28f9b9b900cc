"""An in-process scripted model, for tests that exercise physeval but not HTTP.

Same script and :class:`~physeval.testing.server.Reply` vocabulary as the HTTP
:class:`~physeval.testing.server.ScriptedServer`, with each failure reply raised as the
:class:`~physeval.errors.ModelError` the HTTP provider would classify it as (429 and 5xx
retryable, 401/403 ``auth``, 404 ``not_found``, a drop ``connection``, garbage
``bad_response``). Wrapped in :class:`~physeval.models.RetryingModel`, it is retried exactly as a
server model is. Use the HTTP server where the wire itself is under test (failure injection,
concurrency, timeouts).
"""

from __future__ import annotations

import threading
from typing import Any

from physeval.errors import ModelError
from physeval.models.base import Completion, GenerateConfig, Message, split_reasoning
from physeval.models.retry import RetryingModel, RetryPolicy
from physeval.testing.server import Reply, Request, Script

__all__ = ["ScriptedModelAPI", "ScriptedModel"]


class ScriptedModelAPI:
    """A provider whose replies come from ``script``; records every request it saw."""

    def __init__(self, script: Script, *, name: str = "scripted") -> None:
        self.name = name
        self.script = script
        self.requests: list[Request] = []
        self._lock = threading.Lock()

    @property
    def cache_identity(self) -> str:
        """Scripted models are identified by name only (tests give each script its own name)."""
        return f"scripted|{self.name}"

    async def call(self, messages: list[Message], config: GenerateConfig, n: int) -> list[Completion]:
        """Answer from the script, or raise the failure it asks for."""
        body: dict[str, Any] = {"model": self.name, "messages": messages, "n": n,
                                "temperature": config.temperature, "max_tokens": config.max_tokens}
        with self._lock:
            request = Request(len(self.requests), body)
            self.requests.append(request)
        reply = self.script(request)
        if reply.kind == "text":
            text, reasoning = split_reasoning(reply.content, reply.reasoning)
            usage = {"prompt_tokens": len(request.prompt.split()), "completion_tokens": len(reply.content.split())}
            return [Completion(text=text, reasoning=reasoning, finish_reason=reply.finish_reason, usage=usage,
                               raw_text=reply.content) for _ in range(n)]
        raise _as_error(reply)


def _as_error(reply: Reply) -> ModelError:
    if reply.kind == "drop":
        return ModelError("connection", "connection dropped (scripted)", retryable=True)
    if reply.kind == "garbage":
        return ModelError("bad_response", "unreadable reply (scripted)", retryable=True)
    status = reply.status
    if status == 429:
        return ModelError("rate_limit", "429 (scripted)", retryable=True)
    if status >= 500:
        return ModelError("server_error", f"HTTP {status} (scripted)", retryable=True)
    if status in (401, 403):
        return ModelError("auth", f"HTTP {status} (scripted)")
    if status == 404:
        return ModelError("not_found", "HTTP 404 (scripted)")
    return ModelError("bad_request", f"HTTP {status} (scripted)")


class ScriptedModel(RetryingModel):
    """:class:`ScriptedModelAPI` behind the retrying wrapper; ``requests`` lists what it was asked."""

    def __init__(self, script: Script, *, name: str = "scripted", retry: RetryPolicy | None = None) -> None:
        super().__init__(ScriptedModelAPI(script, name=name), retry=retry or RetryPolicy(3, base_s=0.001, cap_s=0.01))

    @property
    def requests(self) -> list[Request]:
        """Every request received, in order."""
        api = self.api
        assert isinstance(api, ScriptedModelAPI)
        with api._lock:
            return list(api.requests)

"""Any OpenAI-compatible chat server: vLLM, SGLang, llama.cpp, Ollama, OpenAI, hosted APIs.

One async client with a ``base_url`` covers them all. The provider only calls and classifies
(429, 5xx, timeouts, dropped connections and unreadable replies are retryable; 401/403, 404 and
an unknown model name are fatal); retries, backoff and attempt counts are the wrapper's
(:mod:`physeval.models.retry`), not the SDK's.
"""

from __future__ import annotations

import os
import time
from typing import Any

import openai

from physeval.models.base import Completion, GenerateConfig, Message, ModelError, split_reasoning
from physeval.models.retry import RetryingModel, RetryPolicy

__all__ = ["OpenAICompatibleAPI", "OpenAICompatibleModel", "RetryPolicy"]



class OpenAICompatibleAPI:
    """The provider: one ``/v1/chat/completions`` call, its failure classified; no retries here.

    Args:
        name: The model name the server knows (``Qwen/Qwen3-8B``, ``gpt-4o-mini``).
        base_url: Server URL ending in ``/v1``; defaults to ``OPENAI_BASE_URL``, then the OpenAI API.
        api_key: Defaults to ``OPENAI_API_KEY``; local servers accept any value.
        timeout: Per-request timeout in seconds.
    """

    def __init__(self, name: str, base_url: str | None = None, api_key: str | None = None, *,
                 timeout: float = 600.0) -> None:
        self.name = name
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.timeout = timeout
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self._client: openai.AsyncOpenAI | None = None

    @property
    def cache_identity(self) -> str:
        """Model name and endpoint: the same name on another server is another model."""
        return f"openai-compatible|{self.name}|{self.base_url.rstrip('/')}"

    def _get_client(self) -> openai.AsyncOpenAI:
        if self._client is None:
            self._client = openai.AsyncOpenAI(
                base_url=self.base_url, api_key=self._api_key, timeout=self.timeout, max_retries=0
            )
        return self._client

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def call(self, messages: list[Message], config: GenerateConfig, n: int) -> list[Completion]:
        """One request; every failure is raised as a classified :class:`ModelError`."""
        params: dict[str, Any] = {"model": self.name, "messages": messages, "n": n,
                                  "temperature": config.temperature, "top_p": config.top_p}
        if config.max_tokens is not None:
            params["max_tokens"] = config.max_tokens
        if config.seed is not None:
            params["seed"] = config.seed
        if config.stop:
            params["stop"] = list(config.stop)
        if config.extra_body:
            params["extra_body"] = dict(config.extra_body)
        started = time.perf_counter()
        try:
            response = await self._get_client().chat.completions.create(**params)
            return _to_completions(response, time.perf_counter() - started, 1)
        except Exception as exc:  # noqa: BLE001 - every failure is classified and recorded
            raise _classify(exc) from exc

    async def preflight(self) -> str:
        """Check that the endpoint answers and serves this model (one attempt; the wrapper retries).

        ``GET /v1/models`` (when the server has it) confirms the model name; one tiny chat
        request confirms the endpoint and the key. Raises :class:`ModelError` with the server's
        message (kinds ``connection``, ``auth``, ``not_found``, ``unknown_model``, ...).
        """
        served: list[str] | None = None
        try:
            page = await self._get_client().models.list()
            served = [m.id for m in getattr(page, "data", []) or [] if getattr(m, "id", None)]
        except openai.NotFoundError:
            served = None  # the server has no /models route: the chat request below decides
        except Exception as exc:  # noqa: BLE001 - classified like any request failure
            error = _classify(exc)
            if error.kind != "bad_response":  # an unreadable model list is no reason to refuse the endpoint
                raise error from exc
        if served and self.name not in served:
            shown = ", ".join(served[:10]) + (" ..." if len(served) > 10 else "")
            raise ModelError("unknown_model", f"the server at {self.base_url} does not serve {self.name!r}; "
                                              f"it serves: {shown}")
        await self.call([{"role": "user", "content": "Reply with the single word OK."}],
                        GenerateConfig(max_tokens=8), 1)
        listed = f"listed by /models among {len(served)}" if served else "no /models list"
        return f"{self.name} at {self.base_url}: answered a test request ({listed})"


class OpenAICompatibleModel(RetryingModel):
    """A chat model behind an OpenAI-compatible endpoint, with retries (see :class:`RetryingModel`).

    Args:
        name: The model name the server knows (``Qwen/Qwen3-8B``, ``gpt-4o-mini``).
        base_url: Server URL ending in ``/v1``; defaults to ``OPENAI_BASE_URL``, then the
            OpenAI API.
        api_key: Defaults to ``OPENAI_API_KEY``; local servers accept any value.
        timeout: Per-request timeout in seconds.
        retry: Backoff policy for transient failures.
    """

    def __init__(
        self,
        name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 600.0,
        retry: RetryPolicy | None = None,
        max_retries: int | None = None,
    ) -> None:
        policy = retry or RetryPolicy(max_attempts=(max_retries + 1) if max_retries is not None else 5)
        super().__init__(OpenAICompatibleAPI(name, base_url, api_key, timeout=timeout), retry=policy)


def _to_completions(response: Any, latency_s: float, attempts: int) -> list[Completion]:
    choices = getattr(response, "choices", None)
    if not choices:
        raise ModelError("bad_response", "the server's reply has no choices", retryable=True)
    usage_obj = getattr(response, "usage", None)
    usage = {}
    if usage_obj is not None:
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = getattr(usage_obj, key, None)
            if isinstance(value, int):
                usage[key] = value
        details = getattr(usage_obj, "completion_tokens_details", None)
        reasoning_tokens = getattr(details, "reasoning_tokens", None) if details is not None else None
        if isinstance(reasoning_tokens, int):
            usage["reasoning_tokens"] = reasoning_tokens
    completions = []
    for choice in choices:
        message = getattr(choice, "message", None)
        if message is None:
            raise ModelError("bad_response", "a choice has no message", retryable=True)
        raw = message.content if isinstance(message.content, str) else ""
        field_reasoning = getattr(message, "reasoning_content", None) or getattr(message, "reasoning", None)
        if not isinstance(field_reasoning, str):
            field_reasoning = None
        text, reasoning = split_reasoning(raw, field_reasoning)
        completions.append(Completion(text=text, reasoning=reasoning, finish_reason=choice.finish_reason,
                                      usage=usage, latency_s=latency_s, raw_text=raw,
                                      attempts=attempts))
    return completions


def _classify(exc: Exception) -> ModelError:
    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, openai.RateLimitError):
        return ModelError("rate_limit", f"429 from server: {_short(exc)}", retryable=True,
                          retry_after=_retry_after(exc))
    if isinstance(exc, openai.APITimeoutError):
        return ModelError("timeout", "request timed out", retryable=True)
    if isinstance(exc, openai.APIConnectionError):
        return ModelError("connection", f"connection failed: {_short(exc)}", retryable=True)
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status >= 500 or status in (408, 409):
            return ModelError("server_error", f"HTTP {status}: {_short(exc)}", retryable=True,
                              retry_after=_retry_after(exc))
        if status in (401, 403):
            return ModelError("auth", f"HTTP {status}: {_short(exc)} (check --api-key / OPENAI_API_KEY)")
        if status == 404:
            return ModelError("not_found", f"HTTP 404: {_short(exc)} (check --model and --base-url)")
        return ModelError("bad_request", f"HTTP {status}: {_short(exc)}")
    if isinstance(exc, (openai.APIResponseValidationError, ValueError, TypeError, KeyError, AttributeError)):
        return ModelError("bad_response", f"unreadable reply: {_short(exc)}", retryable=True)
    return ModelError("bad_response", f"{type(exc).__name__}: {_short(exc)}", retryable=True)


def _retry_after(exc: Exception) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds form), if the server sent one."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    value = headers.get("retry-after") if headers is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _short(exc: Exception, limit: int = 300) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."


OpenAICompatibleAPI.wrapper = OpenAICompatibleModel  # type: ignore[attr-defined]

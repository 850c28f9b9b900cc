"""Any OpenAI-compatible chat server: vLLM, SGLang, llama.cpp, Ollama, OpenAI, hosted APIs.

One request path with a ``base_url`` covers them all: ``POST {base_url}/chat/completions`` as
JSON over one shared ``aiohttp`` session (connection reuse, per-request timeouts), the reply read
as plain JSON. The ``openai`` SDK is not used: its request building and typed parsing cost
about ten times the CPU of the call itself (1.2-1.5 ms against 0.11-0.14 ms per request at
concurrency 16, measured side by side against one local server), which behind a fast server is
most of a harness's work per sample, and it took 1.9 s to import. ``aiohttp`` is imported on
the first request. The provider only calls and classifies (429, 5xx, timeouts, dropped
connections and unreadable replies are retryable; 401/403, 404 and an unknown model name are
fatal); retries, backoff and attempt counts are the wrapper's (:mod:`physeval.models.retry`).
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import Any

from physeval.models.base import Completion, GenerateConfig, Message, ModelError, split_reasoning
from physeval.models.retry import RetryingModel, RetryPolicy

__all__ = ["OpenAICompatibleAPI", "OpenAICompatibleModel", "RetryPolicy"]

_MAX_CONNECTIONS = 1000  # the connection pool's bound (what the openai SDK allowed); concurrency is the runner's


class _StatusError(Exception):
    """An HTTP error status with the server's message and ``Retry-After``."""

    def __init__(self, status: int, message: str, retry_after: float | None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


async def _close_at_loop_shutdown(session: Any) -> Any:
    """Yield once; closed by the loop's ``shutdown_asyncgens`` (or when its holder is dropped), close ``session``."""
    try:
        yield
    finally:
        if not session.closed:
            await session.close()


class OpenAICompatibleAPI:
    """The provider: one ``/v1/chat/completions`` call, its failure classified; no retries here.

    Args:
        name: The model name the server knows (``Qwen/Qwen3-8B``, ``gpt-4o-mini``).
        base_url: Server URL ending in ``/v1``; defaults to ``OPENAI_BASE_URL``, then the OpenAI API.
        api_key: Defaults to ``OPENAI_API_KEY``; local servers accept any value.
        timeout: Per-request timeout in seconds (connecting, and waiting for the reply).
    """

    def __init__(self, name: str, base_url: str | None = None, api_key: str | None = None, *,
                 timeout: float = 600.0) -> None:
        self.name = name
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        self.timeout = timeout
        self._api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self._session: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closer: Any = None  # the async generator that closes the session when its loop shuts down

    @property
    def cache_identity(self) -> str:
        """Model name and endpoint: the same name on another server is another model."""
        return f"openai-compatible|{self.name}|{self.base_url.rstrip('/')}"

    async def _get_session(self) -> Any:
        """The shared session of the running event loop; a new loop (``asyncio.run`` per grade) gets its own.

        Each session is closed inside its own loop: an async generator pinned to the loop holds it,
        and ``asyncio.run`` (``loop.shutdown_asyncgens``) finalises that generator before the loop
        closes, so a caller that never calls :meth:`aclose` leaves no unclosed connections behind.
        """
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            import aiohttp

            timeout = aiohttp.ClientTimeout(total=None, connect=self.timeout, sock_connect=self.timeout,
                                            sock_read=self.timeout)
            session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=_MAX_CONNECTIONS), timeout=timeout,
                headers={"Authorization": f"Bearer {self._api_key}", "Accept": "application/json"})
            self._closer = _close_at_loop_shutdown(session)
            await self._closer.__anext__()
            self._session, self._loop = session, loop
        return self._session

    def _url(self, route: str) -> str:
        return self.base_url.rstrip("/") + route

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        if self._session is not None:
            if not self._session.closed and self._loop is asyncio.get_running_loop():
                await self._session.close()
            self._session = None
            self._loop = None

    async def _request(self, method: str, route: str, body: dict[str, Any] | None = None) -> Any:
        """One HTTP exchange; the reply's JSON, or :class:`_StatusError` / the transport's exception."""
        session = await self._get_session()
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if data is not None else None
        async with session.request(method, self._url(route), data=data, headers=headers) as response:
            raw = await response.read()
            if response.status >= 400:
                raise _StatusError(response.status, _error_message(raw, response.reason),
                                   _retry_after(response.headers.get("retry-after")))
        return json.loads(raw)

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
            params.update(dict(config.extra_body))  # extra fields go into the request body, as the SDK sent them
        started = time.perf_counter()
        try:
            reply = await self._request("POST", "/chat/completions", params)
            return _to_completions(reply, time.perf_counter() - started, 1)
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
            page = await self._request("GET", "/models")
            data = page.get("data") if isinstance(page, dict) else None
            served = [m["id"] for m in data or [] if isinstance(m, dict) and isinstance(m.get("id"), str)]
        except _StatusError as exc:
            if exc.status != 404:  # no /models route: the chat request below decides
                raise _classify(exc) from exc
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


def _to_completions(reply: Any, latency_s: float, attempts: int) -> list[Completion]:
    choices = reply.get("choices") if isinstance(reply, dict) else None
    if not choices or not isinstance(choices, list):
        raise ModelError("bad_response", "the server's reply has no choices", retryable=True)
    usage_obj = reply.get("usage")
    usage: dict[str, int] = {}
    if isinstance(usage_obj, dict):
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = usage_obj.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                usage[key] = value
        details = usage_obj.get("completion_tokens_details")
        reasoning_tokens = details.get("reasoning_tokens") if isinstance(details, dict) else None
        if isinstance(reasoning_tokens, int) and not isinstance(reasoning_tokens, bool):
            usage["reasoning_tokens"] = reasoning_tokens
    completions = []
    for choice in choices:
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(message, dict):
            raise ModelError("bad_response", "a choice has no message", retryable=True)
        content = message.get("content")
        raw = content if isinstance(content, str) else ""
        field_reasoning = message.get("reasoning_content") or message.get("reasoning")
        if not isinstance(field_reasoning, str):
            field_reasoning = None
        text, reasoning = split_reasoning(raw, field_reasoning)
        finish = choice.get("finish_reason")
        completions.append(Completion(text=text, reasoning=reasoning, finish_reason=finish if isinstance(finish, str)
                                      else None, usage=usage, latency_s=latency_s, raw_text=raw, attempts=attempts))
    return completions


def _classify(exc: Exception) -> ModelError:
    if isinstance(exc, ModelError):
        return exc
    if isinstance(exc, _StatusError):
        status, message = exc.status, _short(exc.message)
        if status == 429:
            return ModelError("rate_limit", f"429 from server: {message}", retryable=True, retry_after=exc.retry_after)
        if status >= 500 or status in (408, 409):
            return ModelError("server_error", f"HTTP {status}: {message}", retryable=True, retry_after=exc.retry_after)
        if status in (401, 403):
            return ModelError("auth", f"HTTP {status}: {message} (check --api-key / OPENAI_API_KEY)")
        if status == 404:
            return ModelError("not_found", f"HTTP 404: {message} (check --model and --base-url)")
        return ModelError("bad_request", f"HTTP {status}: {message}")
    if isinstance(exc, asyncio.TimeoutError):  # aiohttp's ServerTimeoutError is one too
        return ModelError("timeout", "request timed out", retryable=True)
    import aiohttp

    if isinstance(exc, (aiohttp.ClientConnectionError, aiohttp.ClientPayloadError, OSError)):
        return ModelError("connection", f"connection failed: {type(exc).__name__}: {_short(exc)}", retryable=True)
    if isinstance(exc, (ValueError, TypeError, KeyError, AttributeError, aiohttp.ClientResponseError)):
        return ModelError("bad_response", f"unreadable reply: {_short(exc)}", retryable=True)
    return ModelError("bad_response", f"{type(exc).__name__}: {_short(exc)}", retryable=True)


def _error_message(raw: bytes, reason: str | None) -> str:
    """The server's error message: ``error.message`` of an OpenAI-style body, else the body, else the reason."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text or (reason or "")
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(error, str):
        return error
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return body["message"]
    return text


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds form), if the server sent one."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def _short(exc: object, limit: int = 300) -> str:
    text = str(exc).replace("\n", " ")
    return text if len(text) <= limit else text[:limit] + "..."


OpenAICompatibleAPI.wrapper = OpenAICompatibleModel  # type: ignore[attr-defined]

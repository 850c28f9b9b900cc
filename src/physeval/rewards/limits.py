"""The reward service's size limits: what it takes (request bodies) and what it echoes (texts).

Why: a 1 MB reference used to come back whole in each result's ``reason``, and a body of any size
was read into memory. Every text in an answer is cut to :data:`MAX_ECHO_CHARS` characters with a
marker saying how much was cut (:func:`bounded`), and :class:`BodyLimit` answers a body over the
limit with 413 before reading more of it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["DEFAULT_MAX_BODY_BYTES", "DRAIN_LIMITS", "MAX_ECHO_CHARS", "BodyLimit", "bound_text", "bounded"]

MAX_ECHO_CHARS = 2000
"""The longest text the service echoes in an answer (a reason, an extracted answer, a log tail...)."""

DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024
"""The largest request body ``physeval serve`` reads by default (``--max-body-mb``)."""

DRAIN_LIMITS = 4
"""How much of a chunked body past the limit is read and dropped before the 413, in limits."""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def bound_text(text: str, limit: int = MAX_ECHO_CHARS) -> str:
    """``text`` itself when it has at most ``limit`` characters, else its first ``limit`` followed by
    ``…[N more characters cut]``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…[{len(text) - limit} more characters cut]"


def bounded(value: Any, limit: int = MAX_ECHO_CHARS) -> Any:
    """``value`` (JSON-like) with every string in it bounded by :func:`bound_text` (keys included)."""
    if isinstance(value, str):
        return bound_text(value, limit)
    if isinstance(value, dict):
        return {bounded(str(k), limit): bounded(v, limit) if isinstance(v, _NESTED) else v for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [bounded(v, limit) if isinstance(v, _NESTED) else v for v in value]
    return value


_NESTED = (str, dict, list, tuple)


def _size(limit: int) -> str:
    mib = limit / (1024 * 1024)
    return f"{limit} bytes ({mib:g} MiB)" if mib >= 0.1 else f"{limit} bytes"


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes is answered 413 (``{"error": ...}``).

    A declared ``Content-Length`` over the limit is refused before the body is read; a body sent
    without one (chunked) is counted as it arrives, and once past the limit the application is told
    the client left (it stops reading) and whatever it would answer is replaced by the 413. The rest
    of such a body (up to :data:`DRAIN_LIMITS` times the limit) is read and dropped first: a server
    that closes with unread bytes resets the connection, and the client would never see the 413.
    ``on_reject`` is called once per refused request (the service counts it in its metrics).
    """

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], limit: int,
                 on_reject: Callable[[], None] | None = None) -> None:
        if limit < 1:
            raise ValueError("the body limit must be at least 1 byte")
        self.app = app
        self.limit = limit
        self.on_reject = on_reject

    async def _reject(self, send: Send, declared: int | None) -> None:
        said = f"is {declared} bytes" if declared is not None else "is longer"
        body = json.dumps({"error": f"the request body {said}; at most {_size(self.limit)} are accepted "
                                    "(physeval serve --max-body-mb)"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
        if self.on_reject is not None:
            self.on_reject()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on, or answer 413 in its place."""
        if scope.get("type") != "http":
            await self.app(scope, receive, send)
            return
        declared = None
        for name, value in scope.get("headers") or ():
            if name.lower() == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = None
        if declared is not None and declared > self.limit:
            await self._reject(send, declared)
            return
        received = 0
        over = False
        ended = False
        answered = False

        async def limited_receive() -> Message:
            nonlocal received, over, ended
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message.get("type") == "http.request":
                received += len(message.get("body") or b"")
                ended = not message.get("more_body", False)
                if received > self.limit:
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal answered
            if not over:
                await send(message)
            elif not answered:  # the application's answer to a body it never got whole: ours instead
                answered = True
                await self._drain(receive, ended)
                await self._reject(send, None)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not over:
                raise
        if over and not answered:
            answered = True
            await self._drain(receive, ended)
            await self._reject(send, None)

    async def _drain(self, receive: Receive, ended: bool) -> None:
        budget = DRAIN_LIMITS * self.limit
        while not ended and budget > 0:
            message = await receive()
            if message.get("type") != "http.request":
                return
            budget -= len(message.get("body") or b"")
            ended = not message.get("more_body", False)

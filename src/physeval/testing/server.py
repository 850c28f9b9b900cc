"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

It speaks ``POST /v1/chat/completions`` (and ``GET /v1/models``) over real HTTP/1.1 with
keep-alive, replies from a script you give it, and can inject the failures real servers
produce: 429, 500, slow replies, dropped connections and malformed JSON. It binds only to
127.0.0.1 on a random free port and records every request it saw.

    with ScriptedServer(lambda req: Reply.text("\\\\boxed{4}")) as server:
        model = OpenAICompatibleModel("test", base_url=server.base_url)
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["Reply", "ScriptedServer", "Request", "flaky"]


@dataclass(frozen=True)
class Reply:
    """One scripted reply. Build with the class methods."""

    kind: str  # text | status | drop | garbage
    content: str = ""
    reasoning: str | None = None
    finish_reason: str = "stop"
    status: int = 200
    delay_s: float = 0.0
    body: str = ""

    @classmethod
    def text(cls, content: str, *, reasoning: str | None = None, finish_reason: str = "stop",
             delay_s: float = 0.0) -> Reply:
        """A normal completion (optionally with a ``reasoning_content`` field)."""
        return cls("text", content=content, reasoning=reasoning, finish_reason=finish_reason, delay_s=delay_s)

    @classmethod
    def error(cls, status: int, message: str = "injected failure", *, delay_s: float = 0.0) -> Reply:
        """An HTTP error with an OpenAI-style error body (429, 500, 503, 400 ...)."""
        body = json.dumps({"error": {"message": message, "type": "server_error", "code": status}})
        return cls("status", status=status, body=body, delay_s=delay_s)

    @classmethod
    def drop(cls) -> Reply:
        """Close the connection without answering."""
        return cls("drop")

    @classmethod
    def garbage(cls, body: str = '{"choices": [ {"message": ') -> Reply:
        """HTTP 200 with a body that is not valid JSON."""
        return cls("garbage", body=body)


@dataclass(frozen=True)
class Request:
    """What the server received: the parsed JSON body and its arrival index."""

    index: int
    body: dict[str, Any]

    @property
    def prompt(self) -> str:
        """The text of the last user message (content parts joined)."""
        for message in reversed(self.body.get("messages", [])):
            if message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, list):
                    return " ".join(p.get("text", "") for p in content if isinstance(p, dict))
                return str(content)
        return ""


Script = Callable[[Request], Reply]


def flaky(script: Script, *, failure_rate: float, seed: int = 0,
          failures: tuple[Reply, ...] = (Reply.error(500), Reply.error(429), Reply.drop(), Reply.garbage()),
          ) -> Script:
    """Wrap ``script`` so a seeded fraction of requests fail transiently with ``failures``."""
    rng = random.Random(seed)
    lock = threading.Lock()

    def wrapped(request: Request) -> Reply:
        with lock:
            fail = rng.random() < failure_rate
            choice = rng.choice(failures)
        return choice if fail else script(request)

    return wrapped


@dataclass
class _State:
    script: Script
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    model: str | None = None
    api_key: str | None = None
    gets: int = 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out as two writes; avoid 40 ms delayed ACKs
    state: _State  # set on the subclass made per server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence access logs
        return

    def _authorised(self) -> bool:
        if self.state.api_key is None or self.headers.get("Authorization") == f"Bearer {self.state.api_key}":
            return True
        self._send(401, json.dumps({"error": {"message": "Incorrect API key provided", "type": "invalid_request_error",
                                              "code": "invalid_api_key"}}))
        return False

    def do_GET(self) -> None:  # noqa: N802
        with self.state.lock:
            self.state.gets += 1
        if not self._authorised():
            return
        if self.path.rstrip("/").endswith("/models") and self.state.model is not None:
            self._send(200, json.dumps({"object": "list", "data": [{"id": self.state.model, "object": "model"}]}))
        else:
            self._send(404, json.dumps({"error": {"message": "not found"}}))

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self._authorised():
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send(400, json.dumps({"error": {"message": "request body is not JSON"}}))
            return
        if self.state.model is not None and body.get("model") != self.state.model:
            self._send(404, json.dumps({"error": {"message": f"The model `{body.get('model')}` does not exist.",
                                                  "type": "NotFoundError", "code": 404}}))
            return
        with self.state.lock:
            request = Request(len(self.state.requests), body)
            self.state.requests.append(request)
        try:
            reply = self.state.script(request)
        except Exception as exc:  # noqa: BLE001 - a script bug answers 500, as a real server's would
            reply = Reply.error(500, f"the test script raised {type(exc).__name__}: {exc}")
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.kind == "drop":
            self.close_connection = True
            self.connection.close()
            return
        if reply.kind == "garbage":
            self._send(200, reply.body)
            return
        if reply.kind == "status":
            self._send(reply.status, reply.body)
            return
        n = int(body.get("n") or 1)
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        payload = {
            "id": f"chatcmpl-{request.index}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", self.state.model or "scripted"),
            "choices": [{"index": i, "message": message, "finish_reason": reply.finish_reason} for i in range(n)],
            "usage": {"prompt_tokens": len(request.prompt.split()), "completion_tokens": len(reply.content.split()),
                      "total_tokens": len(request.prompt.split()) + len(reply.content.split())},
        }
        self._send(200, json.dumps(payload))

    def _send(self, status: int, body: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512  # the default backlog of 5 resets connections under 64-way concurrency

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return  # a client that hung up (or a drop we injected) is not a server error
        super().handle_error(request, client_address)


class ScriptedServer:
    """Run the scripted server in a background thread; use as a context manager.

    Args:
        script: Called with each chat request; returns the :class:`Reply`.
        model: When given, the one model name served, as vLLM does: ``GET /v1/models`` lists it
            and a chat request naming another model gets 404. When ``None``, any name is
            accepted and ``/v1/models`` answers 404 (a server without that route).
        api_key: When given, every request must carry ``Authorization: Bearer <api_key>``,
            else 401.
        port: The port to listen on; 0 (the default) picks a free one. A fixed port is for a
            private network namespace (the docs test serves vLLM's default 8000 there).

    Attributes:
        base_url: ``http://127.0.0.1:PORT/v1``.
        requests: Every chat request received, in arrival order (also those refused).
    """

    def __init__(self, script: Script, *, model: str | None = None, api_key: str | None = None,
                 port: int = 0) -> None:
        self._state = _State(script=script, model=model, api_key=api_key)
        handler = type("_BoundHandler", (_Handler,), {"state": self._state})
        self._httpd = _Server(("127.0.0.1", port), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def port(self) -> int:
        """The port the server listens on."""
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """Base URL to give an OpenAI-compatible client."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[Request]:
        """A copy of the requests received so far."""
        with self._state.lock:
            return list(self._state.requests)

    @property
    def get_count(self) -> int:
        """How many GET requests (``/v1/models``) arrived."""
        with self._state.lock:
            return self._state.gets

    def set_script(self, script: Script) -> None:
        """Change the replies from now on."""
        self._state.script = script

    def start(self) -> ScriptedServer:
        """Start serving in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

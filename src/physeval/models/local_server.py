"""The embedded model's server: a child process that speaks the OpenAI chat API on loopback.

Why a process of its own: llama.cpp is native code. Run in-process, an illegal instruction
(a binary built for another CPU), a segfault or the kernel's OOM killer ended the whole
evaluation without a summary or an error row. Here it ends only this child; the parent
(:mod:`physeval.models.local`) sees the signal, explains it, and the run stops with its finished
samples kept and a resume line.

``python -m physeval.models.local_server --gguf FILE`` loads the weights with ``cyllama``
(manylinux wheels, an AVX2 build with no AVX-512 or AMX code, so one binary runs on every
current x86-64 machine), binds ``127.0.0.1`` on a free port and prints one line
``physeval-local-server ready port=N`` on stdout; the parent waits for that line (an event, not
a clock). Routes: ``GET /v1/models``, ``POST /v1/chat/completions`` (``n`` completions one after
another, sample ``i`` seeded ``seed + i``). Generation is serialised: one llama.cpp context is
not re-entrant. It exits when its stdin closes, so it never outlives its parent.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

READY_PREFIX = "physeval-local-server ready port="
_DEFAULT_MAX_TOKENS = 512


class _Engine:
    """One llama.cpp model and context behind a lock."""

    def __init__(self, gguf: Path, n_ctx: int, threads: int) -> None:
        from cyllama.api import LLM

        class _Threaded(LLM):
            """cyllama's LLM with llama.cpp's thread count set on every context it makes.

            llama.cpp's default is 4 threads; on a 2-core machine that oversubscribes the cores
            and halves the speed (measured: 25 against 55-69 tokens/s with 2 threads).
            """

            def _ensure_context(self, prompt_length: int, config: Any) -> Any:
                context = super()._ensure_context(prompt_length, config)
                context.set_n_threads(threads, threads)
                return context

        self.name = gguf.stem
        self.n_ctx = n_ctx
        self._llm = _Threaded(str(gguf), verbose=False)
        self._lock = threading.Lock()

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """The OpenAI chat-completion response for one request body."""
        from cyllama.api import GenerationConfig

        messages = [{"role": str(m.get("role", "user")), "content": str(m.get("content") or "")}
                    for m in body.get("messages") or []]
        n = max(1, int(body.get("n") or 1))
        max_tokens = int(body.get("max_tokens") or _DEFAULT_MAX_TOKENS)
        stop = body.get("stop") or []
        stop = [stop] if isinstance(stop, str) else [str(s) for s in stop]
        seed = body.get("seed")
        choices, prompt_tokens, completion_tokens = [], 0, 0
        with self._lock:
            for i in range(n):
                options: dict[str, Any] = {"max_tokens": max_tokens, "n_ctx": self.n_ctx,
                                           "temperature": float(body.get("temperature", 0.0) or 0.0),
                                           "top_p": float(body.get("top_p", 1.0) or 1.0), "stop_sequences": stop}
                if seed is not None:
                    options["seed"] = (int(seed) + i) % (2**32 - 1)
                reply = self._llm.chat(messages, config=GenerationConfig(**options))
                stats = reply.stats
                generated = int(stats.generated_tokens) if stats else 0
                prompt_tokens = int(stats.prompt_tokens) if stats else 0
                completion_tokens += generated
                # cyllama reports "stop" when max_tokens cut the answer; the count says which it was
                finish = "length" if generated >= max_tokens else (reply.finish_reason or "stop")
                choices.append({"index": i, "message": {"role": "assistant", "content": reply.text},
                                "finish_reason": finish})
        return {"id": f"chatcmpl-{uuid.uuid4().hex}", "object": "chat.completion", "created": int(time.time()),
                "model": self.name, "choices": choices,
                "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                          "total_tokens": prompt_tokens + completion_tokens}}


def _handler(engine: _Engine) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
            return

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                self._send(200, {"object": "list", "data": [{"id": engine.name, "object": "model",
                                                             "owned_by": "physeval"}]})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(body, dict):
                    raise ValueError("the request body is not a JSON object")
            except ValueError as exc:
                self._send(400, {"error": {"message": f"unreadable request: {exc}", "type": "invalid_request"}})
                return
            try:
                self._send(200, engine.complete(body))
            except ValueError as exc:  # e.g. a prompt longer than the context window
                self._send(400, {"error": {"message": str(exc), "type": "invalid_request"}})
            except Exception as exc:  # noqa: BLE001 - reported to the client as a server error
                self._send(500, {"error": {"message": f"{type(exc).__name__}: {exc}", "type": "server_error"}})

    return Handler


def _available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, else the machine's count)."""
    import os

    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _exit_with_parent() -> None:
    """Stop the process when stdin reaches EOF (the parent closed it or died)."""
    sys.stdin.read()
    import os

    os._exit(0)


def main(argv: list[str] | None = None) -> int:
    """Load the weights, bind a free loopback port, announce it, serve until stdin closes."""
    parser = argparse.ArgumentParser(prog="python -m physeval.models.local_server")
    parser.add_argument("--gguf", required=True, type=Path)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (default: the CPUs available)")
    args = parser.parse_args(argv)
    engine = _Engine(args.gguf, args.ctx, args.threads or _available_cpus())
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(engine))
    server.daemon_threads = True
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    print(f"{READY_PREFIX}{server.server_address[1]}", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":  # pragma: no cover - run as a child process
    sys.exit(main())

"""The embedded default model: SmolLM2-135M-Instruct in a child process, fully offline.

Why out of process: llama.cpp is native code, and native code can die by a signal (an
instruction the CPU or kernel does not grant, a segfault, the OOM killer). In-process, that
ended the whole run with no summary and no error row. Here the weights load in a child
(:mod:`physeval.models.local_server`) that speaks the OpenAI chat API on a private loopback
port, and this provider talks to it through the same client as every other model
(:class:`~physeval.models.openai_compat.OpenAICompatibleAPI`). When the child dies, the next
request fails with a fatal error (kind ``local_crashed``) that names the signal, says what it
usually means and how to fix it; the run stops with its finished samples stored and resumes
with ``--resume``.

The preflight starts the child and runs one real generation of a physics-length prompt, so a
backend that cannot generate fails in seconds, before the first sample. The model scores near
zero on physics: it proves the pipeline, nothing more.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

from physeval.models.base import Completion, GenerateConfig, Message, ModelError
from physeval.models.local_weights import smollm2_gguf_path
from physeval.models.retry import RetryingModel, RetryPolicy

__all__ = ["LocalAPI", "LocalModel", "smollm2_gguf_path", "LOCAL_MODEL_NAME", "explain_exit"]

LOCAL_MODEL_NAME = "SmolLM2-135M-Instruct"
_INSTALL_HINT = "install the embedded model's runtime with: pip install 'physeval[local]'"
_REINSTALL = "pip install --force-reinstall --no-cache-dir 'physeval[local]'"

_PHYSICS_PROMPT = (
    "A uniform rod of mass 2.0 kg and length 1.5 m is pivoted at one end and released from rest in a "
    "horizontal position. Air resistance and friction at the pivot are negligible; take g = 9.8 m/s^2. "
    "Find the angular speed of the rod when it passes through the vertical position, and the speed of its "
    "free end at that moment. Then a small bead of mass 0.10 kg, initially at rest at the free end, is "
    "released as the rod passes the vertical. Find the horizontal distance the bead travels before it "
    "strikes the floor 2.0 m below the pivot. Show each step, state the principle used, and give the final "
    "answer in m with three significant figures, written as \\boxed{}."
)

_SIGNALS = {
    signal.SIGILL: "illegal instruction: the llama.cpp binary uses a CPU instruction this machine or its kernel "
                   f"does not grant (for example AVX2 missing, or AVX-512/AMX code); reinstall with: {_REINSTALL}",
    signal.SIGKILL: "killed, most often by the kernel's out-of-memory killer (see `dmesg`); free memory or "
                    "lower --max-connections, then resume",
    signal.SIGSEGV: f"segmentation fault inside llama.cpp (a broken binary or GGUF file); reinstall with: "
                    f"{_REINSTALL}",
    signal.SIGBUS: "bus error (the GGUF file changed or its disk went away while mapped)",
    signal.SIGABRT: "aborted by llama.cpp (an internal assertion; its log is quoted above)",
}


def explain_exit(returncode: int) -> str:
    """What the child's exit status means, in a sentence (``-N`` is death by signal ``N``)."""
    if returncode < 0:
        number = -returncode
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        meaning = _SIGNALS.get(number, "ended by a signal")  # type: ignore[call-overload]
        return f"died of {name} ({meaning})"
    return f"exited with status {returncode}"


class _ServerProcess:
    """The child process, its port and its log; started once, stopped at close or exit."""

    def __init__(self, gguf: Path, n_ctx: int, n_threads: int | None) -> None:
        self.log: IO[str] = tempfile.TemporaryFile("w+", prefix="physeval-local-", suffix=".log")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "physeval.models.local_server", "--gguf", str(gguf), "--ctx", str(n_ctx),
             "--threads", str(n_threads or 0)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
        )
        atexit.register(self.stop)
        self.port = self._wait_ready()

    def _wait_ready(self) -> int:
        from physeval.models.local_server import READY_PREFIX

        assert self.process.stdout is not None
        for line in self.process.stdout:  # blocks until the child speaks or exits: an event, not a clock
            if line.startswith(READY_PREFIX):
                return int(line[len(READY_PREFIX):].strip())
        returncode = self.process.wait()
        raise ModelError("local_crashed", f"the embedded model's process {explain_exit(returncode)} while "
                                          f"loading the weights{self.log_tail()}")

    def log_tail(self, lines: int = 6) -> str:
        """The last lines the child wrote to stderr, for an error message."""
        try:
            self.log.flush()
            self.log.seek(0)
            tail = [line.rstrip() for line in self.log.read().splitlines() if line.strip()][-lines:]
        except (OSError, ValueError):
            return ""
        return ("; its last output: " + " | ".join(tail)[-600:]) if tail else ""

    def exit_status(self) -> int | None:
        """``None`` while the child runs, else its return code."""
        return self.process.poll()

    def stop(self) -> None:
        """Close the child's stdin (it exits by itself), then make sure it is gone."""
        if self.process.poll() is None:
            try:
                if self.process.stdin is not None:
                    self.process.stdin.close()
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        atexit.unregister(self.stop)


class LocalAPI:
    """The provider: a GGUF model (SmolLM2-135M-Instruct by default) served by a child process.

    Args:
        model_path: A GGUF file; defaults to the embedded SmolLM2 weights.
        n_ctx: Context window in tokens.
        n_threads: llama.cpp threads (default: the CPUs this process may use).
        timeout: Seconds per request once it reaches the child.
    """

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096,
                 n_threads: int | None = None, timeout: float = 600.0) -> None:
        self.model_path = Path(model_path) if model_path else None
        self.name = LOCAL_MODEL_NAME if model_path is None else Path(model_path).stem
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.timeout = timeout
        self._server: _ServerProcess | None = None
        self._client: Any = None
        self._lock = threading.Lock()
        self._gate: tuple[asyncio.AbstractEventLoop, asyncio.Semaphore] | None = None

    @property
    def cache_identity(self) -> str:
        """The GGUF file's name and size identify the weights."""
        path = self.model_path or smollm2_gguf_path()
        return f"local|{path.name}|{path.stat().st_size}"

    @property
    def pid(self) -> int | None:
        """The child's process id once it runs (tests and operators use it)."""
        return self._server.process.pid if self._server is not None else None

    def _start(self) -> Any:
        """Start the child once (under a lock) and return the OpenAI-compatible client for it."""
        with self._lock:
            if self._server is not None:
                self._check_alive()
                return self._client
            path = self.model_path or smollm2_gguf_path()
            if not path.is_file():
                raise ModelError("local_model", f"no GGUF file at {path}")
            if importlib.util.find_spec("cyllama") is None:
                raise ModelError("local_model", f"the llama.cpp runtime (cyllama) is not installed; {_INSTALL_HINT}")
            from physeval.models.openai_compat import OpenAICompatibleAPI

            self._server = _ServerProcess(path, self.n_ctx, self.n_threads)
            self._client = OpenAICompatibleAPI(path.stem, f"http://127.0.0.1:{self._server.port}/v1", "EMPTY",
                                               timeout=self.timeout)
            return self._client

    def _check_alive(self) -> None:
        server = self._server
        status = server.exit_status() if server is not None else None
        if server is not None and status is not None:
            raise ModelError("local_crashed", f"the embedded model's process (pid {server.process.pid}) "
                                              f"{explain_exit(status)}{server.log_tail()}")

    def _semaphore(self) -> asyncio.Semaphore:
        """One request at a time reaches the child (its context is not re-entrant); the rest queue here,
        so a request's timeout counts only its own generation."""
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate[0] is not loop:
            self._gate = (loop, asyncio.Semaphore(1))
        return self._gate[1]

    async def call(self, messages: list[Message], config: GenerateConfig, n: int) -> list[Completion]:
        """Generate ``n`` completions in the child; its death is a fatal ``local_crashed`` error."""
        client = await asyncio.to_thread(self._start)
        async with self._semaphore():
            self._check_alive()
            if config.max_tokens is None:
                from dataclasses import replace

                config = replace(config, max_tokens=512)
            try:
                return await client.call(messages, config, n)
            except ModelError as error:
                self._check_alive()  # a dead child explains the failure better than "connection refused"
                raise error

    async def preflight(self) -> str:
        """Start the child and generate from a physics-length prompt, so a broken backend fails now."""
        await asyncio.to_thread(self._start)
        await self.call([{"role": "user", "content": _PHYSICS_PROMPT}], GenerateConfig(max_tokens=8), 1)
        return f"{self.name}: weights loaded in a child process (pid {self.pid}); a physics-length prompt generated"

    async def aclose(self) -> None:
        """Stop the child and close the client."""
        with self._lock:
            server, client, self._server, self._client = self._server, self._client, None, None
        if client is not None:
            await client.aclose()
        if server is not None:
            await asyncio.to_thread(server.stop)


class LocalModel(RetryingModel):
    """The embedded model behind the async Model protocol (see :class:`LocalAPI` for the arguments)."""

    def __init__(self, model_path: str | Path | None = None, *, n_ctx: int = 4096,
                 n_threads: int | None = None) -> None:
        super().__init__(LocalAPI(model_path, n_ctx=n_ctx, n_threads=n_threads), retry=RetryPolicy(max_attempts=3))


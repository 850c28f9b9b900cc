"""Bounded child processes for reading untrusted videos, forked from warm servers.

Why: the host must never decode a model's video in its own process (a decompression bomb
needs gigabytes, a crafted stream can crash FFmpeg), but a fresh interpreter per video costs
half a second of imports (numpy, PyAV, Pillow). So a *media server* (a plain child process
that has imported them and never decodes anything itself) forks one short-lived child per
request; the child sets its own address-space, CPU and core limits, does the work and writes
one JSON result; the server enforces the wall clock, kills a child that overruns, and reports
how a child that died ended. A request therefore costs a fork, not an interpreter.

Servers are started on first use, one per concurrent caller (up to :data:`MAX_SERVERS`), and
end when physeval does (their stdin closes). If a server cannot be used, the request runs in
a fresh interpreter with the same limits instead: slower, never less bounded.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import queue
import resource
import select
import signal
import subprocess
import sys
import threading
import time
from typing import Any

__all__ = ["MAX_SERVERS", "run_bounded"]

MAX_SERVERS = 4
_ENV = {"MALLOC_ARENA_MAX": "2", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
_idle: queue.LifoQueue[_Server] = queue.LifoQueue()
_count_lock = threading.Lock()
_started: list[_Server] = []


def run_bounded(target: str, path: str, limits: dict[str, Any], params: dict[str, Any]) -> tuple[Any, str | None]:
    """Run the job ``target`` on ``path`` in a bounded child: ``(result, failure)``.

    ``target`` names the job as ``"physeval.module:function"``; it is called as
    ``function(path, limits, **params)`` in the child and must return JSON-ready data. This
    module knows no job: the caller names it, so the dependency runs one way (video and frames
    use this executor, never the reverse). ``limits`` holds ``memory_bytes``, ``cpu_s`` and
    ``wall_s`` (and is passed on to the job as its bounds). Never raises for the video's content.
    """
    request = {"target": target, "path": path, "limits": limits, "params": params}
    server = _acquire()
    if server is not None:
        try:
            reply = server.ask(request)
        except (OSError, ValueError):
            server.close()
            server = None
        else:
            _idle.put(server)
            return reply["result"], reply["failure"]
    return _run_fresh(request)


def _acquire() -> _Server | None:
    try:
        return _idle.get_nowait()
    except queue.Empty:
        pass
    with _count_lock:
        alive = [s for s in _started if s.alive()]
        _started[:] = alive
        if len(alive) < MAX_SERVERS:
            try:
                server = _Server()
            except OSError:
                return None
            _started.append(server)
            return server
    try:
        return _idle.get(timeout=600)
    except queue.Empty:
        return None


class _Server:
    """One warm media server process and its request/reply pipe (one request at a time)."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from physeval.scenes.media_child import serve; serve()"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, **_ENV},
            text=True,
            bufsize=1,
        )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise OSError("the media server ended")
        reply = json.loads(line)
        if not isinstance(reply, dict) or "result" not in reply:
            raise ValueError("a malformed reply from the media server")
        return reply

    def close(self) -> None:
        try:
            self.proc.kill()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            pass
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe is not None:
                try:
                    pipe.close()
                except OSError:
                    pass


@atexit.register
def _stop_servers() -> None:
    for server in _started:
        server.close()


def serve() -> None:
    """The media server's loop: import the decoders once, then fork one bounded child per request."""
    import av  # noqa: F401  (imported here once, inherited by every forked child)
    import numpy  # noqa: F401
    import PIL.Image  # noqa: F401

    for line in sys.stdin:
        try:
            request = json.loads(line)
            _job(request["target"])  # import the job's module here once: every forked child inherits it
            reply = _fork_and_run(request)
        except Exception as exc:  # noqa: BLE001 - a broken request must not end the server
            reply = {"result": None, "failure": f"the media server could not run the request: {exc}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


def _fork_and_run(request: dict[str, Any]) -> dict[str, Any]:
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the bounded child
        os.close(read_fd)
        status = 0
        try:
            data = json.dumps({"result": _work(request)}).encode()
            while data:
                data = data[os.write(write_fd, data) :]
        except BaseException:  # noqa: BLE001 - any failure is reported through the exit status
            status = 3
        os._exit(status)
    os.close(write_fd)
    chunks, failure = _collect(read_fd, pid, float(request["limits"]["wall_s"]))
    os.close(read_fd)
    if failure is None:
        try:
            return {"result": json.loads(b"".join(chunks))["result"], "failure": None}
        except (ValueError, KeyError):
            failure = "the decoder process returned no readable result"
    return {"result": None, "failure": failure}


def _collect(fd: int, pid: int, wall_s: float) -> tuple[list[bytes], str | None]:
    """Read the child's output until it exits; kill it at the deadline; say how it ended."""
    deadline = time.monotonic() + wall_s
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return chunks, f"the decoder did not finish within {wall_s:g} s (killed)"
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            data = os.read(fd, 1 << 20)
            if data:
                chunks.append(data)
                continue
            break  # EOF: the child closed its end (exited)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return (
            chunks,
            f"the decoder process failed (killed by signal {os.WTERMSIG(status)}; memory or CPU limit, or a crash)",
        )
    if os.WEXITSTATUS(status) != 0:
        return (
            chunks,
            f"the decoder process failed (exit status {os.WEXITSTATUS(status)}; memory or CPU limit, or a crash)",
        )
    return chunks, None


def _work(request: dict[str, Any]) -> Any:
    """In the child: limit this process, then run the task."""
    limits = request["limits"]
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu_s"], limits["cpu_s"] + 2))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return _job(request["target"])(request["path"], limits, **request["params"])


def _job(target: str) -> Any:
    """The function ``"physeval.module:function"`` names (only physeval's own modules are accepted)."""
    module_name, _, function_name = str(target).partition(":")
    if not module_name.startswith("physeval.") or not function_name:
        raise ValueError(f"not a physeval job: {target!r}")
    return getattr(importlib.import_module(module_name), function_name)


def _run_fresh(request: dict[str, Any]) -> tuple[Any, str | None]:
    """The same work in a fresh interpreter (when no server can be used)."""
    wall_s = float(request["limits"]["wall_s"])
    code = (
        "import json, sys\n"
        "from physeval.scenes.media_child import _work\n"
        "print(json.dumps(_work(json.loads(sys.stdin.read()))))\n"
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code],
            input=json.dumps(request).encode(),
            capture_output=True,
            timeout=wall_s,
            env={**os.environ, **_ENV},
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"the decoder did not finish within {wall_s:g} s (killed)"
    except OSError as exc:
        return None, f"could not start the decoder process: {exc}"
    if proc.returncode != 0:
        how = f"killed by signal {-proc.returncode}" if proc.returncode < 0 else f"exit status {proc.returncode}"
        return None, f"the decoder process failed ({how}; memory or CPU limit, or a crash)"
    try:
        return json.loads(proc.stdout), None
    except ValueError:
        return None, "the decoder process returned no readable result"

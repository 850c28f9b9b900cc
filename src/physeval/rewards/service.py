"""``physeval serve``: the rewards as an HTTP service (FastAPI + uvicorn; the ``serve`` extra).

Endpoints:

* ``POST /score``: ``{"id"?, "completions": [...], "references"?: [...], "questions"?: [...],
  "scenes"?: [...]}`` -> ``{"id", "rewards": [...], "results": [RewardResult dicts]}`` (scenes
  are bank ids; the scene track also takes them as ``references``).
* ``POST /get_reward``: OpenRLHF's remote reward-model protocol, ``{"query", "prompts", "labels"}``
  -> ``{"rewards", "scores", "extra_logs"}`` (the response is the query after its prompt).
* ``GET /health``: ``{"status": "ok", ...}``; ``GET /metrics``: requests, answers by status,
  latency percentiles, queue depth, requests in flight, per-stage counts.

The bodies are validated by strict pydantic models (:mod:`physeval.rewards.requests`, published in
``GET /openapi.json``): a wrong body is answered 400 with one line naming the field and the first bad
item. A body over ``max_body_bytes`` is answered 413, and every text echoed in an answer is cut to
2,000 characters with a marker (:mod:`physeval.rewards.limits`).

Contract:

* **Bounded queue, backpressure.** A request waits in a queue of ``queue_size`` requests served by
  ``concurrency`` workers. When the queue is full the request is answered at once with 503 and
  ``Retry-After``; no request is ever dropped silently (each is answered 200, 4xx or 503).
* **Timeouts explain themselves.** A request not scored within ``request_timeout`` seconds is
  answered 200 with ``"reward": null`` for each item (not measured: a trainer must not read it as the
  policy's 0), outcome ``timeout`` and the reason, never left hanging. OpenRLHF's ``/get_reward``
  needs numbers: there the item is 0 with ``extra_logs.scored`` 0.
* **Graceful shutdown.** On SIGTERM or SIGINT the server stops accepting connections, finishes
  every request already received (uvicorn's graceful shutdown), then stops the workers and pools;
  it prints one line with the counts so an operator (or a test) can check nothing was lost.
* **Where work runs.** ``executor="local"``: the shared grading pool and a render pool on this
  machine; ``"ray"``: Ray tasks on whatever cluster ``ray.init(address=ray_address)`` reaches.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import signal
import socket
import sys
import threading
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from physeval.rewards.batch import NumericRewardOptions, SymbolicRewardOptions, Track, ascore_batch
from physeval.rewards.executors import ExecutorName, make_executor
from physeval.rewards.limits import DEFAULT_MAX_BODY_BYTES, BodyLimit, bound_text, bounded
from physeval.rewards.requests import RewardModelRequest, ScoreRequest, describe_errors, request_models
from physeval.rewards.result import RewardResult
from physeval.rewards.scene import SceneRewardOptions
from physeval.rewards.trainers import openrlhf_result, prompt_text

try:  # the serve extra; FastAPI resolves the handlers' annotations by name from this module
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
except ImportError:  # pragma: no cover - create_app/serve say which extra to install
    Request = Any  # type: ignore[misc,assignment]
    RequestValidationError = Exception  # type: ignore[misc,assignment]

__all__ = ["Busy", "RewardService", "ServiceOptions", "create_app", "serve"]

_LATENCY_KEEP = 200_000


@dataclass(frozen=True)
class ServiceOptions:
    """How the reward service runs.

    Attributes:
        track: ``numeric``, ``symbolic`` or ``scene``.
        executor: ``local`` or ``ray``; ``ray_address`` (and ``ray_node_ip``, this machine's node address)
            are given to ``ray.init`` (``None``: a local Ray).
        queue_size: Requests that may wait; one more is answered 503.
        concurrency: Requests scored at once (their items fan out over the pools).
        request_timeout: Seconds before a request is answered as not measured (``null`` rewards, outcome ``timeout``).
        retry_after_s: The ``Retry-After`` of a 503.
        max_items: Items one request may carry (more is a 413).
        max_body_bytes: The largest request body read (a larger one is a 413).
        render_workers: Render processes (local executor; ``None``: one per core).
        numeric / symbolic / scene: The track's reward options.
    """

    track: Track = "numeric"
    executor: ExecutorName = "local"
    ray_address: str | None = None
    ray_node_ip: str | None = None
    queue_size: int = 1024
    concurrency: int = 64
    request_timeout: float = 600.0
    retry_after_s: int = 1
    max_items: int = 8192
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    render_workers: int | None = None
    numeric: NumericRewardOptions = field(default_factory=NumericRewardOptions)
    symbolic: SymbolicRewardOptions = field(default_factory=SymbolicRewardOptions)
    scene: SceneRewardOptions = field(default_factory=SceneRewardOptions)

    def __post_init__(self) -> None:
        if self.track not in ("numeric", "symbolic", "scene"):
            raise ValueError(f"track must be 'numeric', 'symbolic' or 'scene', not {self.track!r}")
        if self.queue_size < 1 or self.concurrency < 1:
            raise ValueError("queue_size and concurrency must be at least 1")
        if self.max_body_bytes < 1:
            raise ValueError("max_body_bytes must be at least 1")

    @property
    def track_options(self) -> Any:
        """The options of the served track."""
        return {"numeric": self.numeric, "symbolic": self.symbolic, "scene": self.scene}[self.track]


class Busy(Exception):
    """The queue is full: answer 503 with ``Retry-After``."""


@dataclass
class _Job:
    completions: list[str]
    references: list[Any] | None
    questions: list[str] | None
    future: asyncio.Future[list[RewardResult]]


class _Metrics:
    """Counters and latencies, safe to read while requests run."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = time.time()
        self.requests = 0
        self.items = 0
        self.statuses: collections.Counter[int] = collections.Counter()
        self.stages: collections.Counter[str] = collections.Counter()
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.timeouts = 0
        self.latencies: collections.deque[float] = collections.deque(maxlen=_LATENCY_KEEP)

    def answered(self, status: int, seconds: float, results: Sequence[RewardResult] = ()) -> None:
        with self.lock:
            self.statuses[status] += 1
            self.latencies.append(seconds)
            for r in results:
                self.outcomes[r.outcome] += 1
                self.stages[str(r.explanation.get("stage") or r.outcome)] += 1

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            latencies = sorted(self.latencies)
            return {
                "uptime_s": time.time() - self.started, "requests": self.requests, "items": self.items,
                "responses": {str(k): v for k, v in sorted(self.statuses.items())},
                "rejected_503": self.statuses.get(503, 0), "timeouts": self.timeouts,
                "latency_s": {f"p{q}": _percentile(latencies, q) for q in (50, 90, 99)}
                | {"max": latencies[-1] if latencies else None, "count": len(latencies)},
                "outcomes": dict(self.outcomes), "stages": dict(self.stages),
            }


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    rank = max(0, min(len(values) - 1, int(round(q / 100 * (len(values) - 1)))))
    return values[rank]


class RewardService:
    """The queue, its workers and the executor behind the HTTP endpoints (usable without HTTP)."""

    def __init__(self, options: ServiceOptions, *, judges: Sequence[Any] | None = None) -> None:
        self.options = options
        self.judges = judges
        self.metrics = _Metrics()
        self.in_flight = 0
        self._queue: asyncio.Queue[_Job] | None = None
        self._workers: list[asyncio.Task[None]] = []
        self._executor: Any = None

    @property
    def queue_depth(self) -> int:
        """Requests waiting for a worker."""
        return self._queue.qsize() if self._queue is not None else 0

    async def start(self) -> None:
        """Build the executor (pools start on first use) and the workers."""
        self._executor = await asyncio.to_thread(make_executor, self.options.executor,
                                                 render_workers=self.options.render_workers,
                                                 address=self.options.ray_address,
                                                 node_ip_address=self.options.ray_node_ip)
        if self.options.track != "scene" and hasattr(self._executor, "warm"):
            await asyncio.to_thread(self._executor.warm)
        self._queue = asyncio.Queue(maxsize=self.options.queue_size)
        self._workers = [asyncio.create_task(self._work()) for _ in range(self.options.concurrency)]

    async def stop(self) -> None:
        """Finish every queued request, then stop the workers and the executor."""
        if self._queue is not None:
            await self._queue.join()
        for task in self._workers:
            task.cancel()
        await asyncio.gather(*self._workers, return_exceptions=True)
        if self._executor is not None:
            await asyncio.to_thread(self._executor.close)

    async def _work(self) -> None:
        assert self._queue is not None
        while True:
            job = await self._queue.get()
            self.in_flight += 1
            try:
                results = await ascore_batch(self.options.track, job.completions, job.references,
                                             questions=job.questions, options=self.options.track_options,
                                             executor=self._executor, judges=self.judges)
                if not job.future.done():
                    job.future.set_result(results)
            except Exception as exc:  # noqa: BLE001 - answered as a 500 naming the failure
                if not job.future.done():
                    job.future.set_exception(exc)
            finally:
                self.in_flight -= 1
                self._queue.task_done()

    async def score(self, completions: list[str], references: list[Any] | None,
                    questions: list[str] | None = None) -> list[RewardResult]:
        """Queue one request and wait for it (``Busy`` when the queue is full; on timeout every item is
        ``None``, outcome ``timeout``, with the reason)."""
        assert self._queue is not None, "the service is not started"
        future: asyncio.Future[list[RewardResult]] = asyncio.get_running_loop().create_future()
        try:
            self._queue.put_nowait(_Job(completions, references, questions, future))
        except asyncio.QueueFull:
            raise Busy() from None
        with self.metrics.lock:
            self.metrics.requests += 1
            self.metrics.items += len(completions)
        timeout = self.options.request_timeout
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            with self.metrics.lock:
                self.metrics.timeouts += 1
            reason = f"not scored within the {timeout:g} s request timeout (the service was saturated or slow)"
            return [RewardResult(None, outcome="timeout", reason=reason, explanation={"stage": "timeout"})
                    for _ in completions]


def create_app(options: ServiceOptions, *, judges: Sequence[Any] | None = None, announce: bool = False,
               sandbox: dict[str, Any] | None = None) -> Any:
    """The FastAPI application (``judges``: model objects for the scene track instead of option specs;
    ``sandbox``: the environment verified at start, shown by ``/health``)."""
    try:
        from fastapi import FastAPI
        from fastapi.responses import JSONResponse
    except ImportError as exc:
        from physeval.errors import UserError

        raise UserError("physeval serve needs the serve extra: pip install 'physeval[serve]'") from exc

    service = RewardService(options, judges=judges)

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        await service.start()
        if announce:
            print("physeval serve: ready", file=sys.stderr, flush=True)
        try:
            yield
        finally:
            await service.stop()
            if announce:
                snap = service.metrics.snapshot()
                print(f"physeval serve: stopped; requests={snap['requests']} "
                      f"answered={sum(snap['responses'].values())} responses={snap['responses']} "
                      f"in_flight={service.in_flight} queued={service.queue_depth}", file=sys.stderr, flush=True)

    app = FastAPI(title="physeval rewards", lifespan=lifespan)
    app.state.service = service
    app.add_middleware(BodyLimit, limit=options.max_body_bytes,
                       on_reject=lambda: service.metrics.answered(413, 0.0))
    score_model, reward_model = request_models(options.track)
    fields = {"/score": list(score_model.model_fields), "/get_reward": list(reward_model.model_fields)}

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Any:
        message = describe_errors(exc.errors(), fields.get(request.url.path, []), request.headers.get("content-type"))
        return _bad(bound_text(message))

    async def _scored(completions: list[str], references: list[Any] | None, questions: list[str] | None,
                      render: Any) -> Any:
        started = time.perf_counter()
        if len(completions) > options.max_items:
            service.metrics.answered(413, time.perf_counter() - started)
            return JSONResponse({"error": f"at most {options.max_items} items per request"}, status_code=413)
        try:
            results = await service.score(completions, references, questions)
        except Busy:
            service.metrics.answered(503, time.perf_counter() - started)
            return JSONResponse({"error": "the reward queue is full; retry later",
                                 "queue_depth": service.queue_depth}, status_code=503,
                                headers={"Retry-After": str(options.retry_after_s)})
        except Exception as exc:  # noqa: BLE001 - a failure is answered, never swallowed
            service.metrics.answered(500, time.perf_counter() - started)
            return JSONResponse({"error": bound_text(f"{type(exc).__name__}: {exc}")}, status_code=500)
        service.metrics.answered(200, time.perf_counter() - started, results)
        return JSONResponse(bounded(render(results)))

    def _bad(message: str) -> Any:
        service.metrics.answered(400, 0.0)
        return JSONResponse({"error": message}, status_code=400)

    async def score(body: ScoreRequest) -> Any:
        return await _scored(body.completions, body.items, body.questions, lambda results: {
            "id": body.id, "rewards": [r.reward for r in results], "results": [r.to_dict() for r in results]})

    async def get_reward(body: RewardModelRequest) -> Any:
        prompts = body.prompts if body.prompts is not None else [""] * len(body.query)
        responses = [q[len(p):] if p and q.startswith(p) else q for q, p in zip(body.query, prompts)]
        return await _scored(responses, list(body.labels), [prompt_text(p) for p in prompts], openrlhf_result)

    # the served track picks the body models (FastAPI validates with them and publishes their schema)
    score.__annotations__["body"] = score_model
    get_reward.__annotations__["body"] = reward_model
    app.post("/score")(score)
    app.post("/get_reward")(get_reward)

    @app.get("/health")
    async def health() -> Any:
        out: dict[str, Any] = {"status": "ok", "track": options.track, "executor": options.executor,
                               "queue_depth": service.queue_depth, "in_flight": service.in_flight}
        if options.track == "scene":
            out["judges"] = options.scene.record()  # reward and evaluation judges, side by side
            out["sandbox"] = sandbox  # the build checked at start (None: not checked here, e.g. Ray's nodes do)
        return out

    @app.get("/metrics")
    async def metrics() -> Any:
        return {**service.metrics.snapshot(), "queue_depth": service.queue_depth, "in_flight": service.in_flight,
                "queue_size": options.queue_size, "concurrency": options.concurrency, "track": options.track,
                "executor": options.executor}

    return app


def _checked_sandbox(options: ServiceOptions) -> dict[str, Any] | None:
    """The scene track's sandbox environment on this machine, verified before the service says
    ready, as ``physeval run`` does before its first sample: a backend that cannot run here or a
    broken environment stops ``physeval serve`` with the fix (exit 2) instead of answering every
    request with a null reward. ``None`` for the other tracks, and for Ray, whose nodes verify
    their own environment (the driver may have none)."""
    if options.track != "scene" or options.executor != "local":
        return None
    from physeval.scenes.sandbox import verify_environment

    return verify_environment(None, sandbox=options.scene.sandbox).to_dict()


def serve(options: ServiceOptions, *, host: str = "127.0.0.1", port: int = 8000,
          graceful_timeout: float | None = None) -> None:
    """Run the service until SIGTERM/SIGINT; prints ``physeval serve: listening on URL`` once bound."""
    try:
        import uvicorn
    except ImportError as exc:
        from physeval.errors import UserError

        raise UserError("physeval serve needs the serve extra: pip install 'physeval[serve]'") from exc
    sandbox = _checked_sandbox(options)  # before the port opens: nothing connects to a service that cannot start
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        if exc.errno != errno.EADDRINUSE:
            raise
        from physeval.errors import UserError

        why = " (vLLM's default port too: is a model server running there?)" if port == 8000 else ""
        raise UserError(f"port {port} on {host} is already in use{why}: pass --port N for another port, "
                        "or --port 0 for any free one") from None
    sock.listen(4096)
    bound = sock.getsockname()[1]
    print(f"physeval serve: listening on http://{host}:{bound} (track {options.track}, executor {options.executor})",
          file=sys.stderr, flush=True)
    if sandbox is not None:
        print(f"physeval serve: programs run under {sandbox['backend']} in {sandbox['build']}", file=sys.stderr,
              flush=True)
    app = create_app(options, announce=True, sandbox=sandbox)
    grace = None if graceful_timeout is None else max(1, round(graceful_timeout))
    config = uvicorn.Config(app, log_level="warning", access_log=False, backlog=4096, timeout_keep_alive=30,
                            timeout_graceful_shutdown=grace)
    # uvicorn re-raises the signal it stopped on once it is done; a SIGTERM after a graceful
    # shutdown is a clean exit (status 0), so the handler it restores and re-raises into is a no-op
    signal.signal(signal.SIGTERM, lambda *_: None)
    uvicorn.Server(config).run(sockets=[sock])

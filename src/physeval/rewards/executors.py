"""Where reward work runs: this machine's process pools, or Ray tasks on a cluster.

Why: the same batched reward code must run in one process for a small job, fan out over the
machine's cores for a GRPO batch, and over a Ray cluster for a big one, with identical
rewards. An executor offers three awaitable operations and nothing else:

* ``grade(fn, items)``: ``[fn(i) for i in items]`` in input order. Locally this is the ONE shared
  grading pool (:func:`physeval.grading.pool.grade_many`, run in a thread so the event loop
  never blocks); on Ray, chunks of items as Ray tasks. Graders are pure, so the results are
  identical to serial.
* ``render(job)``: one scene program rendered in the sandbox (and, for frames mode, its frames
  sampled in the same worker, so decoding never happens on the event loop). Locally a spawn
  process pool of ``render_workers``, every job under the environment the batch verified
  (``job.environment``); on Ray one task per program (``num_cpus=1``), which verifies on its
  node (the driver's build when the node has it, see
  :func:`~physeval.scenes.sandbox.verify_on_this_node`).
* ``judge(job)``: one judge verdict. Locally a coroutine on the caller's loop (requests overlap,
  bounded by the caller's semaphore); on Ray a call of one zero-CPU asynchronous actor
  (:class:`JudgeService`) that keeps the judge clients and overlaps the requests.

Executors are built once and kept (warm workers keep their caches); ``close()`` stops them.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import multiprocessing
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from physeval.parent_watch import die_with_parent

__all__ = ["ExecutorName", "JudgeJob", "JudgeService", "LocalExecutor", "RayExecutor", "RenderJob", "make_executor"]

ExecutorName = Literal["local", "ray"]

_SUBMIT_MAX = 4  # up to this many items go to the pool one by one (no thread, no batch ordering needed)


@dataclass(frozen=True)
class RenderJob:
    """One program to render: what :func:`physeval.scenes.render.render_program` needs, plus framing.

    ``n_frames > 0`` samples that many frames in the worker after a playable render; ``discard``
    deletes the video (and its temporary directory) afterwards, once the frames are taken.
    ``environment`` is the verified sandbox environment the batch pinned (``None``: resolved in
    the worker); ``python`` the interpreter a Ray node should use when it has it.
    """

    code: str
    timeout: float = 120.0
    sandbox: str = "auto"
    keep_dir: str | None = None
    video_name: str = "video.mp4"
    n_frames: int = 0
    max_side: int = 448
    discard: bool = False
    environment: Any = None  # an EnvironmentCheck (kept as Any: this module imports no scene code at import)
    python: str | None = None


@dataclass(frozen=True)
class JudgeJob:
    """One judge request for the Ray executor: judges named by model spec (built in the task)."""

    judges: tuple[str, ...]
    base_url: str | None
    kwargs: dict[str, Any] = field(default_factory=dict)


def render_job(job: RenderJob) -> tuple[Any, list[Any] | None]:
    """Render ``job`` (and sample its frames when asked); ``(Render, frames or None)``. Never raises."""
    from physeval.scenes.render import render_program

    render = render_program(job.code, timeout=job.timeout, keep_dir=job.keep_dir, video_name=job.video_name,
                            sandbox=job.sandbox, python=job.python, environment=job.environment)
    frames = None
    if render.playable and job.n_frames > 0 and render.video_path:
        try:
            from physeval.scenes.frames import sample_frames

            frames = list(sample_frames(render.video_path, job.n_frames, max_side=job.max_side))
        except Exception:  # noqa: BLE001 - no frames: the judge records it as an error verdict
            frames = []
    if job.discard and render.video_path:
        video = Path(render.video_path)
        try:
            video.unlink(missing_ok=True)
            if job.keep_dir is None:
                shutil.rmtree(video.parent, ignore_errors=True)
        except OSError:
            pass
    return render, frames


class JudgeService:
    """The body of the Ray judge actor: judge models built once per spec and kept, requests overlapping.

    One asynchronous actor holds every judge request in flight on one event loop (a request
    waits on the network, not a CPU); a zero-CPU task per request would start a Python worker
    process per request instead.
    """

    def __init__(self) -> None:
        self._judges: dict[tuple[tuple[str, ...], str | None], list[Any]] = {}

    async def judge(self, job: JudgeJob) -> Any:
        """One verdict."""
        from physeval.models.spec import model_from_spec
        from physeval.scenes.judge import judge_video

        key = (job.judges, job.base_url)
        if key not in self._judges:
            self._judges[key] = [model_from_spec(spec, base_url=job.base_url) for spec in job.judges]
        return await judge_video(judges=self._judges[key], **job.kwargs)


def _ray_render_job(job: RenderJob) -> tuple[Any, list[Any] | None]:
    """:func:`render_job` on a Ray node: the environment is pinned and verified on the node itself."""
    from physeval.scenes.render import Render, Stage
    from physeval.scenes.sandbox import SandboxEnvironmentError, SandboxUnavailable, verify_on_this_node

    try:
        environment = verify_on_this_node(job.python, sandbox=job.sandbox)
    except (SandboxUnavailable, SandboxEnvironmentError) as exc:
        import platform

        return Render(stage=Stage.SANDBOX_ERROR, reason=f"on Ray node {platform.node()}: {exc}"), None
    return render_job(replace(job, environment=environment))


def _hold(seconds: float) -> float:
    """Keep a pool worker busy briefly (so that each of several lands on its own worker)."""
    time.sleep(seconds)
    return seconds


def _chunk(fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
    return [fn(item) for item in items]


class LocalExecutor:
    """This machine: the shared grading pool, a spawn pool of ``render_workers`` for renders."""

    name = "local"

    def __init__(self, *, render_workers: int | None = None, grading_processes: int | None = None) -> None:
        self.render_workers = max(1, render_workers or os.cpu_count() or 1)
        self.grading_processes = grading_processes
        self._renders: concurrent.futures.ProcessPoolExecutor | None = None
        self._judges: dict[tuple[int, tuple[str, ...], str | None], list[Any]] = {}
        self._lock = threading.Lock()

    def _render_pool(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._lock:
            if self._renders is None:
                self._renders = concurrent.futures.ProcessPoolExecutor(
                    max_workers=self.render_workers, mp_context=multiprocessing.get_context("spawn"),
                    initializer=die_with_parent, initargs=(os.getpid(),))
            return self._renders

    async def grade(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """``[fn(i) for i in items]`` through :func:`physeval.grading.pool.grade_many`, off the loop."""
        from physeval.grading.pool import grade_many, submit

        items = list(items)
        if getattr(fn, "grade_inline", False) and len(items) <= _SUBMIT_MAX:
            # sub-millisecond graders (numeric): a pool round trip costs more than the grading
            return await asyncio.to_thread(grade_many, fn, items, processes=0)
        if self.grading_processes is None and 0 < len(items) <= _SUBMIT_MAX:
            # a few items (a service request): each straight into the shared pool, nothing waits on a thread
            return list(await asyncio.gather(*(asyncio.wrap_future(submit(fn, item)) for item in items)))
        return await asyncio.to_thread(grade_many, fn, items, processes=self.grading_processes)

    def warm(self) -> None:
        """Start the shared grading pool's workers now, so the first request waits on no start-up."""
        from physeval.grading.pool import grade_many, worker_count

        if self.grading_processes is None:
            grade_many(_hold, [0.2] * max(2, worker_count()))

    async def pin_environment(self, sandbox: str) -> dict[str, Any]:
        """The sandbox environment of one batch, as :class:`RenderJob` fields: verified here, once.

        Raises :class:`~physeval.scenes.sandbox.SandboxUnavailable` or
        :class:`~physeval.scenes.sandbox.SandboxEnvironmentError` (the batch's renders are then
        not measured).
        """
        from physeval.scenes.sandbox import verify_environment

        return {"environment": await asyncio.to_thread(verify_environment, None, sandbox=sandbox)}

    async def render(self, job: RenderJob) -> tuple[Any, list[Any] | None]:
        """Render in the process pool.

        A worker that dies (the host's OOM killer, a crash: never the sandboxed program, which
        cannot reach it) is the sandbox's fault: the render is ``sandbox_error`` (the reward is then
        not measured, ``None``) and the next render gets a fresh pool instead of a broken one.
        """
        loop = asyncio.get_running_loop()
        pool = self._render_pool()
        try:
            return await loop.run_in_executor(pool, render_job, job)
        except concurrent.futures.process.BrokenProcessPool as exc:
            from physeval.scenes.render import Render, Stage

            with self._lock:
                if self._renders is pool:
                    self._renders = None
            pool.shutdown(wait=False, cancel_futures=True)
            reason = f"the render pool died before the program ended: {exc}"
            return Render(stage=Stage.SANDBOX_ERROR, reason=reason), None

    async def judge(self, job: JudgeJob) -> Any:
        """Judges named by spec (built once per event loop and kept: their connections are reused)."""
        from physeval.models.spec import model_from_spec
        from physeval.scenes.judge import judge_video

        key = (id(asyncio.get_running_loop()), job.judges, job.base_url)  # clients belong to their loop
        with self._lock:
            judges = self._judges.get(key)
            if judges is None:
                judges = self._judges[key] = [model_from_spec(spec, base_url=job.base_url) for spec in job.judges]
        return await judge_video(judges=judges, **job.kwargs)

    def close(self) -> None:
        """Stop the render workers (the shared grading pool stays: it belongs to the process)."""
        with self._lock:
            pool, self._renders = self._renders, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


class RayExecutor:
    """Ray tasks on whatever cluster ``ray.init(address=...)`` reaches (``address=None``: a local one)."""

    name = "ray"

    def __init__(self, *, address: str | None = None, chunk_size: int = 64, node_ip_address: str | None = None) -> None:
        try:
            import ray
        except ImportError as exc:
            from physeval.errors import UserError

            raise UserError("--executor ray needs ray: pip install 'physeval[ray]'") from exc
        if not ray.is_initialized():
            extra: dict[str, Any] = {"_node_ip_address": node_ip_address} if node_ip_address else {}
            ray.init(address=address, ignore_reinit_error=True, include_dashboard=False, log_to_driver=False, **extra)
        self._ray = ray
        self.chunk_size = max(1, chunk_size)
        self._render = ray.remote(num_cpus=1, max_retries=2)(_ray_render_job)
        self._grade = ray.remote(num_cpus=1, max_retries=2)(_chunk)
        self._judge_actor: Any = None
        self._lock = threading.Lock()

    async def grade(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        """Chunks of ``chunk_size`` items as Ray tasks; results in input order."""
        items = list(items)
        chunks = [items[i:i + self.chunk_size] for i in range(0, len(items), self.chunk_size)]
        refs = [self._grade.remote(fn, chunk) for chunk in chunks]
        parts = await asyncio.gather(*(asyncio.wrap_future(ref.future()) for ref in refs))
        return [result for part in parts for result in part]

    async def pin_environment(self, sandbox: str) -> dict[str, Any]:
        """The batch's interpreter as the driver names it now (pinned, not verified: the driver may
        have no sandbox); each node verifies it, or its own when it lacks it (:func:`_ray_render_job`)."""
        from physeval.scenes.sandbox import default_sandbox_python, pin_interpreter

        return {"python": pin_interpreter(default_sandbox_python())}

    async def render(self, job: RenderJob) -> tuple[Any, list[Any] | None]:
        """One Ray task per program."""
        return await asyncio.wrap_future(self._render.remote(job).future())

    async def judge(self, job: JudgeJob) -> Any:
        """One call of the judge actor (zero CPUs, started on first use) per verdict."""
        with self._lock:
            if self._judge_actor is None:
                remote: Any = self._ray.remote  # its stubs know no max_concurrency (an actor option)
                actor = remote(num_cpus=0, max_concurrency=1024)(JudgeService)
                self._judge_actor = actor.remote()
        return await asyncio.wrap_future(self._judge_actor.judge.remote(job).future())

    def close(self) -> None:
        """Stop the judge actor (the cluster itself belongs to whoever started it)."""
        with self._lock:
            actor, self._judge_actor = self._judge_actor, None
        if actor is not None:
            self._ray.kill(actor)


def make_executor(name: ExecutorName = "local", *, render_workers: int | None = None,
                  grading_processes: int | None = None, address: str | None = None,
                  node_ip_address: str | None = None) -> LocalExecutor | RayExecutor:
    """The executor called ``name`` (``local`` or ``ray``; ``address``/``node_ip_address`` go to ``ray.init``)."""
    if name == "local":
        return LocalExecutor(render_workers=render_workers, grading_processes=grading_processes)
    if name == "ray":
        return RayExecutor(address=address, node_ip_address=node_ip_address)
    raise ValueError(f"executor must be 'local' or 'ray', not {name!r}")

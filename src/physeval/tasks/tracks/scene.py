"""The scene track (SimuScene style): the model writes a program that renders a physical scenario.

Each response goes through: code extraction -> isolated render (sandbox, bounded process
pool, or Ray tasks) -> video checks (the stage ladder of :mod:`physeval.scenes.render`) ->
vision-language judges answering the scenario's yes/no verification questions. A sample is
correct only when the video is playable and every question is judged true. ``text`` judge
mode is the paper's LLM-as-judge ablation: the judge reads the code, nothing is rendered.
Benchmarks (``simuscene``, ``bank-scene``) subclass :class:`SceneTask` and keep only loaders.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import concurrent.futures.process
import multiprocessing
import os
import platform
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Literal

from physeval.metrics import MetricSet, SampleOutcome, breakdown_metrics, mean_score_metric, rate_metrics
from physeval.models.spec import model_from_spec
from physeval.parent_watch import die_with_parent
from physeval.problems import Grade, Outcome, Problem
from physeval.scenes.judge import judge_video
from physeval.scenes.judge.notes import judge_reply_notes
from physeval.scenes.prompt import extract_code, scene_prompt
from physeval.scenes.render import STAGES, Render, Stage, render_program
from physeval.scenes.sandbox import EnvironmentCheck, SandboxEnvironmentError, SandboxUnavailable
from physeval.tasks.base import GradeContext, Task, TaskError
from physeval.tasks.options import TaskOptions, option

__all__ = ["SceneGrade", "SceneTask", "SceneOptions"]

_STAGE_ORDER = STAGES


@dataclass(frozen=True)
class SceneGrade(Grade):
    """One scene sample: how far the program got, and what the judges said.

    Attributes:
        stage: The render stage reached (see :mod:`physeval.scenes.render`).
        executable / rendered / playable: The stage flags used for the rate metrics.
        judged: Whether judges were asked (playable videos, or any code in text mode).
        render: The full render record (exit status, signal, time, memory, stderr tail, video facts).
        judge: The full judge verdict (per-judge answers, votes, cost), when judged.
        judge_tokens / judge_seconds: The judges' cost for this sample.
    """

    stage: str = "no_code"
    executable: bool = False
    rendered: bool = False
    playable: bool = False
    judged: bool = False
    render: dict[str, Any] = field(default_factory=dict)
    judge: dict[str, Any] | None = None
    judge_tokens: int = 0
    judge_seconds: float = 0.0


@dataclass(frozen=True)
class SceneOptions(TaskOptions):
    """Options of the scene track."""

    judge: tuple[str, ...] = option((), "scene: judge model, e.g. openai/NAME (repeat for an ensemble)")
    judge_base_url: str | None = option(None, "scene: judge server URL")
    judge_mode: Literal["frames", "video", "text"] = option("frames", "scene: how the judge sees a sample")
    judge_video: bool = option(False, "scene: send the video, not frames (judge_mode=video)")
    judge_frames: int = option(16, "scene: frames sampled per video (default 16)")
    aggregation: Literal["binary", "ratio"] = option("binary", "scene: how question verdicts combine")
    render_timeout: float = option(120.0, "scene: wall-clock seconds per program (default 120)")
    render_workers: int = option(2, "scene: renders in parallel (default 2)")
    executor: Literal["local", "ray"] = option("local", "scene: where renders run")
    code_pick: Literal["first", "last", "longest"] = option("first", "scene: which fenced python block is the program")
    sandbox: str = option("auto", "scene: sandbox backend (auto, bwrap, namespaces, none)")
    protocol: Literal["physeval", "simuscene"] = option(
        "physeval", "scene: judge protocol: physeval's own, or SimuScene's as published (its judge prompt and "
                    "AgentFly's 'Not sure' + confidence rule)")
    judge_plain_text: bool = option(False, "scene: ask judges for plain text, not structured output first")


class SceneTask(Task):
    """Shared flow of the scene tasks.

    Options: ``judge`` (list of model specs; none = render-only, accuracy not measured),
    ``judge_base_url``, ``judge_mode`` (``frames``/``video``/``text``; ``judge_video`` = video),
    ``judge_frames`` (16), ``aggregation`` (``binary``/``ratio``), ``render_timeout`` (120 s),
    ``render_workers`` (2), ``executor`` (``local``/``ray``), ``code_pick`` (``first``),
    ``sandbox`` (``auto``; or ``bwrap``, ``namespaces``, ``none``: see :mod:`physeval.scenes.sandbox`),
    ``protocol`` (``physeval``/``simuscene``: see :mod:`physeval.scenes.judge.protocol`),
    ``judge_plain_text`` (judges are asked for structured output first unless set).
    """

    Options: ClassVar[type[TaskOptions]] = SceneOptions
    opts: SceneOptions
    track = "scene"
    breakdowns: ClassVar[tuple[str, ...]] = ("domain", "level")
    default_prompt = "{question}"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._pool: concurrent.futures.Executor | None = None
        self._judges: list[Any] | None = None
        self._judges_lock = threading.Lock()  # judges and the render pool are each built once, even from threads
        self._pool_lock = threading.Lock()
        self._environment: EnvironmentCheck | None = None  # the verified build every render of this task uses
        self._environment_lock = threading.Lock()

    # -- prompt ---------------------------------------------------------------------------
    def prompt(self, problem: Problem) -> list[dict[str, Any]]:
        """The scene prompt: a self-contained program writing an MP4 to ``sys.argv[1]``."""
        messages = scene_prompt(problem.question)  # its system message carries the sandbox rules: always kept
        if self.system_prompt:
            messages[0] = {"role": "system", "content": f"{messages[0]['content']}\n\n{self.system_prompt}"}
        if self.prompt_template != self.default_prompt:
            messages[-1] = {"role": "user", "content": self.prompt_template.replace("{question}", problem.question)}
        return messages

    # -- grading --------------------------------------------------------------------------
    @property
    def judge_mode(self) -> Literal["frames", "video", "text"]:
        """``frames`` (default), ``video`` or ``text``."""
        return "video" if self.opts.judge_video else self.opts.judge_mode

    def judges(self) -> list[Any]:
        """The judge models named by ``--judge`` (built once)."""
        if self._judges is None:
            with self._judges_lock:
                if self._judges is None:
                    self._judges = [model_from_spec(s, base_url=self.opts.judge_base_url) for s in self.opts.judge]
        return self._judges

    async def preflight(self) -> None:
        """Check the sandbox, its environment and every judge before the first sample.

        No isolating sandbox (and ``none`` not asked for) is a user error before any request; so
        is a sandbox interpreter that lacks a package or disagrees with its lock file (the message
        names ``physeval sandbox setup``); a dead judge stops the run at once.
        """
        await self.check_environment()
        for judge in self.judges():
            check = getattr(judge, "preflight", None)
            if check is not None:
                await check()

    async def check_environment(self) -> None:
        """Verify the sandbox environment (no model request): a run calls this before the model's
        preflight and before grading any cached answer, so a broken environment stops it with the
        fix (exit status 2) before the first sample. Text judge mode renders nothing."""
        if self.judge_mode != "text":
            # SandboxUnavailable or SandboxEnvironmentError (user errors) name the fix before any request
            await asyncio.to_thread(self.sandbox_environment)

    def sandbox_environment(self) -> EnvironmentCheck:
        """The verified sandbox environment every render of this task runs under (resolved once).

        Pinned to one build by :func:`~physeval.scenes.sandbox.verify_environment` at the first
        call (the preflight of a run, or the first render of a regrade), so a ``physeval sandbox
        setup`` that switches the environment mid-run changes nothing for this task. Raises
        what ``verify_environment`` raises (user errors naming the fix).
        """
        if self._environment is None:
            with self._environment_lock:
                if self._environment is None:
                    from physeval.scenes.sandbox import verify_environment

                    self._environment = verify_environment(sandbox=self.opts.sandbox)
        return self._environment

    def grade_error_kind(self, grade: Grade) -> str:
        """``sandbox`` when no sandbox could run the program, ``judge`` when the judges failed on a
        playable video, else ``grader``."""
        if getattr(grade, "stage", None) == "sandbox_error":
            return "sandbox"
        return "judge" if getattr(grade, "judged", False) or (getattr(grade, "judge", None) is not None) else "grader"

    def grade(self, problem: Problem, response: str) -> Grade:
        """Synchronous grading (renders in this process); the runner uses :meth:`agrade`."""
        return asyncio.run(self.agrade(problem, response, GradeContext()))

    async def agrade(self, problem: Problem, response: str, context: GradeContext) -> SceneGrade:
        """Extract, render (off the event loop, in the pool), check, then judge."""
        code = extract_code(response, pick=self.opts.code_pick)
        if self.judge_mode == "text":
            return await self._judge_text(problem, code, context)
        video_dir = (context.run_dir / "videos") if context.run_dir else None
        video_name = f"{_safe(problem.id)}_v{_safe(problem.variant)}_s{context.sample}.mp4"
        render = await self._render(code, video_dir, video_name)
        base: dict[str, Any] = dict(stage=render.stage, executable=render.executable, rendered=render.rendered,
                                    playable=render.playable, render=render.to_dict(), extracted=code)
        if not render.playable:
            # stage "error" is the model's program crashing; as an outcome "error" means the grader failed
            # stage "sandbox_error" measured nothing about the program: an error row (kind sandbox), not a 0
            outcome = {Stage.ERROR: Outcome.RUNTIME_ERROR, Stage.SANDBOX_ERROR: Outcome.ERROR}.get(
                Stage(render.stage), render.stage)
            return SceneGrade(correct=False, outcome=outcome, reason=render.reason or render.stage, score=0.0,
                              **base)
        judges = context.extras.get("judges") or self.judges()  # a host's own judges (inspect model roles) first
        if not judges:
            return SceneGrade(correct=False, outcome=Outcome.UNJUDGED, score=0.0,
                              reason="playable; no --judge given, so the questions were not asked", **base)
        verdict = await judge_video(
            questions=problem.meta.get("questions") or [], judges=judges, video_path=render.video_path,
            mode=self.judge_mode, aggregation=self.opts.aggregation,
            n_frames=self.opts.judge_frames, summarize=problem.meta.get("summarize"),
            scenario=problem.question, protocol=self.opts.protocol, structured=not self.opts.judge_plain_text,
        )
        return SceneGrade(correct=verdict.correct, outcome=verdict.outcome, reason=verdict.reason,
                          score=verdict.score, judged=True, judge=verdict.to_dict(),
                          judge_tokens=verdict.prompt_tokens + verdict.completion_tokens,
                          judge_seconds=verdict.judge_seconds, **base)

    async def _judge_text(self, problem: Problem, code: str | None, context: GradeContext) -> SceneGrade:
        if code is None:
            return SceneGrade(correct=False, outcome="no_code", reason="no program in the reply", score=0.0)
        judges = context.extras.get("judges") or self.judges()
        if not judges:
            raise TaskError("--judge-mode text needs at least one --judge")
        verdict = await judge_video(questions=problem.meta.get("questions") or [], judges=judges, code=code,
                                    mode="text", aggregation=self.opts.aggregation,
                                    summarize=problem.meta.get("summarize"), scenario=problem.question,
                                    protocol=self.opts.protocol, structured=not self.opts.judge_plain_text)
        per_question = verdict.per_question
        executes, saves = bool(per_question.get("executes")), bool(per_question.get("saves_video"))
        return SceneGrade(correct=verdict.correct, outcome=verdict.outcome, reason=verdict.reason,
                          score=verdict.score, stage="judged_text", executable=executes, rendered=saves,
                          playable=saves, judged=True, judge=verdict.to_dict(), extracted=code,
                          judge_tokens=verdict.prompt_tokens + verdict.completion_tokens,
                          judge_seconds=verdict.judge_seconds)

    async def _render(self, code: str | None, video_dir: Any, video_name: str) -> Render:
        timeout = self.opts.render_timeout
        sandbox = self.opts.sandbox
        if code is None:
            return render_program(None)
        try:
            environment = await asyncio.to_thread(self.sandbox_environment)
        except (SandboxUnavailable, SandboxEnvironmentError) as exc:  # a regrade without a preflight
            return Render(stage=Stage.SANDBOX_ERROR, reason=str(exc))
        if self.opts.executor == "ray":
            # a Ray worker on another node has its own data dir: it pins and verifies there (see _ray_render)
            return await _ray_render(code, timeout, video_dir, video_name, sandbox, environment)
        loop = asyncio.get_running_loop()
        pool = self._render_pool()
        try:
            return await loop.run_in_executor(pool, _render_job, code, timeout,
                                              str(video_dir) if video_dir else None, video_name, sandbox,
                                              environment)
        except concurrent.futures.process.BrokenProcessPool as exc:
            # a worker died outside any sandbox (the host's OOM killer, a crash): nothing was measured
            # about the program; the next render gets a fresh pool, and --retry-errors renders this one again
            self._drop_pool(pool)
            return Render(stage=Stage.SANDBOX_ERROR, reason=f"the render pool died before the program ended: {exc}")

    def _drop_pool(self, pool: concurrent.futures.Executor) -> None:
        with self._pool_lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def _render_pool(self) -> concurrent.futures.Executor:
        if self._pool is None:
            with self._pool_lock:
                if self._pool is None:
                    workers = self.opts.render_workers
                    self._pool = concurrent.futures.ProcessPoolExecutor(
                        max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                        initializer=die_with_parent, initargs=(os.getpid(),))
        return self._pool

    # -- provenance -----------------------------------------------------------------------
    def config(self) -> dict[str, Any]:
        """The base options plus the SHA-256 of the sandbox interpreter's lock file (``None``
        without one), so a resume with other render packages is caught and summaries record it."""
        return {**super().config(), "sandbox_lock_sha256": self.sandbox_lock()["sha256"]}

    def sandbox_lock(self) -> dict[str, Any]:
        """``{"python", "lock_file", "sha256"}`` of the render interpreter (see :mod:`physeval.scenes.sandbox.lock`):
        the verified build once there is one, else the build the default names now."""
        from physeval.scenes.sandbox import default_sandbox_python, pin_interpreter
        from physeval.scenes.sandbox.lock import sandbox_lock

        environment = self._environment
        return sandbox_lock(environment.python if environment else pin_interpreter(default_sandbox_python()))

    def provenance(self) -> dict[str, Any]:
        """Extra provenance for ``summary.json``: the render interpreter, its lock file's hash and the
        verified build every render used (``verified``: ``None`` when nothing was rendered in this process)."""
        environment = self._environment
        return {"sandbox": {**self.sandbox_lock(), "verified": environment.to_dict() if environment else None}}

    # -- metrics --------------------------------------------------------------------------
    def metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """Stage rates and accuracy (with avg@K/pass@K), judge cost, per domain and level.

        Accuracy is measured when the run had a judge (``--judge`` given, or any sample judged):
        then it is measured in every group too, a group whose samples all stopped before the
        judge scoring 0, as they count in the overall accuracy."""
        judge_ran = bool(self.opts.judge) or any((o.grade or {}).get("judged") for o in outcomes)
        metrics = _scene_metrics(outcomes, judge_ran)
        for key in self.breakdowns:
            metrics |= breakdown_metrics(outcomes, key, lambda group: _scene_metrics(group, judge_ran))
        return metrics

    def group_metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """Per group: the same scene metrics as the whole run."""
        return _scene_metrics(outcomes, bool(self.opts.judge) or None)


def _scene_metrics(outcomes: Sequence[SampleOutcome], judge_ran: bool | None = None) -> MetricSet:
    """Rates of the render stages and accuracy, reduced per item then per problem like every
    metric (see :mod:`physeval.metrics`); ``judge_ratio``, the mean fraction of questions judged
    true (``--aggregation ratio``'s score; unjudged samples count 0); judge cost per judged
    sample, over judged samples only. Accuracy is measured when ``judge_ran`` (``None``: when
    any of ``outcomes`` was judged)."""
    def flag(name: str) -> Callable[[SampleOutcome], bool]:
        return lambda o: bool((o.grade or {}).get(name))

    metrics = (rate_metrics(outcomes, "executable_rate", flag("executable"))
               | rate_metrics(outcomes, "render_rate", flag("rendered"))
               | rate_metrics(outcomes, "playable_rate", flag("playable")))
    judged = [o for o in outcomes if (o.grade or {}).get("judged")]
    if judge_ran is None:
        judge_ran = bool(judged)
    if judge_ran and outcomes:
        metrics |= rate_metrics(outcomes, "accuracy", lambda o: o.correct)
        # --aggregation ratio's number, whatever the aggregation: the weighted fraction of questions judged
        # true, 0 for a sample that was not judged (it showed nothing), reduced as accuracy is
        ratios = [replace(o, score=float(((o.grade or {}).get("judge") or {}).get("ratio") or 0.0)) for o in outcomes]
        metrics |= mean_score_metric(ratios, "judge_ratio")
        for name, field_name in (("judge_tokens_per_judged_sample", "judge_tokens"),
                                 ("judge_seconds_per_judged_sample", "judge_seconds")):
            cost = [replace(o, score=float((o.grade or {}).get(field_name) or 0)) for o in judged]
            if cost:  # over judged samples only: none judged, no cost to report
                metrics |= mean_score_metric(cost, name)
        metrics |= MetricSet(notes=judge_reply_notes(o.grade for o in judged))  # judges that did not answer
        if not judged:  # a judge was there, but nothing reached it: say why accuracy is what it is
            metrics |= MetricSet(notes=(f"no sample reached the judge: none of the {len(outcomes)} graded samples "
                                        "played a video, so each counts as wrong (see playable_rate)",))
    elif outcomes:
        metrics |= MetricSet(notes=("accuracy omitted: no sample was judged (pass --judge to score scenes)",))
    return metrics


def _render_job(code: str, timeout: float, video_dir: str | None, video_name: str, sandbox: str,
                environment: EnvironmentCheck) -> Render:
    """One render in a pool worker, under the environment the task verified (never re-resolved here)."""
    return render_program(code, timeout=timeout, keep_dir=video_dir, video_name=video_name, sandbox=sandbox,
                          environment=environment)


def _ray_render_job(code: str, timeout: float, video_dir: str | None, video_name: str, sandbox: str,
                    driver: EnvironmentCheck) -> Render:
    """One render in a Ray worker: the driver's build when this node has it, else this node's own
    (pinned and verified here, once per worker process); the Render records which."""
    from physeval.scenes.sandbox import verify_on_this_node

    try:
        environment = verify_on_this_node(driver.python, sandbox=sandbox)
    except (SandboxUnavailable, SandboxEnvironmentError) as exc:
        return Render(stage=Stage.SANDBOX_ERROR, reason=f"on Ray node {platform.node()}: {exc}")
    return render_program(code, timeout=timeout, keep_dir=video_dir, video_name=video_name, sandbox=sandbox,
                          environment=environment)


async def _ray_render(code: str, timeout: float, video_dir: Any, video_name: str, sandbox: str,
                      environment: EnvironmentCheck) -> Render:
    try:
        import ray
    except ImportError as exc:
        raise TaskError("--executor ray needs the ray extra: pip install 'physeval[ray]'") from exc
    if not ray.is_initialized():
        ray.init(ignore_reinit_error=True, include_dashboard=False, log_to_driver=False)
    remote: Any = ray.remote(_ray_render_job)  # its stubs type a remote function by its first parameters only
    ref = remote.remote(code, timeout, str(video_dir) if video_dir else None, video_name, sandbox, environment)
    return await asyncio.wrap_future(ref.future())


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text)[:80]

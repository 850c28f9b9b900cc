"""physeval tasks, graders and metrics inside inspect_ai (extra ``inspect``).

Every registered physeval task is an inspect task named ``physeval/<name>`` with ``-`` written
``_`` (``abench-b`` -> ``physeval/abench_b``) and also under physeval's own spelling
(``physeval/abench-b``), found through inspect's entry-point group ``inspect_ai``
(``physeval = "physeval.integrations.inspect"``), so

    inspect eval physeval/abench-b --model vllm/Qwen/Qwen3-8B -T data=path/to/abench

runs it. The task's options are the inspect task's arguments (``-T key=value``), checked by the
task's own ``Options`` dataclass: a misspelt key or a value of the wrong type stops the run with
one line naming the closest option (inspect's ``PrerequisiteError``), as under ``physeval run``;
``-T artifacts_dir=DIR`` keeps what grading makes (scene videos) under ``DIR``.
:func:`inspect_task_for` builds the same task through the registered function, so the log names
it and records its arguments (``inspect eval-retry`` rebuilds it).

The contract, and why the numbers are physeval's own:

- **One inspect sample per problem variant.** Its input is exactly ``Task.prompt(problem)``;
  its metadata carries ``problem_id``, ``variant``, the problem's ``meta`` and ``answer``.
  Inspect epochs are physeval samples (epoch ``e`` is sample ``e - 1``).
- **The scorer is the task's grader**, logged as ``physeval/grader`` with its arguments, so
  ``inspect score LOG`` rescores a log without ``--scorer``. It awaits ``Task.agrade`` (scene tasks
  render the program and ask their judges there: the models of inspect's ``judge`` role when it is
  bound, through :class:`InspectJudge`, so their calls are in the transcript and usage) on the
  completion with ``<think>`` spans removed.
  The :class:`~inspect_ai.scorer.Score` has value ``"C"`` or ``"I"`` (symbolic tasks:
  ``{"correct": "C"/"I", "eed": 0-100}``), ``answer`` = the extracted answer, ``explanation`` = the
  grader's reason, and metadata with ``outcome``, ``reason``, ``correct``, ``score``, ``epoch`` and
  the whole grade. A grade whose outcome is ``error`` is *unscored* (NaN), which inspect leaves
  out of metrics exactly as physeval leaves error rows out of its summary.
- **Metrics.** Inspect's ``accuracy()`` and ``stderr()`` run on the scores reduced by the epochs
  reducer (``--epochs-reducer max``...), and :func:`reduced_metrics` gives physeval's metrics on
  those reduced scores (``reduced/accuracy``...). :func:`task_metrics` rebuilds physeval's
  :class:`~physeval.metrics.SampleOutcome` records from the unreduced scores (one per sample per
  epoch) and returns the task's own ``metrics()`` (accuracy, avg/pass/maj@K, static/dynamic
  accuracy and delta, EED, scene stage rates: the names of ``summary.json``), each with its 95 %
  interval and n (``accuracy/ci_low``, ``accuracy/ci_high``, ``accuracy/n``). :func:`per_variant`
  and :func:`breakdown` are the grouped ones, named ``group/value`` (``domain/optics`` -> accuracy).
  :func:`static_accuracy`, :func:`dynamic_accuracy` and :func:`delta` work over variant groups
  for any inspect scorer whose samples carry ``problem_id`` and ``variant`` metadata.

The metrics live in :mod:`physeval.integrations.inspect_metrics` and the one physeval task
instance per options that the task, scorer and metrics share in
:mod:`physeval.integrations.inspect_instance`; every name is importable from here.

Inspect is imported when this module is; ``import physeval`` never imports it.
"""

from __future__ import annotations

import inspect as _py
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from physeval.errors import UserError, missing_extra
from physeval.models.base import Completion, split_reasoning
from physeval.problems import Grade, Outcome, Problem
from physeval.tasks.base import GradeContext, Task
from physeval.tasks.options import option_fields
from physeval.tasks.registry import task_classes

try:
    from inspect_ai import Task as InspectTask
    from inspect_ai import task as inspect_task
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import (
        ChatMessage,
        ChatMessageAssistant,
        ChatMessageSystem,
        ChatMessageUser,
        ContentImage,
        ContentText,
        ContentVideo,
        GenerateConfig,
        model_roles,
    )
    from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, mean, scorer, stderr
    from inspect_ai.solver import TaskState, generate
except ImportError as exc:  # pragma: no cover - the message is the point
    raise missing_extra("physeval tasks in inspect", "inspect", "inspect_ai") from exc

from physeval.integrations.inspect_instance import INSTANCES_LOCK, physeval_task, task_instance
from physeval.integrations.inspect_metrics import (
    breakdown,
    delta,
    dynamic_accuracy,
    outcomes_from_scores,
    per_variant,
    reduced_metrics,
    static_accuracy,
    task_metrics,
)

__all__ = [
    "breakdown",
    "delta",
    "dynamic_accuracy",
    "InspectJudge",
    "grader",
    "inspect_task_for",
    "inspect_task_name",
    "outcomes_from_scores",
    "per_variant",
    "physeval_task",
    "logged_grader",
    "reduced_metrics",
    "register_inspect_task",
    "role_judges",
    "samples_for",
    "static_accuracy",
    "task_metrics",
]


# -- dataset ------------------------------------------------------------------------------------
def _message(raw: Mapping[str, Any]) -> ChatMessage:
    role, content = raw.get("role"), raw.get("content", "")
    if role == "system":
        return ChatMessageSystem(content=content)
    if role == "assistant":
        return ChatMessageAssistant(content=content)
    return ChatMessageUser(content=content)


def samples_for(task: Task, problems: Sequence[Problem]) -> list[Sample]:
    """One inspect sample per problem variant: input = ``task.prompt(problem)``, target = the
    reference answer, metadata = ``problem_id``, ``variant``, ``answer`` and ``meta``. The id is the
    problem id, with ``#variant`` appended when the task has variants other than ``"0"``."""
    with_variants = any(p.variant != "0" for p in problems)
    samples = []
    for p in problems:
        samples.append(Sample(
            input=[_message(m) for m in task.prompt(p)],
            target=str(p.answer),
            id=f"{p.id}#{p.variant}" if with_variants else p.id,
            metadata={"problem_id": p.id, "variant": p.variant, "answer": p.answer, "meta": dict(p.meta)},
        ))
    return samples


# -- scorer ---------------------------------------------------------------------------------------
def _score_of(grade: Grade, epoch: int) -> Score:
    """``C``/``I``; for a grade with an EED score (symbolic tasks) the dict ``{"correct": C/I, "eed": 0-100}``,
    so inspect's ``accuracy()`` and reducers see both."""
    data = grade.to_dict()
    metadata = {"outcome": grade.outcome, "reason": grade.reason, "correct": bool(grade.correct),
                "score": grade.score, "epoch": epoch, "grade": data}
    if grade.outcome == Outcome.ERROR:  # measured nothing: left out of metrics, as physeval leaves error rows out
        return Score.unscored(answer=grade.extracted, explanation=grade.reason, metadata=metadata)
    verdict = CORRECT if grade.correct else INCORRECT
    value: Any = {"correct": verdict, "eed": float(data["eed_score"])} if "eed_score" in data else verdict
    return Score(value=value, answer=grade.extracted, explanation=grade.reason, metadata=metadata)


@scorer(metrics=[accuracy(), stderr()])
def grader(task: str, options: dict[str, Any] | None = None, artifacts_dir: str | None = None) -> Scorer:
    """Score with the grader of physeval task ``task`` (built with ``options``).

    Grades ``state.output.completion`` without its ``<think>`` spans through ``Task.agrade``;
    a grader that raises becomes an unscored sample whose metadata says ``error`` and why.
    ``artifacts_dir`` is where a grader keeps what it makes (scene videos under ``videos/``,
    named by problem, variant and sample); without it they are not kept.
    """
    run_dir = Path(artifacts_dir) if artifacts_dir else None

    async def score(state: TaskState, target: Target) -> Score:
        physeval_task_obj, problems = task_instance(task, options)
        metadata = state.metadata or {}
        problem = problems[(str(metadata["problem_id"]), str(metadata.get("variant", "0")))]
        response, _reasoning = split_reasoning(state.output.completion if state.output else "")
        epoch = int(getattr(state, "epoch", 1) or 1)
        judges = role_judges() if physeval_task_obj.track == "scene" else []
        context = GradeContext(run_dir=run_dir, sample=epoch - 1, extras={"judges": judges} if judges else {})
        try:
            grade = await physeval_task_obj.agrade(problem, response, context)
        except Exception as exc:  # noqa: BLE001 - graders should not raise; if one does, the sample says so
            grade = Grade(False, Outcome.ERROR, f"grader crashed: {type(exc).__name__}: {exc}")
        return _score_of(grade, epoch)

    return score


@scorer(name="physeval/grader", metrics=[accuracy(), stderr()])
def logged_grader(task: str, options: dict[str, Any] | None = None, artifacts_dir: str | None = None) -> Scorer:
    """:func:`grader` as the tasks use it. Inspect logs a scorer by its name without the package
    prefix; this one's is ``physeval/grader``, which ``inspect score LOG`` resolves through
    physeval's entry point to :func:`grader` with the logged arguments."""
    return grader(task=task, options=options, artifacts_dir=artifacts_dir)


# -- scene judges through inspect's model roles -------------------------------------------------------
JUDGE_ROLE = "judge"


def role_judges() -> list[InspectJudge]:
    """The models bound to inspect's ``judge`` role (``--model-role judge=openai/gpt-4o``; a list is
    an ensemble), as physeval judges; empty when the role is not bound (the task's ``-T judge=...``
    judges are used then)."""
    bound = model_roles().get(JUDGE_ROLE)
    models = bound if isinstance(bound, list) else [bound] if bound is not None else []
    return [InspectJudge(m) for m in models]


def _judge_content(part: Mapping[str, Any]) -> Any:
    kind = part.get("type")
    if kind == "image_url":
        return ContentImage(image=str(part["image_url"]["url"]))
    if kind == "video_url":
        url = str(part["video_url"]["url"])
        return ContentVideo(video=url.removeprefix("file://"), format="mp4")
    return ContentText(text=str(part.get("text", "")))


class InspectJudge:
    """A physeval judge (the :class:`~physeval.models.base.Model` protocol) that asks an inspect
    model, so each judge call is in the sample's transcript and the eval's model usage. It takes
    no ``extra_body``, so judges answer in plain text (physeval's reply parser reads it)."""

    def __init__(self, model: Any) -> None:
        self._model = model

    @property
    def name(self) -> str:
        """The inspect model's name."""
        return str(self._model)

    @property
    def cache_identity(self) -> str:
        """The inspect model's name (the response cache is not used inside inspect)."""
        return f"inspect:{self._model}"

    async def generate(self, messages: list[Any], *, n: int = 1, temperature: float = 0.0, top_p: float = 1.0,
                       max_tokens: int | None = None, seed: int | None = None,
                       stop: list[str] | None = None) -> list[Completion]:
        """One completion per requested sample, through inspect's ``Model.generate``."""
        converted = []
        for m in messages:
            content = m.get("content", "")
            parts = [_judge_content(p) for p in content] if isinstance(content, list) else str(content)
            converted.append(ChatMessageSystem(content=parts) if m.get("role") == "system"
                             else ChatMessageUser(content=parts))
        config = GenerateConfig(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed,
                                stop_seqs=stop)
        out = []
        for _ in range(max(1, n)):
            output = await self._model.generate(converted, config=config)
            text, reasoning = split_reasoning(output.completion)
            usage = output.usage
            tokens = {"prompt_tokens": int(usage.input_tokens), "completion_tokens": int(usage.output_tokens)} \
                if usage is not None else {}
            out.append(Completion(text=text, reasoning=reasoning, finish_reason=output.stop_reason, usage=tokens,
                                  raw_text=output.completion))
        return out

# -- tasks ----------------------------------------------------------------------------------------
def inspect_task_name(name: str) -> str:
    """The inspect name of physeval task ``name`` without the package prefix (``abench-b`` -> ``abench_b``)."""
    return name.replace("-", "_")


def inspect_task_for(name: str, options: Mapping[str, Any] | None = None, *,
                     artifacts_dir: str | None = None) -> InspectTask:
    """The inspect :class:`~inspect_ai.Task` of physeval task ``name``, made by its registered task
    function, so the log names it ``physeval/<name>`` with ``options`` as its ``task_args`` and
    ``inspect eval-retry`` can rebuild it (see :func:`_build` for what it holds)."""
    given = {k: v for k, v in dict(options or {}).items() if v is not None}
    if artifacts_dir is not None:
        given["artifacts_dir"] = artifacts_dir
    return register_inspect_task(name)(**given)


def _build(name: str, options: Mapping[str, Any], artifacts_dir: str | None) -> InspectTask:
    """Samples, ``generate()``, the :func:`grader` scorer (artefacts in ``artifacts_dir``) and the
    metrics: inspect's ``accuracy()`` and ``stderr()`` (on the reduced scores, so
    ``--epochs-reducer`` applies), :func:`task_metrics` (physeval's over every epoch, with
    intervals and n), :func:`reduced_metrics` (physeval's on the reduced scores),
    :func:`per_variant` for dynamic tasks and one :func:`breakdown` per breakdown field."""
    opts = {k: v for k, v in dict(options).items() if v is not None}
    task, problems = task_instance(name, opts)
    headline: list[Any] = [accuracy(), stderr()]
    if task.track == "symbolic":  # the score is {"correct": C/I, "eed": 0-100}: inspect's metrics per key
        headline = [{"correct": [accuracy(), stderr()], "eed": [mean(), stderr()]}]
    metrics: list[Any] = [*headline, task_metrics(task=name, options=opts), reduced_metrics(task=name, options=opts)]
    if task.dynamic:
        metrics.append(per_variant())
    metrics += [breakdown(key)(task=name, options=opts) for key in task.breakdowns if key != "variant"]
    return InspectTask(
        dataset=MemoryDataset(samples_for(task, list(problems.values())), name=name),
        solver=generate(),
        scorer=logged_grader(task=name, options=opts, artifacts_dir=artifacts_dir),
        metrics=metrics,
        metadata={"physeval_task": name, "physeval_options": opts, "physeval_config": task.config()},
    )


_IGNORED_ARGS = frozenset({"model"})  # inspect passes the model to every task; physeval tasks take none


def _factory(name: str, cls: type[Task]) -> Callable[..., InspectTask]:
    """A function whose keyword arguments are the fields of ``cls.Options`` and ``artifacts_dir``
    (so ``inspect info`` lists them), plus ``**others`` so a misspelt ``-T`` key reaches physeval's
    option check instead of being dropped with a warning; every option error is one line
    (inspect's :class:`PrerequisiteError`), naming the closest option."""
    def make(**options: Any) -> InspectTask:
        artifacts_dir = options.pop("artifacts_dir", None)
        given = {k: v for k, v in options.items() if k not in _IGNORED_ARGS}
        try:
            return _build(name, given, artifacts_dir)
        except UserError as exc:
            raise PrerequisiteError(f"physeval/{inspect_task_name(name)}: {exc}") from None

    params = [_py.Parameter(f.name, _py.Parameter.KEYWORD_ONLY, default=None, annotation=hint)
              for f, hint in option_fields(cls.Options)]
    params.append(_py.Parameter("artifacts_dir", _py.Parameter.KEYWORD_ONLY, default=None, annotation=str | None))
    params.append(_py.Parameter("others", _py.Parameter.VAR_KEYWORD, annotation=Any))
    make.__signature__ = _py.Signature(params, return_annotation=InspectTask)  # type: ignore[attr-defined]
    make.__name__ = make.__qualname__ = inspect_task_name(name)
    make.__doc__ = f"physeval task {name}: {cls.description}"
    return make


_REGISTERED: dict[str, Callable[..., InspectTask]] = {}


def register_inspect_task(name: str) -> Callable[..., InspectTask]:
    """Register physeval task ``name`` with inspect as ``physeval/<inspect_task_name(name)>`` and,
    when the name has a hyphen, also as ``physeval/<name>`` (idempotent); returns the task function."""
    with INSTANCES_LOCK:
        if name not in _REGISTERED:
            cls = task_classes()[name]
            _REGISTERED[name] = inspect_task(name=inspect_task_name(name))(_factory(name, cls))
            if inspect_task_name(name) != name:  # `inspect eval physeval/bank-numeric`, as physeval spells it
                inspect_task(name=name)(_factory(name, cls))
        return _REGISTERED[name]


def _register_all() -> None:
    """Every physeval task as an inspect task, and every breakdown metric they use (inspect
    recreates metrics by registered name when it rescores a log)."""
    for name, cls in task_classes().items():
        register_inspect_task(name)
        for key in cls.breakdowns:
            if key != "variant":
                breakdown(key)


_register_all()

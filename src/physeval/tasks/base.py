"""What a benchmark is to the runner: load problems, prompt, grade, summarise.

A Task knows one benchmark's data, prompt and grader; it knows nothing of models or runs.
The runner calls :meth:`Task.agrade` so a track whose grading does I/O (scenes render and
ask a judge) can be async; every other track implements the pure :meth:`Task.grade`, run in a
worker thread or, for a cheap one (:attr:`Task.grades_on_loop`), on the event loop.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from physeval.errors import UserError
from physeval.metrics import (
    METRICS,
    MetricSet,
    SampleOutcome,
    accuracy_metrics,
    breakdown_metrics,
    dynamic_metrics,
    majority_metrics,
    named_metrics,
)
from physeval.problems import Grade, Problem
from physeval.tasks.options import TaskOptions, parse_options

__all__ = ["Task", "GradeContext", "TaskError", "read_prompt_file"]

Message = dict[str, Any]


class TaskError(UserError):
    """A task cannot load (missing files, bad options); the message says what to do."""


@dataclass
class GradeContext:
    """What an I/O-bound grader may use: where to keep artefacts, and the sample's identity."""

    run_dir: Path | None = None
    sample: int = 0
    extras: dict[str, Any] = field(default_factory=dict)


def _text_or_file(value: str | None) -> str | None:
    """A system prompt given as text, or as the path of a file holding it."""
    if not value:
        return None
    candidate = Path(value).expanduser()
    try:
        if len(value) < 4096 and candidate.is_file():
            return candidate.read_text(encoding="utf-8")
    except OSError:
        pass
    return value


def read_prompt_file(path: str | Path | None) -> str | None:
    """The text of a ``--prompt-file`` (must contain ``{question}``), or ``None``."""
    if path is None:
        return None
    text = Path(path).read_text(encoding="utf-8")
    if "{question}" not in text:
        raise TaskError(f"prompt file {path} has no {{question}} placeholder")
    return text


class Task:
    """Base class for benchmarks. Subclasses set the class attributes and override
    :meth:`load` and :meth:`grade`; most keep the default prompt and metrics.

    Class attributes:
        Options: The frozen dataclass of the task's options (see :mod:`physeval.tasks.options`);
            an option exists on the command line (``--flag`` and ``-T key=value``) as soon as
            a task declares it here.
        name: Registry name used on the command line.
        description: One line for ``physeval tasks``.
        track: ``numeric``, ``symbolic`` or ``scene``.
        dynamic: Whether problems come in variant families (adds dynamic metrics).
        breakdowns: Problem meta fields to break metrics down by (``language``, ``tag``, ...).
        default_prompt: Template with a ``{question}`` placeholder.
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    track: ClassVar[str] = ""
    dynamic: bool = False  # a task may decide per instance (bank-symbolic with variants > 1)
    breakdowns: ClassVar[tuple[str, ...]] = ()
    default_prompt: ClassVar[str] = "{question}"

    Options: ClassVar[type[TaskOptions]] = TaskOptions

    def __init__(self, **options: Any) -> None:
        """Check ``options`` against :attr:`Options` (unknown keys and wrong types are an
        :class:`~physeval.errors.OptionError`) and keep them as :attr:`opts`."""
        self.opts = parse_options(type(self).Options, options, task=self.name or type(self).__name__)
        self.data = Path(self.opts.data) if self.opts.data else None
        self.prompt_template = read_prompt_file(self.opts.prompt_file) or self.default_prompt
        self.options: dict[str, Any] = {f.name: getattr(self.opts, f.name) for f in dataclasses.fields(self.opts)
                                        if f.name not in ("data", "prompt_file")}
        if not self.opts.metrics:  # a run that adds no metric records none (older runs resume unchanged)
            del self.options["metrics"]
        for name in self.opts.metrics:  # an unknown or broken metric stops the run before it starts
            METRICS.get(name)
        self.system_prompt = _text_or_file(self.opts.system_prompt)
        self._fewshot_cache: list[tuple[str, str, str]] | None = None
        if self.opts.fewshot < 0:
            raise TaskError(f"fewshot must be 0 or more, not {self.opts.fewshot}")

    # -- the flow -------------------------------------------------------------------------
    def load(self) -> list[Problem]:
        """Every problem (and variant) of the benchmark, in a stable order."""
        raise NotImplementedError

    def load_selected(self, select: Callable[[list[Problem]], list[Problem]]) -> list[Problem]:
        """The problems ``select`` keeps (``--limit``, ``--sample-strategy``) of :meth:`load`.

        A task whose items are costly to build overrides this to let ``select`` choose among
        cheap stand-ins and build only the chosen (the poisoning probe perturbs a solution per item).
        """
        return select(self.load())

    def prompt(self, problem: Problem) -> list[Message]:
        """Chat messages for ``problem``: the system prompt (if any), the few-shot examples, the question."""
        messages: list[Message] = []
        if self.system_prompt:
            messages.append({"role": "system", "content": self.system_prompt})
        for question, answer in self.fewshot_examples(problem):
            messages.append({"role": "user", "content": self.prompt_template.replace("{question}", question)})
            messages.append({"role": "assistant", "content": answer})
        messages.append({"role": "user", "content": self.prompt_template.replace("{question}", problem.question)})
        return messages

    def fewshot_pool(self) -> list[tuple[str, str, str]] | None:
        """Worked examples ``(group, question, answer)`` for ``--fewshot``; ``None``: this task has none.

        ``group`` keeps an example from being shown with a question of the same group (the same
        template, say), so no example gives its own answer away.
        """
        return None

    def fewshot_examples(self, problem: Problem) -> list[tuple[str, str]]:
        """The ``fewshot`` examples shown before ``problem``: the same for every sample, chosen by a
        hash of the problem id, never from the problem's own group."""
        if self.opts.fewshot == 0:
            return []
        pool = self._fewshot_cache
        if pool is None:
            pool = self.fewshot_pool()
            if pool is None:
                raise TaskError(f"{self.name} has no few-shot pool: --fewshot needs a task that provides "
                                "worked examples")
            self._fewshot_cache = pool
        own = str(problem.meta.get("template", problem.id))
        candidates = sorted((e for e in pool if e[0] != own),
                            key=lambda e: hashlib.sha256(f"{problem.id}|{e[0]}|{e[1]}".encode()).hexdigest())
        return [(q, a) for _, q, a in candidates[: self.opts.fewshot]]

    def grade(self, problem: Problem, response: str) -> Grade:
        """Grade one response (pure, synchronous)."""
        raise NotImplementedError

    @property
    def grades_on_loop(self) -> bool:
        """Whether :meth:`grade` is cheap enough to run on the event loop itself.

        A thread hop costs about 70 microseconds of CPU, more than a typical numeric grade; a track
        whose grader is bounded by operation budgets to short work says True, and then grades in
        :meth:`grade` alone (the runner stores such an answer together with its verdict).
        """
        return False

    async def agrade(self, problem: Problem, response: str, context: GradeContext) -> Grade:
        """Grade off the event loop (on it when :attr:`grades_on_loop`); tracks with I/O in grading
        override this."""
        if self.grades_on_loop:
            return self.grade(problem, response)
        return await asyncio.to_thread(self.grade, problem, response)

    def grade_error_kind(self, grade: Grade) -> str:
        """The error kind of a grade whose outcome is ``error``: ``grader`` (tracks with judges
        say ``judge`` when the judge failed)."""
        return "grader"

    def data_files(self) -> list[Path]:
        """The files this task reads its problems from (hashed into the run's provenance)."""
        if self.data is None or str(self.data).startswith("hf:"):
            return []
        if self.data.is_file():
            return [self.data]
        if self.data.is_dir():
            return sorted(p for p in self.data.iterdir() if p.is_file())
        return []

    def metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """Headline metrics (accuracy, avg/pass/maj@K; static/dynamic ones when :attr:`dynamic`),
        then :meth:`group_metrics` per value of each of :attr:`breakdowns`, reduced in the
        order :mod:`physeval.metrics` declares."""
        metrics = accuracy_metrics(outcomes) | majority_metrics(outcomes)
        if self.dynamic:
            metrics |= dynamic_metrics(outcomes)
        for key in self.breakdowns:
            metrics |= breakdown_metrics(outcomes, key, self.group_metrics)
        return metrics

    def measure(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """What a run reports: :meth:`metrics`, then the registered metrics the ``metrics`` option
        names (:data:`physeval.metrics.METRICS`). Callers use this; tasks override :meth:`metrics`."""
        found = self.metrics(outcomes)
        metrics = found if isinstance(found, MetricSet) else MetricSet(dict(found))  # a plugin's plain mapping
        return metrics | named_metrics(self.opts.metrics, outcomes) if self.opts.metrics else metrics

    def group_metrics(self, outcomes: Sequence[SampleOutcome]) -> MetricSet:
        """What each breakdown group reports (accuracy, avg@K, pass@K)."""
        return accuracy_metrics(outcomes)

    def config(self) -> dict[str, Any]:
        """The options that define this task's results, for ``summary.json``."""
        return {"data": str(self.data) if self.data else None, "prompt": self.prompt_template, **self.options}

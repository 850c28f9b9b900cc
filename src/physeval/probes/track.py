"""The symbolic track's judges: the process judge and the equivalence fallback, applied to one grade.

:class:`physeval.tasks.tracks.symbolic.SymbolicTask` calls :func:`judge_symbolic` after the
deterministic grade when ``process_judge`` or ``equivalence_judge`` is set. The answer's
verdict stays the checker's unless it was ``undecided`` and the equivalence judge read a verdict
(then ``equivalence_by = "judge"``). The grade becomes a :class:`JudgedSymbolicGrade`, which
stores the process verdict (rubric scores, justification), ``process_score`` and
``combined_score`` in the row.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from typing import Any

from physeval.grading.symbolic import SymbolicGrade
from physeval.problems import Outcome, Problem

__all__ = ["JudgedSymbolicGrade", "judge_model", "judge_symbolic", "preflight_judges", "with_process"]

_LOCK = threading.Lock()


@dataclass(frozen=True)
class JudgedSymbolicGrade(SymbolicGrade):
    """A symbolic grade with what the judges added.

    Attributes:
        process: The process verdict (:class:`physeval.probes.process_judge.ProcessVerdict` as a dict).
        process_score: The weighted rubric score in [0, 1], or ``None``.
        combined_score: ``answer_weight`` x answer + (1 - ``answer_weight``) x process, or ``None``.
        equivalence_by: ``checker`` (physeval's equivalence check) or ``judge`` (the LLM fallback).
        equivalence_judge: The equivalence judge's verdict when it was asked.
    """

    process: dict[str, Any] | None = None
    process_score: float | None = None
    combined_score: float | None = None
    equivalence_by: str = "checker"
    equivalence_judge: dict[str, Any] | None = None


def _as_judged(grade: SymbolicGrade) -> JudgedSymbolicGrade:
    if isinstance(grade, JudgedSymbolicGrade):
        return grade
    values = {f.name: getattr(grade, f.name) for f in dataclasses.fields(grade)}
    return JudgedSymbolicGrade(**values)


def judge_model(task: Any, spec: str, base_url: str | None) -> Any:
    """The judge model for ``spec`` at ``base_url``, built once per task (thread-safe)."""
    from physeval.models.spec import model_from_spec

    with _LOCK:
        cache: dict[tuple[str, str | None], Any] = task.__dict__.setdefault("_probe_judges", {})
        if (spec, base_url) not in cache:
            cache[(spec, base_url)] = model_from_spec(spec, base_url=base_url)
        return cache[(spec, base_url)]


async def preflight_judges(task: Any, specs: list[tuple[str, str | None]]) -> None:
    """Run each judge's ``preflight`` once (a dead judge stops the run before the first sample)."""
    for spec, base_url in dict.fromkeys(specs):
        check = getattr(judge_model(task, spec, base_url), "preflight", None)
        if check is not None:
            await check()


def with_process(grade: SymbolicGrade, verdict: Any, answer_weight: float) -> JudgedSymbolicGrade:
    """``grade`` carrying the process ``verdict`` and the combined score."""
    from physeval.probes.process_judge import combined_score

    judged = _as_judged(grade)
    return dataclasses.replace(judged, process=verdict.to_dict(), process_score=verdict.process_score,
                               combined_score=combined_score(bool(grade.correct), verdict.process_score,
                                                             answer_weight))


async def _equivalence(task: Any, problem: Problem, grade: SymbolicGrade) -> SymbolicGrade:
    from physeval.probes.equivalence_judge import judge_equivalence

    opts = task.opts
    judge = judge_model(task, opts.equivalence_judge, opts.equivalence_judge_base_url)
    verdict = await judge_equivalence(judge, problem.answer, grade.extracted or "")
    judged = _as_judged(grade)
    if verdict.equivalent is None:
        return dataclasses.replace(judged, equivalence_judge=verdict.to_dict(),
                                   reason=f"{grade.reason}; equivalence judge gave no verdict ({verdict.outcome})")
    right = verdict.equivalent
    return dataclasses.replace(
        judged, correct=right, equivalent=right, outcome=Outcome.CORRECT if right else Outcome.WRONG,
        equivalence_by="judge", equivalence_judge=verdict.to_dict(),
        answer_key="=reference" if right else judged.answer_key,
        reason=f"{grade.reason}; decided by the equivalence judge {verdict.judge}: "
               f"{'equivalent' if right else 'not equivalent'}")


async def judge_symbolic(task: Any, problem: Problem, response: str, grade: SymbolicGrade) -> SymbolicGrade:
    """Apply the task's equivalence fallback (undecided answers only) and process judge to ``grade``."""
    from physeval.probes.process_judge import (
        judge_process,
        load_prompt_file,
        reference_solution,
    )

    opts = task.opts
    if getattr(opts, "equivalence_judge", None) and grade.outcome == Outcome.UNDECIDED and grade.extracted:
        grade = await _equivalence(task, problem, grade)
    if getattr(opts, "process_judge", None):
        with _LOCK:
            prompt = task.__dict__.get("_process_prompt")
            if prompt is None:
                prompt = task.__dict__["_process_prompt"] = load_prompt_file(opts.process_judge_prompt)
        judge = judge_model(task, opts.process_judge, opts.process_judge_base_url)
        verdict = await judge_process(judge, question=problem.question,
                                      reference_solution=reference_solution(problem.meta),
                                      reference_answer=problem.answer, response=response, prompt=prompt)
        grade = with_process(grade, verdict, opts.answer_weight)
    return grade

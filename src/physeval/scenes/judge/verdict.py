"""The judges' decision on one scene: show it, ask every judge at once, vote, aggregate.

:func:`judge_video` is the entry point the scene track, the rewards and the build use. With
several judges each question is decided by majority vote, ties false. A judge whose request
fails is recorded with its error and votes false on every question, so the denominator of a vote
never depends on which server was up; when every judge fails the verdict's outcome is
``"error"`` (rerun it), never a silent 0. Which reply path each judge took (structured output
or the forgiving parser, see :mod:`physeval.scenes.judge.call`) is in
:attr:`JudgeVerdict.reply_paths`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physeval.problems import Grade, Outcome
from physeval.scenes.judge.call import (
    DEFAULT_MAX_TOKENS,
    JudgeModel,
    JudgeRun,
    ask_judge,
)
from physeval.scenes.judge.prompt import FrameLike, build_judge_messages
from physeval.scenes.judge.protocol import JudgeProtocol, check_protocol
from physeval.scenes.judge.questions import (
    JudgeMode,
    JudgeQuestion,
    QuestionsLike,
    judge_questions,
    question_dict,
)
from physeval.scenes.judge.voting import Aggregation, aggregate, ensemble_vote

__all__ = ["JudgeVerdict", "judge_video", "judge_video_sync"]


@dataclass(frozen=True)
class JudgeVerdict(Grade):
    """The judges' decision on one scene, with each judge's answers and the cost.

    ``correct`` is true when every question is decided true; ``score`` is 1/0 for ``binary``
    and the weighted fraction true for ``ratio`` (``ratio`` always holds the fraction).
    ``outcome`` is ``correct``, ``wrong``, ``unparseable`` (no judge reply could be read) or
    ``error`` (every judge failed, or the scene could not be shown).

    Attributes:
        mode: ``frames``, ``video`` or ``text``.
        aggregation: ``binary`` or ``ratio``.
        ratio: Weighted fraction of questions decided true.
        questions: ``{key, label, question, weight}`` per question, in order.
        per_question: ``key -> bool`` after the majority vote.
        votes: ``key -> [each judge's bool]`` in judge order.
        judges: Each judge's :class:`~physeval.scenes.judge.call.JudgeRun`.
        problems: Parse problems, each prefixed with the judge name.
        judges_failed: How many judges returned ``error``.
        n_frames: Frames shown (frames mode).
        prompt_tokens: Total tokens sent to all judges.
        completion_tokens: Total tokens received.
        judge_seconds: Sum of the judges' request latencies.
        wall_seconds: Seconds from start to verdict (judges run concurrently).
        protocol: ``physeval`` or ``simuscene`` (see :mod:`physeval.scenes.judge.protocol`).
        reply_paths: Each judge's :attr:`~physeval.scenes.judge.call.JudgeRun.reply_path`, in
            judge order.
    """

    mode: str = "frames"
    aggregation: str = "binary"
    ratio: float = 0.0
    questions: tuple[dict[str, Any], ...] = ()
    per_question: dict[str, bool] = field(default_factory=dict)
    votes: dict[str, list[bool]] = field(default_factory=dict)
    judges: tuple[JudgeRun, ...] = ()
    problems: tuple[str, ...] = ()
    judges_failed: int = 0
    n_frames: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    judge_seconds: float = 0.0
    wall_seconds: float = 0.0
    protocol: str = "physeval"
    reply_paths: tuple[str, ...] = ()


def _error_verdict(reason: str, jq: Sequence[JudgeQuestion], mode: str, aggregation: str, started: float,
                   protocol: str) -> JudgeVerdict:
    return JudgeVerdict(
        correct=False, outcome=Outcome.ERROR, reason=reason, score=0.0, mode=mode,
        aggregation=aggregation, questions=tuple(question_dict(q) for q in jq),
        per_question=dict.fromkeys((q.key for q in jq), False), wall_seconds=time.perf_counter() - started,
        protocol=protocol,
    )


async def _sample(video_path: str | Path, n: int, max_side: int) -> list[Any]:
    from physeval.scenes.frames import (
        sample_frames,  # decodes video: loaded only when frames are sampled
    )

    return list(await asyncio.to_thread(sample_frames, video_path, n, max_side=max_side))


async def judge_video(
    *,
    questions: QuestionsLike,
    judges: Sequence[JudgeModel] | JudgeModel,
    frames: Sequence[FrameLike] | None = None,
    video_path: str | Path | None = None,
    code: str | None = None,
    mode: JudgeMode = "frames",
    aggregation: Aggregation = "binary",
    max_tokens: int = DEFAULT_MAX_TOKENS,
    summarize: str | None = None,
    scenario: str | None = None,
    n_frames: int = 16,
    max_side: int = 448,
    temperature: float = 0.0,
    seed: int | None = None,
    protocol: JudgeProtocol = "physeval",
    structured: bool = True,
) -> JudgeVerdict:
    """Ask one or more judges the verification questions about a scene and decide.

    Args:
        questions: ``Problem.meta["questions"]`` dicts, :class:`VerificationQuestion` s or strings.
        judges: One model or several (an ensemble: majority per question, ties false).
        frames: Frames to show in ``frames`` mode; sampled from ``video_path`` when omitted
            (``n_frames`` uniformly, fitted into ``max_side``).
        video_path: The video (``video`` mode, or frames mode without ``frames``).
        code: The program (``text`` mode).
        mode: ``frames``, ``video`` or ``text``.
        aggregation: ``binary`` (all true) or ``ratio`` (weighted fraction true).
        max_tokens: Reply budget per judge.
        summarize: The dataset's description of the objects and motion, shown to the judge.
        scenario: The scenario text, shown to the judge when given (physeval protocol only).
        n_frames: Frames sampled from ``video_path`` in frames mode (16).
        max_side: The longer side sampled frames are fitted into (448 pixels).
        temperature: Sampling temperature of the judges (0).
        seed: Sampling seed sent to the judges, if any.
        protocol: ``physeval`` (default) or ``simuscene`` (the paper's prompt and AgentFly's
            "Not sure" rule).
        structured: Ask for structured output first (default); ``False`` asks for text only.

    Never raises for judge failures or garbage replies: they become recorded outcomes. Bad
    arguments (unknown mode, aggregation or protocol, no judges) raise ``ValueError``.
    """
    started = time.perf_counter()
    if mode not in ("frames", "video", "text"):
        raise ValueError(f"mode must be 'frames', 'video' or 'text', not {mode!r}")
    if aggregation not in ("binary", "ratio"):
        raise ValueError(f"aggregation must be 'binary' or 'ratio', not {aggregation!r}")
    check_protocol(protocol)
    judge_list: list[JudgeModel] = [judges] if hasattr(judges, "generate") else list(judges)  # type: ignore[list-item]
    if not judge_list:
        raise ValueError("judge_video needs at least one judge")
    jq = judge_questions(questions, mode)
    if not jq:
        return _error_verdict("no verification questions", jq, mode, aggregation, started, protocol)
    shown = list(frames) if frames is not None else None
    if mode == "frames" and shown is None:
        if video_path is None:
            return _error_verdict("frames mode needs frames or a video_path", jq, mode, aggregation, started,
                                  protocol)
        try:
            shown = await _sample(video_path, n_frames, max_side)
        except Exception as exc:  # noqa: BLE001 - an unreadable video is a recorded outcome
            return _error_verdict(f"could not sample frames: {type(exc).__name__}: {exc}", jq, mode,
                                  aggregation, started, protocol)
        if not shown:
            return _error_verdict(f"no frames could be sampled from {video_path}", jq, mode,
                                  aggregation, started, protocol)
    if mode == "video" and video_path is not None and not Path(video_path).is_file():
        return _error_verdict(f"video not found: {video_path}", jq, mode, aggregation, started, protocol)
    try:
        messages = build_judge_messages(questions, mode=mode, frames=shown, video_path=video_path, code=code,
                                        summarize=summarize, scenario=scenario, protocol=protocol)
    except (ValueError, OSError) as exc:
        return _error_verdict(str(exc), jq, mode, aggregation, started, protocol)
    runs = list(await asyncio.gather(*(
        ask_judge(j, messages, jq, max_tokens=max_tokens, temperature=temperature, seed=seed,
                  protocol=protocol, structured=structured)
        for j in judge_list
    )))
    return _decide(runs, jq, mode=mode, aggregation=aggregation, protocol=protocol, started=started,
                   n_frames=len(shown) if (mode == "frames" and shown) else 0)


def _decide(runs: Sequence[JudgeRun], jq: Sequence[JudgeQuestion], *, mode: str, aggregation: Aggregation,
            protocol: str, started: float, n_frames: int) -> JudgeVerdict:
    keys = [q.key for q in jq]
    final = ensemble_vote([r.results for r in runs], keys)
    correct, score, ratio = aggregate(final, jq, aggregation)
    failed = sum(1 for r in runs if r.outcome == "error")
    problems = tuple(f"{r.judge}: {p}" for r in runs for p in r.problems)
    if failed == len(runs):
        outcome, correct, score = Outcome.ERROR, False, 0.0
        reason = "every judge failed: " + "; ".join(f"{r.judge}: {r.error}" for r in runs)
    elif all(r.outcome in ("error", "unparseable") for r in runs):
        outcome, correct, score = Outcome.UNPARSEABLE, False, 0.0
        reason = "no judge reply could be read"
    else:
        outcome = Outcome.CORRECT if correct else Outcome.WRONG
        false_keys = [k for k in keys if not final[k]]
        reason = ("all questions judged true" if correct
                  else f"judged false: {', '.join(false_keys)} ({sum(final.values())}/{len(keys)} true)")
        if failed:
            reason += f"; {failed} of {len(runs)} judges failed (their votes count false)"
    return JudgeVerdict(
        correct=correct, outcome=outcome, reason=reason, score=score, mode=mode,
        aggregation=aggregation, ratio=ratio, questions=tuple(question_dict(q) for q in jq),
        per_question=final, votes={k: [r.results.get(k, False) for r in runs] for k in keys},
        judges=tuple(runs), problems=problems, judges_failed=failed, n_frames=n_frames,
        prompt_tokens=sum(r.prompt_tokens for r in runs),
        completion_tokens=sum(r.completion_tokens for r in runs),
        judge_seconds=sum(r.latency_s for r in runs), wall_seconds=time.perf_counter() - started,
        protocol=protocol, reply_paths=tuple(r.reply_path for r in runs),
    )


def judge_video_sync(**kwargs: Any) -> JudgeVerdict:
    """:func:`judge_video` for synchronous callers (runs its own event loop)."""
    return asyncio.run(judge_video(**kwargs))

"""What the judge is shown: the instruction text and the chat messages of one request.

Three ways to show the judge the scene (``mode``):

* ``"frames"`` (default): N frames sampled uniformly, sent in time order as JPEG ``image_url``
  parts (data URLs), each preceded by a text part with its time stamp.
* ``"video"``: the video itself as one ``video_url`` part with a ``file://`` URL (vLLM serves it
  with ``--allowed-local-media-path``).
* ``"text"``: no rendering at all; the judge reads the program and answers two extra
  questions first ("does it execute", "does it save a video"), then the verification questions
  renumbered from 3 (SimuScene's LLM-as-judge ablation).

The instruction follows the judge protocol (:mod:`physeval.scenes.judge.protocol`): physeval's
own asks for ``{"index", "analysis", "result": true|false}`` with insufficient evidence counted
false; ``simuscene`` is the paper's protocol as published.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from physeval.scenes.judge.protocol import (
    JudgeProtocol,
    check_protocol,
    simuscene_instruction,
)
from physeval.scenes.judge.questions import JudgeMode, QuestionsLike, judge_questions

__all__ = ["FrameLike", "build_judge_messages", "build_judge_prompt"]


@runtime_checkable
class FrameLike(Protocol):
    """What the judge needs from a sampled frame (``physeval.scenes.frames.Frame``)."""

    index: int
    time_s: float
    width: int
    height: int

    def data_url(self) -> str:
        """The JPEG as a ``data:image/jpeg;base64,...`` URL."""
        ...


_GUIDE = (
    "Judge each question only by what the video shows. The animation may draw objects "
    "schematically (circles for balls, lines for surfaces or walls, arrows for forces or fields, "
    "colours to tell bodies apart); judge geometry, positions, sizes and motion, not material, "
    "texture or artistic quality. If no container is drawn, the frame edge is the boundary. "
    "Answer true only when the video visibly shows what the question asks. Answer false when it "
    "contradicts the question, and also when the visual evidence is insufficient to decide "
    "(missing objects, too few frames showing the event, unreadable drawing)."
)

_FORMAT = (
    "Reply with only a JSON list, one object per question, in question order:\n"
    '[{{"index": "{first}", "analysis": "what you observe that decides it", "result": true}}, ...]\n'
    '"index" is the question number and "result" is true or false (JSON booleans).'
)

_TEXT_HEAD = (
    "You are reviewing a Python program that was written to render an MP4 animation of a "
    "physical scenario. You cannot run it: read the code and decide each question from "
    "what the program would do and what the animation it renders would show. Answer false "
    "when the code does not clearly support a question."
)


def build_judge_prompt(
    questions: QuestionsLike,
    *,
    mode: JudgeMode = "frames",
    summarize: str | None = None,
    scenario: str | None = None,
    n_frames: int | None = None,
    protocol: JudgeProtocol = "physeval",
) -> str:
    """The instruction text: what the judge is shown, the numbered questions, the reply format."""
    check_protocol(protocol)
    jq = judge_questions(questions, mode)
    if protocol == "simuscene":
        return simuscene_instruction(jq, summarize=summarize, code_review=mode == "text")
    if mode == "text":
        head = _TEXT_HEAD
    elif mode == "video":
        head = "You are checking whether an animation shows a physical scenario correctly. You are given the video."
    else:
        shown = f"{n_frames} frames" if n_frames else "frames"
        head = (
            "You are checking whether an animation shows a physical scenario correctly. You are "
            f"given {shown} sampled uniformly from the video, in time order, each labelled with "
            "its time stamp."
        )
    parts = [head]
    if scenario:
        parts.append(f"The scenario the animation was asked to show:\n{scenario.strip()}")
    if summarize:
        parts.append(f"The objects and motion it should contain:\n{summarize.strip()}")
    if mode != "text":
        parts.append(_GUIDE)
    listing = "\n".join(f"{q.label}. {q.question}" for q in jq)
    parts.append(f"Questions:\n{listing}")
    parts.append(_FORMAT.format(first=jq[0].label if jq else "1"))
    return "\n\n".join(parts)


def build_judge_messages(
    questions: QuestionsLike,
    *,
    mode: JudgeMode = "frames",
    frames: Sequence[FrameLike] | None = None,
    video_path: str | Path | None = None,
    code: str | None = None,
    summarize: str | None = None,
    scenario: str | None = None,
    protocol: JudgeProtocol = "physeval",
) -> list[dict[str, Any]]:
    """The chat messages for one judge request (one user turn).

    frames: instruction text, then per frame a ``Frame k/N at t = ... s`` text part and its
    ``image_url`` part, then a reminder. video: one ``video_url`` part (``file://`` URL of the
    resolved path) then the text. text: the instruction followed by the program.
    Raises ``ValueError`` when the mode's input is missing.
    """
    def instruction(n_frames: int | None = None) -> str:
        return build_judge_prompt(questions, mode=mode, summarize=summarize, scenario=scenario, n_frames=n_frames,
                                  protocol=protocol)

    if mode == "frames":
        if not frames:
            raise ValueError("frames mode needs at least one frame")
        prompt = instruction(len(frames))
        content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
        total = len(frames)
        for k, frame in enumerate(frames, start=1):
            content.append({"type": "text", "text": f"Frame {k}/{total} at t = {float(frame.time_s):.2f} s"})
            content.append({"type": "image_url", "image_url": {"url": frame.data_url()}})
        content.append({"type": "text", "text": "Now answer every question with the JSON list."})
        return [{"role": "user", "content": content}]
    if mode == "video":
        if video_path is None:
            raise ValueError("video mode needs video_path")
        prompt = instruction()
        url = Path(video_path).resolve().as_uri()
        return [{"role": "user", "content": [
            {"type": "video_url", "video_url": {"url": url}},
            {"type": "text", "text": prompt},
        ]}]
    if mode == "text":
        if code is None:
            raise ValueError("text mode needs the program's code")
        prompt = instruction()
        return [{"role": "user", "content": f"{prompt}\n\nThe program:\n```python\n{code}\n```"}]
    raise ValueError(f"unknown judge mode {mode!r}")

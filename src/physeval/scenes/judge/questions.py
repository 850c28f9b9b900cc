"""The verification questions as a judge is asked them: labels, keys, weights.

A scene's questions come as :class:`~physeval.scenes.data.VerificationQuestion` records,
``{index, question, weight}`` dicts (``Problem.meta["questions"]``) or plain strings. The judge
sees each under a *label* (the number in the prompt, expected back as ``index``); results are
recorded under the question's *key* (the dataset's index). Text mode asks two questions about
the program first and numbers the dataset's questions from 3.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from physeval.scenes.data import VerificationQuestion

__all__ = [
    "TEXT_MODE_EXTRA_QUESTIONS",
    "JudgeMode",
    "JudgeQuestion",
    "QuestionsLike",
    "coerce_questions",
    "judge_questions",
    "normalize_index",
    "question_dict",
]

JudgeMode = Literal["frames", "video", "text"]

QuestionsLike = Sequence[VerificationQuestion | Mapping[str, Any] | str]
"""What every judge function accepts as its questions."""

#: The two questions text mode asks before the verification questions: (key, text).
TEXT_MODE_EXTRA_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("executes", "Does the program run to completion without raising an error?"),
    (
        "saves_video",
        ("Does the program save an MP4 video file to the path given as its first "
        "command-line argument?"),
    ),
)


@dataclass(frozen=True)
class JudgeQuestion:
    """A question as the judge sees it.

    Attributes:
        key: The name results are recorded under (the dataset's index; ``executes`` /
            ``saves_video`` for text mode's extra questions).
        label: The number shown in the prompt and expected back as ``index``.
        question: The text.
        weight: Weight in ``ratio`` aggregation.
    """

    key: str
    label: str
    question: str
    weight: float = 1.0


def normalize_index(value: Any) -> str:
    """A question label in canonical form: ``1``, ``"1"``, ``"Q1"``, ``"1."``, ``1.0`` -> ``"1"``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip().strip("\"'*`[]()").strip()
    text = re.sub(r"^(?:q(?:uestion)?|no\.?|#)\s*", "", text, flags=re.IGNORECASE)
    text = text.rstrip(".:)").strip()
    if re.fullmatch(r"\d+\.0+", text):
        text = text.split(".")[0]
    if text.isdigit():
        text = str(int(text))
    return text


def coerce_questions(questions: QuestionsLike) -> list[VerificationQuestion]:
    """Accept questions as :class:`VerificationQuestion`, ``{index, question, weight}`` dicts
    (``Problem.meta["questions"]``) or plain strings (numbered from 1)."""
    out: list[VerificationQuestion] = []
    for pos, q in enumerate(questions, start=1):
        if isinstance(q, VerificationQuestion):
            out.append(q)
        elif isinstance(q, str):
            out.append(VerificationQuestion(str(pos), q))
        elif isinstance(q, Mapping):
            weight = q.get("weight", 1.0)
            out.append(
                VerificationQuestion(
                    str(q.get("index", pos)).strip(),
                    str(q["question"]),
                    1.0 if weight is None else float(weight),
                )
            )
        else:
            raise TypeError(f"question {pos}: expected a VerificationQuestion, dict or str")
    return out


def judge_questions(questions: QuestionsLike, mode: JudgeMode = "frames") -> list[JudgeQuestion]:
    """The questions as the judge is asked them in ``mode`` (text mode adds two first)."""
    base = coerce_questions(questions)
    if mode != "text":
        labels = [normalize_index(q.index) for q in base]
        if len(set(labels)) != len(labels) or not all(labels):  # "1" and "01": number by position
            labels = [str(i) for i in range(1, len(base) + 1)]
        return [JudgeQuestion(q.index, label, q.question, q.weight) for q, label in zip(base, labels)]
    extra = [JudgeQuestion(key, str(i), text) for i, (key, text) in enumerate(TEXT_MODE_EXTRA_QUESTIONS, 1)]
    offset = len(extra)
    return extra + [
        JudgeQuestion(q.index, str(i + offset), q.question, q.weight) for i, q in enumerate(base, 1)
    ]


def question_dict(q: JudgeQuestion) -> dict[str, Any]:
    """``{key, label, question, weight}``: how a verdict records each question."""
    return {"key": q.key, "label": q.label, "question": q.question, "weight": q.weight}

"""The two judge protocols: physeval's own, and SimuScene's as its authors published it.

``physeval`` (default): the judge answers ``true``/``false`` per question; insufficient visual
evidence is false; the instruction is physeval's (:mod:`physeval.scenes.judge.prompt`).

``simuscene``: the protocol of the SimuScene paper (arXiv 2602.10840) as its released judge code
states it, restated here in physeval's words (no text is copied). Sources read:

* the authors' VLM-judge script (Qwen2.5-VL-72B-Instruct watching the video at 5 fps): the judge
  gets the dataset's object-and-motion description (``summarize``) and the numbered questions,
  not the scenario text; six reading rules (viewpoint changes shapes; schematic drawings stand
  for objects; a missing container means the frame is the boundary, a drawn one is see-through;
  geometry and motion, not material or colour, decide; infer through occlusion; be decisive and
  say "Not sure" only when the evidence truly does not decide); per question it returns
  ``index``, ``question``, ``analysis``, ``result`` (``"True"``, ``"False"`` or ``"Not sure"``)
  and ``confidence_score`` (1 very uncertain .. 5 very certain). AgentFly ships the same
  prompt as ``DEFAULT_VLM_PROMPT_TEMPLATE`` (``src/agentfly/rewards/vlm_as_judge/prompt_utils.py``).
* AgentFly's decision rule (``agentfly/rewards/vlm_as_judge/vlm_as_judge_reward.py`` at commit
  ``7cb2d0ee``, ``pass_fail_reward``; the LLM-as-judge reward at ``a5014c71`` applies the same
  rule to code review): ``"True"`` passes; ``"Not sure"`` with a confidence below 4 passes;
  ``"Not sure"`` with confidence 4 or 5 fails; a confidence that is missing or not an integer
  counts as 1; anything else, and a question left unanswered, fails.

The paper's *generation* prompt could not be found in any stored source, so the scene prompt
stays physeval's under both protocols (the run records which protocol judged it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, Literal

from physeval.scenes.judge.questions import JudgeQuestion

__all__ = [
    "JUDGE_PROTOCOLS",
    "NOT_SURE_PASS_BELOW",
    "JudgeProtocol",
    "check_protocol",
    "read_confidence",
    "reply_schema",
    "simuscene_instruction",
    "unsure_passes",
]

JudgeProtocol = Literal["physeval", "simuscene"]
JUDGE_PROTOCOLS: tuple[str, ...] = ("physeval", "simuscene")

NOT_SURE_PASS_BELOW = 4
"""AgentFly's rule: a "Not sure" answer with a confidence below this counts as passing."""

_DEFAULT_CONFIDENCE = 1  # AgentFly's value for a missing or unreadable confidence


def check_protocol(protocol: str) -> None:
    """Raise ``ValueError`` for an unknown protocol name (a programming error)."""
    if protocol not in JUDGE_PROTOCOLS:
        raise ValueError(f"protocol must be 'physeval' or 'simuscene', not {protocol!r}")


def read_confidence(value: Any) -> int:
    """A ``confidence_score`` as AgentFly reads it: an integer (or integer text) as is, a float
    truncated, anything else (missing, ``"high"``, ``"4.5"``) 1."""
    if isinstance(value, bool) or value is None:
        return _DEFAULT_CONFIDENCE
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else _DEFAULT_CONFIDENCE
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    return _DEFAULT_CONFIDENCE


def unsure_passes(confidence: int) -> bool:
    """AgentFly's "Not sure" rule: low confidence (below 4) passes, high confidence fails."""
    return confidence < NOT_SURE_PASS_BELOW


_RULES = (
    "How to read what you are shown:\n"
    "1. Viewpoint. A shape depends on where it is seen from: a cylinder can look like a circle "
    "from above or a rectangle from the side, and a circular path can look like a wave or a "
    "straight line in a 2D projection.\n"
    "2. Schematic drawing. Simple shapes and colours may stand for real objects (dots for "
    "markers, a rectangle for a container, a line for a mat or a boundary, a colour for a "
    "material). When the motion reads correctly, the answer is True even if such details do not "
    "match, and also when a rotation cannot be seen but the motion is right.\n"
    "3. Containers. With no container drawn, the frame is the boundary. A drawn container whose "
    "inside is visible counts as transparent. Do not assume that an object you cannot see is "
    "inside a container.\n"
    "4. Shape, position and motion decide, not material, colour or texture. If the motion "
    "contradicts the question (for example it moves up where it should slide down), the answer "
    "is False whatever the objects look like.\n"
    "5. Occlusion. When an object is partly hidden, decide from the evidence around it.\n"
    "6. Be decisive. When the visual context is sufficient, give a confident answer; answer "
    "\"Not sure\" only when the evidence truly cannot decide the question."
)

_CODE_RULES = (
    "Do not run the program: read it and decide each question from what it would do and what "
    "the video it writes would show, assuming a standard Python 3 with numpy and OpenCV unless "
    "the code clearly needs something missing. For the video question, look for a video writer "
    "that is created, receives frames and is closed."
)

_REPLY = (
    "Answer every question. For each, give \"index\" (the question number), \"question\" (its "
    "full text), \"analysis\" (what you observe and how it decides the question), \"result\" "
    "(exactly \"True\", \"False\" or \"Not sure\") and \"confidence_score\" (an integer from 1, "
    "very uncertain, to 5, very certain). Reply with a JSON list of these objects, for example:\n"
    '[{{"index": "{first}", "question": "...", "analysis": "...", "result": "True", '
    '"confidence_score": 5}}, ...]'
)


def simuscene_instruction(questions: Sequence[JudgeQuestion], *, summarize: str | None,
                          code_review: bool = False) -> str:
    """The SimuScene protocol's instruction: the task, the reading rules (or, for code review,
    how to read a program), the numbered questions and the description, the reply format."""
    if code_review:
        head = ("You are given a Python program written to render a video of a physical scenario, a "
                "description of the objects and motion the video should show, and verification "
                "questions. Judge whether each question holds for the video the program would produce.")
        rules = _CODE_RULES
    else:
        head = ("You are given verification questions and a description of the objects and motion in "
                "a video. Judge each question by whether the video's visual content correctly "
                "reflects it, taking into account how shapes change with viewpoint and that objects "
                "may be drawn symbolically.")
        rules = _RULES
    listing = "\n".join(f"{q.label}. {q.question}" for q in questions)
    description = (summarize or "").strip() or "Judge the visual content by the questions."
    parts = [head, rules, f"Questions:\n{listing}", f"Description of the objects and motion:\n{description}",
             _REPLY.format(first=questions[0].label if questions else "1")]
    return "\n\n".join(parts)


def reply_schema(labels: Sequence[str], protocol: JudgeProtocol = "physeval") -> dict[str, Any]:
    """The JSON schema a judge's structured reply must satisfy: ``{"answers": [...]}`` with one
    object per question (``index`` one of ``labels``). The root is an object because OpenAI's
    strict structured output requires one; every property is required and no other is allowed."""
    check_protocol(protocol)
    properties: dict[str, Any] = {"index": {"type": "string", "enum": list(labels)},
                                  "analysis": {"type": "string"}}
    if protocol == "simuscene":
        properties["question"] = {"type": "string"}
        properties["result"] = {"type": "string", "enum": ["True", "False", "Not sure"]}
        properties["confidence_score"] = {"type": "integer", "enum": [1, 2, 3, 4, 5]}
    else:
        properties["result"] = {"type": "boolean"}
    item = {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}
    return {"type": "object", "properties": {"answers": {"type": "array", "items": item}},
            "required": ["answers"], "additionalProperties": False}

"""Vision-language judges: ask a model yes/no questions about a rendered scene and decide.

Three ways to show the judge the scene (``mode``):

* ``"frames"`` (default): N frames sampled uniformly (16 by default, each fitted into about
  448x448), sent in time order as JPEG ``image_url`` parts (data URLs), each preceded by a text
  part with its time stamp.
* ``"video"``: the video itself as one ``video_url`` part with a ``file://`` URL (vLLM serves it
  with ``--allowed-local-media-path``).
* ``"text"``: no rendering at all; the judge reads the program and answers two extra
  questions first ("does it execute", "does it save a video"), then the verification questions
  renumbered from 3. This reproduces SimuScene's LLM-as-judge ablation.

The prompt lists the numbered questions and asks for a JSON list of
``{"index", "analysis", "result": true|false}``; insufficient visual evidence counts false.
Replies are parsed forgivingly (:func:`parse_judge_reply`): strict JSON, fenced blocks,
trailing prose, truncated lists (complete objects are recovered), ``"yes"``/``"no"``/
``"Not sure"`` strings. A question the reply does not answer counts false and is recorded.

Aggregation: ``binary`` (score 1 only when every question is true) or ``ratio`` (weighted
fraction true). With several judges each question is decided by majority vote, ties false.
A judge whose request fails (after the client's retries) is recorded with its error and votes
false on every question, so the denominator of a vote never depends on which server was up;
when every judge fails the verdict's outcome is ``"error"`` (rerun it), never a silent 0.
"""

from __future__ import annotations

import ast
import asyncio
import json
import math
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from physeval.answers.extract import strip_reasoning
from physeval.grading._never_raise import never_raises
from physeval.models.base import Model
from physeval.problems import Grade, Outcome
from physeval.scenes.data import VerificationQuestion

__all__ = [
    "JudgeMode",
    "Aggregation",
    "FrameLike",
    "JudgeModel",
    "JudgeQuestion",
    "ParsedReply",
    "JudgeRun",
    "JudgeVerdict",
    "TEXT_MODE_EXTRA_QUESTIONS",
    "normalize_index",
    "coerce_questions",
    "judge_questions",
    "build_judge_prompt",
    "build_judge_messages",
    "parse_judge_reply",
    "aggregate",
    "ensemble_vote",
    "judge_video",
    "judge_video_sync",
]

JudgeMode = Literal["frames", "video", "text"]
Aggregation = Literal["binary", "ratio"]

DEFAULT_MAX_TOKENS = 4096
_REPLY_KEEP = 20_000  # characters of each raw reply kept in the record

#: The two questions text mode asks before the verification questions: (key, text).
TEXT_MODE_EXTRA_QUESTIONS: tuple[tuple[str, str], ...] = (
    ("executes", "Does the program run to completion without raising an error?"),
    (
        "saves_video",
        "Does the program save an MP4 video file to the path given as its first "
        "command-line argument?",
    ),
)


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


JudgeModel = Model
"""Judges are ordinary models: anything that implements :class:`physeval.models.Model`."""


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


@dataclass(frozen=True)
class ParsedReply:
    """One judge reply read into per-question booleans.

    Attributes:
        results: ``label -> bool`` for every expected label (missing ones are ``False``).
        analyses: ``label -> analysis text`` where the reply gave one.
        missing: Labels the reply did not answer (counted false).
        problems: What was wrong with the reply (unknown indices, duplicates, unreadable
            results, positional guesses, truncation).
        method: How the list was found: ``json``, ``fenced``, ``embedded``, ``objects``,
            ``python`` (a Python literal), each possibly ``+repaired``, or ``none``.
    """

    results: dict[str, bool]
    analyses: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    method: str = "none"

    @property
    def answered(self) -> int:
        """How many expected questions the reply answered."""
        return len(self.results) - len(self.missing)


@dataclass(frozen=True)
class JudgeRun:
    """One judge's answer to one scene.

    Attributes:
        judge: The judge model's name.
        outcome: ``ok`` (every question answered), ``partial`` (some missing), ``unparseable``
            (no answer could be read) or ``error`` (the request failed, or the reply parser
            itself failed: ``error_kind="grader"``).
        results: ``question key -> bool`` (all false for ``error``/``unparseable``).
        analyses: ``question key -> the judge's analysis``.
        missing: Question keys the judge did not answer.
        problems: Parse problems (see :class:`ParsedReply`).
        error: The failure message for ``error``.
        error_kind: The client's failure kind (``timeout``, ``server_error``...) if it gave one.
        parse_method: See :attr:`ParsedReply.method`.
        finish_reason: As the server reported it (``length`` explains a truncated list).
        prompt_tokens: Tokens sent.
        completion_tokens: Tokens received.
        latency_s: Seconds the request took.
        reply: The raw reply text (capped at 20 000 characters).
    """

    judge: str
    outcome: str
    results: dict[str, bool] = field(default_factory=dict)
    analyses: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    error: str | None = None
    error_kind: str | None = None
    parse_method: str = "none"
    finish_reason: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    reply: str = ""


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
        judges: Each judge's :class:`JudgeRun`.
        problems: Parse problems, each prefixed with the judge name.
        judges_failed: How many judges returned ``error``.
        n_frames: Frames shown (frames mode).
        prompt_tokens: Total tokens sent to all judges.
        completion_tokens: Total tokens received.
        judge_seconds: Sum of the judges' request latencies.
        wall_seconds: Seconds from start to verdict (judges run concurrently).
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


# --------------------------------------------------------------------------- questions


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


def coerce_questions(
    questions: Sequence[VerificationQuestion | Mapping[str, Any] | str],
) -> list[VerificationQuestion]:
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


def judge_questions(
    questions: Sequence[VerificationQuestion | Mapping[str, Any] | str], mode: JudgeMode = "frames"
) -> list[JudgeQuestion]:
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


# --------------------------------------------------------------------------- prompt

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


def build_judge_prompt(
    questions: Sequence[VerificationQuestion | Mapping[str, Any] | str],
    *,
    mode: JudgeMode = "frames",
    summarize: str | None = None,
    scenario: str | None = None,
    n_frames: int | None = None,
) -> str:
    """The instruction text: what the judge is shown, the numbered questions, the reply format."""
    jq = judge_questions(questions, mode)
    if mode == "text":
        head = (
            "You are reviewing a Python program that was written to render an MP4 animation of a "
            "physical scenario. You cannot run it: read the code and decide each question from "
            "what the program would do and what the animation it renders would show. Answer false "
            "when the code does not clearly support a question."
        )
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
    questions: Sequence[VerificationQuestion | Mapping[str, Any] | str],
    *,
    mode: JudgeMode = "frames",
    frames: Sequence[FrameLike] | None = None,
    video_path: str | Path | None = None,
    code: str | None = None,
    summarize: str | None = None,
    scenario: str | None = None,
) -> list[dict[str, Any]]:
    """The chat messages for one judge request (one user turn).

    frames: instruction text, then per frame a ``Frame k/N at t = ... s`` text part and its
    ``image_url`` part, then a reminder. video: text then one ``video_url`` part
    (``file://`` URL of the resolved path). text: the instruction followed by the program.
    Raises ``ValueError`` when the mode's input is missing.
    """
    if mode == "frames":
        if not frames:
            raise ValueError("frames mode needs at least one frame")
        prompt = build_judge_prompt(questions, mode=mode, summarize=summarize, scenario=scenario,
                                    n_frames=len(frames))
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
        prompt = build_judge_prompt(questions, mode=mode, summarize=summarize, scenario=scenario)
        url = Path(video_path).resolve().as_uri()
        return [{"role": "user", "content": [
            {"type": "video_url", "video_url": {"url": url}},
            {"type": "text", "text": prompt},
        ]}]
    if mode == "text":
        if code is None:
            raise ValueError("text mode needs the program's code")
        prompt = build_judge_prompt(questions, mode=mode, summarize=summarize, scenario=scenario)
        return [{"role": "user", "content": f"{prompt}\n\nThe program:\n```python\n{code}\n```"}]
    raise ValueError(f"unknown judge mode {mode!r}")


# --------------------------------------------------------------------------- parsing

_TRUE_WORDS = {"true", "yes", "y", "t", "1", "correct", "pass", "passed", "satisfied", "confirmed"}
_FALSE_WORDS = {
    "false", "no", "n", "f", "0", "incorrect", "fail", "failed", "not sure", "unsure", "uncertain",
    "unknown", "unclear", "insufficient", "insufficient evidence", "cannot determine",
    "can't determine", "undetermined", "n/a", "na", "none", "null", "not visible",
}
_INDEX_KEYS = ("index", "idx", "id", "question_index", "question_id", "number", "no", "q")
_RESULT_KEYS = ("result", "answer", "verdict", "judgment", "judgement", "value", "label")
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.DOTALL)
_DECODER = json.JSONDecoder()
_MAX_SCAN_CHARS = 4_000_000  # characters the prose scanners may read per pass (never a wall clock)
_OBJECT_START = re.compile(r'\{\s*"')
_LIST_START = re.compile(r"\[\s*\{")
_MAX_PARSE_CHARS = 200_000  # a reply longer than this is read from its first 200k characters


def _to_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value in (0, 1):
            return bool(value)
        return None
    if not isinstance(value, str):
        return None
    text = value.strip().strip("\"'*`.!").strip().lower()
    if text in _TRUE_WORDS:
        return True
    if text in _FALSE_WORDS:
        return False
    first = re.split(r"[\s,;:()\-]+", text, maxsplit=1)[0]
    if first in ("true", "yes"):
        return True
    if first in ("false", "no", "not", "insufficient", "uncertain", "unsure", "unclear"):
        return False
    return None


def _has_result_key(obj: Mapping[str, Any]) -> bool:
    return any(k in obj for k in _RESULT_KEYS)


def _items_from(parsed: Any, *, scalars: bool = False) -> list[Any] | None:
    """The list of per-question objects inside a decoded JSON value, if any.

    ``scalars`` also accepts a bare list of booleans/"yes"/"no" (read by position); it is only
    allowed for a reply that is entirely JSON, never for a list found inside prose.
    """
    if isinstance(parsed, list):
        if parsed and all(isinstance(x, Mapping) for x in parsed):
            return parsed
        if scalars and parsed and all(_to_bool(x) is not None for x in parsed):
            return [{"result": x} for x in parsed]
        return None
    if isinstance(parsed, Mapping):
        if _has_result_key(parsed):
            return [parsed]
        for value in parsed.values():
            if isinstance(value, list) and value and all(isinstance(x, Mapping) for x in value):
                return value
        if parsed and all(_to_bool(v) is not None or isinstance(v, Mapping) for v in parsed.values()):
            items = []
            for k, v in parsed.items():
                if isinstance(v, Mapping):
                    items.append({"index": k, **v})
                else:
                    items.append({"index": k, "result": v})
            return items
    return None


def _try_json(text: str) -> list[Any] | None:
    try:
        return _items_from(json.loads(text), scalars=True)
    except (json.JSONDecodeError, ValueError, RecursionError):
        return None


class _Budget:
    """Characters the JSON scanners may still read for one reply (an operation budget).

    A failed ``raw_decode`` costs the characters it read plus the line counting its error
    does from the start of the text, so a failure at ``exc.pos`` is charged ``exc.pos``.
    """

    def __init__(self) -> None:
        self.left = _MAX_SCAN_CHARS

    def decode(self, text: str, pos: int) -> tuple[Any, int] | None:
        """``raw_decode`` at ``pos``, charged for its work; ``None`` on failure."""
        if self.left <= 0:
            return None
        try:
            value, end = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            self.left -= max(1, exc.pos)
            return None
        except RecursionError:
            self.left -= len(text)
            return None
        self.left -= max(1, end - pos)
        return value, end


def _candidates(pattern: re.Pattern[str], text: str, budget: _Budget) -> Iterator[int]:
    """Start positions of ``pattern`` left to right while the budget lasts."""
    match = pattern.search(text)
    while match is not None and budget.left > 0:
        yield match.start()
        match = pattern.search(text, match.start() + 1)


def _embedded_list(text: str, budget: _Budget) -> list[Any] | None:
    """Decode the first complete JSON list of objects (or wrapper object) found in prose.

    A lone per-question object is left to :func:`_scan_objects`, which collects all of them.
    """
    for pattern in (_LIST_START, _OBJECT_START):
        for start in _candidates(pattern, text, budget):
            decoded = budget.decode(text, start)
            if decoded is None:
                continue
            value = decoded[0]
            if not (isinstance(value, Mapping) and _has_result_key(value)):
                items = _items_from(value)
                if items:
                    return items
    return None


def _python_literal(text: str) -> list[Any] | None:
    """A reply written as a Python literal (single quotes, ``True``): read it safely."""
    candidates = [text.strip()] + [m.group(1).strip() for m in _FENCE.finditer(text)]
    start, end = text.find("["), text.rfind("]")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            value = ast.literal_eval(candidate)
        except Exception:  # noqa: BLE001 - any failure just means "not a literal"
            continue
        items = _items_from(value, scalars=True)
        if items:
            return items
    return None


def _scan_objects(text: str, budget: _Budget) -> list[Any]:
    """Every complete ``{...}`` object carrying a result key, left to right (truncated lists)."""
    found: list[Any] = []
    resume = 0
    for start in _candidates(_OBJECT_START, text, budget):
        if start < resume:  # inside an object already taken
            continue
        decoded = budget.decode(text, start)
        if decoded is not None and isinstance(decoded[0], Mapping) and _has_result_key(decoded[0]):
            found.append(decoded[0])
            resume = decoded[1]
    return found


_PY_LITERAL = re.compile(r'("(?:[^"\\]|\\.)*")|\b(True|False|None)\b')
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,(\s*[\]}])')


def _repair(text: str) -> str:
    """Python literals -> JSON and trailing commas removed, leaving string contents alone."""
    py = {"True": "true", "False": "false", "None": "null"}
    text = _PY_LITERAL.sub(lambda m: m.group(1) or py[m.group(2)], text)
    return _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), text)


def _find_items(text: str) -> tuple[list[Any], str]:
    stripped = text.strip()
    items = _try_json(stripped)
    if items:
        return items, "json"
    for match in _FENCE.finditer(text):
        items = _try_json(match.group(1).strip())
        if items:
            return items, "fenced"
    items = _embedded_list(text, _Budget())
    if items:
        return items, "embedded"
    items = _scan_objects(text, _Budget())
    if items:
        return items, "objects"
    items = _python_literal(text)
    if items:
        return items, "python"
    return [], "none"


PARSE_ERROR = "error"
"""``ParsedReply.method`` when the parser itself failed (a bug): every question false, the reason in ``problems``."""


def _reply_parse_error(reason: str, text: object = None, labels: object = (), *_args: Any, **_kwargs: Any) -> ParsedReply:
    try:
        expected = list(dict.fromkeys(normalize_index(label) for label in labels))  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - labels themselves unusable: answer with none
        expected = []
    return ParsedReply(results=dict.fromkeys(expected, False), missing=tuple(expected), problems=(reason,),
                       method=PARSE_ERROR)


@never_raises(_reply_parse_error)
def parse_judge_reply(text: str | None, labels: Sequence[str]) -> ParsedReply:
    """Read a judge's reply into one boolean per expected question label.

    Tries, in order: the whole reply as JSON; each fenced block; the first JSON list or object
    embedded in prose; every complete ``{...}`` object with a result (a truncated list); then
    the same after repairing Python literals and trailing commas. Accepted result values:
    JSON booleans, ``"true"/"false"``, ``"yes"/"no"``, ``1/0``, and "not sure"-like strings
    (false). An object without an index takes the label of its position (recorded). Labels
    never answered are false and listed in ``missing``. Never raises: should the parser itself
    fail, the reply comes back with ``method="error"`` and the exception in ``problems``.
    """
    expected = [normalize_index(label) for label in labels]
    problems: list[str] = []
    body = strip_reasoning(text or "")[:_MAX_PARSE_CHARS]
    items, method = _find_items(body)
    if not items:
        repaired = _repair(body)
        if repaired != body:
            items, method = _find_items(repaired)
            if items:
                method += "+repaired"
    results: dict[str, bool] = {}
    analyses: dict[str, str] = {}
    expected_set = set(expected)
    for pos, item in enumerate(items):
        if not isinstance(item, Mapping):
            problems.append(f"item {pos + 1} is not an object: {str(item)[:60]!r}")
            continue
        raw_index = next((item[k] for k in _INDEX_KEYS if k in item and item[k] is not None), None)
        if raw_index is None:
            if pos < len(expected):
                label = expected[pos]
                problems.append(f"item {pos + 1} has no index; taken as question {label} by position")
            else:
                problems.append(f"item {pos + 1} has no index")
                continue
        else:
            label = normalize_index(raw_index)
        if label not in expected_set:
            problems.append(f"answer for unknown question index {str(raw_index)[:20]!r} ignored")
            continue
        if label in results:
            problems.append(f"question {label} answered twice; the first answer is kept")
            continue
        raw_result = next((item[k] for k in _RESULT_KEYS if k in item), None)
        verdict = _to_bool(raw_result)
        if verdict is None:
            problems.append(f"question {label}: unreadable result {str(raw_result)[:40]!r} counted false")
            verdict = False
        results[label] = verdict
        analysis = item.get("analysis", item.get("reasoning", item.get("explanation")))
        if isinstance(analysis, str) and analysis.strip():
            analyses[label] = analysis.strip()
    missing = tuple(label for label in expected if label not in results)
    if missing and items:
        problems.append(f"no answer for question(s) {', '.join(missing)}: counted false")
    elif not items:
        problems.append("no JSON answer list found in the reply")
    full = {label: results.get(label, False) for label in expected}
    return ParsedReply(results=full, analyses=analyses, missing=missing, problems=tuple(problems),
                       method=method)


# --------------------------------------------------------------------------- aggregation


def aggregate(
    results: Mapping[str, bool],
    questions: Sequence[JudgeQuestion | VerificationQuestion],
    aggregation: Aggregation = "binary",
) -> tuple[bool, float, float]:
    """``(correct, score, ratio)`` for per-question results keyed by question key/index.

    ``correct`` = every question true (a question absent from ``results`` is false);
    ``ratio`` = weighted fraction true (plain fraction when all weights are 0);
    ``score`` = 1/0 for ``binary``, ``ratio`` for ``ratio``.
    """
    if aggregation not in ("binary", "ratio"):
        raise ValueError(f"aggregation must be 'binary' or 'ratio', not {aggregation!r}")
    keys = [q.key if isinstance(q, JudgeQuestion) else q.index for q in questions]
    weights = [float(q.weight) for q in questions]
    flags = [bool(results.get(k, False)) for k in keys]
    if not keys:
        return False, 0.0, 0.0
    total = sum(w for w in weights if math.isfinite(w) and w > 0)
    if total > 0:
        ratio = sum(w for w, f in zip(weights, flags) if f and math.isfinite(w) and w > 0) / total
    else:
        ratio = sum(flags) / len(flags)
    correct = all(flags)
    score = (1.0 if correct else 0.0) if aggregation == "binary" else ratio
    return correct, score, ratio


def ensemble_vote(per_judge: Sequence[Mapping[str, bool]], keys: Sequence[str]) -> dict[str, bool]:
    """Majority vote per question key over judges; a tie (or no judge) is false."""
    out: dict[str, bool] = {}
    for key in keys:
        yes = sum(1 for r in per_judge if r.get(key, False))
        out[key] = yes * 2 > len(per_judge)
    return out


# --------------------------------------------------------------------------- calling judges


async def _ask_one(
    judge: JudgeModel,
    messages: list[dict[str, Any]],
    jq: Sequence[JudgeQuestion],
    *,
    max_tokens: int,
    temperature: float,
    seed: int | None,
) -> JudgeRun:
    name = str(getattr(judge, "name", type(judge).__name__))
    keys = [q.key for q in jq]
    all_false = dict.fromkeys(keys, False)
    started = time.perf_counter()
    try:
        completions = await judge.generate(messages, n=1, temperature=temperature, top_p=1.0,
                                           max_tokens=max_tokens, seed=seed)
        completion = completions[0]
    except Exception as exc:  # noqa: BLE001 - a failed judge is a recorded outcome
        return JudgeRun(judge=name, outcome="error", results=all_false, missing=tuple(keys),
                        error=f"{type(exc).__name__}: {str(exc)[:500]}",
                        error_kind=getattr(exc, "kind", None),
                        latency_s=time.perf_counter() - started)
    text = getattr(completion, "text", None)
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    usage = getattr(completion, "usage", None)
    usage = usage if isinstance(usage, Mapping) else {}
    latency = getattr(completion, "latency_s", None)
    latency = float(latency) if isinstance(latency, (int, float)) and latency > 0 else time.perf_counter() - started
    parsed = parse_judge_reply(text, [q.label for q in jq])
    by_label = {q.label: q.key for q in jq}
    results = {by_label[label]: value for label, value in parsed.results.items()}
    analyses = {by_label[label]: value for label, value in parsed.analyses.items()}
    missing = tuple(by_label[label] for label in parsed.missing)
    finish = getattr(completion, "finish_reason", None)
    problems = list(parsed.problems)
    if finish == "length" and missing:
        problems.append("the reply was cut off by max_tokens (finish_reason=length)")
    if parsed.method == PARSE_ERROR:
        outcome = "error"
    elif parsed.answered == 0:
        outcome = "unparseable"
    elif missing:
        outcome = "partial"
    else:
        outcome = "ok"
    return JudgeRun(
        judge=name, outcome=outcome, results=results, analyses=analyses, missing=missing,
        problems=tuple(problems), parse_method=parsed.method, finish_reason=finish,
        error=parsed.problems[0] if outcome == "error" else None, error_kind="grader" if outcome == "error" else None,
        prompt_tokens=int(usage.get("prompt_tokens", 0) or 0),
        completion_tokens=int(usage.get("completion_tokens", 0) or 0),
        latency_s=latency, reply=text[:_REPLY_KEEP],
    )


def _error_verdict(reason: str, jq: Sequence[JudgeQuestion], mode: str, aggregation: str,
                   started: float) -> JudgeVerdict:
    return JudgeVerdict(
        correct=False, outcome=Outcome.ERROR, reason=reason, score=0.0, mode=mode,
        aggregation=aggregation, questions=tuple(_question_dict(q) for q in jq),
        per_question=dict.fromkeys((q.key for q in jq), False), wall_seconds=time.perf_counter() - started,
    )


def _question_dict(q: JudgeQuestion) -> dict[str, Any]:
    return {"key": q.key, "label": q.label, "question": q.question, "weight": q.weight}


async def _sample(video_path: str | Path, n: int, max_side: int) -> list[Any]:
    from physeval.scenes.frames import sample_frames  # built by the rendering helper

    return list(await asyncio.to_thread(sample_frames, video_path, n, max_side=max_side))


async def judge_video(
    *,
    questions: Sequence[VerificationQuestion | Mapping[str, Any] | str],
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
        scenario: The scenario text, shown to the judge when given.

    Never raises for judge failures or garbage replies: they become recorded outcomes. Bad
    arguments (unknown mode or aggregation, no judges) raise ``ValueError``.
    """
    started = time.perf_counter()
    if mode not in ("frames", "video", "text"):
        raise ValueError(f"mode must be 'frames', 'video' or 'text', not {mode!r}")
    if aggregation not in ("binary", "ratio"):
        raise ValueError(f"aggregation must be 'binary' or 'ratio', not {aggregation!r}")
    judge_list: list[JudgeModel] = [judges] if hasattr(judges, "generate") else list(judges)  # type: ignore[list-item]
    if not judge_list:
        raise ValueError("judge_video needs at least one judge")
    jq = judge_questions(questions, mode)
    if not jq:
        return _error_verdict("no verification questions", jq, mode, aggregation, started)
    shown = list(frames) if frames is not None else None
    if mode == "frames" and shown is None:
        if video_path is None:
            return _error_verdict("frames mode needs frames or a video_path", jq, mode, aggregation, started)
        try:
            shown = await _sample(video_path, n_frames, max_side)
        except Exception as exc:  # noqa: BLE001 - an unreadable video is a recorded outcome
            return _error_verdict(f"could not sample frames: {type(exc).__name__}: {exc}", jq, mode,
                                  aggregation, started)
        if not shown:
            return _error_verdict(f"no frames could be sampled from {video_path}", jq, mode,
                                  aggregation, started)
    if mode == "video" and video_path is not None and not Path(video_path).is_file():
        return _error_verdict(f"video not found: {video_path}", jq, mode, aggregation, started)
    try:
        messages = build_judge_messages(questions, mode=mode, frames=shown, video_path=video_path,
                                        code=code, summarize=summarize, scenario=scenario)
    except (ValueError, OSError) as exc:
        return _error_verdict(str(exc), jq, mode, aggregation, started)
    runs = list(await asyncio.gather(*(
        _ask_one(j, messages, jq, max_tokens=max_tokens, temperature=temperature, seed=seed)
        for j in judge_list
    )))
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
        aggregation=aggregation, ratio=ratio, questions=tuple(_question_dict(q) for q in jq),
        per_question=final, votes={k: [r.results.get(k, False) for r in runs] for k in keys},
        judges=tuple(runs), problems=problems, judges_failed=failed,
        n_frames=len(shown) if (mode == "frames" and shown) else 0,
        prompt_tokens=sum(r.prompt_tokens for r in runs),
        completion_tokens=sum(r.completion_tokens for r in runs),
        judge_seconds=sum(r.latency_s for r in runs), wall_seconds=time.perf_counter() - started,
    )


def judge_video_sync(**kwargs: Any) -> JudgeVerdict:
    """:func:`judge_video` for synchronous callers (runs its own event loop)."""
    return asyncio.run(judge_video(**kwargs))

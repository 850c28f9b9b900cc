"""Reading a judge's reply into one boolean per question: structured first, forgiving after.

:func:`read_structured` reads a reply the server produced under a JSON schema
(:func:`physeval.scenes.judge.protocol.reply_schema`): it must be exactly the schema's object,
answering every question once, or it is not used. :func:`parse_judge_reply` is the forgiving
parser for everything else: strict JSON, fenced blocks, trailing prose, truncated lists
(complete objects are recovered), Python literals, ``"yes"``/``"no"``/``"Not sure"`` strings.
A question the reply does not answer counts false and is recorded. Both record the answers
given as "Not sure" with their confidence (:attr:`ParsedReply.unsure`), which the SimuScene
protocol's rule reads; as booleans they are false. Scanning is bounded by operation budgets
(characters read), never by a clock.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from physeval.answers.extract import strip_reasoning
from physeval.grading._never_raise import never_raises
from physeval.probes.judge_reply import validate
from physeval.scenes.judge.protocol import JudgeProtocol, read_confidence, reply_schema
from physeval.scenes.judge.questions import normalize_index

__all__ = ["PARSE_ERROR", "ParsedReply", "parse_judge_reply", "read_structured"]


@dataclass(frozen=True)
class ParsedReply:
    """One judge reply read into per-question booleans.

    Attributes:
        results: ``label -> bool`` for every expected label (missing ones are ``False``).
        analyses: ``label -> analysis text`` where the reply gave one.
        missing: Labels the reply did not answer (counted false).
        problems: What was wrong with the reply (unknown indices, duplicates, unreadable
            results, positional guesses, truncation).
        method: How the list was found: ``structured`` (a reply valid under the schema),
            ``json``, ``fenced``, ``embedded``, ``objects``, ``python`` (a Python literal), each
            possibly ``+repaired``, ``none``, or ``error`` (the parser itself failed).
        unsure: ``label -> confidence`` for answers given as "Not sure" (false in ``results``);
            the confidence as :func:`~physeval.scenes.judge.protocol.read_confidence` reads it.
    """

    results: dict[str, bool]
    analyses: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    method: str = "none"
    unsure: dict[str, int] = field(default_factory=dict)

    @property
    def answered(self) -> int:
        """How many expected questions the reply answered."""
        return len(self.results) - len(self.missing)


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
        except Exception:  # noqa: BLE001, S112 - any failure just means "not a literal"
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


def _reply_parse_error(reason: str, text: object = None, labels: object = (), *_args: Any,
                       **_kwargs: Any) -> ParsedReply:
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
    unsure: dict[str, int] = {}
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
        if _is_not_sure(raw_result):
            unsure[label] = _confidence_of(item)
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
                       method=method, unsure=unsure)


_CONFIDENCE_KEYS = ("confidence_score", "confidence")


def _is_not_sure(value: Any) -> bool:
    return isinstance(value, str) and value.strip().strip("\"'*`.!").strip().lower() == "not sure"


def _confidence_of(item: Mapping[str, Any]) -> int:
    return read_confidence(next((item[k] for k in _CONFIDENCE_KEYS if k in item), None))


def read_structured(text: str | None, labels: Sequence[str],
                    protocol: JudgeProtocol = "physeval") -> tuple[ParsedReply | None, tuple[str, ...]]:
    """A reply made under :func:`~physeval.scenes.judge.protocol.reply_schema`, or why it is not one.

    Returns ``(parsed, ())`` when the reply (reasoning removed) is exactly a JSON value valid under
    the schema that answers every label once, ``parsed.method == "structured"``; otherwise
    ``(None, problems)`` and the caller falls back to :func:`parse_judge_reply`. Never raises
    (a failure of the reader itself is a problem, and the fallback reads the reply).
    """
    try:
        return _read_structured(text, labels, protocol)
    except Exception as exc:  # noqa: BLE001 - the forgiving parser still reads the reply
        return None, (f"structured reader failed: {type(exc).__name__}: {str(exc)[:80]}",)


def _read_structured(text: str | None, labels: Sequence[str],
                     protocol: JudgeProtocol) -> tuple[ParsedReply | None, tuple[str, ...]]:
    expected = [normalize_index(label) for label in labels]
    try:
        data = json.loads(strip_reasoning(text or "")[:_MAX_PARSE_CHARS].strip())
    except (json.JSONDecodeError, ValueError, RecursionError) as exc:
        return None, (f"structured reply is not JSON: {str(exc)[:80]}",)
    schema = reply_schema(expected, protocol)
    problems = validate(data, schema)
    items = data.get("answers") if isinstance(data, dict) and not problems else None
    if not isinstance(items, list):
        return None, tuple(problems or ["structured reply has no 'answers' list"])
    item_schema = schema["properties"]["answers"]["items"]
    for pos, item in enumerate(items):
        problems.extend(validate(item, item_schema, f"$.answers[{pos}]"))
        if isinstance(item, dict) and set(item) - set(item_schema["properties"]):
            problems.append(f"$.answers[{pos}]: unexpected keys {sorted(set(item) - set(item_schema['properties']))}")
    given = [normalize_index(item.get("index")) for item in items if isinstance(item, dict)]
    if not problems and sorted(given) != sorted(expected):
        problems.append(f"structured reply answers {given}, not each of {expected} once")
    if problems:
        return None, tuple(problems[:5])
    results: dict[str, bool] = {}
    analyses: dict[str, str] = {}
    unsure: dict[str, int] = {}
    for item in items:
        label = normalize_index(item["index"])
        value = item["result"]
        results[label] = value is True or value == "True"
        if value == "Not sure":
            unsure[label] = _confidence_of(item)
        if item["analysis"].strip():
            analyses[label] = item["analysis"].strip()
    return ParsedReply(results={label: results[label] for label in expected}, analyses=analyses,
                       method="structured", unsure=unsure), ()

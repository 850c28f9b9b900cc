"""Load SimuScene-format scene records into :class:`~physeval.problems.Problem` records.

A SimuScene record (JSON list or JSONL, one record per line) looks like::

    {"question": "scenario text", "Level": 2,
     "vlm_questions": {"enableAnnotator": "Yes", "summarize": "objects and motion",
                       "vlm_questions": [{"index": "1", "question": "...", "weight": 1.0}, ...]},
     "concept": "elastic collision", "domain": "Mechanics", "id": "mech-17"}

Two question layouts are read: the *nested* one above, and the *flat* one AgentFly's rewards
also read, where ``vlm_questions`` is the list itself (``"vlm_questions": [{"index", "question",
"weight"}, ...]``; the description, if any, is the record's own ``summarize``). The nested block
may also be named ``vlm_result`` (the key the SimuScene authors' judge script reads). The layout
read is kept in ``meta["question_layout"]`` (``nested`` or ``flat``).

The scenario text is cleaned before it is prompted (:func:`clean_scenario`): the released
records pad it with blank space and wrap it in quotes (sometimes as a JSON-encoded string).

Records without a ``domain`` get one from their ``concept`` through the build pipeline's
taxonomy (:mod:`physeval.scene_builder.taxonomy`, the paper's five domains), so per-domain breakdowns
cover them; ``meta["domain_source"]`` says ``record``, ``concept`` or ``None`` (no domain).

Rules (each applied per record, so one bad record never stops a load):

* ``enableAnnotator == "No"`` (any case) -> the record is *skipped* and counted; a missing
  ``enableAnnotator`` means enabled.
* Anything malformed (not an object, no scenario text, no questions, a question without text,
  a non-numeric or negative weight, a repeated question index, a repeated record id, an
  unreadable ``Level``, a JSONL line that is not JSON) -> the record is *dropped*, counted, and
  a message naming its position says why.
* A missing ``Level`` is kept as ``None``; ``Level``/``level`` are both read. A question without
  an ``index`` gets its 1-based position; a missing ``weight`` is 1.0.

Problems get ``id`` = the record's ``id`` (as a string) or its 0-based position in the file,
``answer = ""`` and ``meta = {level, domain, concept, summarize, questions, question_layout,
domain_source}`` where ``questions`` is a list of ``{index, question, weight}`` dicts.
``domain`` is lower-cased so per-domain breakdowns do not split on capitalisation.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physeval.errors import DataError, DataNotFoundError
from physeval.json_lines import parse_json_lines
from physeval.problems import Problem

__all__ = [
    "VerificationQuestion",
    "SceneLoad",
    "clean_scenario",
    "domain_of_concept",
    "SceneRecordError",
    "load_simuscene",
    "parse_scene_record",
    "scene_records_to_problems",
    "questions_of",
]


class SceneRecordError(ValueError):
    """A scene record that cannot be turned into a problem; the message says why."""


@dataclass(frozen=True)
class VerificationQuestion:
    """One yes/no question a judge answers about a rendered video.

    Attributes:
        index: The question's label as the dataset writes it (``"1"``, ``"2"``, ...).
        question: The question text.
        weight: Its weight in ``ratio`` aggregation (1.0 unless the dataset says otherwise).
    """

    index: str
    question: str
    weight: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        """The ``{index, question, weight}`` dict stored in ``Problem.meta["questions"]``."""
        return {"index": self.index, "question": self.question, "weight": self.weight}


@dataclass(frozen=True)
class SceneLoad:
    """What a scene file yielded.

    Attributes:
        problems: The usable problems, in file order.
        skipped: Records with ``enableAnnotator == "No"``.
        dropped: Malformed records left out.
        messages: One human-readable line per dropped (and skipped) record.
        source: The file that was read.
    """

    problems: list[Problem]
    skipped: int = 0
    dropped: int = 0
    messages: list[str] = field(default_factory=list)
    source: str = ""

    def summary(self) -> str:
        """One line for the terminal: how many loaded, skipped and dropped."""
        return (
            f"{len(self.problems)} scene problems loaded from {self.source or 'input'}; "
            f"{self.skipped} skipped (enableAnnotator=No), {self.dropped} dropped (malformed)"
        )


def load_simuscene(path: str | Path) -> SceneLoad:
    """Read a SimuScene JSON list or JSONL file; bad records are dropped with a message each.

    Raises :class:`~physeval.errors.DataNotFoundError` (a ``FileNotFoundError``) when the file does
    not exist and ``ValueError`` when it is a
    JSON document that is neither a list nor an object (nothing per-record to salvage).
    """
    path = Path(path)
    if not path.is_file():
        raise DataNotFoundError(f"SimuScene data not found: {path} (a JSON list or JSONL of SimuScene records; "
                                "pass it with --data PATH)")
    text = path.read_text(encoding="utf-8-sig")
    entries, messages = _read_entries(text, str(path))
    load = scene_records_to_problems(entries, source=str(path))
    return SceneLoad(
        problems=load.problems,
        skipped=load.skipped,
        dropped=load.dropped + len(messages),
        messages=messages + load.messages,
        source=str(path),
    )


def scene_records_to_problems(
    records: Iterable[tuple[int, Any]] | Iterable[Any], *, source: str = ""
) -> SceneLoad:
    """Turn already-decoded records into problems (skips and drops as :func:`load_simuscene`).

    ``records`` is either plain records (positions are their order) or ``(position, record)``
    pairs (used by the JSONL reader so positions survive unreadable lines).
    """
    problems: list[Problem] = []
    messages: list[str] = []
    skipped = dropped = 0
    seen: set[str] = set()
    for order, item in enumerate(records):
        position, record = item if _is_positioned(item) else (order, item)
        try:
            problem = parse_scene_record(record, position)
        except SceneRecordError as exc:
            dropped += 1
            messages.append(f"record {position}: dropped: {exc}")
            continue
        if problem is None:
            skipped += 1
            messages.append(f"record {position}: skipped: enableAnnotator is 'No'")
            continue
        if problem.id in seen:
            dropped += 1
            messages.append(f"record {position}: dropped: duplicate id {problem.id!r}")
            continue
        seen.add(problem.id)
        problems.append(problem)
    return SceneLoad(problems=problems, skipped=skipped, dropped=dropped, messages=messages, source=source)


def parse_scene_record(record: Any, position: int) -> Problem | None:
    """One SimuScene record -> a Problem, ``None`` when the annotator flag is ``No``.

    Raises :class:`SceneRecordError` with a specific reason for a malformed record.
    """
    if not isinstance(record, Mapping):
        raise SceneRecordError(f"expected a JSON object, got {type(record).__name__}")
    scenario = record.get("question")
    if isinstance(scenario, str):
        scenario = clean_scenario(scenario)
    if not isinstance(scenario, str) or not scenario:
        raise SceneRecordError("missing or empty 'question' (the scenario text)")
    block = record.get("vlm_questions")
    if block is None:
        block = record.get("vlm_result")
    layout = "flat" if isinstance(block, list) else "nested"
    if layout == "flat":
        block = {"summarize": record.get("summarize", ""), "vlm_questions": block}
    if not isinstance(block, Mapping):
        raise SceneRecordError("missing 'vlm_questions' object (or list of questions)")
    enabled = block.get("enableAnnotator", "Yes")
    if not isinstance(enabled, (str, bool)):
        raise SceneRecordError(f"'enableAnnotator' must be 'Yes' or 'No', got {enabled!r}")
    flag = enabled if isinstance(enabled, bool) else enabled.strip().lower()
    if flag in ("no", False):
        return None
    if flag not in ("yes", True):
        raise SceneRecordError(f"'enableAnnotator' must be 'Yes' or 'No', got {enabled!r}")
    summarize = block.get("summarize", "")
    if summarize is None:
        summarize = ""
    if not isinstance(summarize, str):
        raise SceneRecordError("'summarize' must be a string")
    questions = _parse_questions(block.get("vlm_questions"),
                                 "'vlm_questions'" if layout == "flat" else "'vlm_questions.vlm_questions'")
    level = _parse_level(record.get("Level", record.get("level")))
    rid = record.get("id")
    if rid is None or (isinstance(rid, str) and not rid.strip()):
        pid = str(position)
    elif isinstance(rid, (str, int)) and not isinstance(rid, bool):
        pid = str(rid).strip()
    else:
        raise SceneRecordError(f"'id' must be a string or an integer, got {type(rid).__name__}")
    domain = _optional_text(record, "domain", lower=True)
    concept = _optional_text(record, "concept")
    source = "record" if domain else None
    if domain is None and concept is not None:
        domain = domain_of_concept(concept)
        source = "concept" if domain else None
    meta = {
        "level": level,
        "domain": domain,
        "concept": concept,
        "summarize": summarize.strip(),
        "questions": [q.to_dict() for q in questions],
        "question_layout": layout,
        "domain_source": source,
    }
    return Problem(id=pid, question=scenario, answer="", meta=meta)


def questions_of(problem_or_meta: Problem | Mapping[str, Any]) -> list[VerificationQuestion]:
    """The verification questions stored in a scene problem's ``meta`` (or the meta itself)."""
    meta = problem_or_meta.meta if isinstance(problem_or_meta, Problem) else problem_or_meta
    return [
        VerificationQuestion(str(q["index"]), str(q["question"]), float(q.get("weight", 1.0)))
        for q in meta.get("questions", [])
    ]


def _read_entries(text: str, source: str) -> tuple[list[tuple[int, Any]], list[str]]:
    stripped = text.strip()
    if not stripped:
        return [], []
    if stripped[0] == "[":
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise DataError(f"{source}: not a valid JSON list: {exc}") from exc
        return list(enumerate(data)), []
    try:  # a single JSON object (pretty-printed) is one record
        data = json.loads(stripped)
    except json.JSONDecodeError:
        pass
    else:
        if isinstance(data, Mapping):
            return [(0, data)], []
        raise DataError(f"{source}: expected a JSON list, JSONL, or one JSON object")
    entries: list[tuple[int, Any]] = []
    messages: list[str] = []
    position = 0
    for line in parse_json_lines(text):
        if line.error:
            messages.append(f"record {position} (line {line.number}): dropped: {line.error}")
        else:
            entries.append((position, line.value))
        position += 1
    return entries, messages


def _is_positioned(item: Any) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int)


def _parse_questions(raw: Any, where: str) -> list[VerificationQuestion]:
    if not isinstance(raw, list) or not raw:
        raise SceneRecordError(f"{where} must be a non-empty list")
    out: list[VerificationQuestion] = []
    seen: set[str] = set()
    for pos, item in enumerate(raw, start=1):
        if not isinstance(item, Mapping):
            raise SceneRecordError(f"question {pos} is not an object")
        text = item.get("question")
        if not isinstance(text, str) or not text.strip():
            raise SceneRecordError(f"question {pos} has no 'question' text")
        index = item.get("index", pos)
        if isinstance(index, bool) or not isinstance(index, (str, int)) or not str(index).strip():
            raise SceneRecordError(f"question {pos} has an unusable 'index' {index!r}")
        index = str(index).strip()
        if index in seen:
            raise SceneRecordError(f"question index {index!r} appears twice")
        seen.add(index)
        weight = _parse_weight(item.get("weight", 1.0), pos)
        out.append(VerificationQuestion(index, text.strip(), weight))
    return out


def _parse_weight(raw: Any, pos: int) -> float:
    if raw is None:
        return 1.0
    if isinstance(raw, bool):
        raise SceneRecordError(f"question {pos} has a non-numeric weight {raw!r}")
    try:
        weight = float(raw)
    except (TypeError, ValueError):
        raise SceneRecordError(f"question {pos} has a non-numeric weight {raw!r}") from None
    if not math.isfinite(weight) or weight < 0:
        raise SceneRecordError(f"question {pos} has a weight that is negative or not finite: {raw!r}")
    return weight


def _parse_level(raw: Any) -> int | None:
    if raw is None:
        return None
    if isinstance(raw, bool):
        raise SceneRecordError(f"'Level' must be an integer, got {raw!r}")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    if isinstance(raw, str):
        text = raw.strip().lower().removeprefix("level").strip()
        if text.lstrip("-").isdigit():
            return int(text)
    raise SceneRecordError(f"'Level' must be an integer, got {raw!r}")


def _optional_text(record: Mapping[str, Any], key: str, *, lower: bool = False) -> str | None:
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise SceneRecordError(f"{key!r} must be a string, got {type(value).__name__}")
    value = value.strip()
    if not value:
        return None
    return value.lower() if lower else value


_QUOTE_PAIRS = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n{3,}")


def clean_scenario(text: str) -> str:
    """The scenario text as a model should see it: padding and wrapping quotes removed.

    A JSON-encoded string (``"\"A ball ...\""``) is decoded; a pair of matching quotes
    (straight, curly or guillemets) around the whole text is removed when the quote does not
    occur inside it (so a text that merely begins and ends with a quotation keeps it), up to
    three times; runs of spaces and tabs become one space, line ends lose trailing space, and
    more than one blank line becomes one. A clean text is returned unchanged.
    """
    out = text.replace("\r\n", "\n").strip()
    for _ in range(3):
        if len(out) >= 2 and out[0] == '"' == out[-1]:
            try:
                decoded = json.loads(out)
            except json.JSONDecodeError:
                decoded = None
            if isinstance(decoded, str):
                out = decoded.strip()
                continue
        closing = _QUOTE_PAIRS.get(out[:1])
        if closing and len(out) >= 2 and out.endswith(closing) and out[0] not in out[1:-1] \
                and closing not in out[1:-1]:
            out = out[1:-1].strip()
            continue
        break
    lines = [_SPACES.sub(" ", line).strip() for line in out.split("\n")]
    return _BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


# words that name no physics on their own ("Lenz's law" and "ideal gas law" share only "law")
_STOPWORDS = frozenset({"a", "an", "and", "the", "of", "in", "on", "to", "with", "for", "by", "at", "its", "s",
                        "law", "principle", "effect", "theorem", "rule"})


def _words(text: str) -> frozenset[str]:
    out = set()
    for word in re.findall(r"[a-z0-9]+", text.lower().replace("'s", "").replace("\u2019s", "")):
        if word in _STOPWORDS:
            continue
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith(("ses", "xes")) and len(word) > 4:
            word = word[:-2]
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
            word = word[:-1]
        out.add(word)
    return frozenset(out)


@functools.lru_cache(maxsize=1)
def _taxonomy_index() -> tuple[tuple[str, str, frozenset[str]], ...]:
    """``(domain, concept slug, concept words)`` of the shipped taxonomy (YAML read once, on first use)."""
    try:
        from physeval.scene_builder.taxonomy import load_taxonomy

        taxonomy = load_taxonomy()
    except Exception:  # noqa: BLE001 - no readable taxonomy: no mapping, never a failed load
        return ()
    rows = [(c.domain.lower(), c.slug, _words(c.name)) for c in taxonomy.concepts]
    rows += [(d.lower(), re.sub(r"[^a-z0-9]+", "-", d.lower()).strip("-"), _words(d)) for d in taxonomy.domains]
    return tuple(rows)


@functools.lru_cache(maxsize=4096)
def domain_of_concept(concept: str) -> str | None:
    """The taxonomy domain a concept name belongs to, or ``None`` when it cannot be told.

    Matching, on the build pipeline's taxonomy (the paper's five domains): the same slug as a
    taxonomy concept (or a domain name itself); otherwise the concept whose words overlap most
    (Dice coefficient over content words, plurals folded and words like "law" left out, at
    least 0.5), provided no concept of
    another domain scores as high. Pure and cached; a concept the taxonomy does not cover is
    ``None`` (its records stay out of the per-domain breakdown rather than guess).
    """
    slug = re.sub(r"[^a-z0-9]+", "-", concept.lower().replace("'", "").replace("\u2019", "")).strip("-")
    index = _taxonomy_index()
    for domain, concept_slug, _ in index:
        if slug == concept_slug:
            return domain
    words = _words(concept)
    if not words:
        return None
    best: dict[str, float] = {}
    for domain, _, taxonomy_words in index:
        if taxonomy_words:
            score = 2 * len(words & taxonomy_words) / (len(words) + len(taxonomy_words))
            best[domain] = max(best.get(domain, 0.0), score)
    ranked = sorted(best.items(), key=lambda kv: kv[1], reverse=True)
    if not ranked or ranked[0][1] < 0.5 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]

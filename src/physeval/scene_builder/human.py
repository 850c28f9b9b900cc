"""Stage 8, human verification: a review sheet out, the reviewers' decisions in.

:func:`write_review_sheet` writes ``review/sheet.csv`` and ``review/sheet.jsonl``, one row per
scenario of the dataset: id, domain, concept, level, split, the scenario, its questions (one
per line in the CSV, numbered), the reviewer model's summary, and where stage 7 ran the
verified flag, the judge's verdict per question and the video's path; then empty
``decision``, ``fixed_scenario``, ``fixed_questions``, ``note`` and ``reviewer`` columns.

:func:`import_review` reads a filled sheet (CSV or JSONL): ``decision`` is ``accept``, ``fix``
(with ``fixed_scenario`` and/or ``fixed_questions``) or ``drop``; a row without a decision is
left alone. Who decided is the row's ``reviewer``, else the ``decided_by`` given to the
import; one of them is required. Every decision is appended to the build store (the last one
for a scenario counts), so the history of who decided what stays.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from physeval.errors import DataError, DataNotFoundError
from physeval.json_lines import read_json_lines
from physeval.scene_builder.store import BuildStore, Decision

__all__ = ["SHEET_COLUMNS", "ImportReport", "import_review", "write_review_sheet"]

SHEET_COLUMNS = ("id", "domain", "concept", "level", "split", "scenario", "questions", "summarize", "verified",
                 "judge_verdicts", "video", "decision", "fixed_scenario", "fixed_questions", "note", "reviewer")
DECISIONS = ("accept", "fix", "drop")
_NUMBER = re.compile(r"^\s*\d+[.)]\s*")


def _sheet_row(record: dict[str, Any]) -> dict[str, Any]:
    solve = record.get("solve") or {}
    attempts = solve.get("attempts") or []
    judged = [a for a in attempts if a.get("verdict")]
    last = (judged or attempts or [{}])[-1]
    verdict = (last.get("verdict") or {}).get("per_question") or {}
    return {
        "id": record["id"], "domain": record["domain"], "concept": record["concept"], "level": record["level"],
        "split": record["split"], "scenario": record["scenario"], "questions": list(record["questions"]),
        "summarize": record.get("summarize", ""),
        "verified": (bool(record.get("solution")) if "solve" in record else None),
        "judge_verdicts": {k: ("yes" if v else "no") for k, v in verdict.items()} or None,
        "video": (record.get("solution") or {}).get("video") or last.get("video"),
        "decision": "", "fixed_scenario": "", "fixed_questions": [], "note": "", "reviewer": "",
    }


def write_review_sheet(build_dir: str | Path, records: list[dict[str, Any]]) -> dict[str, Path]:
    """Write the sheet as CSV and JSONL; return ``{"csv": path, "jsonl": path}``."""
    folder = Path(build_dir) / "review"
    folder.mkdir(parents=True, exist_ok=True)
    rows = [_sheet_row(r) for r in records]
    jsonl = folder / "sheet.jsonl"
    with jsonl.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    path = folder / "sheet.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=SHEET_COLUMNS)
        writer.writeheader()
        for row in rows:
            flat = dict(row)
            flat["questions"] = "\n".join(f"{i}. {q}" for i, q in enumerate(row["questions"], 1))
            flat["judge_verdicts"] = " ".join(f"{k}:{v}" for k, v in (row["judge_verdicts"] or {}).items())
            flat["verified"] = "" if row["verified"] is None else ("yes" if row["verified"] else "no")
            flat["fixed_questions"] = ""
            flat["video"] = row["video"] or ""
            writer.writerow(flat)
    return {"csv": path, "jsonl": jsonl}


@dataclass
class ImportReport:
    """What an import did."""

    recorded: dict[str, int] = field(default_factory=dict)
    unchanged: int = 0

    def line(self) -> str:
        """One line for the terminal."""
        parts = ", ".join(f"{n} {k}" for k, n in sorted(self.recorded.items())) or "no decisions"
        return f"recorded {parts}; {self.unchanged} rows without a decision left as they were"


def _read_sheet(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        raise DataNotFoundError(f"review sheet {path} not found")
    if path.suffix.lower() == ".jsonl":
        rows = []
        for line in read_json_lines(path):
            if line.error:
                raise DataError(f"{path} {line.problem}")
            rows.append(line.value)
        return rows
    text = path.read_text(encoding="utf-8-sig")
    return list(csv.DictReader(text.splitlines(keepends=True)))


def _questions(value: Any) -> list[str] | None:
    if value in (None, "", []):
        return None
    items = value if isinstance(value, list) else str(value).splitlines()
    out = [_NUMBER.sub("", str(q)).strip() for q in items]
    return [q for q in out if q] or None


def import_review(store: BuildStore, sheet: str | Path, *, decided_by: str | None = None,
                  known_ids: set[str] | None = None) -> ImportReport:
    """Record the decisions of a filled review sheet; the whole sheet is checked before any is recorded."""
    from physeval.scene_builder.schemas import MAX_QUESTIONS, MIN_QUESTIONS

    path = Path(sheet)
    rows = _read_sheet(path)
    report = ImportReport()
    pending: list[Decision] = []
    now = datetime.now(UTC).isoformat(timespec="seconds")
    for number, row in enumerate(rows, 1):
        where = f"{path.name} row {number}"
        if not isinstance(row, dict):
            raise DataError(f"{where}: not an object")
        decision = str(row.get("decision") or "").strip().lower()
        if not decision:
            report.unchanged += 1
            continue
        rid = str(row.get("id") or "").strip()
        if decision not in DECISIONS:
            raise DataError(f"{where} ({rid}): decision {decision!r}: use accept, fix or drop")
        if known_ids is not None and rid not in known_ids:
            raise DataError(f"{where}: no scenario {rid!r} in this build")
        who = str(row.get("reviewer") or "").strip() or (decided_by or "").strip()
        if not who:
            raise DataError(f"{where} ({rid}): who decided? fill the reviewer column or pass --by NAME")
        scenario = str(row.get("fixed_scenario") or "").strip() or None
        questions = _questions(row.get("fixed_questions"))
        if decision == "fix" and scenario is None and questions is None:
            raise DataError(f"{where} ({rid}): a fix needs fixed_scenario or fixed_questions")
        if questions is not None and not MIN_QUESTIONS <= len(questions) <= MAX_QUESTIONS:
            raise DataError(f"{where} ({rid}): {len(questions)} fixed questions; {MIN_QUESTIONS}-{MAX_QUESTIONS} "
                            "are needed")
        pending.append(Decision(rid, decision, who, now, scenario if decision == "fix" else None,
                                questions if decision == "fix" else None, str(row.get("note") or "").strip(),
                                str(path)))
    for item in pending:
        store.add_decision(item)
        report.recorded[item.decision] = report.recorded.get(item.decision, 0) + 1
    return report

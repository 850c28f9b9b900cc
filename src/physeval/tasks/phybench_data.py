"""Load PHYBench problems from its JSON files or from the Hugging Face hub.

PHYBench (``Eureka-Lab/PHYBench``) ships JSON lists of ``{id, tag, content, solution,
answer}``. Only the 100 problems of ``PHYBench-fullques_v1.json`` carry answers; the hub's
``load_dataset`` merges the repository's files, so records repeat and most answers are empty.
Both loaders therefore keep records with a non-empty answer, de-duplicated by id (first
occurrence wins), in input order. The tag (MECHANICS, ELECTRICITY, THERMODYNAMICS, MODERN,
OPTICS, ADVANCED) is the domain.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from physeval.errors import DataError, DataNotFoundError, MissingExtraError
from physeval.problems import Problem

__all__ = ["DEFAULT_FILE", "HF_DATASET_ID", "load_phybench", "load_phybench_hf", "merge_records", "record_to_problem"]

DEFAULT_FILE = "PHYBench-fullques_v1.json"
HF_DATASET_ID = "Eureka-Lab/PHYBench"


def record_to_problem(record: Mapping[str, Any]) -> Problem:
    """One PHYBench record as a :class:`Problem` (``meta = {"tag": ..., "domain": tag}``, plus
    ``"solution"`` when the record has one)."""
    tag = str(record.get("tag") or "").strip() or None
    meta: dict[str, Any] = {"tag": tag, "domain": tag}
    solution = str(record.get("solution") or "").strip()
    if solution:  # the reference solution, for the process judge and the poisoning probe
        meta["solution"] = solution
    return Problem(
        id=str(record["id"]).strip(),
        question=str(record.get("content") or ""),
        answer=str(record.get("answer") or "").strip(),
        meta=meta,
    )


def merge_records(records: Iterable[Mapping[str, Any]]) -> list[Problem]:
    """Problems from raw records: drop empty answers, de-duplicate by id (first wins).

    Raises ``ValueError`` for a record that is not an object or has no ``id``.
    """
    seen: set[str] = set()
    problems: list[Problem] = []
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise DataError(f"record {index} is not an object but {type(record).__name__}")
        if record.get("id") is None or str(record.get("id")).strip() == "":
            raise DataError(f"record {index} has no 'id'")
        answer = record.get("answer")
        if answer is None or not str(answer).strip():
            continue
        problem = record_to_problem(record)
        if problem.id in seen:
            continue
        seen.add(problem.id)
        problems.append(problem)
    return problems


def _read_json_list(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, list):
        raise DataError(f"{path}: expected a JSON list of records, got {type(data).__name__}")
    return data


def load_phybench(path: str | Path) -> list[Problem]:
    """Problems with answers from a PHYBench JSON file, or from a folder holding one.

    A folder is read as its ``PHYBench-fullques_v1.json``. Raises ``FileNotFoundError`` when
    nothing is there and ``ValueError`` when the file is not a PHYBench JSON list.
    """
    target = Path(path).expanduser()
    if target.is_dir():
        candidate = target / DEFAULT_FILE
        if not candidate.is_file():
            found = sorted(p.name for p in target.glob("*.json"))
            raise DataNotFoundError(
                f"{target}: no {DEFAULT_FILE} (JSON files here: {', '.join(found) or 'none'})"
            )
        target = candidate
    if not target.is_file():
        raise DataNotFoundError(f"PHYBench data not found: {target}")
    records = _read_json_list(target)
    try:
        return merge_records(records)
    except ValueError as exc:
        raise DataError(f"{target}: {exc}") from exc


def load_phybench_hf(dataset_id: str = HF_DATASET_ID) -> list[Problem]:
    """Problems with answers from the Hugging Face hub (needs the optional ``datasets`` package).

    Raises ``ImportError`` with an installation hint when ``datasets`` is absent, and
    :class:`~physeval.errors.DataError` naming the local-file alternative when the hub cannot be
    reached (offline) or has no such dataset.
    """
    try:
        from datasets import load_dataset
    except ImportError as exc:
        raise MissingExtraError(
            "loading PHYBench from the Hugging Face hub needs the 'datasets' package: pip install datasets "
            "(or pass a local file with --data PATH)"
        ) from exc
    try:
        dataset = load_dataset(dataset_id)
    except Exception as exc:  # noqa: BLE001 - offline, a wrong id, the hub down: all the user's to fix
        raise DataError(f"could not load hf:{dataset_id} from the Hugging Face hub ({type(exc).__name__}: {exc}); "
                        f"offline, download {DEFAULT_FILE} (Hugging Face {HF_DATASET_ID}) and pass --data PATH"
                        ) from exc
    splits = dataset.values() if hasattr(dataset, "values") else [dataset]
    records: list[Mapping[str, Any]] = []
    for split in splits:
        records.extend(dict(row) for row in split)
    return merge_records(records)

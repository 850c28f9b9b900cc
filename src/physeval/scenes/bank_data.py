"""physeval's own scene bank: original scenarios shipped in the package (task ``bank-scene``).

The bank lives in ``physeval/scenes/bank/*.yaml``, one file per domain::

    domain: mechanics
    scenes:
      - id: mech-bouncing-ball
        concept: coefficient of restitution
        level: 1            # 1 single object, 2 interacting parts, 3 multi-phase
        scenario: ...       # the text the model is asked to animate
        summarize: ...      # the objects and motion, shown to the judge
        questions:          # 4-12 yes/no questions about visible motion ("yes" = faithful)
          - "Does the ball's bounce height decrease after each impact?"

Each entry is turned into a SimuScene record and read by the same validator as external
data (:func:`physeval.scenes.data.parse_scene_record`), so bank problems have exactly the
shape of ``simuscene`` problems. A malformed bank entry is a packaging bug and raises.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from physeval.errors import DataError, DataNotFoundError  # noqa: F401
from physeval.problems import Problem
from physeval.scenes.data import SceneRecordError, parse_scene_record

__all__ = ["BANK_DIR", "BANK_DOMAINS", "load_scene_bank", "bank_records"]

BANK_DIR = Path(__file__).resolve().parent / "bank"

#: The five domains the bank covers, in report order.
BANK_DOMAINS: tuple[str, ...] = (
    "mechanics",
    "electromagnetism",
    "optics",
    "fluid mechanics",
    "thermodynamics",
)


def bank_records(bank_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """The bank as SimuScene-format records (``question``, ``Level``, ``vlm_questions``...)."""
    directory = Path(bank_dir) if bank_dir is not None else BANK_DIR
    records: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("scenes"), list):
            raise DataError(f"{path}: expected a mapping with 'domain' and a 'scenes' list")
        domain = doc.get("domain")
        for pos, scene in enumerate(doc["scenes"]):
            if not isinstance(scene, dict):
                raise DataError(f"{path}: scene {pos} is not a mapping")
            records.append(_to_record(scene, domain, f"{path.name}[{pos}]"))
    return records


def load_scene_bank(
    bank_dir: str | Path | None = None,
    *,
    domains: Iterable[str] | None = None,
    levels: Iterable[int] | None = None,
) -> list[Problem]:
    """Every bank scenario as a :class:`Problem`, optionally filtered by domain and level.

    Problems are ordered by file (domain) then by position; ids are unique across the bank.
    Raises ``ValueError`` on a malformed entry or a repeated id.
    """
    wanted_domains = {d.strip().lower() for d in domains} if domains is not None else None
    wanted_levels = set(levels) if levels is not None else None
    problems: list[Problem] = []
    seen: set[str] = set()
    for pos, record in enumerate(bank_records(bank_dir)):
        try:
            problem = parse_scene_record(record, pos)
        except SceneRecordError as exc:
            raise DataError(f"scene bank entry {record.get('id')!r}: {exc}") from exc
        if problem is None:  # the bank never disables an entry, but stay total
            continue
        if problem.id in seen:
            raise DataError(f"scene bank: duplicate id {problem.id!r}")
        seen.add(problem.id)
        if wanted_domains is not None and problem.meta["domain"] not in wanted_domains:
            continue
        if wanted_levels is not None and problem.meta["level"] not in wanted_levels:
            continue
        problems.append(Problem(problem.id, problem.question, problem.answer, problem.variant,
                                {**problem.meta, "source": "physeval-bank"}))
    return problems


def _to_record(scene: dict[str, Any], domain: Any, where: str) -> dict[str, Any]:
    for key in ("id", "concept", "level", "scenario", "questions"):
        if key not in scene:
            raise DataError(f"scene bank {where}: missing {key!r}")
    questions = []
    for i, q in enumerate(scene["questions"], start=1):
        if isinstance(q, str):
            questions.append({"index": str(i), "question": q, "weight": 1.0})
        elif isinstance(q, dict):
            questions.append({"index": str(i), "question": q.get("question"), "weight": q.get("weight", 1.0)})
        else:
            raise DataError(f"scene bank {where}: question {i} must be a string or a mapping")
    return {
        "id": scene["id"],
        "question": scene["scenario"],
        "Level": scene["level"],
        "domain": scene.get("domain", domain),
        "concept": scene["concept"],
        "vlm_questions": {
            "enableAnnotator": "Yes",
            "summarize": scene.get("summarize", ""),
            "vlm_questions": questions,
        },
    }

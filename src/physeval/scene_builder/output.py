"""The build's product: SimuScene-format records and their split files.

:func:`final_records` gathers every live reviewed scenario (with its split, its solve outcome
when stage 7 ran, and the human decision in force: ``drop`` removes it, ``fix`` replaces its
text and/or questions, ``accept`` marks it verified). :func:`write_dataset` writes them, sorted
by id, as JSONL that :func:`physeval.scenes.data.load_simuscene` reads (``physeval run
simuscene --data DIR/dataset/scenes.jsonl``), and checks that it does: a record the loader would
drop is a bug here, not a user error.

A fixed scenario text drops the solver's verified program (it was verified for the old text),
so the scenario goes to the RL split.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from physeval.scene_builder.context import live_items
from physeval.scene_builder.store import BuildStore

__all__ = ["DATASET_DIR", "SPLITS", "final_records", "to_simuscene", "write_dataset"]

DATASET_DIR = "dataset"
SPLITS = ("test", "train", "sft", "rl")


def final_records(store: BuildStore) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The dataset's records (internal form, sorted by id) and counts of the human decisions applied."""
    records = {i.key: dict(i.data) for i in live_items(store, "split")}
    solved = {i.key: i.data for i in store.items("solve", status="ok")}
    decisions = store.decisions()
    counts = {"accept": 0, "fix": 0, "drop": 0, "unreviewed": 0}
    out = []
    for rid in sorted(records):
        record = records[rid]
        if rid in solved:
            record["solve"] = solved[rid].get("solve")
            if solved[rid].get("solution"):
                record["solution"] = solved[rid]["solution"]
        decision = decisions.get(rid)
        if decision is None:
            counts["unreviewed"] += 1
            out.append(record)
            continue
        counts[decision.decision] += 1
        if decision.decision == "drop":
            continue
        record["human_review"] = {"decision": decision.decision, "by": decision.decided_by,
                                  "at": decision.decided_at, "note": decision.note}
        if decision.decision == "fix":
            if decision.scenario and decision.scenario.strip() != record["scenario"]:
                record["human_review"]["original_scenario"] = record["scenario"]
                record["scenario"] = decision.scenario.strip()
                record.pop("solution", None)
            if decision.questions:
                record["human_review"]["original_questions"] = record["questions"]
                record["questions"] = list(decision.questions)
        out.append(record)
    return out, counts


def split_name(record: dict[str, Any], solved: bool) -> str:
    """``test``; or, for train records, ``sft``/``rl`` once stage 7 ran, else ``train``."""
    if record["split"] == "test":
        return "test"
    if not solved:
        return "train"
    return "sft" if record.get("solution") else "rl"


def to_simuscene(record: dict[str, Any]) -> dict[str, Any]:
    """One record in the SimuScene format (``question``, ``Level``, ``vlm_questions``...), plus provenance."""
    out: dict[str, Any] = {
        "id": record["id"],
        "question": record["scenario"],
        "Level": record["level"],
        "domain": record["domain"],
        "concept": record["concept"],
        "vlm_questions": {
            "enableAnnotator": "Yes",
            "summarize": record.get("summarize", ""),
            "vlm_questions": [{"index": str(i), "question": q, "weight": 1.0}
                              for i, q in enumerate(record["questions"], 1)],
        },
        "split": record["split"],
        "basic_scenario": record["basic"],
        "conditions": record["conditions"],
        "entities": record.get("entities", []),
        "relations": record.get("relations", []),
    }
    if "solve" in record:
        out["solve_verified"] = bool((record.get("solve") or {}).get("verified")) and "solution" in record
    if record.get("solution"):
        out["solution"] = record["solution"]
    if record.get("human_review"):
        out["human_review"] = record["human_review"]
    return out


def write_dataset(build_dir: str | Path, records: list[dict[str, Any]], *, solved: bool) -> dict[str, Path]:
    """Write ``scenes.jsonl`` (everything) and one JSONL per split; return name -> path.

    Raises ``RuntimeError`` when the SimuScene loader would not read every record back.
    """
    from physeval.scenes.data import load_simuscene

    folder = Path(build_dir) / DATASET_DIR
    folder.mkdir(parents=True, exist_ok=True)
    names = ("test", "sft", "rl") if solved else ("test", "train")
    groups: dict[str, list[dict[str, Any]]] = {"scenes": [], **{n: [] for n in names}}
    for record in records:
        line = to_simuscene(record)
        groups["scenes"].append(line)
        groups[split_name(record, solved)].append(line)
    paths: dict[str, Path] = {}
    for name, lines in groups.items():
        path = folder / f"{name}.jsonl"
        with path.open("w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
        paths[name] = path
    for stale in set(SPLITS) - set(names):  # a build that gained a solver no longer has a plain train file
        (folder / f"{stale}.jsonl").unlink(missing_ok=True)
    loaded = load_simuscene(paths["scenes"])
    if len(loaded.problems) != len(records):
        raise RuntimeError(f"the written dataset does not load back: {loaded.summary()}: {loaded.messages[:3]}")
    return paths

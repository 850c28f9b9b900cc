"""Stage 8: the review sheet goes out, the reviewers' decisions come back in, with who decided."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from physeval.cli import main
from physeval.scene_builder.store import BuildStore
from physeval.scenes.data import load_simuscene

FIXED = ("A thin green laser beam in air strikes a rectangular glass block of refractive index 1.5 at 45 degrees, "
         "bends towards the normal inside and leaves parallel to the incoming beam.")
FIXED_QUESTIONS = "1. Is a glass block drawn?\n2. Does the beam bend at the top face?\n" \
                  "3. Does the beam bend at the bottom face?\n4. Is the outgoing beam parallel to the incoming one?"


def _fill(sheet: Path, decisions: dict[str, dict[str, str]], target: Path) -> Path:
    with sheet.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        row.update(decisions.get(row["id"], {}))
    with target.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return target


def test_the_sheet_has_one_row_per_scenario_with_its_questions(built_copy: Path) -> None:
    rows = list(csv.DictReader((built_copy / "review" / "sheet.csv").open(encoding="utf-8", newline="")))
    assert [r["id"] for r in rows] == ["projectile-motion-01-1", "refraction-01-1", "simple-pendulum-01-1"]
    assert rows[0]["questions"].splitlines()[0] == "1. Is a ball shown at the top edge of a cliff at the start?"
    assert rows[0]["decision"] == "" and rows[0]["verified"] == ""  # no solve stage ran
    lines = (built_copy / "review" / "sheet.jsonl").read_text().splitlines()
    assert json.loads(lines[2])["questions"][-1].startswith("Does the bob swing back")


def test_imported_decisions_accept_fix_and_drop_and_record_who(built_copy: Path, tmp_path: Path) -> None:
    sheet = _fill(built_copy / "review" / "sheet.csv", {
        "projectile-motion-01-1": {"decision": "accept", "reviewer": "ana"},
        "refraction-01-1": {"decision": "fix", "fixed_scenario": FIXED, "fixed_questions": FIXED_QUESTIONS},
        "simple-pendulum-01-1": {"decision": "drop", "reviewer": "ana", "note": "too easy"},
    }, tmp_path / "filled.csv")
    assert main(["build", "import-review", str(built_copy), str(sheet), "--by", "ben"]) == 0

    loaded = load_simuscene(built_copy / "dataset" / "scenes.jsonl")
    assert [p.id for p in loaded.problems] == ["projectile-motion-01-1", "refraction-01-1"]
    fixed = loaded.problems[1]
    assert fixed.question == FIXED
    assert [q["question"] for q in fixed.meta["questions"]][-1] == "Is the outgoing beam parallel to the incoming one?"
    records = [json.loads(x) for x in (built_copy / "dataset" / "scenes.jsonl").read_text().splitlines()]
    assert records[0]["human_review"]["by"] == "ana" and records[0]["human_review"]["decision"] == "accept"
    assert records[1]["human_review"]["by"] == "ben"
    assert records[1]["human_review"]["original_scenario"].startswith("A thin green laser beam travels")
    assert "Human review: 1 accepted, 1 fixed, 1 dropped, 0 not reviewed yet." in (built_copy / "card.md").read_text()


def test_a_later_decision_supersedes_and_the_history_stays(built_copy: Path, tmp_path: Path) -> None:
    first = _fill(built_copy / "review" / "sheet.csv",
                  {"projectile-motion-01-1": {"decision": "accept", "reviewer": "ana"}}, tmp_path / "a.csv")
    assert main(["build", "import-review", str(built_copy), str(first)]) == 0
    second = tmp_path / "b.jsonl"
    second.write_text(json.dumps({"id": "projectile-motion-01-1", "decision": "drop", "reviewer": "cy"}) + "\n")
    assert main(["build", "import-review", str(built_copy), str(second)]) == 0
    with BuildStore(built_copy) as store:
        assert store.decisions()["projectile-motion-01-1"].decided_by == "cy"
        history = store._db.execute("SELECT decision, decided_by FROM decisions ORDER BY seq").fetchall()
    assert history == [("accept", "ana"), ("drop", "cy")]
    assert "projectile-motion-01-1" not in (built_copy / "dataset" / "scenes.jsonl").read_text()


def test_a_bad_sheet_records_nothing(built_copy: Path, tmp_path: Path) -> None:
    sheet = _fill(built_copy / "review" / "sheet.csv", {
        "projectile-motion-01-1": {"decision": "accept", "reviewer": "ana"},
        "refraction-01-1": {"decision": "maybe", "reviewer": "ana"},
    }, tmp_path / "bad.csv")
    assert main(["build", "import-review", str(built_copy), str(sheet)]) == 2
    unsigned = _fill(built_copy / "review" / "sheet.csv", {"refraction-01-1": {"decision": "drop"}}, tmp_path / "u.csv")
    assert main(["build", "import-review", str(built_copy), str(unsigned)]) == 2  # who decided is required
    with BuildStore(built_copy) as store:
        assert store.decisions() == {}

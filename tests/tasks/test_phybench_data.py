"""Loading PHYBench JSON files and merging hub records."""

import json
from pathlib import Path

import pytest

from physeval.tasks.phybench_data import load_phybench, merge_records

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "phybench"


def _record(id_: object, answer: str, tag: str = "MECHANICS") -> dict:
    return {"id": id_, "tag": tag, "content": f"question {id_}", "solution": "", "answer": answer}


def test_merge_drops_empty_answers_and_duplicates() -> None:
    records = [_record(1, "x"), _record("1", "y"), _record(2, ""), _record(3, "  "), _record(4, "z", "OPTICS")]
    problems = merge_records(records)
    assert [(p.id, p.answer) for p in problems] == [("1", "x"), ("4", "z")]
    assert problems[1].meta == {"tag": "OPTICS", "domain": "OPTICS"}
    assert problems[0].question == "question 1"


def test_merge_rejects_malformed_records() -> None:
    with pytest.raises(ValueError, match="no 'id'"):
        merge_records([{"answer": "x"}])
    with pytest.raises(ValueError, match="not an object"):
        merge_records(["x"])


def test_load_file_and_folder(tmp_path: Path) -> None:
    path = tmp_path / "PHYBench-fullques_v1.json"
    path.write_text(json.dumps([_record(7, "a+b"), _record(8, "")]), encoding="utf-8")
    assert [p.id for p in load_phybench(path)] == ["7"]
    assert [p.id for p in load_phybench(tmp_path)] == ["7"]


def test_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_phybench(tmp_path / "missing.json")
    with pytest.raises(FileNotFoundError, match="PHYBench-fullques_v1.json"):
        load_phybench(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_phybench(bad)
    obj = tmp_path / "obj.json"
    obj.write_text("{}", encoding="utf-8")
    with pytest.raises(ValueError, match="JSON list"):
        load_phybench(obj)


def test_public_file_has_100_answered_problems() -> None:
    if not DATA.is_dir():
        pytest.skip("shared PHYBench data not present")
    problems = load_phybench(DATA)
    assert len(problems) == 100 and len({p.id for p in problems}) == 100
    assert {p.meta["domain"] for p in problems} <= {
        "MECHANICS", "ELECTRICITY", "THERMODYNAMICS", "MODERN", "OPTICS", "ADVANCED",
    }  # fmt: skip
    assert load_phybench(DATA / "PHYBench-onlyques_v1.json") == []  # answers withheld

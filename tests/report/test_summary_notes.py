"""Every note a scene summary prints says what is true.

Rows are written into a real run store the way the runner writes them (a judged sample, a
playable one without a judge, a program that crashed, a judge that failed), and the summary of
``bank-scene`` with or without ``--judge`` is built from the store. Each case names the notes
that must be there and the texts that must not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from physeval.flow.summarise import summarise
from physeval.store import RunStore, SampleRow
from physeval.tasks.registry import get_task

JUDGE = ("openai/vlm",)


def _row(pid: str, kind: str) -> SampleRow:
    """A scene sample row: ``judged_right``, ``judged_wrong``, ``unjudged`` (playable, no judge),
    ``crashed`` (the program failed) or ``judge_failed`` (an error row of kind judge)."""
    playable = kind in ("judged_right", "judged_wrong", "unjudged", "judge_failed")
    grade: dict[str, Any] = {"executable": kind != "crashed", "rendered": playable, "playable": playable,
                             "stage": "playable" if playable else "error",
                             "judged": kind in ("judged_right", "judged_wrong")}
    if grade["judged"]:
        grade.update(judge={"ratio": 1.0 if kind == "judged_right" else 0.5}, judge_tokens=100, judge_seconds=1.0)
    row = SampleRow(problem_id=pid, variant="0", sample=0, status="answered", messages=[], completion="code",
                    correct=kind == "judged_right", outcome={"judged_right": "correct", "judged_wrong": "wrong",
                                                             "unjudged": "unjudged", "crashed": "runtime_error"}.get(kind),
                    grade=grade, problem_meta={"domain": "mechanics"})
    if kind == "judge_failed":
        row.status, row.correct, row.outcome = "error", None, None
        row.error_kind, row.error_message = "judge", "every judge failed: HTTP 500"
    return row


# (case, --judge, row kinds, notes that must appear (substrings), texts no note may contain, accuracy)
CASES: list[tuple[str, tuple[str, ...], list[str], list[str], list[str], float | None]] = [
    ("judged", JUDGE, ["judged_right", "judged_wrong", "crashed"],
     [], ["omitted", "reached the judge", "ended in an error"], 1 / 3),
    ("not judged for lack of --judge", (), ["unjudged", "crashed"],
     ["accuracy omitted: no sample was judged (pass --judge to score scenes)"], ["reached the judge"], None),
    ("not judged because nothing played", JUDGE, ["crashed", "crashed"],
     ["no sample reached the judge: none of the 2 graded samples played a video"], ["pass --judge"], 0.0),
    ("judges failing", JUDGE, ["judge_failed", "judge_failed", "crashed"],
     ["2 samples ended in an error (judge 2) and are left out of every metric",
      "none of the 1 graded samples played a video"], ["pass --judge"], 0.0),
]


@pytest.mark.parametrize(("case", "judge", "kinds", "notes", "absent", "accuracy"), CASES,
                         ids=[c[0] for c in CASES])
def test_scene_note_table(case: str, judge: tuple[str, ...], kinds: list[str], notes: list[str], absent: list[str],
                          accuracy: float | None, tmp_path: Path) -> None:
    task = get_task("bank-scene", judge=list(judge)) if judge else get_task("bank-scene")
    with RunStore(tmp_path / "run") as store:
        for i, kind in enumerate(kinds):
            store.append(_row(f"p{i}", kind))
        summary = summarise(task, store, model="m", config={})
    for wanted in notes:
        assert any(wanted in note for note in summary.notes), (case, summary.notes)
    for text in absent:
        assert not any(text in note for note in summary.notes), (case, summary.notes)
    if accuracy is None:
        assert "accuracy" not in summary.metrics
    else:
        assert summary.metrics["accuracy"].value == pytest.approx(accuracy)

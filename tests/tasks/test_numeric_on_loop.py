"""Numeric grading runs on the event loop (no thread hop), and each answer is stored once, with its
verdict: a real `physeval run` against a scripted server on 127.0.0.1, real SQLite."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

import physeval.sqlite_file as sqlite_file
from physeval.cli import main
from physeval.store import RunStore
from physeval.tasks.registry import get_task
from physeval.tasks.tracks.numeric import NumericTask
from physeval.testing import Reply, ScriptedServer


def test_physevals_numeric_grader_grades_on_the_loop_and_compat_mode_in_a_thread() -> None:
    assert get_task("bank-numeric").grades_on_loop
    assert not get_task("bank-numeric", compat="abench").grades_on_loop


@pytest.mark.parametrize("compat", [None, "abench"])
def test_a_numeric_run_stores_each_answer_once_with_its_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                compat: str | None) -> None:
    threads: set[str] = set()
    grade = NumericTask.grade

    def watched(self: NumericTask, problem: Any, response: str) -> Any:
        threads.add(threading.current_thread().name)
        return grade(self, problem, response)

    monkeypatch.setattr(NumericTask, "grade", watched)
    statements: list[str] = []
    execute = sqlite_file._execute

    def counted(db: Any, sql: str, args: Any = ()) -> Any:
        statements.append(sql.split(" (")[0].split("(")[0])
        return execute(db, sql, args)

    monkeypatch.setattr(sqlite_file, "_execute", counted)
    options = ["-T", "compat=abench"] if compat else []
    with ScriptedServer(lambda request: Reply.text("so \\boxed{1.00}")) as server:
        code = main(["run", "bank-numeric", *options, "--model", "openai/m", "--base-url", server.base_url,
                     "--limit", "3", "--no-cache", "--no-progress", "--out", str(tmp_path / "run")])
    assert code == 0
    with RunStore(tmp_path / "run") as store:
        rows = store.rows()
    assert len(rows) == 12 and all(r.status == "answered" and r.outcome for r in rows)
    inserts = statements.count("INSERT OR REPLACE INTO samples")
    if compat is None:  # one INSERT per sample, graded in the main thread
        assert threads == {threading.main_thread().name}
        assert inserts == 12 and "UPDATE samples SET status = ?, correct = ?" not in " ".join(statements)
    else:  # the answer first (ungraded), then its verdict as an update; grading in worker threads
        assert threading.main_thread().name not in threads
        assert inserts == 12 and sum(s.startswith("UPDATE samples") for s in statements) == 12

"""A judge whose replies cannot be read is named in the summary, never a silent 'every sample wrong'.

The run goes through the real ``physeval run`` with ``--judge-mode text`` (the judge reads the
program, nothing is rendered), against a scripted server on 127.0.0.1 whose judge answers in
prose that no reply parser can read (issue 36).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from physeval.scenes.judge.notes import judge_reply_notes
from physeval.testing import Reply, Request, ScriptedServer


def _script(readable: bool):  # type: ignore[no-untyped-def]
    def reply(request: Request) -> Reply:
        if request.body.get("model") != "j":
            return Reply.text("```python\nprint('a ball falls')\n```")
        schema = (request.body.get("response_format") or {}).get("json_schema", {}).get("schema")
        if not readable or schema is None:  # prose, or the preflight's check
            return Reply.text("What a lovely video, I enjoyed watching it.")
        labels = schema["properties"]["answers"]["items"]["properties"]["index"]["enum"]
        return Reply.text(json.dumps({"answers": [{"index": label, "analysis": "seen", "result": True}
                                                  for label in labels]}))

    return reply


def _run(tmp_path: Path, readable: bool) -> tuple[subprocess.CompletedProcess[str], dict]:  # type: ignore[type-arg]
    with ScriptedServer(_script(readable)) as server:
        done = subprocess.run([sys.executable, "-m", "physeval", "run", "bank-scene", "--model", "openai/m",
                               "--base-url", server.base_url, "--judge", "openai/j", "--judge-base-url",
                               server.base_url, "--judge-mode", "text", "--limit", "2",
                               "--out", str(tmp_path / "run"), "--no-progress"],
                              capture_output=True, text=True, timeout=600, env={"COLUMNS": "400", **_env()})
    return done, json.loads((tmp_path / "run" / "summary.json").read_text(encoding="utf-8"))


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)


def test_unreadable_judge_replies_are_a_note_and_their_own_reason(tmp_path: Path) -> None:
    done, summary = _run(tmp_path, readable=False)
    assert done.returncode == 0, done.stderr
    assert summary["metrics"]["accuracy"]["value"] == 0.0
    notes = [n for n in summary["notes"] if n.startswith("no judge reply could be read")]
    assert notes == ["no judge reply could be read for 2 of 2 judged samples: they count as wrong (outcome "
                     "unparseable), which measures the judge, not the programs; check that --judge names a model "
                     "that answers the verification questions (its replies are kept in samples.sqlite)"]
    assert "note: no judge reply could be read for 2 of 2 judged samples" in done.stdout
    assert "judge_unreadable 2 (100%)" in done.stdout + done.stderr  # why samples ended: not "judged_wrong"


def test_a_judge_that_answers_gets_no_such_note(tmp_path: Path) -> None:
    done, summary = _run(tmp_path, readable=True)
    assert done.returncode == 0, done.stderr
    assert not [n for n in summary["notes"] if "judge reply could be read" in n or "a judge's reply" in n]
    assert summary["metrics"]["accuracy"]["value"] == 1.0


@pytest.mark.parametrize(("verdicts", "expected"), [
    ([], ()),
    ([{"outcome": "wrong", "judges": [{"outcome": "ok"}]}], ()),
    ([{"outcome": "unparseable", "judges": [{"outcome": "unparseable"}]}, {"outcome": "correct", "judges": []}],
     ("no judge reply could be read for 1 of 2 judged samples",)),
    ([{"outcome": "wrong", "judges": [{"outcome": "partial"}]}],
     ("in 1 of 1 judged samples a judge's reply was unreadable or left questions unanswered",)),
])
def test_the_notes_count_judged_samples_only(verdicts: list[dict], expected: tuple[str, ...]) -> None:  # type: ignore[type-arg]
    grades = [{"judged": True, "judge": v} for v in verdicts] + [{"judged": False}, None]
    notes = judge_reply_notes(grades)
    assert len(notes) == len(expected) and all(n.startswith(e) for n, e in zip(notes, expected))

"""SimuScene runs end to end: records in both question layouts load, render, get judged and
score; the run records the sandbox lock file's hash; ``judge_ratio`` and per-domain breakdowns.

A scripted model writes a real program (rendered in the sandbox), a scripted judge server
answers with the schema's object; records are written for the test in the released data's
shape (padded, quote-wrapped scenario text; the flat and the nested ``vlm_questions``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from physeval import RunConfig, RunSpec, run
from physeval.scenes.sandbox.lock import lock_path_for, sandbox_lock, write_lock
from physeval.testing import Reply, Request, ScriptedServer

pytest.importorskip("cv2")

PROGRAM = '''```python
import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 10, (160, 120))
for i in range(20):
    frame = np.full((120, 160, 3), 30, np.uint8)
    cv2.circle(frame, (10 + 7 * i, 60), 8, (255, 255, 255), -1)
    out.write(frame)
out.release()
```'''

QUESTIONS = [{"index": "1", "question": "Does a white disc move from left to right?", "weight": 1.0},
             {"index": "2", "question": "Does the disc stop at the right edge?", "weight": 3.0}]

RECORDS = [
    {"id": "nested", "Level": 1, "concept": "uniform linear motion",
     "question": '\n  "A puck slides across frictionless ice at constant speed."  \n',
     "vlm_questions": {"enableAnnotator": "Yes", "summarize": "A white disc moving right.",
                       "vlm_questions": QUESTIONS}},
    {"id": "flat", "Level": 2, "concept": "Doppler effect",
     "question": '"A whistle moves past a listener."',
     "vlm_questions": QUESTIONS},
]


def _model(request: Request) -> Reply:
    assert request.prompt.count('"') == 0, "the scenario reached the model still wrapped in quotes"
    return Reply.text(PROGRAM)


def _judge(request: Request) -> Reply:
    content = request.body["messages"][-1]["content"]
    if isinstance(content, str) and "The program:" not in content:  # the preflight's text check
        return Reply.text("OK")
    schema = request.body["response_format"]["json_schema"]["schema"]
    labels = schema["properties"]["answers"]["items"]["properties"]["index"]["enum"]
    simuscene = "confidence_score" in request.prompt
    text_mode = isinstance(content, str)
    answers = []
    for label in labels:
        # in frames mode the last question is doubtful: "Not sure" at confidence 2 (simuscene) or false
        doubtful = label == labels[-1] and not text_mode
        item: dict[str, Any] = {"index": label, "analysis": "seen"}
        if simuscene:
            item.update(question="...", result="Not sure" if doubtful else "True",
                        confidence_score=2 if doubtful else 5)
        else:
            item["result"] = not doubtful
        answers.append(item)
    return Reply.text(json.dumps({"answers": answers}))


def _run(tmp_path: Path, **options: Any) -> tuple[dict[str, Any], Path]:
    data = tmp_path / "simuscene.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    out = tmp_path / f"run-{options.get('protocol', 'physeval')}"
    with ScriptedServer(_model) as model_server, ScriptedServer(_judge) as judge_server:
        summary, _ = run(RunSpec(task="simuscene", model="openai/m", base_url=model_server.base_url, api_key="k",
                                 task_options={"data": str(data), "judge": ["openai/vlm"],
                                               "judge_base_url": judge_server.base_url, "judge_frames": 3,
                                               "render_timeout": 60, **options},
                                 config=RunConfig(max_connections=2), run_dir=out, show_progress=False))
    return summary.to_dict(), out  # the summary.json document


def test_both_question_layouts_load_render_and_are_judged(tmp_path: Path) -> None:
    summary, out = _run(tmp_path, aggregation="ratio")
    from physeval.store import RunStore

    rows = {r.problem_id: r for r in RunStore(out).rows()}
    assert set(rows) == {"nested", "flat"}
    for row in rows.values():
        grade = row.grade
        assert grade["stage"] == "playable" and grade["judged"]
        assert grade["judge"]["reply_paths"] == ["structured"] and grade["judge"]["protocol"] == "physeval"
        assert grade["judge"]["per_question"] == {"1": True, "2": False}
        assert grade["score"] == pytest.approx(0.25)  # weights 1 and 3
    assert rows["flat"].problem_meta["question_layout"] == "flat"
    assert rows["nested"].problem_meta["question_layout"] == "nested"
    metrics = summary["metrics"]
    assert metrics["accuracy"]["value"] == 0.0 and metrics["judge_ratio"]["value"] == pytest.approx(0.25)
    # the nested record's concept maps to mechanics; the flat one's ("Doppler effect") to no domain
    assert set(summary["breakdowns"]["domain"]) == {"mechanics"}
    assert summary["breakdowns"]["domain"]["mechanics"]["judge_ratio"]["n"] == 1
    assert "sandbox" in summary["provenance"] and "sandbox_lock_sha256" in summary["config"]["task"]


def test_the_simuscene_protocol_passes_a_low_confidence_not_sure(tmp_path: Path) -> None:
    summary, _ = _run(tmp_path, protocol="simuscene")
    assert summary["metrics"]["accuracy"]["value"] == 1.0 and summary["metrics"]["judge_ratio"]["value"] == 1.0
    assert summary["config"]["task"]["protocol"] == "simuscene"


@pytest.fixture
def locked_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in sandbox venv: ``bin/python`` links the test interpreter; its lock file is written
    exactly as ``physeval sandbox setup`` writes it."""
    root = tmp_path / "sandbox-venv"
    (root / "bin").mkdir(parents=True)
    os.symlink(sys.executable, root / "bin" / "python")
    write_lock(root / "bin" / "python", root)
    monkeypatch.setenv("PHYSEVAL_SANDBOX_PYTHON", str(root / "bin" / "python"))
    return root


def test_the_lock_file_lists_exact_versions_and_is_stable(locked_venv: Path) -> None:
    lock = lock_path_for(locked_venv)
    lines = lock.read_text().splitlines()
    assert lock.parent == locked_venv.parent and lines[0].startswith("# python 3.")
    assert all("==" in line or " @ " in line for line in lines[1:])
    assert any(line.startswith("numpy==") for line in lines)
    before = sandbox_lock()["sha256"]
    write_lock(locked_venv / "bin" / "python", locked_venv)
    assert sandbox_lock()["sha256"] == before and len(before or "") == 64


def test_a_text_mode_run_records_the_lock_hash_in_its_summary(locked_venv: Path, tmp_path: Path) -> None:
    summary, _ = _run(tmp_path, judge_mode="text")  # the judge reads the code: nothing is rendered
    from physeval.provenance import file_sha256

    digest = file_sha256(lock_path_for(locked_venv))
    assert summary["provenance"]["sandbox"] == {"python": str(locked_venv / "bin" / "python"),
                                                "lock_file": str(lock_path_for(locked_venv)), "sha256": digest,
                                                "verified": None}  # text mode renders nothing: nothing checked
    assert summary["config"]["task"]["sandbox_lock_sha256"] == digest
    assert summary["metrics"]["accuracy"]["value"] == 1.0  # both layouts graded in text mode too


def test_an_interpreter_without_a_lock_file_is_recorded_without_a_hash(tmp_path: Path) -> None:
    python = tmp_path / "bare" / "bin" / "python"
    python.parent.mkdir(parents=True)
    os.symlink(sys.executable, python)
    assert sandbox_lock(python) == {"python": str(python), "lock_file": None, "sha256": None}

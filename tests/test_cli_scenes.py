"""Scene subcommands: sandbox check, render one program, judge-human agreement."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval.cli import main
from physeval.store import RunStore, SampleRow

pytest.importorskip("cv2")

PROGRAM = """import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 10, (160, 120))
for i in range(20):
    frame = np.full((120, 160, 3), 30, np.uint8)
    cv2.circle(frame, (10 + 7 * i, 60), 8, (255, 255, 255), -1)
    out.write(frame)
out.release()
"""


def test_sandbox_check_reports_isolation(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sandbox", "check"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] in ("bwrap", "namespaces") and "warnings" in report  # auto: an isolating backend
    assert report["properties"]["network"]["state"] == "on" and report["properties"]["ipc"]["state"] == "on"


def test_render_reports_the_stage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    program = tmp_path / "ball.py"
    program.write_text(PROGRAM)
    assert main(["render", str(program), "--out", str(tmp_path), "--timeout", "60"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["stage"] == "playable" and (tmp_path / "ball.mp4").is_file()
    broken = tmp_path / "broken.py"
    broken.write_text("import sys\nsys.exit(3)\n")
    assert main(["render", str(broken), "--out", str(tmp_path)]) == 1
    assert json.loads(capsys.readouterr().out)["stage"] == "error"


def test_agreement_prints_table_six(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    verdict = {"questions": [{"key": "1", "label": "1"}, {"key": "2", "label": "2"}],
               "per_question": {"1": True, "2": False}, "votes": {"1": [True], "2": [False]},
               "judges": [{"judge": "vlm-a", "results": {"1": True, "2": False}, "outcome": "ok"}]}
    with RunStore(tmp_path / "run") as store:
        store.append(SampleRow(problem_id="s1", variant="0", sample=0, status="answered", messages=[],
                               grade={"judge": verdict}, correct=False))
    labels = tmp_path / "labels.csv"
    labels.write_text("id,sample,index,label\ns1,0,1,true\ns1,0,2,true\n")
    assert main(["agreement", str(tmp_path / "run"), "--human", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "vlm-a" in out and "50" in out

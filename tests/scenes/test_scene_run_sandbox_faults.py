"""A scene run and its sandbox's faults: a broken environment stops it at preflight; a sandbox that
fails mid-run gives error rows of kind ``sandbox`` (exit 3), rendered again by ``--retry-errors``.

Real CLI runs against a scripted OpenAI-compatible server on 127.0.0.1, real sandboxed renders.
The mid-run fault is real too: once the model has been asked, ``PATH`` leads the render workers
(started after the first answer) to a backend binary that fails the way a broken bubblewrap does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from _sandbox_helpers import AVAILABLE, render_worker_dies

from physeval.cli import EXIT_INCOMPLETE, EXIT_OK, EXIT_USER_ERROR, main
from physeval.store import RunStore
from physeval.testing import Reply, ScriptedServer

pytest.importorskip("cv2")

PROGRAM = Reply.text('''```python
import sys, cv2, numpy as np
out = cv2.VideoWriter(sys.argv[1], cv2.VideoWriter_fourcc(*"mp4v"), 10, (64, 48))
for i in range(15):
    frame = np.zeros((48, 64, 3), np.uint8)
    cv2.circle(frame, (4 + 4 * i, 24), 4, (0, 200, 255), -1)
    out.write(frame)
out.release()
```''')
BINARY = {"bwrap": "bwrap", "namespaces": "unshare"}


def _scenario_requests(server: ScriptedServer) -> int:
    return sum("Scenario" in r.prompt for r in server.requests)


def test_a_sandbox_venv_without_numpy_stops_the_run_at_preflight_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    venv = tmp_path / "half-built"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    monkeypatch.setenv("PHYSEVAL_SANDBOX_PYTHON", str(venv / "bin" / "python"))
    with ScriptedServer(lambda r: PROGRAM) as server:
        code = main(["run", "bank-scene", "--model", "openai/m", "--base-url", server.base_url, "--limit", "1",
                     "--out", str(tmp_path / "run"), "--no-progress"])
        asked = _scenario_requests(server)
    err = capsys.readouterr().err
    assert code == EXIT_USER_ERROR and asked == 0
    assert "numpy (import numpy): ModuleNotFoundError" in err and "physeval sandbox setup" in err


@pytest.mark.skipif(not AVAILABLE, reason="no isolating sandbox backend here")
def test_a_sandbox_that_fails_mid_run_gives_sandbox_error_rows_and_retry_renders_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    backend = AVAILABLE[0]
    broken = Path(tempfile.mkdtemp(prefix="physeval-broken-bin-", dir="/var/tmp"))  # reachable by the sandbox uid, not under the staged /tmp
    os.chmod(broken, 0o755)
    request.addfinalizer(lambda: shutil.rmtree(broken, ignore_errors=True))
    fake = broken / BINARY[backend]
    fake.write_text("#!/bin/sh\necho 'bwrap: Creating new namespace failed: No space left on device' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", os.environ["PATH"])  # restored after the test
    healthy_path = os.environ["PATH"]

    def reply(asked):  # type: ignore[no-untyped-def]
        if "Scenario" in asked.prompt:  # the preflight is over: from now on the sandbox cannot start
            os.environ["PATH"] = f"{broken}:{healthy_path}"
        return PROGRAM

    out = tmp_path / "run"
    with ScriptedServer(reply) as server:
        code = main(["run", "bank-scene", "--model", "openai/m", "--base-url", server.base_url, "--limit", "2",
                     "--sandbox", backend, "--out", str(out), "--no-progress"])
        asked = _scenario_requests(server)
        rows = RunStore(out).rows()
        assert code == EXIT_INCOMPLETE, [(r.status, r.error_kind, r.error_message) for r in rows]
        assert [(r.status, r.error_kind) for r in rows] == [("error", "sandbox")] * 2
        assert all("Creating new namespace failed" in (r.error_message or "") for r in rows)
        assert all(r.grade and r.grade["outcome"] != "runtime_error" for r in rows)  # not the model's failure

        os.environ["PATH"] = healthy_path  # the sandbox is repaired
        code = main(["run", "--resume", str(out), "--retry-errors", "--no-progress"])
        assert code == EXIT_OK
        assert _scenario_requests(server) == asked  # the stored programs were rendered again, not asked again
    rows = RunStore(out).rows()
    assert [(r.status, r.grade["stage"]) for r in rows] == [("answered", "playable")] * 2
    summary = json.loads((out / "summary.json").read_text())
    assert summary["provenance"]["sandbox"]["verified"]["modules_imported"]


def test_a_render_pool_that_dies_gives_sandbox_error_rows_and_a_fresh_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from physeval import RunConfig, run_task
    from physeval.tasks.registry import get_task
    from physeval.tasks.tracks import scene
    from physeval.testing.model import ScriptedModel

    task = get_task("bank-scene", render_workers=1)
    monkeypatch.setattr(scene, "_render_job", render_worker_dies)  # the worker process dies mid-render
    problems = task.load()[:2]
    asyncio.run(run_task(task, ScriptedModel(lambda r: PROGRAM), tmp_path, RunConfig(preflight=False),
                         problems=problems, show_progress=False))
    rows = RunStore(tmp_path).rows()
    assert [(r.status, r.error_kind) for r in rows] == [("error", "sandbox")] * 2
    assert all("the render pool died" in (r.error_message or "") for r in rows)
    assert all(r.completion and "```python" in r.completion for r in rows)  # kept for --retry-errors


def _without_libraries(where: Path) -> Path:
    """A venv without numpy, matplotlib or cv2 (an interrupted setup leaves one like it)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    return where / "bin" / "python"


@pytest.mark.skipif(not AVAILABLE, reason="no isolating sandbox backend here")
def test_a_broken_environment_is_never_the_programs_fault_on_any_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from physeval.rewards import SceneRewardOptions, scene_reward
    from physeval.scenes.render import render_program

    program = PROGRAM.content.split("```python\n", 1)[1].split("```", 1)[0]
    run = tmp_path / "run"
    with ScriptedServer(lambda r: PROGRAM) as server:  # a healthy run first, to regrade below
        assert main(["run", "bank-scene", "--model", "openai/m", "--base-url", server.base_url, "--limit", "2",
                     "--out", str(run), "--no-progress"]) == EXIT_OK
    capsys.readouterr()
    monkeypatch.setenv("PHYSEVAL_SANDBOX_PYTHON", str(_without_libraries(tmp_path / "half-built")))

    render = render_program(program, keep_dir=tmp_path)  # the API: a sandbox error with the fix, not "error"
    assert render.stage == "sandbox_error" and "physeval sandbox setup" in render.reason
    assert "numpy (import numpy): ModuleNotFoundError" in render.reason

    (tmp_path / "p.py").write_text(program)  # the CLI: a user error naming the fix, after the record
    assert main(["render", str(tmp_path / "p.py"), "--out", str(tmp_path)]) == EXIT_USER_ERROR
    out, err = capsys.readouterr()
    assert json.loads(out)["stage"] == "sandbox_error" and "physeval sandbox setup" in err

    reward = scene_reward(f"```python\n{program}```", {"questions": [{"index": "1", "question": "Moves?"}]},
                          SceneRewardOptions(judges=("openai/never-asked",)))
    assert reward.reward is None and "physeval sandbox setup" in reward.reason  # not measured, never a 0

    before = [(r.key, r.status, r.grade) for r in RunStore(run).rows()]
    assert [status for _, status, _ in before] == ["answered"] * 2
    assert main(["regrade", str(run)]) == EXIT_USER_ERROR  # stops before rewriting anything, with the fix
    assert "physeval sandbox setup" in capsys.readouterr().err
    assert [(r.key, r.status, r.grade) for r in RunStore(run).rows()] == before  # the measured verdicts are kept

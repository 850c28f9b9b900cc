"""One writer a run folder (issue 33, finding 3): a second writer is refused at once with who holds
the folder; a dead writer's lock is free at once; readers take no lock. Real second processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from _run_folder import HANG_GUARD, Held, arithmetic_run, assert_no_bug, physeval_child, physeval_run
from physeval.run_lock import RunFolderBusy, hold_run_folder, holder
from physeval.store import RunStore, SampleRow
from physeval.testing import ScriptedServer

_HOLDER = """
import sys
from physeval.run_lock import hold_run_folder
with hold_run_folder(sys.argv[1], "run"):
    print("held", flush=True)
    sys.stdin.read()
"""


def test_a_second_run_or_resume_into_a_running_folder_is_refused_at_once_and_asks_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    script = Held(1 + 5)  # the preflight and five answers, then the first run waits mid-way
    with ScriptedServer(script, model="m") as server:
        argv = arithmetic_run(server.base_url, run_dir, samples=4)
        first = physeval_child(argv)
        try:
            assert script.answered.wait(HANG_GUARD)
            for second_argv in (argv, ["run", "--resume", str(run_dir), "--no-progress"]):
                second = physeval_run(second_argv)
                assert second.returncode == 2, second.stderr
                assert_no_bug(second.stderr)
                error = [line for line in second.stderr.splitlines() if line.startswith("error:")]
                assert len(error) == 1, second.stderr
                assert f"{run_dir} is in use" in error[0] and f"pid {first.pid}" in error[0], error[0]
                assert f"kill {first.pid}" in error[0] and "since" in error[0], error[0]
            # the refused writers sent nothing, not even their preflight (a run's first request)
            assert sum(r.prompt == server.requests[0].prompt for r in server.requests) == 1
        finally:
            script.release.set()
        _, err = first.communicate(timeout=HANG_GUARD)
    assert first.returncode == 0, err
    assert len(server.requests) == 1 + 12 * 4  # one preflight, each sample asked once


def test_a_dead_writers_lock_is_free_and_readers_never_wait(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with RunStore(run_dir) as store:
        store.append(SampleRow(problem_id="1", variant="0", sample=0, status="answered", messages=[]))
    child = subprocess.Popen([sys.executable, "-c", _HOLDER, str(run_dir)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        with pytest.raises(RunFolderBusy) as busy:
            with hold_run_folder(run_dir):
                pass
        assert busy.value.holder["pid"] == child.pid
        info = holder(run_dir)
        assert info is not None and info["pid"] == child.pid and info["alive"] is True
        exported = physeval_run(["export", str(run_dir), "--output", str(tmp_path / "rows.jsonl")])
        assert exported.returncode == 0, exported.stderr  # a reader, while the folder is held
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.wait(timeout=HANG_GUARD)
    assert (run_dir / "physeval.lock").exists()  # the dead writer's file stays; its flock went with it
    with hold_run_folder(run_dir):
        info = holder(run_dir)
        assert info is not None and info["pid"] == os.getpid()
        with hold_run_folder(run_dir):  # re-entrant within one process
            pass

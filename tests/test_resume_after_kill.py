"""A run killed with SIGKILL at several points resumes to exactly the uninterrupted result."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

from fixture_tasks import ArithmeticTask, arithmetic_reply
from physeval.flow.summarise import summarise_run
from physeval.store import RunStore
from physeval.testing import Reply, Request, ScriptedServer

_CHILD = """
import asyncio, sys
sys.path.insert(0, {tests!r})
from fixture_tasks import ArithmeticTask
from physeval.models import OpenAICompatibleModel, RetryPolicy
from physeval import RunConfig, run_task
model = OpenAICompatibleModel("m", {url!r}, retry=RetryPolicy(3, 0.01, 0.05))
asyncio.run(run_task(ArithmeticTask(n=40, variants=2), model, {run_dir!r},
                     RunConfig(samples=2, max_connections=4, use_cache=False), show_progress=False))
"""


def _rows_in_db(run_dir: Path) -> int:
    db = run_dir / "samples.sqlite"
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def _child(server: ScriptedServer, run_dir: Path) -> subprocess.Popen[bytes]:
    code = _CHILD.format(tests=str(Path(__file__).parent), url=server.base_url, run_dir=str(run_dir))
    return subprocess.Popen([sys.executable, "-c", code], env={**os.environ})


def _metrics(run_dir: Path) -> tuple[list[tuple], dict]:
    rows = RunStore(run_dir).rows()
    keyed = [(r.key, r.status, r.correct, r.completion) for r in rows]
    summary = summarise_run(ArithmeticTask(n=40, variants=2), run_dir, model="m", config={})
    return keyed, summary.to_dict()["metrics"]


class _Held:
    """A script that answers the first ``allow`` requests and holds every later one until released.

    The run it serves can store no more than ``allow`` rows, however fast either side is, so a
    kill once those rows are in lands mid-run on every machine (the server's side of the event).
    """

    def __init__(self, allow: int) -> None:
        self.allow = allow
        self.release = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        with self._lock:
            self.allow -= 1
            held = self.allow < 0
        if held:
            self.release.wait(120)  # a hang guard: released as soon as the child is dead
        return Reply.text(arithmetic_reply(request).content)


def _wait_for_rows(run_dir: Path, rows: int, child: subprocess.Popen) -> None:  # type: ignore[type-arg]
    deadline = time.monotonic() + 120  # a hang guard only: the rows arrive long before it
    while _rows_in_db(run_dir) < rows and child.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)


def test_sigkill_at_several_points_then_resume(tmp_path: Path) -> None:
    reference = tmp_path / "uninterrupted"
    with ScriptedServer(arithmetic_reply) as server:
        assert _child(server, reference).wait(timeout=120) == 0

    killed = tmp_path / "killed"
    kills = []
    for threshold in (5, 47, 101):
        held = _Held(1 + threshold - _rows_in_db(killed))  # its preflight, then rows up to the threshold, no more
        with ScriptedServer(held) as server:
            child = _child(server, killed)
            _wait_for_rows(killed, threshold, child)
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
            held.release.set()
        kills.append(_rows_in_db(killed))
    assert kills[0] < kills[1] < kills[2] < 160, kills  # each kill landed mid-run
    with ScriptedServer(arithmetic_reply) as server:
        assert _child(server, killed).wait(timeout=120) == 0

    reference_rows, reference_metrics = _metrics(reference)
    resumed_rows, resumed_metrics = _metrics(killed)
    assert len(resumed_rows) == 40 * 2 * 2
    assert resumed_rows == reference_rows
    assert json.dumps(resumed_metrics, sort_keys=True) == json.dumps(reference_metrics, sort_keys=True)
    assert resumed_metrics["dynamic_accuracy"]["value"] == reference_metrics["dynamic_accuracy"]["value"]


_CLI_CHILD = """
import sys
sys.path.insert(0, {tests!r})
from fixture_tasks import ArithmeticTask
from physeval.tasks.registry import register_task
from physeval.cli import main
register_task(ArithmeticTask)
sys.exit(main(["run", "arithmetic", "--model", "openai/m", "--base-url", {url!r}, "--out", {run_dir!r},
               "--samples", "40", "--max-connections", "2", "--no-progress"]))
"""


def test_ctrl_c_keeps_finished_rows_and_says_how_to_resume(tmp_path: Path) -> None:
    held = _Held(1 + 20)  # the preflight, then 20 rows: the Ctrl-C lands mid-run on every machine
    run_dir = tmp_path / "run"
    with ScriptedServer(held) as server:
        code = _CLI_CHILD.format(tests=str(Path(__file__).parent), url=server.base_url, run_dir=str(run_dir))
        child = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
        _wait_for_rows(run_dir, 20, child)
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
        held.release.set()
    assert child.returncode == 130
    assert "interrupted" in err and f"--resume {run_dir}" in err
    kept = _rows_in_db(run_dir)
    assert 20 <= kept < 12 * 40
    # an answer that arrived is kept, graded or not yet (then the resume grades it without a request)
    assert all(r.status == "answered" or r.ungraded for r in RunStore(run_dir).rows())

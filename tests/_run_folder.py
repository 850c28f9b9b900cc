"""Helpers for the run-folder tests (issue 33): the real ``physeval`` command in a fresh process, a
small real file system, and a scripted server that holds requests until released.

``small_tmpfs`` mounts a tmpfs of a few hundred KiB where the test may (root, CAP_SYS_ADMIN) and
skips cleanly where it may not (CI containers); the tests that need a full disk everywhere inject
``OSError(ENOSPC)`` at the store's one write call instead (:data:`ENOSPC_AFTER`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from fixture_tasks import arithmetic_reply
from physeval.testing import Reply, Request

TESTS = Path(__file__).resolve().parent
HANG_GUARD = 300  # seconds: only a hung command reaches it; no verdict depends on it

_CHILD = """
import sys
sys.path.insert(0, {tests!r})
{prelude}
from fixture_tasks import ArithmeticTask
from physeval.tasks.registry import register_task
from physeval.cli import main
register_task(ArithmeticTask)
sys.exit(main({argv!r}))
"""

ENOSPC_AFTER = """
import errno
import physeval.sqlite_file as _sf
_real, _writes = _sf._execute, [0]
def _full_after(db, sql, args=()):
    if sql.startswith("INSERT OR REPLACE INTO samples"):
        _writes[0] += 1
        if _writes[0] > {after}:
            raise OSError(errno.ENOSPC, "No space left on device")
    return _real(db, sql, args)
_sf._execute = _full_after
"""
"""A prelude for :func:`physeval_child`: the store's write call fails with ENOSPC after ``after`` rows."""


def physeval_child(argv: Sequence[str], *, prelude: str = "", cwd: Path | None = None) -> subprocess.Popen[str]:
    """``physeval ARGV`` (with the test task ``arithmetic`` registered) in a fresh process, stderr piped."""
    code = _CHILD.format(tests=str(TESTS), prelude=prelude, argv=list(argv))
    return subprocess.Popen([sys.executable, "-c", code], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "COLUMNS": "200"})


def physeval_run(argv: Sequence[str], *, prelude: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """:func:`physeval_child` run to its end (a hang guard, not a verdict)."""
    child = physeval_child(argv, prelude=prelude, cwd=cwd)
    out, err = child.communicate(timeout=HANG_GUARD)
    return subprocess.CompletedProcess(list(argv), child.returncode, out, err)


def arithmetic_run(url: str, out: Path, *more: str, samples: int = 4, connections: int = 2) -> list[str]:
    """The argv of a run of the test task against ``url`` into ``out``."""
    return ["run", "arithmetic", "--model", "openai/m", "--base-url", url, "--out", str(out), "--samples",
            str(samples), "--max-connections", str(connections), "--no-cache", "--no-progress", *more]


def assert_no_bug(err: str) -> None:
    """No traceback, no 'bug in physeval', no asyncio complaint."""
    for word in ("Traceback", "bug in physeval", "Task exception was never retrieved"):
        assert word not in err, err


def rows_in(run_dir: Path, where: str = "1") -> int:
    """Rows of ``run_dir``'s store matching ``where``, read with plain sqlite3 (0 when unreadable)."""
    db = run_dir / "samples.sqlite"
    if not db.exists():
        return 0
    try:
        with contextlib.closing(sqlite3.connect(db, timeout=5)) as conn:
            return int(conn.execute(f"SELECT COUNT(*) FROM samples WHERE {where}").fetchone()[0])
    except sqlite3.Error:
        return 0


def wait_for(condition: Callable[[], bool], child: subprocess.Popen[str] | None = None) -> None:
    """Return once ``condition()`` holds (polled; the test's verdict never depends on how long it took).

    Fails when ``child`` ended first, or at the hang guard."""
    deadline = time.monotonic() + HANG_GUARD
    while not condition():
        if child is not None and child.poll() is not None:
            raise AssertionError(f"the child ended first ({child.returncode}): {child.stderr.read() if child.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError("hang guard reached")
        time.sleep(0.005)


class Held:
    """A script that answers the first ``allow`` requests and holds every later one until released;
    ``answered`` is set once it has answered ``allow`` (the test's event, never a sleep). ``pad``
    dots after each answer make its rows big (a disk fills sooner, a table spans more pages)."""

    def __init__(self, allow: int, pad: int = 0) -> None:
        self.allow, self.pad = allow, pad
        self.release, self.answered = threading.Event(), threading.Event()
        self._lock = threading.Lock()

    def __call__(self, request: Request) -> Reply:
        with self._lock:
            self.allow -= 1
            held, last = self.allow < 0, self.allow == 0
        if held:
            self.release.wait(HANG_GUARD)
        if last:
            self.answered.set()
        return Reply.text(arithmetic_reply(request).content + " " + "." * self.pad)


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str = "512k") -> Iterator[Path]:
    """A real tmpfs of ``size`` mounted at ``where`` (skips when this machine does not allow mounts)."""
    where.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root; the injected-ENOSPC test covers this machine")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True,
                          text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip()}); the injected-ENOSPC test covers this")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def remount(where: Path, options: str) -> None:
    """Remount the tmpfs at ``where`` (``size=16m``, ``ro``, ``rw``)."""
    subprocess.run(["mount", "-o", f"remount,{options}", str(where)], check=True, capture_output=True)

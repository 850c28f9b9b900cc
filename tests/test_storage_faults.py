"""Storage faults are the run's own kind of stop (issue 33, finding 1), and the store names them.

A full disk, a read-only file system and a failing write stop a run at the first write that fails:
no further request, every committed row kept, the cause in one line with what to do, exit 5, no
traceback. A real small tmpfs where this machine may mount one; an ``OSError(ENOSPC)`` injected
at the store's one write call everywhere.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

import physeval.sqlite_file as sqlite_file
from _run_folder import ENOSPC_AFTER, Held, arithmetic_run, assert_no_bug, physeval_run, remount, rows_in, small_tmpfs
from physeval.errors import StorageError
from physeval.store import RunStore, SampleRow
from physeval.testing import ScriptedServer

EXIT_STORAGE = 5


def _row(i: int, pad: int = 0) -> SampleRow:
    return SampleRow(problem_id=str(i), variant="0", sample=0, status="answered",
                     messages=[{"role": "user", "content": f"q{i}" + "x" * pad}], completion=f"answer {i}")


def test_a_write_the_disk_refuses_names_the_cause_and_keeps_the_committed_rows(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with RunStore(tmp_path) as store:
        for i in range(3):
            store.append(_row(i))
        real = sqlite_file._execute

        def full(db, sql, args=()):  # type: ignore[no-untyped-def]
            if sql.startswith("INSERT"):
                raise OSError(errno.ENOSPC, "No space left on device")
            return real(db, sql, args)

        monkeypatch.setattr(sqlite_file, "_execute", full)
        with pytest.raises(StorageError) as caught:
            store.append(_row(3))
        monkeypatch.setattr(sqlite_file, "_execute", real)
    assert caught.value.kind == "disk_full"
    assert "the disk is full" in str(caught.value) and "samples.sqlite" in str(caught.value)
    assert caught.value.hint.startswith("free space on the file system holding")
    with RunStore(tmp_path) as store:
        assert store.count() == 3


def test_a_real_full_tmpfs_and_a_read_only_one_are_storage_errors(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk", "256k") as disk:
        with RunStore(disk / "run") as store:
            written = 0
            with pytest.raises(StorageError) as caught:
                for i in range(10_000):
                    store.append(_row(i, pad=2000))
                    written += 1
        assert caught.value.kind == "disk_full", caught.value
        assert 0 < rows_in(disk / "run") == written  # every committed row is readable
        remount(disk, "ro")
        try:
            with pytest.raises(StorageError) as refused:
                with RunStore(disk / "run") as store:
                    store.append(_row(99_999))
        finally:
            remount(disk, "rw")
        assert refused.value.kind in ("read_only", "cannot_open"), refused.value


def _check_stopped(done, server: ScriptedServer, run_dir: Path, connections: int) -> int:  # type: ignore[no-untyped-def]
    assert done.returncode == EXIT_STORAGE, done.stderr
    assert_no_bug(done.stderr)
    assert "the disk is full" in done.stderr
    assert f"then `physeval run --resume {run_dir}`" in done.stderr
    answers = rows_in(run_dir, "completion IS NOT NULL")
    # the first failed write stops the run: beyond the preflight and the answers stored, only the
    # requests already in flight (one per connection) were sent
    assert len(server.requests) <= 1 + answers + connections, (len(server.requests), answers)
    return answers


def test_an_injected_enospc_stops_the_run_at_the_first_failed_write_and_the_resume_finishes(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with ScriptedServer(Held(10 ** 9), model="m") as server:
        done = physeval_run(arithmetic_run(server.base_url, run_dir, samples=40, connections=4),
                            prelude=ENOSPC_AFTER.format(after=20))
        answers = _check_stopped(done, server, run_dir, 4)
        before = len(server.requests)
        resumed = physeval_run(["run", "--resume", str(run_dir), "--no-progress"])
        assert resumed.returncode == 0, resumed.stderr
    # no stored answer was asked again: the resume asked for the rest only (and its preflight)
    assert len(server.requests) - before == 1 + 12 * 40 - answers
    assert rows_in(run_dir, "status = 'answered'") == 12 * 40


def test_a_real_full_disk_stops_the_run_and_a_resume_after_freeing_space_finishes(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk", "512k") as disk, ScriptedServer(Held(10 ** 9, pad=4000), model="m") as server:
        run_dir = disk / "run"
        done = physeval_run(arithmetic_run(server.base_url, run_dir, samples=40, connections=4))
        answers = _check_stopped(done, server, run_dir, 4)
        before = len(server.requests)
        remount(disk, "size=32m")  # space freed
        resumed = physeval_run(["run", "--resume", str(run_dir), "--no-progress"])
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.requests) - before == 1 + 12 * 40 - answers
        assert rows_in(run_dir, "status = 'answered'") == 12 * 40

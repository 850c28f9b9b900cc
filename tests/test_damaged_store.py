"""A damaged store is named as such (issue 33, findings 2, 4, 6a), with real truncated and overwritten
database files: report, export, stats and --resume say "samples.sqlite is damaged (...); N rows
are readable", exit 5, no traceback; export --salvage writes those N rows, repair keeps them and
the resume asks only for the rest. A folder with no run record is refused by --resume; report on
a killed run's folder shows its rows and the resume line."""

from __future__ import annotations

import json
import re
import shutil
import signal
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from _run_folder import (
    HANG_GUARD,
    Held,
    arithmetic_run,
    assert_no_bug,
    physeval_child,
    physeval_run,
    rows_in,
    wait_for,
)
from physeval.sqlite_file import readable_rows
from physeval.store import RunStore
from physeval.testing import ScriptedServer

EXIT_STORAGE = 5
SAMPLES = 10  # 12 problems x 10 samples, answers padded: the table spans many pages


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the test task, its WAL checkpointed into samples.sqlite."""
    run_dir = tmp_path_factory.mktemp("finished") / "run"
    with ScriptedServer(Held(10 ** 9, pad=1500), model="m") as server:
        done = physeval_run(arithmetic_run(server.base_url, run_dir, samples=SAMPLES))
    assert done.returncode == 0, done.stderr
    assert not (run_dir / "samples.sqlite-wal").exists() or (run_dir / "samples.sqlite-wal").stat().st_size == 0
    return run_dir


def _truncate(db: Path) -> None:
    with db.open("r+b") as fh:
        fh.truncate(db.stat().st_size // 2)


def _overwrite_header(db: Path) -> None:
    with db.open("r+b") as fh:
        fh.write(b"\xff" * 100)


def _overwrite_a_page(db: Path) -> None:
    with db.open("r+b") as fh:
        fh.seek(db.stat().st_size // 2 // 4096 * 4096)
        fh.write(bytes(range(256)) * 16 * 3)  # three pages of garbage in the middle of the table


DAMAGE: dict[str, Callable[[Path], None]] = {"truncated": _truncate, "header": _overwrite_header,
                                             "page": _overwrite_a_page}


def _damaged_copy(finished: Path, tmp_path: Path, how: str) -> Path:
    run_dir = tmp_path / "run"
    shutil.copytree(finished, run_dir)
    DAMAGE[how](run_dir / "samples.sqlite")
    return run_dir


def _readable(err: str) -> int:
    error = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(error) == 1, err
    found = re.search(r"samples\.sqlite is damaged \(.+\); (\d+) rows are readable", error[0])
    assert found, error[0]
    return int(found.group(1))


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_report_names_the_damage_and_salvage_writes_the_readable_rows(finished: Path, tmp_path: Path,
                                                                      how: str) -> None:
    with RunStore(finished) as store:  # closed before the copy: closing removes the -wal and -shm files
        originals = {json.dumps(r.key): r for r in store.rows()}
    run_dir = _damaged_copy(finished, tmp_path, how)
    report = physeval_run(["report", str(run_dir)])
    assert report.returncode == EXIT_STORAGE, report.stderr
    assert_no_bug(report.stderr)
    assert report.stdout == ""  # nothing of the old summary printed before the damage is named
    readable = _readable(report.stderr)
    if readable:
        assert f"physeval repair {run_dir}" in report.stderr and "--salvage" in report.stderr
    else:  # the header is gone: no row to keep, and the advice does not promise any
        assert "nothing in it can be read" in report.stderr and "physeval repair" not in report.stderr
    salvaged = physeval_run(["export", str(run_dir), "--salvage"])
    assert salvaged.returncode == 0, salvaged.stderr
    lines = [json.loads(x) for x in (run_dir / "samples.salvaged.jsonl").read_text().splitlines()]
    assert len(lines) == readable
    assert (how == "header") == (readable == 0) and readable < len(originals)
    for line in lines:  # every salvaged row is the row that was written
        original = originals[json.dumps([line["problem_id"], line["variant"], line["sample"]])]
        assert line["completion"] == original.completion and line["correct"] == original.correct


def test_the_readable_rows_of_a_file_cut_anywhere_are_each_read_once(finished: Path, tmp_path: Path) -> None:
    """Cut at many byte offsets (not page-aligned, as a full disk or a copy cut short leaves it): the
    scan ends with rows in rowid order, each the row that was written, none twice. A damaged page once
    answered a lookup with a rowid behind the one asked for and the scan looped for the whole hang guard."""
    with RunStore(finished) as store:
        originals = [(r.key, r.completion) for r in store.rows()]
    whole = (finished / "samples.sqlite").read_bytes()
    cut = tmp_path / "samples.sqlite"
    for size in range(4096, len(whole), 997):
        cut.write_bytes(whole[:size])
        read: list[tuple[object, ...]] = []
        for row in readable_rows(cut, "samples", ("problem_id", "variant", "sample", "completion")):
            read.append(row)
            assert len(read) <= len(originals), f"cut at {size}: more rows than were written"
        keys = [json.dumps(list(r[:3])) for r in read]
        assert len(set(keys)) == len(keys), f"cut at {size}: a row read twice"
        written = {json.dumps(list(key)): completion for key, completion in originals}
        assert all(written[k] == r[3] for k, r in zip(keys, read, strict=True)), f"cut at {size}"


def _zero_inside_a_row(db: Path) -> None:
    """One byte inside a row's messages JSON zeroed: SQLite reads the page without an error.

    The first copy of the bytes in the file that belongs to a stored row (a stale copy in a page's
    free space would damage nothing): the copies are tried in file order until one row no longer decodes.
    """
    whole = db.read_bytes()
    at = -1
    while True:
        at = whole.index(b'[{"role"', at + 1)
        db.write_bytes(whole[:at + 2] + b"\x00" + whole[at + 3:])
        with sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True) as conn:
            broken = sum(1 for (text,) in conn.execute("SELECT messages FROM samples") if "\x00" in text)
        conn.close()
        if broken:
            return


def _meta_page_over_the_samples_root(db: Path) -> None:
    """The meta table's root page copied over the samples table's: the samples table now holds the
    meta rows (a key, a JSON text), which SQLite reads as sample rows with NULL in the other columns."""
    with sqlite3.connect(db) as conn:
        roots = dict(conn.execute("SELECT name, rootpage FROM sqlite_master WHERE type = 'table'").fetchall())
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    data = bytearray(db.read_bytes())
    meta, samples = (roots[name] - 1 for name in ("meta", "samples"))
    data[samples * page_size:(samples + 1) * page_size] = data[meta * page_size:(meta + 1) * page_size]
    db.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_zero_inside_a_row, _meta_page_over_the_samples_root],
                         ids=["zeroed-inside-a-row", "meta-page-over-samples"])
def test_rows_that_are_not_what_was_written_are_named_as_damage(finished: Path, tmp_path: Path,
                                                                damage: Callable[[Path], None]) -> None:
    """Damage SQLite reads without an error (it keeps no checksum of a row's content) ended in a
    traceback, "a bug in physeval", from every command: a JSON column that no longer decodes, a key of
    NULLs read from another table's page. Each is now the damage message (exit 5), salvage and repair
    leave such rows out, and the resume asks again only for what was lost."""
    run_dir = tmp_path / "run"
    shutil.copytree(finished, run_dir)
    damage(run_dir / "samples.sqlite")
    with ScriptedServer(Held(10 ** 9), model="m") as server:
        for argv in (["report", str(run_dir)], ["export", str(run_dir)],
                     ["stats", "sample-efficiency", str(run_dir), str(finished)],
                     ["run", "--resume", str(run_dir), "--no-progress"]):
            done = physeval_run(argv)
            assert_no_bug(done.stderr)
            assert done.returncode == EXIT_STORAGE, (argv, done.stderr)
            assert "samples.sqlite is damaged" in done.stderr and "cannot be decoded" in done.stderr, done.stderr
        salvaged = physeval_run(["export", str(run_dir), "--salvage"])
        assert_no_bug(salvaged.stderr)
        assert salvaged.returncode == 0 and "could not be decoded" in salvaged.stdout + salvaged.stderr
        kept = len((run_dir / "samples.salvaged.jsonl").read_text().splitlines())
        assert kept < 12 * SAMPLES
        repaired = physeval_run(["repair", str(run_dir)])
        assert_no_bug(repaired.stderr)
        assert repaired.returncode == 0 and f"repaired: {kept} rows kept" in repaired.stderr, repaired.stderr
        assert "with its run record" in repaired.stderr
        resumed = physeval_run(["run", "--resume", str(run_dir), "--base-url", server.base_url, "--force",
                                "--no-progress"])
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.requests) == 1 + 12 * SAMPLES - kept
    assert rows_in(run_dir, "status = 'answered'") == 12 * SAMPLES


def test_export_stats_and_resume_name_it_and_repair_keeps_the_rows_for_the_resume(finished: Path,
                                                                                  tmp_path: Path) -> None:
    run_dir = _damaged_copy(finished, tmp_path, "truncated")
    with ScriptedServer(Held(10 ** 9), model="m") as server:
        for argv in (["export", str(run_dir)], ["stats", "sample-efficiency", str(run_dir), str(finished)],
                     ["run", "--resume", str(run_dir), "--no-progress"]):
            done = physeval_run(argv)
            assert done.returncode == EXIT_STORAGE, (argv, done.stderr)
            assert_no_bug(done.stderr)
            readable = _readable(done.stderr)
        assert not server.requests  # the resume asked nothing
        repaired = physeval_run(["repair", str(run_dir)])
        assert repaired.returncode == 0, repaired.stderr
        assert f"repaired: {readable} rows kept" in repaired.stderr and "with its run record" in repaired.stderr
        assert list(run_dir.glob("samples.sqlite.damaged-*"))  # moved aside, never deleted
        resumed = physeval_run(["run", "--resume", str(run_dir), "--base-url", server.base_url, "--force",
                                "--no-progress"])  # --force: this server has another port
        assert resumed.returncode == 0, resumed.stderr
        assert len(server.requests) == 1 + 12 * SAMPLES - readable  # the preflight and the lost samples only
    assert rows_in(run_dir, "status = 'answered'") == 12 * SAMPLES


def test_repair_of_a_file_with_nothing_readable_says_the_run_cannot_be_resumed(finished: Path,
                                                                                 tmp_path: Path) -> None:
    run_dir = _damaged_copy(finished, tmp_path, "header")
    repaired = physeval_run(["repair", str(run_dir)])
    assert repaired.returncode == 0, repaired.stderr
    assert "0 rows kept" in repaired.stderr and "without a run record" in repaired.stderr
    assert "cannot be resumed: start it again" in repaired.stderr and "--resume" not in repaired.stderr
    resumed = physeval_run(["run", "--resume", str(run_dir), "--no-progress"])
    assert resumed.returncode == 2 and "the record was lost with a damaged file" in resumed.stderr, resumed.stderr


def test_resume_of_a_folder_without_a_run_record_is_refused(tmp_path: Path) -> None:
    run_dir = tmp_path / "D"
    run_dir.mkdir()
    (run_dir / "samples.sqlite").touch()  # what a disk that filled as the database was made leaves
    done = physeval_run(["run", "--resume", str(run_dir), "--no-progress"])
    assert done.returncode == 2, done.stderr
    assert_no_bug(done.stderr)
    assert "holds no run record" in done.stderr and "nothing to resume" in done.stderr
    assert "bank-numeric" not in done.stderr and rows_in(run_dir) == 0  # the defaults were not planned


def test_report_of_a_killed_run_shows_its_rows_and_the_resume_line(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    script = Held(1 + 5)
    with ScriptedServer(script, model="m") as server:
        child = physeval_child(arithmetic_run(server.base_url, run_dir, samples=4))
        try:
            wait_for(lambda: rows_in(run_dir, "status = 'answered'") >= 5, child)
            child.send_signal(signal.SIGKILL)
            child.communicate(timeout=HANG_GUARD)
        finally:
            script.release.set()
    done = physeval_run(["report", str(run_dir)])
    assert done.returncode == 3, done.stderr
    assert_no_bug(done.stderr)
    assert "UNFINISHED" in done.stderr and "is it a physeval run directory" not in done.stderr
    assert "of 48 planned samples are stored" in done.stderr
    assert f"`physeval run --resume {run_dir}`" in done.stderr
    assert "accuracy" in done.stdout  # the metrics of the rows so far

"""The shared grading pool: input order, serial = pool, and the last-resort timeout guard."""

import logging
import math
import os
import time
from pathlib import Path

import pytest

from physeval.grading import pool


def test_grade_many_keeps_input_order_and_equals_serial() -> None:
    items = [12, 3, 17, 0, 25, 8, 1]
    expected = [math.factorial(n) for n in items]
    assert pool.grade_many(math.factorial, items, processes=0) == expected
    assert pool.grade_many(math.factorial, items, processes=2) == expected
    grouped = pool.grade_many(math.factorial, items, processes=2, group=lambda n: n % 3)
    assert grouped == expected  # grouping changes the submission order, never the result order


def test_a_hung_item_becomes_the_timeout_result_and_the_others_still_finish() -> None:
    start = time.monotonic()
    # the guard (30 s) is far above what a quick item takes on a loaded machine, far below the hung one
    results = pool.grade_many(time.sleep, [0, 600, 0, 0], processes=2, timeout=30.0, on_timeout=lambda _: "timeout")
    assert results == [None, "timeout", None, None]
    assert time.monotonic() - start < 300  # the 600 s item was killed, not waited for


def test_timeout_needs_an_explicit_result() -> None:
    try:
        pool.grade_many(abs, [1, -1], processes=2, timeout=1.0)
    except ValueError as exc:
        assert "on_timeout" in str(exc)
    else:
        raise AssertionError("a timeout without on_timeout must be refused")


def test_submit_runs_in_the_shared_pool() -> None:
    assert pool.submit(math.factorial, 10).result(timeout=120) == 3628800
    assert pool.worker_count() >= 1


def test_a_group_goes_to_one_worker_in_chunks_of_at_most_n_over_workers() -> None:
    items = ["b1", "a1", "b2", "a2", "b3", "a3", "c1"]
    units = pool._units(items, lambda s: s[0], workers=2)  # chunks of at most ceil(7 / 2) = 4
    assert [[items[i] for i in unit] for unit in units] == [["a1", "a2", "a3"], ["b1", "b2", "b3"], ["c1"]]
    assert pool._units(items, None, workers=2) == [[i] for i in range(len(items))]


def test_a_hung_item_inside_a_group_is_found_and_only_it_times_out() -> None:
    # the clock starts once the workers are warm (see the next test): 2 s is far above sleep(0)
    results = pool.grade_many(time.sleep, [0, 60, 0, 0], processes=2, timeout=2.0, group=lambda _: "one reference",
                              on_timeout=lambda _: "timeout")
    assert results == [None, "timeout", None, None]


def test_workers_started_after_a_kill_are_ready_before_the_guard_clock_runs_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a restarted worker imports SymPy and the parser first (seconds on a loaded machine): counting
    # that against the next item's timeout would turn a quick item into a 'timeout' by load alone
    readied: list[int] = []
    ready = pool._Pool.ready

    def counted(self: pool._Pool) -> None:
        readied.append(self.generation)
        ready(self)

    monkeypatch.setattr(pool._Pool, "ready", counted)
    results = pool.grade_many(time.sleep, [600, 0], processes=2, timeout=5.0, on_timeout=lambda _: "timeout")
    assert results == ["timeout", None]
    assert readied == [0, 1]  # the first pool, then the one started after the kill


def test_the_result_of_a_cancelled_submit_is_dropped_quietly(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A caller that gave up (Ctrl-C or SIGTERM mid-grading cancels the future it awaits) while the
    worker still grades: its result is dropped, not set on the cancelled future (found from outside:
    one 'exception calling callback ... InvalidStateError' traceback per grading in flight)."""
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    future = pool.submit(gate.read_text)  # the worker's job waits on the FIFO: an event, not a clock
    assert future.cancel()
    with caplog.at_level(logging.ERROR):
        gate.write_text("done")  # opens when the worker reads: the job then ends
        pool.shutdown()  # waits for the workers and the callbacks
    assert not [r for r in caplog.records if "callback" in r.getMessage()], caplog.text

"""The judge-reply parser reads the same from 16 threads at once as serially, in a fresh process."""

from __future__ import annotations

from pathlib import Path

import pytest

from _fresh_threads import THREADS, run_fresh

CASES = Path(__file__).with_name("_judge_reply_cases.py")


@pytest.mark.slow
def test_judge_replies_parsed_from_16_threads_match_a_serial_run_in_5_fresh_processes() -> None:
    serial = run_fresh(CASES, "serial")["serial"]
    by_name = {name: v for name, v in serial}
    assert by_name["reply-0"]["results"] == {"1": True, "2": True, "3": False}
    assert by_name["reply-9"]["method"] == "none"
    assert not any(v.get("method") == "error" or "raised" in v for v in by_name.values())
    for run in range(5):
        for t, verdicts in enumerate(run_fresh(CASES, "threads")["threads"]):
            assert verdicts == serial, f"run {run + 1}, thread {t} differs"
    assert THREADS == 16

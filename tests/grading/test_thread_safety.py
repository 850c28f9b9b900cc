"""Graders give the same verdicts from 16 threads at once as serially, in a fresh process.

The bug this guards: ``answers/units.registry()`` was an unlocked ``lru_cache``; when the first
gradings of a process ran in several threads, several pint registries were built and about
40 % of the verdicts raised ``ValueError: Cannot operate with Unit and Unit of different
registries`` (``\\boxed{7.000000e+05\\ \\mathrm{\\mathrm{\\;J}}}`` against 700 for a question
asking for kJ). Caches in the pytest process are already warm, so each check runs in a new
interpreter (tests/_fresh_threads.py), where every lazily built object is first used by 16
threads released together by a barrier.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _fresh_threads import THREADS, run_fresh

CASES = Path(__file__).with_name("_grading_cases.py")
REPEATS = 5


def _by_name(verdicts: list[list[object]]) -> dict[str, object]:
    return {str(name): verdict for name, verdict in verdicts}


@pytest.mark.slow
def test_graders_from_16_threads_match_a_serial_run_in_5_fresh_processes() -> None:
    serial = run_fresh(CASES, "serial")["serial"]
    reference = _by_name(serial)
    # the serial run itself is right on the reported case, so equality below means something
    reported = reference["numeric-0"]
    assert isinstance(reported, dict) and reported["correct"] is True, reported
    assert "converted J -> kJ" in reported["reason"]
    assert not any("raised" in v or "grader error" in str(v) for v in reference.values() if isinstance(v, dict))
    for run in range(REPEATS):
        threaded = run_fresh(CASES, "threads")["threads"]
        assert len(threaded) == THREADS
        for t, verdicts in enumerate(threaded):
            got = _by_name(verdicts)
            diff = {name: (got[name], want) for name, want in reference.items() if got[name] != want}
            assert not diff, f"run {run + 1}, thread {t}: {len(diff)} verdicts differ, e.g. {next(iter(diff.items()))}"


def test_case_list_covers_every_grader_and_mode() -> None:
    names = [name for name, _ in __import__("runpy").run_path(str(CASES))["cases"]()]
    for prefix in ("numeric-", "abench-", "symbolic-", "eed-", "eed-phybench-"):
        assert any(n.startswith(prefix) for n in names), prefix

"""Variation's mpmath precision blocks are exclusive, so threads never compute at each other's precision."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import mpmath
import pytest

from _fresh_threads import run_fresh
from physeval.variation.precision import working_digits


def test_each_block_keeps_its_own_precision_and_the_default_is_restored() -> None:
    default = mpmath.mp.dps
    barrier = threading.Barrier(16)
    seen: list[tuple[int, int, int]] = []

    def work(dps: int) -> None:
        barrier.wait()
        for _ in range(20):
            with working_digits(dps):
                before = mpmath.mp.dps
                time.sleep(0.0005)  # let the other threads try to enter
                seen.append((dps, before, mpmath.mp.dps))

    threads = [threading.Thread(target=work, args=(20 + 5 * i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 16 * 20
    assert all(want == before == after for want, before, after in seen)
    assert mpmath.mp.dps == default


def test_nested_blocks_in_one_thread_do_not_deadlock() -> None:
    with working_digits(40), working_digits(60):
        assert mpmath.mp.dps == 60
    assert mpmath.mp.dps == 15


@pytest.mark.slow
def test_bank_variants_built_from_16_threads_equal_a_serial_build_in_a_fresh_process() -> None:
    cases = Path(__file__).with_name("_bank_cases.py")
    serial = run_fresh(cases, "serial")["serial"]
    assert len(serial[0][1]) > 100  # the numeric bank, 2 variants per template
    for verdicts in run_fresh(cases, "threads")["threads"]:
        assert verdicts == serial

"""Benchmark the variation engine: variants per second over the shipped bank, on one core.

Run: python bench/variation.py [--per-template 200] [--seed 0]
Target (issue 4): >= 5,000 variants/s for the numeric bank. There is no reference
implementation to compare with (ABench's engine is unreleased), so figures are absolute.
Template loading (parse, dimension check, compile) is timed separately: it happens once.
"""

from __future__ import annotations

import argparse
import os
import time

from physeval.variation import SamplingError, load_bank, vary


def _pin_one_core() -> None:
    try:
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    except (AttributeError, OSError):
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-template", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    _pin_one_core()
    for kind in ("numeric", "symbolic"):
        start = time.perf_counter()
        templates = load_bank(kind)
        load_s = time.perf_counter() - start
        n = args.per_template if kind == "numeric" else min(args.per_template, 8)
        timings = []
        total = 0
        small = 0
        start = time.perf_counter()
        for template in templates:
            count = n if template.varying else 1
            t0 = time.perf_counter()
            try:
                total += len(vary(template, count, args.seed))
            except SamplingError:  # a (symbolic) template with fewer than n parameter sets
                small += 1
                continue
            timings.append((count / (time.perf_counter() - t0), template.id))
        elapsed = time.perf_counter() - start
        print(f"{kind}: {len(templates)} templates loaded in {load_s:.2f} s; "
              f"{total} variants in {elapsed:.2f} s = {total / elapsed:,.0f} variants/s (one core)"
              + (f"; {small} templates skipped (fewer than {n} parameter sets)" if small else ""))
        for rate, tid in sorted(timings)[:3]:
            print(f"  slowest: {tid}: {rate:,.0f} variants/s")


if __name__ == "__main__":
    main()

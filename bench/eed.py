"""Benchmark: EED per (reference, perturbed answer) pair over PHYBench's public answers.

Every public reference answer is scored against three perturbed versions -- a changed
coefficient, a dropped factor and a swapped sign -- on one core, serially, and the median and
p90 milliseconds per pair are printed (target: median under 20 ms).

The maintained PHYBench pipeline cannot be installed here (no network; its code may not be
vendored), so the side-by-side ratio is against a *naive* variant of physeval's own code
that works the way the pipeline does: no caching at all (every pair re-parses and
re-simplifies the reference), full ``simplify`` of both sides, then
``simplify(expand(a - b))`` and ``a.equals(b)`` before the tree. The pipeline's own EED was
reported at about 110 ms median per pair on a comparable machine.

Run: ``python bench/eed.py [--data ../shared/data/phybench] [--limit N] [--no-naive]``
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

from physeval.answers.latex import latex_to_sympy, strip_to_rhs
import importlib

eed_module = importlib.import_module("physeval.grading.eed")  # the module; physeval.grading.eed is also the function
from physeval.grading.eed import eed

_DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "phybench"


def _rhs(answer: str) -> str:
    text = answer.replace("$", " ").replace("\\[", " ").replace("\\]", " ")
    match = re.search(r"\\boxed\{(.*)\}", text, re.S)
    return strip_to_rhs(match.group(1) if match else text)


def _converts(latex: str, reference_expr: object) -> bool:
    conv = latex_to_sympy(latex)
    return conv.ok and conv.expr != reference_expr


def _changed_coefficient(rhs: str) -> str:
    match = re.search(r"(?<![_^{\\a-zA-Z])(\d+)", rhs)
    if match:
        digits = match.group(1)
        bumped = str(int(digits) + 1)
        return rhs[: match.start()] + bumped + rhs[match.end() :]
    return "3" + rhs


def _dropped_factor(rhs: str, reference_expr: object) -> str:
    # drop the first command-free letter (with its sub/superscript) that leaves valid LaTeX
    for match in re.finditer(r"(?<![\\a-zA-Z])([a-zA-Z])(_\{[^{}]*\}|_[a-zA-Z0-9])?(\^\{[^{}]*\}|\^[0-9])?", rhs):
        candidate = rhs[: match.start()] + rhs[match.end() :]
        if candidate.strip() and _converts(candidate, reference_expr):
            return candidate
    return rhs + "\\cdot 2"


def _swapped_sign(rhs: str) -> str:
    for i, ch in enumerate(rhs):
        if ch in "+-" and i > 0:
            return rhs[:i] + ("-" if ch == "+" else "+") + rhs[i + 1 :]
    return "-" + rhs


def _perturbations(reference: str) -> list[str]:
    rhs = _rhs(reference)
    ref_expr = latex_to_sympy(reference).expr
    return [_changed_coefficient(rhs), _dropped_factor(rhs, ref_expr), _swapped_sign(rhs)]


def _clear_caches() -> None:
    from physeval.answers import latex as latex_module

    latex_module._convert_cached.cache_clear()
    latex_module._parse_normalized.cache_clear()
    eed_module._simplified_tree.cache_clear()


def _time_pairs(pairs: list[tuple[str, str]], *, naive: bool) -> tuple[list[float], list[float]]:
    times: list[float] = []
    scores: list[float] = []
    for reference, answer in pairs:
        if naive:
            _clear_caches()
        start = time.perf_counter()
        result = eed(reference, answer, compat="phybench" if naive else None)
        times.append((time.perf_counter() - start) * 1000.0)
        scores.append(result.score)
    return times, scores


def _summary(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return f"{name:<28} pairs={len(times):4d}  median={statistics.median(times):8.1f} ms  p90={p90:8.1f} ms  total={sum(times) / 1000:7.1f} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=_DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=None, help="use only the first N problems")
    parser.add_argument("--no-naive", action="store_true", help="skip the naive baseline")
    args = parser.parse_args(argv)
    path = args.data / "PHYBench-fullques_v1.json" if args.data.is_dir() else args.data
    if not path.is_file():
        print(f"PHYBench data not found at {path}", file=sys.stderr)
        return 2
    records = [r for r in json.loads(path.read_text(encoding="utf-8")) if str(r.get("answer") or "").strip()]
    if args.limit:
        records = records[: args.limit]
    latex_to_sympy("x+1")  # import and warm the parser once, outside the timings
    pairs = [(r["answer"], p) for r in records for p in _perturbations(r["answer"])]
    _clear_caches()
    latex_to_sympy("x+1")
    times, scores = _time_pairs(pairs, naive=False)
    print(f"EED over {len(records)} PHYBench references x 3 perturbations, one core, serial")
    print(_summary("physeval (cached, probe)", times))
    print(f"  mean score {statistics.mean(scores):.2f}; scored 100: {sum(s == 100 for s in scores)}")
    if not args.no_naive:
        naive_times, naive_scores = _time_pairs(pairs, naive=True)
        print(_summary("naive (no cache, simplify)", naive_times))
        print(f"  mean score {statistics.mean(naive_scores):.2f}")
        ratio = statistics.median(naive_times) / statistics.median(times)
        print(f"median speed-up over the naive variant: {ratio:.1f}x (the reference pipeline could not be run here)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

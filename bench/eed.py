"""Benchmark: physeval's EED against the maintained PHYBench pipeline, side by side in one run.

Two workloads over PHYBench's public reference answers:

(a) every reference against three perturbed versions (a changed coefficient, a dropped
    factor, a swapped sign), one core, serially: median and p90 milliseconds per pair, the
    worst pair, the total;
(b) a realistic run: for each problem 16 samples in which a model repeats itself, drawn with
    a skewed (seeded) distribution from its reference, 3 equivalent rewrites and 6 wrong
    variants: per-pair median and p90 and the worst pair on one core, and the end-to-end wall
    time on one core and on all cores.

Per-pair figures are CPU seconds of the scoring process (``time.process_time``; the official
pipeline's timed-out simplifications keep running in threads and are counted), so that a
shared, loaded machine does not distort them; end-to-end figures are wall time (and CPU).
Every scorer runs in its own fresh process (cold in-process caches, as a new run starts):
physeval serially with a cold on-disk cache (an empty ``PHYSEVAL_CACHE_DIR``) and again with
the warm one the first run left (workload b), physeval through its shared grading pool (all
cores), and, with ``--official PATH``, the official pipeline (a checkout of phybench-
official/phybench-pipeline installed in its own venv, ``PATH/../venv`` or ``--official-
python``) through a subprocess that imports it there, one shard per core for the all-cores
figure. Nothing of the pipeline is copied here. The ratios are official / physeval; scores are
compared pair by pair (agreement on the pairs that both finished).

Run: ``python bench/eed.py --official /tmp/phybench/phybench-pipeline [--data ../shared/data/phybench]
[--limit N] [--every K] [--samples 16] [--skip-a] [--skip-b] [--compat] [--json out.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

_DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "phybench"
_SEED = "physeval-bench-eed-v2"

# ------------------------------------------------------------------------------ the pairs


def _rhs(answer: str) -> str:
    from physeval.answers.latex import strip_to_rhs

    text = answer.replace("$", " ").replace("\\[", " ").replace("\\]", " ")
    match = re.search(r"\\boxed\{(.*)\}", text, re.S)
    return strip_to_rhs(match.group(1) if match else text)


def _converts(latex: str, reference_expr: object) -> bool:
    from physeval.answers.latex import latex_to_sympy

    conv = latex_to_sympy(latex)
    return conv.ok and conv.expr != reference_expr


def _changed_coefficient(rhs: str) -> str:
    match = re.search(r"(?<![_^{\\a-zA-Z])(\d+)", rhs)
    if match:
        return rhs[: match.start()] + str(int(match.group(1)) + 1) + rhs[match.end() :]
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
    from physeval.answers.latex import latex_to_sympy

    rhs = _rhs(reference)
    ref_expr = latex_to_sympy(reference).expr
    return [_changed_coefficient(rhs), _dropped_factor(rhs, ref_expr), _swapped_sign(rhs)]


def _rewrites(rhs: str) -> list[str]:
    """Three equivalent forms a model might write."""
    return [
        r"\frac{2\left(" + rhs + r"\right)}{2}",
        r"\left(" + rhs + r"\right)\cdot\frac{3}{3}",
        r"-\left(-\left(" + rhs + r"\right)\right)",
    ]


def _wrong_variants(reference: str) -> list[str]:
    """Six wrong answers: the three perturbations and three similar expressions."""
    rhs = _rhs(reference)
    return _perturbations(reference) + [r"2\left(" + rhs + r"\right)", r"\left(" + rhs + r"\right)^{2}", rhs + "+1"]


def pairs_a(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """(reference, answer) pairs of workload (a)."""
    return [(r["answer"], p) for r in records for p in _perturbations(r["answer"])]


def pairs_b(records: list[dict[str, Any]], samples: int) -> list[tuple[str, str]]:
    """(reference, answer) pairs of workload (b): ``samples`` skewed draws per problem."""
    pairs: list[tuple[str, str]] = []
    for record in records:
        reference = record["answer"]
        candidates = [_rhs(reference), *_rewrites(_rhs(reference)), *_wrong_variants(reference)]
        rng = random.Random(f"{_SEED}:{record.get('id')}")
        rng.shuffle(candidates)
        weights = [1.0 / (rank + 1) ** 1.5 for rank in range(len(candidates))]
        pairs += [(reference, answer) for answer in rng.choices(candidates, weights=weights, k=samples)]
    return pairs


# ------------------------------------------------------------------------------ the scorers

_PHYSEVAL_SERIAL = r"""
import json, resource, sys, time
from physeval.grading.eed import eed
compat = sys.argv[1] or None
pairs = json.loads(sys.stdin.read())
eed("x+1", "x+2", compat=compat)  # import and warm the parser, outside the timings
out = []
for reference, answer in pairs:
    start, cpu = time.perf_counter(), time.process_time()
    result = eed(reference, answer, compat=compat)
    out.append([time.process_time() - cpu, result.score, result.outcome, time.perf_counter() - start])
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rows": out, "cpu": usage.ru_utime + usage.ru_stime}))
"""

_PHYSEVAL_POOL = r"""
import json, resource, sys, time
from physeval.grading import pool
from benchpairs import score_pair
compat = sys.argv[1] or None
pairs = json.loads(sys.stdin.read())
start = time.perf_counter()
scores = pool.grade_many(score_pair, [(r, a, compat) for r, a in pairs], group=lambda item: item[0])
wall = time.perf_counter() - start
pool.shutdown()
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "scores": scores, "cpu": children.ru_utime + children.ru_stime}))
"""

_OFFICIAL = r"""
import json, resource, sys, time
from loguru import logger
logger.remove()
from phybench.evaluation.expression_distance import EED
from phybench.settings import EvaluationEEDSettings
settings = EvaluationEEDSettings()
pairs = json.loads(sys.stdin.read())
EED("x+1", "x+2", settings)
out = []
for reference, answer in pairs:
    start, cpu = time.perf_counter(), time.process_time()
    score = EED(reference, answer, settings)[0]
    out.append([time.process_time() - cpu, float(score), "", time.perf_counter() - start])
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rows": out, "cpu": usage.ru_utime + usage.ru_stime}))
"""

_HELPER = r'''
from physeval.grading.eed import eed


def score_pair(item):
    reference, answer, compat = item
    result = eed(reference, answer, compat=compat)
    return [result.score, result.outcome]
'''


def _run(command: list[str], pairs: list[tuple[str, str]], env: dict[str, str] | None = None,
         cwd: str | None = None) -> Any:
    done = subprocess.run(command, input=json.dumps(pairs), capture_output=True, text=True, env=env, cwd=cwd,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{command[:2]} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _one_core() -> list[str]:
    """``taskset -c 0`` where available: the official pipeline's timeout threads would use a second core."""
    return ["taskset", "-c", "0"] if shutil.which("taskset") else []


def _cache_env(cache: Path | None) -> dict[str, str]:
    """The on-disk grading cache in ``cache`` (empty: cold; filled by an earlier run: warm), or off."""
    if cache is None:
        return {"PHYSEVAL_EED_CACHE": "off"}
    cache.mkdir(parents=True, exist_ok=True)
    return {"PHYSEVAL_CACHE_DIR": str(cache), "PHYSEVAL_EED_CACHE": "on"}


def physeval_serial(pairs: list[tuple[str, str]], compat: str | None,
                    cache: Path | None = None) -> tuple[list[list[Any]], float, float]:
    """Per pair [cpu s, score, outcome, wall s], the process's wall and CPU time: one fresh process, one core."""
    env = dict(os.environ, PHYSEVAL_GRADING_PROCESSES="1", **_cache_env(cache))
    start = time.perf_counter()
    payload = _run([*_one_core(), sys.executable, "-c", _PHYSEVAL_SERIAL, compat or ""], pairs, env)
    return payload["rows"], time.perf_counter() - start, payload["cpu"]


def physeval_pool(pairs: list[tuple[str, str]], compat: str | None, workers: int, scratch: Path) -> dict[str, Any]:
    """End-to-end wall time (pool start included) and scores, through the shared grading pool (cold cache)."""
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "benchpairs.py").write_text(_HELPER, encoding="utf-8")
    env = dict(os.environ, **_cache_env(scratch / "pool-cache"), PHYSEVAL_GRADING_PROCESSES=str(workers),
               PYTHONPATH=os.pathsep.join([str(scratch), os.environ.get("PYTHONPATH", "")]))
    start = time.perf_counter()
    result = _run([sys.executable, "-c", _PHYSEVAL_POOL, compat or ""], pairs, env, cwd=str(scratch))
    result["process_wall"] = time.perf_counter() - start
    return result


def official(pairs: list[tuple[str, str]], python: str, checkout: Path,
             shards: int = 1) -> tuple[list[list[Any]], float, float]:
    """Per pair [cpu s, score, "", wall s] from the official pipeline, its wall and CPU time; ``shards`` processes."""
    env = dict(os.environ, PYTHONPATH=str(checkout))
    chunks = [pairs[k::shards] for k in range(shards)]
    start = time.perf_counter()
    pin = _one_core() if shards == 1 else []
    procs = [subprocess.Popen([*pin, python, "-c", _OFFICIAL], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env, cwd=str(checkout)) for _ in chunks]
    with ThreadPoolExecutor(max_workers=len(procs)) as threads:  # one communicate() each: the shards run at once
        outputs = list(threads.map(lambda pc: pc[0].communicate(json.dumps(pc[1])), zip(procs, chunks)))
    wall = time.perf_counter() - start
    merged: list[list[Any]] = [[]] * len(pairs)
    cpu = 0.0
    for k, ((stdout, stderr), proc) in enumerate(zip(outputs, procs)):
        if proc.returncode != 0:
            raise RuntimeError(f"official pipeline failed: {stderr[-2000:]}")
        payload = json.loads(stdout.strip().splitlines()[-1])
        cpu += payload["cpu"]
        for j, row in enumerate(payload["rows"]):
            merged[k + j * shards] = row
    return merged, wall, cpu


# ------------------------------------------------------------------------------ reporting


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]


def _line(name: str, rows: list[list[Any]]) -> str:
    """Per-pair CPU time (the machine may be shared; wall time per pair is in the JSON)."""
    times = [r[0] * 1000.0 for r in rows]
    wall = sum(r[3] for r in rows)
    return (f"  {name:<26} pairs={len(times):5d}  CPU median={statistics.median(times):7.1f} ms"
            f"  p90={_p90(times):8.1f} ms"
            f"  worst={max(times) / 1000:6.2f} s  total={sum(times) / 1000:7.1f} s (wall {wall:7.1f} s)"
            f"  over 2 s: {sum(t > 2000 for t in times)}")


def _ratio(name: str, ours: list[list[Any]], theirs: list[list[Any]]) -> str:
    ours_median = statistics.median(r[0] for r in ours)
    theirs_median = statistics.median(r[0] for r in theirs)
    m = f"{theirs_median / ours_median:.1f}x" if ours_median >= 1e-4 else "n/a (physeval's median pair is a cache hit)"
    t = sum(r[0] for r in theirs) / sum(r[0] for r in ours)
    w = max(r[0] for r in theirs) / max(r[0] for r in ours)
    return f"  official / {name}: median {m}, total {t:.1f}x, worst pair {w:.1f}x"


def _agreement(name: str, ours: list[list[Any]], theirs: list[list[Any]]) -> str:
    both = [(a[1], b[1]) for a, b in zip(ours, theirs)]
    same = sum(abs(x - y) < 1e-9 for x, y in both)
    return f"  scores {name} = official on {same}/{len(both)} pairs"


def _outcomes(rows: list[list[Any]]) -> str:
    counts: dict[str, int] = {}
    for row in rows:
        counts[row[2]] = counts.get(row[2], 0) + 1
    return ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=_DEFAULT_DATA)
    parser.add_argument("--official", type=Path, help="checkout of phybench-official/phybench-pipeline")
    parser.add_argument("--official-python", help="its venv's python (default: PATH/../venv/bin/python)")
    parser.add_argument("--limit", type=int, default=None, help="use only the first N problems")
    parser.add_argument("--every", type=int, default=1, help="use every K-th problem (a spread-out subset)")
    parser.add_argument("--samples", type=int, default=16, help="samples per problem in workload (b)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="cores for the all-cores figures")
    parser.add_argument("--skip-a", action="store_true")
    parser.add_argument("--skip-b", action="store_true")
    parser.add_argument("--compat", action="store_true", help="also time physeval compat='phybench'")
    parser.add_argument("--json", type=Path, help="write every per-pair figure here")
    args = parser.parse_args(argv)
    path = args.data / "PHYBench-fullques_v1.json" if args.data.is_dir() else args.data
    if not path.is_file():
        print(f"PHYBench data not found at {path}", file=sys.stderr)
        return 2
    records = [r for r in json.loads(path.read_text(encoding="utf-8")) if str(r.get("answer") or "").strip()]
    records = records[:: max(1, args.every)]
    if args.limit:
        records = records[: args.limit]
    python = args.official_python or (str(args.official.parent / "venv" / "bin" / "python") if args.official else None)
    report: dict[str, Any] = {}
    scratch = Path(os.environ.get("TMPDIR", "/tmp")) / f"physeval-bench-eed-{os.getpid()}"

    if not args.skip_a:
        pairs = pairs_a(records)
        print(f"(a) {len(records)} PHYBench references x 3 perturbations, one core, each scorer in a fresh process "
              "(physeval: a cold on-disk cache)")
        ours, _, _ = physeval_serial(pairs, None, scratch / "a-cache")
        print(_line("physeval default", ours))
        print(f"    outcomes: {_outcomes(ours)}")
        report["a"] = {"pairs": pairs, "physeval": ours}
        if args.compat:
            compat, _, _ = physeval_serial(pairs, "phybench", scratch / "a-compat-cache")
            print(_line("physeval compat=phybench", compat))
            report["a"]["compat"] = compat
        if args.official:
            theirs, _, _ = official(pairs, python, args.official)  # type: ignore[arg-type]
            print(_line("official pipeline", theirs))
            print(_ratio("physeval default", ours, theirs))
            print(_agreement("physeval default", ours, theirs))
            if args.compat:
                print(_ratio("physeval compat", report["a"]["compat"], theirs))
                print(_agreement("physeval compat", report["a"]["compat"], theirs))
            report["a"]["official"] = theirs

    if not args.skip_b:
        pairs = pairs_b(records, args.samples)
        distinct = len(set(pairs))
        print(f"(b) realistic run: {len(records)} problems x {args.samples} samples = {len(pairs)} pairs "
              f"({distinct} distinct), each scorer in a fresh process")
        ours, one_core, ours_cpu = physeval_serial(pairs, None, scratch / "b-cache")
        print(_line("physeval default, 1 core", ours) + "  [cold cache]")
        print(f"    outcomes: {_outcomes(ours)}")
        warm, warm_wall, warm_cpu = physeval_serial(pairs, None, scratch / "b-cache")
        print(_line("physeval default, 1 core", warm) + "  [warm cache]")
        print(f"  physeval warm cache = cold on {sum(a[1:3] == b[1:3] for a, b in zip(ours, warm))}/{len(pairs)} pairs")
        pooled = physeval_pool(pairs, None, args.workers, scratch)
        same = sum(abs(a[1] - b[0]) < 1e-12 and a[2] == b[1] for a, b in zip(ours, pooled["scores"]))
        print(f"  physeval end to end (wall): 1 core {one_core:.1f} s (CPU {ours_cpu:.1f} s), {args.workers} cores "
              f"{pooled['process_wall']:.1f} s (grading {pooled['wall']:.1f} s after import; "
              f"workers' CPU {pooled['cpu']:.1f} s); "
              f"pool = serial on {same}/{len(pairs)} pairs")
        report["b"] = {"pairs": pairs, "physeval": ours, "physeval_wall_1": one_core,
                       "physeval_wall_n": pooled["process_wall"], "physeval_warm": warm,
                       "physeval_warm_wall_1": warm_wall, "physeval_cpu_1": ours_cpu, "physeval_warm_cpu_1": warm_cpu}
        if args.official:
            theirs, wall1, cpu1 = official(pairs, python, args.official)  # type: ignore[arg-type]
            print(_line("official pipeline, 1 core", theirs))
            _, wall_n, cpu_n = official(pairs, python, args.official, shards=args.workers)  # type: ignore[arg-type]
            print(f"  official end to end (wall): 1 core {wall1:.1f} s (CPU {cpu1:.1f} s), "
                  f"{args.workers} cores {wall_n:.1f} s (CPU {cpu_n:.1f} s)")
            print(f"  CPU total, official / physeval: 1 core {cpu1 / ours_cpu:.1f}x, "
                  f"{args.workers} cores {cpu_n / pooled['cpu']:.1f}x")
            print(_ratio("physeval default", ours, theirs))
            print(f"  end to end, official / physeval: 1 core {wall1 / one_core:.1f}x (CPU {cpu1 / ours_cpu:.1f}x) "
                  f"with a cold cache, {wall1 / warm_wall:.1f}x (CPU {cpu1 / warm_cpu:.1f}x) with a warm one; "
                  f"{args.workers} cores {wall_n / pooled['process_wall']:.1f}x (cold)")
            print(_agreement("physeval default", ours, theirs))
            report["b"].update({"official": theirs, "official_wall_1": wall1, "official_wall_n": wall_n,
                                "official_cpu_1": cpu1})
    if args.json:
        args.json.write_text(json.dumps(report), encoding="utf-8")
    shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

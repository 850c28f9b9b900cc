"""Numeric grading side by side: the official ABench evaluator, Math-Verify, physeval (default, compat).

The workload is the 800 ABench-Physics reference answers (sets A and B of ``--data``), each
boxed at the end of a realistic ~1.5 kB worked solution, as a response gives them
(``... Therefore $$\\boxed{1.4 \\times 10^{-2}}$$``), graded against itself. With ``--forms 4``
each reference is also written the three other ways models write it (in SI base units with the
unit, ``a \\times 10^{b}`` with four significant figures, e-notation on a "Final answer:" line),
3,200 responses, for the verdict table.

Every grader runs in its own fresh process pinned to one core (``sched_setaffinity``) and is
timed there in CPU seconds (``time.process_time``), so a loaded machine distorts the ratios
little; the processes alternate (A B C D A B C D ...) ``--repeat`` times and the median is shown:

* **import**: importing the grader's module;
* **cold**: the first pass over the 800, the first call inside the clock (every lazily built
  table, parser and registry is paid here);
* **cold + import**: both, i.e. a fresh process grading 800 answers;
* **warm**: a second pass over the same 800 in the same process (every cache that a grader
  keeps is warm: physeval's parse cache hits on the repeated texts);

and responses/s are 800 / those CPU seconds. The graders:

* ``official``: the real ABench evaluator, ``compare_boxed_result_with_standard_answer`` of
  ``Physics/src/utils.py`` of github.com/inclusionAI/ABench, imported from ``--official PATH``
  (the ``Physics/src`` folder) by a subprocess of its own venv (``--official-python``, default
  ``PATH/../../../abench-venv/bin/python``: ``latex2sympy2==1.9.1``, ``sympy==1.14.0``);
  nothing of it is copied here;
* ``math-verify`` (with ``--math-verify``): ``verify(parse("$ref$"), parse(response))`` of the
  ``math-verify`` package, in ``--math-verify-python`` (default: this interpreter);
* ``physeval``: ``grade_numeric(response, reference, question)``;
* ``physeval compat``: ``grade_numeric(..., compat="abench")``, physeval's reproduction of the
  official verdicts.

Verdict agreement is counted per response against the official evaluator (and against
physeval's default); a disagreement of compat with the official evaluator is listed. The
exit status is 1 when a grader process fails, 0 otherwise (targets are printed, not enforced).

Usage: python bench/numeric_grading.py --official /work/ref/abench/Physics/src --math-verify
       [--data ../shared/data/abench] [--repeat 3] [--forms 1|4] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

_REASONING = (
    "We start from the conservation laws. Writing the energy balance for the system, "
    "$E_k + E_p = \\text{const}$, and substituting the given data $m = 2.0\\,\\mathrm{kg}$, "
    "$v_0 = 3.0\\,\\mathrm{m/s}$, we get $\\frac{1}{2} m v^2 = m g h$ so that "
    "$h = \\frac{v^2}{2g} \\approx 0.46\\,\\mathrm{m}$. "
) * 5
_DEFAULT_DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "abench"
GRADERS = ("official", "math-verify", "physeval", "physeval-compat")

# ------------------------------------------------------------------------------ the responses


def _sci(value: float, digits: int = 4) -> tuple[str, int]:
    if value == 0:
        return "0", 0
    exp = math.floor(math.log10(abs(value)))
    mant = value / 10**exp
    return f"{mant:.{digits - 1}f}", exp


def _forms(answer: str, question: str, count: int) -> list[str]:
    """The response forms of one reference: boxed as written first, then ``count - 1`` others."""
    from physeval.answers.quantity import parse_quantity
    from physeval.answers.units import required_format
    from physeval.units import format_unit, registry

    forms = [f"{_REASONING}\nTherefore\n$$\\boxed{{{answer}}}$$"]
    if count == 1:
        return forms
    q = parse_quantity(answer)
    value = float(q.value) if q.value is not None else 0.0
    unit = required_format(question).pint_unit
    try:
        base = registry().Quantity(value, unit).to_base_units() if unit is not None else None
    except Exception:  # noqa: BLE001 - logarithmic units (neper, decibel) have no base form
        base = None
    if base is not None and format_unit(base.units):
        text = format_unit(base.units)
        forms.append(f"{_REASONING}\nSo the result is $\\boxed{{{float(base.magnitude):.6g}\\ \\mathrm{{{text}}}}}$.")
    else:
        forms.append(f"{_REASONING}\nSo the result is $\\boxed{{{value:.6g}}}$.")
    mant, exp = _sci(value)
    forms.append(f"{_REASONING}\nHence $x = \\boxed{{{mant} \\times 10^{{{exp}}}}}$")
    forms.append(f"{_REASONING}\n\n**Final answer:** {value:.4e}")
    return forms[:count]


def build_cases(data: str, forms: int) -> list[dict[str, str]]:
    """The responses: the boxed references first (800), then the other forms."""
    from physeval.tasks.abench_data import load_abench

    problems = load_abench(data, "a") + load_abench(data, "b")
    per = [_forms(p.answer, p.question, forms) for p in problems]
    cases = []
    for k in range(forms):
        for p, texts in zip(problems, per):
            cases.append({"id": f"{p.id}/{p.variant}", "form": str(k + 1), "response": texts[k],
                          "reference": p.answer, "question": p.question})
    return cases


# ------------------------------------------------------------------------------ the worker (any venv)


def _grader(kind: str, official: str | None) -> Any:
    """(grade function response, reference, question -> bool) of ``kind``, imported now."""
    if kind == "official":
        sys.path.insert(0, str(official))
        from utils import compare_boxed_result_with_standard_answer  # type: ignore[import-not-found]

        return lambda response, reference, question: bool(
            compare_boxed_result_with_standard_answer(response, reference))
    if kind == "math-verify":
        from math_verify import parse, verify  # type: ignore[import-not-found]

        return lambda response, reference, question: bool(verify(parse(f"${reference}$"), parse(response)))
    from physeval.grading.numeric import grade_numeric

    compat = "abench" if kind == "physeval-compat" else None
    return lambda response, reference, question: grade_numeric(response, reference, question, compat=compat).correct


def worker(kind: str, cases_file: str, official: str | None, cold_n: int) -> dict[str, Any]:
    """Grade the cases in this fresh process; CPU seconds of import, cold pass, warm pass."""
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})  # one core
    cases = json.loads(Path(cases_file).read_text(encoding="utf-8"))
    t0 = time.process_time()
    grade = _grader(kind, official)
    t1 = time.process_time()
    verdicts = [grade(c["response"], c["reference"], c["question"]) for c in cases[:cold_n]]
    t2 = time.process_time()
    for c in cases[:cold_n]:
        grade(c["response"], c["reference"], c["question"])
    t3 = time.process_time()
    verdicts += [grade(c["response"], c["reference"], c["question"]) for c in cases[cold_n:]]
    return {"import": t1 - t0, "cold": t2 - t1, "warm": t3 - t2, "verdicts": verdicts}


# ------------------------------------------------------------------------------ the driver


def _run_worker(python: str, kind: str, cases_file: str, official: str | None, cold_n: int) -> dict[str, Any]:
    cmd = [python, str(Path(__file__).resolve()), "--worker", kind, "--cases", cases_file, "--cold-n", str(cold_n)]
    if official:
        cmd += ["--official", official]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode as an installed package has it (the first run writes it)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{kind} worker failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _uptime() -> str:
    try:
        return "load average " + " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "load average unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(_DEFAULT_DATA))
    parser.add_argument("--official", help="the Physics/src folder of an inclusionAI/ABench checkout")
    parser.add_argument("--official-python", help="the interpreter of the official evaluator's venv")
    parser.add_argument("--math-verify", action="store_true", help="also time Math-Verify")
    parser.add_argument("--math-verify-python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--forms", type=int, choices=(1, 4), default=1)
    parser.add_argument("--json", help="write every figure and verdict here")
    parser.add_argument("--worker", choices=GRADERS, help=argparse.SUPPRESS)
    parser.add_argument("--cases", help=argparse.SUPPRESS)
    parser.add_argument("--cold-n", type=int, default=800, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.cases, args.official, args.cold_n)))
        return 0

    cases = build_cases(args.data, args.forms)
    cold_n = sum(1 for c in cases if c["form"] == "1")
    pythons: dict[str, str] = {"physeval": sys.executable, "physeval-compat": sys.executable}
    if args.official:
        official = str(Path(args.official).resolve())
        pythons["official"] = args.official_python or str(Path(official).parents[2] / "abench-venv" / "bin" / "python")
    if args.math_verify:
        pythons["math-verify"] = args.math_verify_python
    kinds = [k for k in GRADERS if k in pythons]
    print(f"{len(cases)} responses ({cold_n} boxed references, timed), one core per process, "
          f"{args.repeat} alternating runs, median; {_uptime()} at start")
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        cases_file = str(Path(tmp) / "cases.json")
        Path(cases_file).write_text(json.dumps(cases), encoding="utf-8")
        for kind in kinds:  # an untimed first run: bytecode written, files in the page cache
            _run_worker(pythons[kind], kind, cases_file, args.official if kind == "official" else None, 1)
        for _ in range(args.repeat):
            for kind in kinds:
                runs[kind].append(_run_worker(pythons[kind], kind, cases_file,
                                              args.official if kind == "official" else None, cold_n))
    print(f"{_uptime()} at end")
    med = {k: {f: statistics.median(r[f] for r in runs[k]) for f in ("import", "cold", "warm")} for k in kinds}
    verdicts = {k: runs[k][0]["verdicts"] for k in kinds}
    unstable = [k for k in kinds if any(r["verdicts"] != verdicts[k] for r in runs[k])]

    def rate(seconds: float) -> float:
        return cold_n / seconds if seconds > 0 else float("inf")

    print()
    print(f"{'grader':<17} {'import s':>9} {'cold r/s':>10} {'cold+import r/s':>16} {'warm r/s':>10} "
          f"{'correct':>9}")
    for k in kinds:
        m = med[k]
        correct = sum(verdicts[k][:cold_n])
        print(f"{k:<17} {m['import']:>9.2f} {rate(m['cold']):>10,.0f} {rate(m['cold'] + m['import']):>16,.0f} "
              f"{rate(m['warm']):>10,.0f} {correct:>5}/{cold_n}")
    print()
    for other in ("official", "math-verify"):
        if other in med:
            o, p = med[other], med["physeval"]
            print(f"physeval / {other}: cold {o['cold'] / p['cold']:.1f}x, cold+import "
                  f"{(o['cold'] + o['import']) / (p['cold'] + p['import']):.1f}x, warm {o['warm'] / p['warm']:.1f}x")
    if unstable:
        print("verdicts that changed between runs of the same grader:", ", ".join(unstable))
    print()
    forms = sorted({c["form"] for c in cases})
    for against in [k for k in ("official", "physeval") if k in verdicts]:
        print(f"verdict agreement with {against} (responses), by form {', '.join(forms)}:")
        for k in kinds:
            if k == against:
                continue
            cells = []
            for f in forms:
                idx = [i for i, c in enumerate(cases) if c["form"] == f]
                same = sum(verdicts[k][i] == verdicts[against][i] for i in idx)
                cells.append(f"{same}/{len(idx)}")
            print(f"  {k:<17} " + "  ".join(cells))
    if "official" in verdicts:
        differ = [(cases[i]["id"], cases[i]["form"], verdicts["official"][i])
                  for i in range(len(cases)) if verdicts["physeval-compat"][i] != verdicts["official"][i]]
        print(f"compat vs official: {len(differ)} disagreements" + (f": {differ[:10]}" if differ else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({"median": med, "runs": runs, "cases": cases}), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

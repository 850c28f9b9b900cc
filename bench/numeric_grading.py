"""Throughput of the numeric grader on the 800 ABench-Physics reference answers.

Each reference is graded in four written forms (so 3,200 responses), each wrapped in a
realistic ~1.5 kB worked solution:

1. boxed as the dataset writes it: ``\\boxed{1.4 \\times 10^{-2}}``;
2. boxed in SI base units with the unit written (cm -> m, µA -> A, MeV -> J, degC -> K, ...);
3. boxed in scientific notation with ``\\times 10^{b}`` and four significant figures;
4. e-notation on a "Final answer:" line, without a box.

It prints responses/s on one core for the default grader and for ``compat="abench"``. The
official evaluator itself cannot be installed here (it is a script directory pinning the
unmaintained ``latex2sympy2``), so the compat mode - a re-implementation of its algorithm on
``latex2sympy2_extended`` - stands in as the reference for the ratio.

Usage: python bench/numeric_grading.py [--data ../shared/data/abench] [--repeat 1]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from physeval.answers.quantity import parse_quantity
from physeval.grading.compat.abench import abench_value
from physeval.grading.numeric import _reference, grade_numeric
from physeval.tasks.abench_data import load_abench
from physeval.units import format_unit, registry

_REASONING = (
    "We start from the conservation laws. Writing the energy balance for the system, "
    "$E_k + E_p = \\text{const}$, and substituting the given data $m = 2.0\\,\\mathrm{kg}$, "
    "$v_0 = 3.0\\,\\mathrm{m/s}$, we get $\\frac{1}{2} m v^2 = m g h$ so that "
    "$h = \\frac{v^2}{2g} \\approx 0.46\\,\\mathrm{m}$. "
) * 5


def _sci(value: float, digits: int = 4) -> tuple[str, int]:
    if value == 0:
        return "0", 0
    exp = math.floor(math.log10(abs(value)))
    mant = value / 10**exp
    return f"{mant:.{digits - 1}f}", exp


def _forms(problem_answer: str, question: str) -> list[str]:
    from physeval.answers.units import required_format

    q = parse_quantity(problem_answer)
    value = float(q.value) if q.value is not None else 0.0
    fmt = required_format(question)
    forms = [f"{_REASONING}\nTherefore\n$$\\boxed{{{problem_answer}}}$$"]
    unit = fmt.pint_unit
    try:
        base = registry().Quantity(value, unit).to_base_units() if unit is not None else None
    except Exception:  # logarithmic units (neper, decibel) have no base form
        base = None
    if base is not None and format_unit(base.units):
        unit = format_unit(base.units)
        forms.append(f"{_REASONING}\nSo the result is $\\boxed{{{float(base.magnitude):.6g}\\ \\mathrm{{{unit}}}}}$.")
    else:
        forms.append(f"{_REASONING}\nSo the result is $\\boxed{{{value:.6g}}}$.")
    mant, exp = _sci(value)
    forms.append(f"{_REASONING}\nHence $x = \\boxed{{{mant} \\times 10^{{{exp}}}}}$")
    forms.append(f"{_REASONING}\n\n**Final answer:** {value:.4e}")
    return forms


def _rate(cases: list[tuple[str, str, str]], compat: str | None) -> tuple[float, int, float]:
    start = time.perf_counter()
    correct = 0
    for response, reference, question in cases:
        correct += grade_numeric(response, reference, question, compat=compat).correct
    elapsed = time.perf_counter() - start
    return len(cases) / elapsed, correct, elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_data = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "abench"
    parser.add_argument("--data", default=str(default_data))
    parser.add_argument("--compat-limit", type=int, default=800, help="responses graded in compat mode (it is slow)")
    args = parser.parse_args(argv)
    problems = load_abench(args.data, "a") + load_abench(args.data, "b")
    registry()  # build pint once, outside the timing (a run does this once too)
    cases = [(form, p.answer, p.question) for p in problems for form in _forms(p.answer, p.question)]
    print(f"{len(problems)} references x 4 forms = {len(cases)} responses, one core, one process")

    grade_numeric(cases[0][0], cases[0][1], cases[0][2])  # import-time warm-up
    parse_quantity.cache_clear()
    _reference.cache_clear()
    rate, correct, elapsed = _rate(cases, None)
    print(f"default grader (cold parse caches): {rate:,.0f} responses/s ({elapsed:.2f} s), "
          f"correct {correct}/{len(cases)}")
    rate_warm, _, _ = _rate(cases, None)
    print(f"default grader (warm caches, repeated answers): {rate_warm:,.0f} responses/s")

    subset = cases[: args.compat_limit]
    abench_value.cache_clear()
    c_rate, c_correct, c_elapsed = _rate(subset, "abench")
    print(
        f'compat="abench" (official algorithm re-implemented): {c_rate:,.0f} responses/s ({c_elapsed:.2f} s), '
        f"correct {c_correct}/{len(subset)}"
    )
    d_rate, d_correct, _ = _rate(subset, None)
    print(f"default grader on the same {len(subset)} responses: correct {d_correct}/{len(subset)}")
    print(f"ratio default / compat-abench: {rate / c_rate:.1f}x (the official evaluator is not installable here)")
    print("target: >= 2,000 responses/s for the default grader:", "met" if rate >= 2000 else "NOT met")
    return 0


if __name__ == "__main__":
    sys.exit(main())

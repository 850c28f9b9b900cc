"""Computational bombs: every grader answers in bounded work and 500 MB, with an explained outcome.

Each input is graded as the answer and as the reference by ``grade_numeric``, ``grade_symbolic``
and ``eed`` (default and ``compat="phybench"``), in a fresh process under ``RLIMIT_AS`` =
500 MB: a warmed server process (SymPy and the parser imported once) forks one child per
input, the child sets the limit and grades, and the server kills any child still alive after
its deadline. The expected outcomes are checked too: a bomb is ``too_large`` with the bound
named, not an ``error`` or a silent 0.

Work is bounded by operation budgets, so no verdict here depends on the machine's speed or load:
each call's CPU time (not wall time) must stay under a limit far above what a bounded grade costs
(an unbounded one never ends), and the kill deadline only guards against a hang. The 2 s figure
of the EED issue is measured by ``bench/eed.py``, on an idle core.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from physeval.answers.bounds import Bounds, check_bounds, expanded_terms
from physeval.grading.eed import eed

MEMORY_LIMIT = 500 * 2**20
SECONDS = 2.0  # the budget a bench run on one idle core holds; the CPU guard below is ten times it
CPU_GUARD = 10 * SECONDS

# The inputs of the hardening and EED issues, and what the answer side must give:
# (latex, grade_numeric outcome, eed outcome in default mode).
NAMED: list[tuple[str, str, str]] = [
    (r"10^{10^{10}}", "too_large", "too_large"),
    (r"\sin(10^{10^{10}})", "too_large", "too_large"),
    (r"9999999!", "too_large", "too_large"),
    (r"\Gamma(10^7)", "too_large", "wrong"),  # default mode reads \Gamma as a symbol, as PHYBench does
    (r"\lceil 10^{10^{10}} \rceil", "too_large", "too_large"),
    (r"2^{10000000}", "too_large", "too_large"),
    (r"100000!", "too_large", "too_large"),
    (r"\exp(1000000)", "too_large", "too_large"),
    (r"\binom{10^7}{5\cdot 10^6}", "too_large", "too_large"),
    (r"10^{1000000}", "too_large", "too_large"),
    (r"e^{1000000}", "too_large", "too_large"),
    (r"(a+b)^{100000}", "too_large", "too_large"),
    (r"x^{10^{100}}", "too_large", "too_large"),
    (r"2^2^2^2^2^2", "wrong", "wrong"),  # read as ((((2^2)^2)^2)^2)^2 = 2^32: an ordinary number
    (r"(5!)!!", "too_large", "too_large"),
    (r"3 \times 10^{400000000}", "too_large", "too_large"),
]


def _generated_family() -> list[str]:
    """Power towers, factorials and huge exponents, from small to hostile (deterministic)."""
    family: list[str] = []
    for base in (2, 10):
        tower = str(base)
        for _ in range(5):
            tower = f"{base}^{{{tower}}}"
            family.append(tower)
    for digits in (3, 7):
        family += [f"{10**digits}!", f"{10**digits}!!", f"({10**digits})!", f"\\Gamma({10**digits})"]
    for k in (3, 12, 100):
        family += [f"10^{{10^{{{k}}}}}", f"x^{{10^{{{k}}}}}", f"(a+b)^{{10^{{{k}}}}}", f"e^{{10^{{{k}}}}}",
                   f"\\binom{{10^{{{k}}}}}{{3}}", f"\\sqrt{{10^{{10^{{{k}}}}}}}", f"\\ln(10^{{10^{{{k}}}}})"]
    family += ["((3!)!)!", "(((3!)!)!)!", "x^{x^{x^{x^{x}}}}", "(a+b+c)^{40}(a-b)^{40}", "\\cos(2^{2^{2^{2^{2}}}})"]
    return family


# Texts whose cost is in reading them, not in computing them: deep nesting (ANTLR's prediction
# took minutes on a 300-deep one), long sums (Python's recursion limit, so a verdict that depended on
# the caller's stack), a million digits (past Python's int conversion limit) and a megabyte of
# fractions. Each is refused by the parse budget, counted on the text alone.
PARSER_BOMBS: dict[str, str] = {
    "nested-300": "(x" * 300 + ")" * 300,
    "power-tower-30": "x^{" * 30 + "x" + "}" * 30,
    "sum-5000": "+".join(["x"] * 5000),
    "million-digits": "1" * 1_000_000,
    "megabyte-of-fractions": r"\frac{a}{b}" * 100_000,
}


REFERENCE_SYMBOLIC = r"\frac{m v^{2}}{2} + m g h + \frac{1}{2} k x^{2} - \frac{q^{2}}{4 \pi \varepsilon_0 r}"
REFERENCE_NUMERIC = "2.5"

_SERVER = r"""
import json, os, resource, sys, time
from physeval.grading.eed import eed
from physeval.grading.numeric import grade_numeric
from physeval.grading.symbolic import grade_symbolic

limit, seconds, ref_sym, ref_num = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
# warm the imports and the reference's cached trees before forking
eed(ref_sym, "x+2"); eed(ref_sym, "x+2", compat="phybench")
grade_numeric("\\boxed{3}", ref_num); grade_symbolic("\\boxed{x}", "x")

def calls(text):
    box = "\\boxed{" + text + "}"
    return [
        ("numeric_answer", lambda: grade_numeric(box, ref_num)),
        ("numeric_reference", lambda: grade_numeric("\\boxed{2.5}", text)),
        ("symbolic_answer", lambda: grade_symbolic(box, ref_sym)),
        ("symbolic_reference", lambda: grade_symbolic("\\boxed{x + 1}", text)),
        ("eed_answer", lambda: eed(ref_sym, text)),
        ("eed_reference", lambda: eed(text, "x + 1")),
        ("eed_compat_answer", lambda: eed(ref_sym, text, compat="phybench")),
        ("eed_compat_reference", lambda: eed(text, "x + 1", compat="phybench")),
    ]

results = {}
for text in json.loads(sys.stdin.read()):
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a fresh process under the memory limit
        os.close(read)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        out = {}
        for name, call in calls(text):
            start = time.process_time()
            try:
                grade = call()
                out[name] = {"outcome": grade.outcome, "reason": grade.reason, "seconds": time.process_time() - start}
            except BaseException as exc:
                out[name] = {"outcome": "raised", "reason": f"{type(exc).__name__}: {exc}"[:300],
                             "seconds": time.process_time() - start}
        with os.fdopen(write, "w") as stream:
            stream.write(json.dumps(out))
        os._exit(0)
    os.close(write)
    deadline = time.monotonic() + 60 * seconds + 120.0  # a hang guard only: CPU time decides below
    status = None
    while time.monotonic() < deadline:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.01)
    else:
        os.kill(pid, 9)
        _, status, usage = os.wait4(pid, 0)
        results[text] = {"killed": True}
        os.close(read)
        continue
    with os.fdopen(read) as stream:
        payload = stream.read()
    results[text] = {"killed": False, "status": status, "maxrss_kb": usage.ru_maxrss,
                     "calls": json.loads(payload) if payload else {}}
print(json.dumps(results))
"""


def _grade_in_fresh_processes(texts: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _SERVER, str(MEMORY_LIMIT), str(SECONDS), REFERENCE_SYMBOLIC, REFERENCE_NUMERIC],
        input=json.dumps(texts), capture_output=True, text=True, timeout=900, check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


# The test that builds the module's fixture carries its cost (47 s of CPU on a slow machine): the
# tests reading it get the guard of the fixture's own subprocess. One worker builds it (conftest.py
# groups the tests of a module fixture).
uses_graded = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def graded() -> dict[str, Any]:
    return _grade_in_fresh_processes([text for text, _, _ in NAMED] + _generated_family() + list(PARSER_BOMBS.values()))


def _assert_bounded(record: dict[str, Any], text: str) -> dict[str, Any]:
    assert not record["killed"], f"{text}: still running after the deadline"
    assert record["status"] == 0, f"{text}: child exited with status {record['status']}"
    calls = record["calls"]
    assert len(calls) == 8, f"{text}: {calls}"
    for name, call in calls.items():
        assert call["outcome"] != "raised", f"{text} {name}: {call['reason']}"
        assert call["seconds"] < CPU_GUARD, f"{text} {name}: {call['seconds']:.2f} s of CPU"
    return calls


@uses_graded
@pytest.mark.parametrize(("text", "numeric", "symbolic"), NAMED, ids=[t for t, _, _ in NAMED])
def test_named_bombs_return_an_explained_outcome_in_bounded_time_and_memory(
    graded: dict[str, Any], text: str, numeric: str, symbolic: str
) -> None:
    calls = _assert_bounded(graded[text], text)
    assert calls["numeric_answer"]["outcome"] == numeric, calls["numeric_answer"]
    assert calls["eed_answer"]["outcome"] == symbolic, calls["eed_answer"]
    assert calls["symbolic_answer"]["outcome"] in (symbolic, "dimension_mismatch"), calls["symbolic_answer"]
    if symbolic == "too_large":
        assert "bound" in calls["eed_answer"]["reason"]
        assert calls["eed_compat_answer"]["outcome"] == "too_large", calls["eed_compat_answer"]
        # a bomb as the reference is the reference's failure, said so
        assert calls["eed_reference"]["outcome"] == "error"
        assert "too large" in calls["eed_reference"]["reason"]
    if numeric == "too_large":
        assert calls["numeric_reference"]["outcome"] == "error"
        assert "too large" in calls["numeric_reference"]["reason"] or "beyond" in calls["numeric_reference"]["reason"]


@uses_graded
@pytest.mark.parametrize("name", sorted(PARSER_BOMBS))
def test_texts_beyond_the_parse_budget_are_refused_before_parsing(graded: dict[str, Any], name: str) -> None:
    text = PARSER_BOMBS[name]
    calls = _assert_bounded(graded[text], text)
    for call in calls.values():
        assert len(call["reason"]) < 1000, call["reason"][:300]  # a reason never echoes the whole text
    for side in ("symbolic_reference", "eed_reference", "eed_compat_reference"):
        assert calls[side]["outcome"] == "error" and "parse budget" in calls[side]["reason"], calls[side]
    # as the answer: refused (too long for the reference, or beyond the budget), never a grader error
    for side in ("symbolic_answer", "eed_answer", "eed_compat_answer"):
        assert calls[side]["outcome"] in ("too_long", "too_large"), calls[side]
    assert calls["numeric_answer"]["outcome"] in ("too_large", "unparseable"), calls["numeric_answer"]


def test_the_parse_budget_counts_characters_and_depth_only() -> None:
    from physeval.answers.latex import MAX_PARSE_CHARS, MAX_PARSE_DEPTH, latex_to_sympy, parse_budget

    assert parse_budget("x" * MAX_PARSE_CHARS) == "" and parse_budget("x" * (MAX_PARSE_CHARS + 1)) != ""
    deep = "(" * MAX_PARSE_DEPTH + "x" + ")" * MAX_PARSE_DEPTH
    assert parse_budget(deep) == "" and "deep" in parse_budget("(" + deep + ")")
    assert latex_to_sympy(deep).ok  # within the budget a deep text still reads
    over = latex_to_sympy("y^{" + deep + "}")
    assert over.outcome == "too_large" and "parse budget" in over.reason


@uses_graded
@pytest.mark.parametrize("text", _generated_family())
def test_generated_family_is_bounded(graded: dict[str, Any], text: str) -> None:
    calls = _assert_bounded(graded[text], text)
    assert calls["eed_answer"]["outcome"] in ("too_large", "wrong", "undecided", "unparseable", "correct")


@uses_graded
def test_peak_memory_of_each_child_stays_under_the_limit(graded: dict[str, Any]) -> None:
    peaks = {text: record["maxrss_kb"] for text, record in graded.items() if not record["killed"]}
    assert peaks and max(peaks.values()) * 1024 < MEMORY_LIMIT, max(peaks.items(), key=lambda kv: kv[1])


# ------------------------------------------------------------------------------------ the bounds


def test_bounds_name_the_bound_and_leave_physics_alone() -> None:
    import sympy

    x, a, b = sympy.symbols("x a b")
    with sympy.evaluate(False):
        tower = sympy.Pow(10, sympy.Pow(10, 10))
        degree = sympy.Pow(a + b, 100000)
        fact = sympy.factorial(sympy.factorial(sympy.factorial(5)))
    assert check_bounds(tower).bound == "digits"
    assert check_bounds(degree).bound == "degree"
    assert check_bounds(fact).bound == "digits"
    assert not check_bounds(sympy.Add(*sympy.symbols("s0:50")), Bounds(max_nodes=20)).ok
    physics = sympy.exp(-a * b * x / sympy.Symbol("k")) * sympy.sqrt(2 * x) / (a + b) ** 3 + sympy.factorial(20)
    assert check_bounds(physics).ok
    assert check_bounds(sympy.Integer(2) ** 1000).ok  # 302 digits: fine
    assert check_bounds(x ** sympy.Rational(1, 10**6)).ok  # a root is no polynomial degree


def test_a_decimal_exponent_is_bounded_by_its_value_not_its_precision() -> None:
    import sympy

    x = sympy.Symbol("x")
    with sympy.evaluate(False):
        half, big = sympy.Pow(x, sympy.Float(0.5)), sympy.Pow(x, sympy.Float(2000.5))
        numeric = sympy.Pow(2, sympy.Float(0.5))
    # a Float's size counts its 53-bit precision: x^0.5 was a degree of 9.007e15, 2^0.5 had 2.7e15 digits
    assert check_bounds(half).ok and check_bounds(numeric).ok
    assert check_bounds(big).bound == "degree"
    assert eed(r"m\sqrt{g}", r"mg^{0.5}").outcome == "correct"
    assert eed(r"(mg)^{3/2}", r"(mg)^{1.5}").outcome == "correct"


def test_expanded_terms_estimates_the_size_of_an_expansion() -> None:
    import sympy

    a, b, c = sympy.symbols("a b c")
    assert expanded_terms(a + b) == 2
    assert expanded_terms((a + b) ** 3) == 4
    assert expanded_terms((a + b) ** 2 * (a + c) ** 2) == 9
    assert expanded_terms((a + b + c) ** 2) == len(sympy.expand((a + b + c) ** 2).args)
    assert expanded_terms((a + b) ** 100000, cap=1000) == 1000

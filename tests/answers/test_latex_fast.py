"""The fast LaTeX reader gives latex2sympy2's SymPy tree node for node, except on the listed misreadings.

The reference reading is latex2sympy2's (ANTLR) parse of the same text; the fast reader either
returns an expression with the identical ``srepr`` or declines (``Outside``) and latex2sympy2
reads the text. The one place physeval reads differently on purpose is a ``d`` directly before
a command (``d\\sin\\phi``), which latex2sympy2 lexes as one differential symbol (``dsin``);
those texts are listed below with both readings.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from physeval.answers.latex import (
    _configs,
    _dialect,
    _parse,
    _parse_antlr,
    latex_to_sympy,
    split_differential_commands,
)
from physeval.answers.latex_fast import Outside, parse_fast_normalized
from physeval.answers.latex_normalize import normalize_latex

DATA = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "phybench" / "PHYBench-fullques_v1.json"


def _l2s_text(raw: str, compat: str | None) -> str:
    from latex2sympy2_extended.math_normalization import normalize_latex as l2s_normalize

    _, normalization = _configs()
    return l2s_normalize(normalize_latex(raw, compat=compat), normalization)


def _outcome(parse: object, text: str) -> str:
    try:
        return sympy.srepr(parse(text))  # type: ignore[operator]
    except Exception as exc:  # noqa: BLE001 - the error is part of the reading
        return f"error: {type(exc).__name__}"


@cache
def _antlr_reading(text: str) -> str:
    """latex2sympy2's reading of ``text`` (a pure function of the text): read once, however many
    modes or cases normalise to the same text."""
    return _outcome(_parse_antlr, text)


def _disagreements(texts: list[str]) -> tuple[int, list[tuple[str, str | None, str, str]]]:
    """How many texts the fast reader read, and where it differs from latex2sympy2 on the same
    (d-split) text, in both modes."""
    read = 0
    wrong: list[tuple[str, str | None, str, str]] = []
    for raw in texts:
        for compat in (None, "phybench"):
            text = _l2s_text(raw, compat)
            if not text.strip():
                continue
            if compat is None:
                text = split_differential_commands(text)
            try:
                fast = sympy.srepr(parse_fast_normalized(text, _dialect(compat)))
            except (Outside, RecursionError):
                continue
            read += 1
            if compat == "phybench" and re.search(r"\\(gamma|Gamma)|%", text):
                continue  # 1.10.2's reading: checked in test_compat_reads_gamma_as_the_pinned_version
            reference = _antlr_reading(text)
            if fast != reference:
                wrong.append((raw, compat, fast, reference))
    return read, wrong


# The misreading physeval fixes: latex2sympy2's symbols on the left, physeval's (and the functions
# it now sees) on the right. Every text where the two readings differ is of this kind.
MISREADINGS = [
    (r"\frac{\lambda L}{d\sin\phi}", {"L", "lambda", "dsin", "phi"}, {"L", "lambda", "d", "phi"}, {"sin"}),
    (r"d \sqrt{x}", {"dsqrt", "x"}, {"d", "x"}, {"Pow"}),
    (r"d\sin^2\phi", {"dsin", "phi"}, {"d", "phi"}, {"sin"}),
    (r"d\cdot a", {"dcdot", "a"}, {"d", "a"}, set()),
    (r"m d\frac{a}{b}", {"dfrac", "m", "a", "b"}, {"d", "m", "a", "b"}, set()),
    (r"d\theta", {"dtheta"}, {"d", "theta"}, set()),
    (r"2 d \bar{v}", {"dbar", "v"}, {"d", "bar{v}"}, set()),
]


def _names(expr: sympy.Basic) -> set[str]:
    return {s.name for s in expr.free_symbols}


@pytest.mark.parametrize(("text", "latex2sympy2", "physeval", "functions"), MISREADINGS)
def test_a_d_before_a_command_is_a_product(text: str, latex2sympy2: set[str], physeval: set[str],
                                           functions: set[str]) -> None:
    parsed = latex_to_sympy(text)
    assert parsed.ok and _names(parsed.expr) == physeval, parsed.expr
    assert functions <= {type(node).__name__ for node in sympy.preorder_traversal(parsed.expr)}
    assert _names(_parse_antlr(_l2s_text(text, None))) == latex2sympy2
    compat = latex_to_sympy(text, compat="phybench")  # the pipeline's reading, bug included
    assert compat.ok and _names(compat.expr) == latex2sympy2


@pytest.mark.parametrize("text", [r"\frac{dP}{d\Omega}", r"\omega\frac{d\omega}{d\theta}", r"\frac{dx}{dt}"])
def test_a_derivative_keeps_its_differentials(text: str) -> None:
    expr = _parse(_l2s_text(text, None))
    assert expr.has(sympy.Derivative), expr


def test_an_equivalence_the_misreading_hid_is_found() -> None:
    from physeval.grading.eed import eed

    reference = r"\frac{1+\tan^2(2\phi)}{\sin\phi}\frac{\lambda L}{d}"
    answer = r"\frac{\lambda L}{d\sin\phi\cos^2(2\phi)}"
    assert eed(reference, answer).score == 100
    assert eed(reference, answer, compat="phybench").score < 100  # the pipeline reads dsin


def test_compat_reads_gamma_as_the_pinned_version() -> None:
    # latex2sympy2 1.10.2 (pinned by the PHYBench pipeline) reads \gamma as a plain symbol; 1.11 as
    # Euler's constant, and \gamma^2\omega^2 as the Gamma function. Fast path and fallback alike.
    gamma, omega, t = sympy.symbols("gamma omega t")
    assert sympy.simplify(latex_to_sympy(r"\gamma^2\omega^2", compat="phybench").expr - gamma**2 * omega**2) == 0
    assert sympy.simplify(latex_to_sympy(r"\frac{1}{\gamma}", compat="phybench").expr - 1 / gamma) == 0
    fallback = latex_to_sympy(r"\frac{d\gamma}{dt}", compat="phybench").expr  # a derivative: latex2sympy2 reads it
    assert fallback == sympy.Derivative(gamma, t)
    assert not latex_to_sympy(r"\gamma m c^2", compat="phybench").expr.has(sympy.EulerGamma)
    # and a percentage as 1.10.2 builds it (1.11 wraps the 1/100 in UnevaluatedExpr)
    assert sympy.srepr(latex_to_sympy(r"5\%", compat="phybench").expr) == "Mul(Rational(1, 100), Integer(5))"


def test_texts_of_the_tests_and_bench_read_alike() -> None:
    texts = _test_texts()
    read, wrong = _disagreements(texts)
    assert wrong == []
    assert read > 300, read  # the reader covers most of them


def _test_texts() -> list[str]:
    """Every one-line string constant of the LaTeX and grading tests that looks like LaTeX."""
    import ast

    root = Path(__file__).resolve().parents[1]
    found: dict[str, None] = {}
    for path in sorted([*root.glob("answers/*.py"), *root.glob("grading/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            value = getattr(node, "value", None)
            if isinstance(node, ast.Constant) and isinstance(value, str) and len(value) < 400 \
                    and "\n" not in value.strip() and ("\\" in value or re.search(r"[\^_+*/]", value)):
                found[value] = None
    return list(found)


def _phybench() -> list[dict[str, str]]:
    return json.loads(DATA.read_text(encoding="utf-8")) if DATA.is_file() else []


def test_every_phybench_answer_reads_alike() -> None:
    records = _phybench()
    if not records:
        pytest.skip("shared PHYBench data not present")
    read, wrong = _disagreements([r["answer"] for r in records])
    assert wrong == []
    assert read >= 190, read  # 100 answers in two modes: nearly all read fast


_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\$(.+?)\$|\\\((.+?)\\\)", re.S)
_CUT = re.compile(r"=|\\approx|\\quad|\\qquad|\\\\|,|;|<|>|\\le(?:q)?(?![a-z])|\\ge(?:q)?(?![a-z])|\\Rightarrow|"
                  r"\\rightarrow|\\to(?![a-z])|\\text\{[^{}]*\}|\\begin\{[a-z*]+\}|\\end\{[a-z*]+\}|&")


def solution_steps(solution: str) -> list[str]:
    """The expressions of a worked solution: each math segment cut at top-level relations and
    separators."""
    steps: list[str] = []
    for match in _MATH.finditer(solution):
        segment = next(g for g in match.groups() if g is not None)
        depth, current, i = 0, "", 0
        while i < len(segment):
            c = segment[i]
            depth += {"{": 1, "}": -1}.get(c, 0)
            cut = _CUT.match(segment, i) if depth == 0 else None
            if cut:
                steps.append(current)
                current, i = "", cut.end()
                continue
            current += c
            i += 1
        steps.append(current)
    return [s.strip() for s in steps if s.strip()]


@pytest.mark.slow
@pytest.mark.timeout(3600)  # about 2,500 texts through ANTLR in two modes: 181 s on a slow machine
def test_every_phybench_solution_step_reads_alike() -> None:
    records = _phybench()
    if not records:
        pytest.skip("shared PHYBench data not present")
    steps = list(dict.fromkeys(s for r in records for s in solution_steps(r["solution"]) if len(s) < 3000))
    read, wrong = _disagreements(steps)
    assert wrong == []
    assert read > 2000, read


# ------------------------------------------------------------------------------ generated expressions

_LEAVES = st.sampled_from(["x", "m", "g", "v_0", "v_{1}", r"\omega", r"\theta_0", r"\alpha ", "2", "3", "1.5", r"\pi",
                           "e", r"\hbar", r"\bar{x}", "R", "L", "d", r"\infty", "I", "E", "n_b"])


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", r"\cdot ", "/", " ", ""]), children).map(lambda t: "".join(t))
    return st.one_of(
        binary,
        st.tuples(children, children).map(lambda t: r"\frac{" + t[0] + "}{" + t[1] + "}"),
        children.map(lambda c: r"\sqrt{" + c + "}"),
        st.tuples(st.sampled_from([r"\sin", r"\cos", r"\tan", r"\ln", r"\exp", r"\sin^2", r"\cos^{-1}", r"\log_2",
                                   r"\arctan", r"\sinh"]), st.sampled_from([" ", "(", "{"]), children).map(
            lambda t: t[0] + t[1] + t[2] + {"(": ")", "{": "}", " ": ""}[t[1]]),
        children.map(lambda c: "(" + c + ")"),
        st.tuples(children, st.sampled_from(["^2", "^{-1}", "^{n}", r"^{\frac{1}{2}}", "^x", "!"])).map(
            lambda t: "(" + t[0] + ")" + t[1]),
        children.map(lambda c: "-" + c),
        children.map(lambda c: "|" + c + "|"),
        children.map(lambda c: "e^{" + c + "}"),
    )


EXPRESSIONS = st.recursive(_LEAVES, _combine, max_leaves=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS)
def test_generated_expressions_read_alike(text: str) -> None:
    _, wrong = _disagreements([text])
    assert wrong == []

"""Every symbolic bank template: loads, varies, matches a hand-derived expression, writes LaTeX that
parses back to the same expression, and (where the physics allows) agrees with a numerical
computation that does not use the closed form.

Adding a template = adding its YAML file + one row in HAND_WORKED (+ optionally NUMERICAL_CHECKS).
"""

from __future__ import annotations

import math
import random
import re
from decimal import Decimal
from pathlib import Path

import pytest
import sympy
from latex2sympy2_extended import latex2sympy
from latex2sympy2_extended.latex2sympy2 import ConversionConfig
from scipy.integrate import quad, solve_ivp

from physeval.variation import load_bank, vary
from physeval.variation.bank import bank_ids
from physeval.variation.engine import make_variant
from physeval.variation.template import DOMAINS, LEVELS

# (template id, parameter values as written, the answer derived by hand as a SymPy string)
HAND_WORKED: list[tuple[str, dict[str, str], str]] = [
    # m a = m g sin(theta) - mu m g cos(theta) - m g / 4
    ("sym_incline_pull_acceleration", {"k": "4"}, "g*sin(theta) - mu*g*cos(theta) - g/4"),
    # d = L/4, I = L^2/12 + L^2/16 = 7 L^2/48, T = 2 pi sqrt(I/(g d)) = 2 pi sqrt(7 L/(12 g))
    ("sym_physical_pendulum_period", {"k": "4"}, "2*pi*sqrt(7*L/(12*g))"),
    # the charge still to flow is C (2E/3); heat = work of battery - energy gain = C E^2 (2/3)^2 / 2
    ("sym_rc_charging_heat", {"k": "3"}, "2*C*EMF**2/9"),
    # 1/d = 1/f - 1/(3 f) = 2/(3 f)
    ("sym_lens_image_distance", {"k": "3.0"}, "3*f/2"),
    # T V^(2/3) constant: T = T0 * 8^(2/3) = 4 T0
    ("sym_adiabatic_compression_temperature", {"k": "8"}, "4*T_0"),
    # gamma = 1/sqrt(1 - 0.36) = 5/4
    ("sym_relativistic_kinetic_energy", {"k": "0.60"}, "m*c**2/4"),
]


def _pendulum(k: float) -> float:
    """Period for L = 1, g = 1: moment of inertia by integration, period by integrating the ODE."""
    pivot = 1.0 / k  # axle position measured from one end; rod from 0 to 1, unit mass
    inertia, _ = quad(lambda x: (x - pivot) ** 2, 0, 1, epsrel=1e-12)
    arm = 0.5 - pivot
    amp = 1e-4
    def rhs(t, y):
        return [y[1], -arm / inertia * math.sin(y[0])]
    turn = lambda t, y: y[1]  # noqa: E731  (velocity zero at the far turning point)
    turn.direction = -1
    sol = solve_ivp(rhs, (0, 200), [amp, 0.0], events=turn, rtol=1e-11, atol=1e-14)
    times = [t for t in sol.t_events[0] if t > 1e-6]
    return times[0]  # first return to the starting turning point = one period


def _rc_heat(k: float) -> float:
    """C = R = E = 1: integrate i^2 R while the capacitor charges from 1/k."""
    sol = solve_ivp(lambda t, y: [1 - y[0], (1 - y[0]) ** 2], (0, 60), [1 / k, 0.0], rtol=1e-12, atol=1e-14)
    return sol.y[1][-1]


def _adiabatic(k: float) -> float:
    """T0 = 1, V from 1 to 1/k with dU = -p dV: (3/2) n R dT = -(n R T / V) dV."""
    sol = solve_ivp(lambda v, y: [-(2 / 3) * y[0] / v], (1.0, 1.0 / k), [1.0], rtol=1e-12, atol=1e-14)
    return sol.y[0][-1]


def _kinetic(k: float) -> float:
    """m = c = 1: kinetic energy as the work integral of v dp up to p = gamma m v."""
    p_end = k / math.sqrt(1 - k * k)
    work, _ = quad(lambda p: p / math.sqrt(1 + p * p), 0, p_end, epsrel=1e-12)
    return work


# template id -> (function(parameter value) -> answer at unit symbols, {symbol: value} used)
NUMERICAL_CHECKS = {
    "sym_physical_pendulum_period": (lambda p: _pendulum(p["k"]), {"L": 1.0, "g": 1.0}),
    "sym_rc_charging_heat": (lambda p: _rc_heat(p["k"]), {"C": 1.0, "R": 1.0, "EMF": 1.0}),
    "sym_adiabatic_compression_temperature": (lambda p: _adiabatic(p["k"]), {"T_0": 1.0}),
    "sym_relativistic_kinetic_energy": (lambda p: _kinetic(p["k"]), {"m": 1.0, "c": 1.0}),
}

TEMPLATES = {t.id: t for t in load_bank("symbolic")}
_CONFIG = ConversionConfig(interpret_as_mixed_fractions=False, lowercase_symbols=False)


def _sympy_symbols(template) -> dict[str, sympy.Symbol]:
    return {s.name: sympy.Symbol(s.name, positive=True) for s in template.symbols}


def _same(a: sympy.Expr, b: sympy.Expr, names: list[str]) -> bool:
    rng = random.Random(3)
    for _ in range(5):
        point = {sympy.Symbol(n, positive=True): sympy.Float(rng.uniform(0.2, 1.3)) for n in names}
        va, vb = complex(a.xreplace(point).evalf()), complex(b.xreplace(point).evalf())
        if abs(va - vb) > 1e-9 * max(1.0, abs(vb)):
            return False
    return True


def _rows_in_sibling_files() -> set[str]:
    """Template ids that open a row in a HAND_WORKED table of any tests/variation/test_bank_symbolic*.py."""
    ids: set[str] = set()
    for path in Path(__file__).parent.glob("test_bank_symbolic*.py"):
        text = path.read_text(encoding="utf-8")
        start = text.find("HAND_WORKED")
        if start >= 0:
            ids.update(re.findall(r'\(\s*"([a-z][a-z0-9_]*)"\s*,', text[start:]))
    return ids


def test_every_symbolic_template_has_a_hand_worked_row() -> None:
    missing = set(bank_ids("symbolic")) - {row[0] for row in HAND_WORKED} - _rows_in_sibling_files()
    assert not missing, f"add a HAND_WORKED row for: {sorted(missing)}"


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_template_metadata_and_variants(tid: str) -> None:
    t = TEMPLATES[tid]
    assert t.kind == "symbolic" and t.domain in DOMAINS and t.level in LEVELS and t.varying
    variants = vary(t, 8, seed=11)
    assert len({v.question for v in variants}) == 8
    for v in variants:
        assert set(v.meta["dimensions"]) == {s.name for s in t.symbols}
        assert v.answer and "{{" not in v.question


@pytest.mark.parametrize("tid,params,expected", HAND_WORKED, ids=[r[0] for r in HAND_WORKED])
def test_hand_worked_expression(tid: str, params: dict[str, str], expected: str) -> None:
    t = TEMPLATES[tid]
    variant = make_variant(t, 0, [Decimal(params[p.name]) for p in t.parameters])
    syms = _sympy_symbols(t)
    got = sympy.sympify(variant.value, locals=syms)
    want = sympy.sympify(expected, locals=syms)
    assert _same(got, want, list(syms))


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_latex_answer_parses_back(tid: str) -> None:
    t = TEMPLATES[tid]
    syms = _sympy_symbols(t)
    for v in vary(t, 4, seed=5):
        latex = v.answer
        rename = {}
        for i, s in enumerate(t.symbols):  # custom spellings -> a plain placeholder letter
            if s.latex:
                placeholder = "QWXYZ"[i]
                latex = latex.replace(s.latex, placeholder)
                rename[placeholder] = s.name
        parsed = latex2sympy(latex, conversion_config=_CONFIG)
        parsed = parsed.xreplace({f: sympy.Symbol(rename.get(f.name, f.name.replace("{", "").replace("}", "")), positive=True)
                                  for f in parsed.free_symbols})
        assert _same(parsed, sympy.sympify(v.value, locals=syms), list(syms)), (latex, v.value)


@pytest.mark.parametrize("tid", sorted(NUMERICAL_CHECKS))
def test_numerical_check_without_closed_form(tid: str) -> None:
    t = TEMPLATES[tid]
    func, point = NUMERICAL_CHECKS[tid]
    syms = _sympy_symbols(t)
    for v in vary(t, 4, seed=9):
        params = {name: float(text) for name, text in v.params.items()}
        closed = float(sympy.sympify(v.value, locals=syms).xreplace({syms[n]: x for n, x in point.items()}))
        assert func(params) == pytest.approx(closed, rel=1e-6), v.params

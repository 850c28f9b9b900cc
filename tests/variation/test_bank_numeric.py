"""Every numeric bank template: loads, yields 1,000 distinct valid variants, matches hand-worked values
and, where the physics allows, a numerical computation that does not use the closed form.

Adding a template = adding its YAML file + one row in HAND_WORKED (+ optionally NUMERICAL_CHECKS).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from pathlib import Path

import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from physeval.variation import load_bank, vary
from physeval.variation.bank import bank_ids
from physeval.variation.engine import check_values, make_variant
from physeval.variation.plain import parse_written_number
from physeval.variation.template import DOMAINS, LEVELS

# (template id, parameter values as written, answer in the answer's unit worked out by hand)
HAND_WORKED: list[tuple[str, dict[str, str], float]] = [
    # R = v0^2 sin(90 deg)/g = 400/9.81
    ("mech_projectile_range", {"v0": "20.0", "theta": "45", "g": "9.81"}, 40.775),
    # tau = RC = 10 kOhm * 100 uF = 1 s; V halves after tau*ln 2 = 693.1 ms
    ("em_rc_discharge_time", {"C": "100", "V0": "10.0", "R": "10.0", "V1": "5.00"}, 693.147),
    # 1/d_i = 1/10 - 1/30 = 1/15
    ("opt_thin_lens_image", {"f": "10.0", "d_o": "30.0"}, 15.0),
    # W = nRT ln 2 = 8.314 * 300 * 0.693147 J
    ("thermo_isothermal_work", {"n": "1.00", "T": "300", "V1": "10.0", "V2": "20.0"}, 1.72884),
    # eU = m c^2 -> gamma = 2 -> v = c*sqrt(3)/2
    ("modern_relativistic_electron_speed", {"U": "511"}, 2.59808e8),
    # t_b = 10 s; v = 1000 ln 2 - 9.81 * 10
    ("mech_rocket_vertical_burnout", {"m0": "100", "mf": "50.0", "mu": "5.00", "u": "1000", "g": "9.81"}, 595.047),
]


def _projectile(p: dict[str, float]) -> float:
    v0, th, g = p["v0"], math.radians(p["theta"]), p["g"]
    hit = lambda t, y: y[1] if t > 0 else 1.0  # noqa: E731
    hit.terminal, hit.direction = True, -1
    sol = solve_ivp(lambda t, y: [y[2], y[3], 0.0, -g], (0, 100), [0, 0, v0 * math.cos(th), v0 * math.sin(th)],
                    events=hit, rtol=1e-10, atol=1e-10)
    return sol.y_events[0][0][0]


def _rc(p: dict[str, float]) -> float:
    rc = p["R"] * 1e3 * p["C"] * 1e-6
    reach = lambda t, y: y[0] - p["V1"]  # noqa: E731
    reach.terminal = True
    sol = solve_ivp(lambda t, y: [-y[0] / rc], (0, 100 * rc), [p["V0"]], events=reach, rtol=1e-11, atol=1e-12)
    return sol.t_events[0][0] * 1e3


def _lens_by_rays(p: dict[str, float]) -> float:
    """Trace two paraxial rays from the object tip (height 1) and find where they cross."""
    f, do = p["f"], p["d_o"]
    parallel = lambda x: 1 - x / f  # parallel ray, refracted through the far focal point  # noqa: E731
    central = lambda x: -x / do  # undeviated ray through the lens centre  # noqa: E731
    return brentq(lambda x: parallel(x) - central(x), f * 1.0000001, 1e6)


def _isothermal(p: dict[str, float]) -> float:
    n, t = p["n"], p["T"]
    work, _ = quad(lambda v: n * 8.314 * t / v, p["V1"] * 1e-3, p["V2"] * 1e-3, epsabs=0, epsrel=1e-12)
    return work / 1e3


def _electron(p: dict[str, float]) -> float:
    """Integrate dp/dt = eE in a 1 m gap until x = 1 m; m from m c^2 = 511 keV, c = 3.00e8."""
    e, c = 1.602176634e-19, 3.00e8
    m = 511e3 * e / c**2
    field = p["U"] * 1e3  # V over 1 m
    def rhs(t, y):
        x, mom = y
        return [mom / math.sqrt(m**2 + (mom / c) ** 2), e * field]
    out = lambda t, y: y[0] - 1.0  # noqa: E731
    out.terminal = True
    sol = solve_ivp(rhs, (0, 1e-5), [0.0, 0.0], events=out, rtol=1e-10, atol=1e-30, max_step=1e-9)
    mom = sol.y_events[0][0][1]
    return mom / math.sqrt(m**2 + (mom / c) ** 2)


def _rocket(p: dict[str, float]) -> float:
    tb = p["mf"] / p["mu"]
    sol = solve_ivp(lambda t, y: [p["mu"] * p["u"] / (p["m0"] - p["mu"] * t) - p["g"]], (0, tb), [0.0],
                    rtol=1e-11, atol=1e-9)
    return sol.y[0][-1]


# template id -> function(written parameter values as floats) -> answer in the answer's unit
NUMERICAL_CHECKS = {
    "mech_projectile_range": _projectile,
    "em_rc_discharge_time": _rc,
    "opt_thin_lens_image": _lens_by_rays,
    "thermo_isothermal_work": _isothermal,
    "modern_relativistic_electron_speed": _electron,
    "mech_rocket_vertical_burnout": _rocket,
}

TEMPLATES = {t.id: t for t in load_bank("numeric")}


def _rows_in_sibling_files() -> set[str]:
    """Template ids that open a row in a HAND_WORKED table of any tests/variation/test_bank_numeric*.py."""
    ids: set[str] = set()
    for path in Path(__file__).parent.glob("test_bank_numeric*.py"):
        text = path.read_text(encoding="utf-8")
        start = text.find("HAND_WORKED")
        if start >= 0:
            ids.update(re.findall(r'\(\s*"([a-z][a-z0-9_]*)"\s*,', text[start:]))
    return ids


def test_every_numeric_template_has_a_hand_worked_row() -> None:
    missing = set(bank_ids("numeric")) - {row[0] for row in HAND_WORKED} - _rows_in_sibling_files()
    assert not missing, f"add a HAND_WORKED row for: {sorted(missing)}"


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_template_metadata_is_valid(tid: str) -> None:
    t = TEMPLATES[tid]
    assert t.kind == "numeric" and t.domain in DOMAINS and t.level in LEVELS
    assert t.varying, "a bank template must vary"
    assert not t.instruction, "bank templates use the generated ABench instruction"


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_thousand_distinct_valid_variants(tid: str) -> None:
    t = TEMPLATES[tid]
    variants = vary(t, 1000, seed=20240601)
    assert len({v.question for v in variants}) == 1000
    spec = t.answer
    for v in variants:
        values = [Decimal(v.params[p.name]) if not p.scientific else parse_written_number(v.params[p.name])
                  for p in t.parameters]
        assert check_values(t, t.compiled, values) is None
        for p, value in zip(t.parameters, values):
            if p.rule == "range":
                assert p.low <= value <= p.high
        assert v.question.endswith("significant figures)")
        assert ("in scientific notation" in v.question) == spec.scientific
        written = parse_written_number(v.answer)
        exact = Decimal(v.value)
        assert written is not None
        # written = the answer rounded to sig_figs; value = the same answer to 12 digits
        assert abs(written - exact) <= abs(exact) * (Decimal(10) ** (1 - spec.sig_figs) / 2 + Decimal("1e-11"))
        if not spec.scientific:  # positional answers stay readable
            assert Decimal("1e-4") <= abs(written) < Decimal("1e7"), v.answer


@pytest.mark.parametrize("tid,params,expected", HAND_WORKED, ids=[r[0] for r in HAND_WORKED])
def test_hand_worked_value(tid: str, params: dict[str, str], expected: float) -> None:
    t = TEMPLATES[tid]
    values = [parse_written_number(params[p.name]) for p in t.parameters]
    variant = make_variant(t, 0, values)
    assert float(variant.value) == pytest.approx(expected, rel=1e-4)
    assert float(parse_written_number(variant.answer)) == pytest.approx(expected, rel=10 ** (1 - t.answer.sig_figs))


@pytest.mark.parametrize("tid", sorted(NUMERICAL_CHECKS))
def test_numerical_check_without_closed_form(tid: str) -> None:
    t = TEMPLATES[tid]
    for v in vary(t, 6, seed=7):
        params = {name: float(parse_written_number(text)) for name, text in v.params.items()}
        assert NUMERICAL_CHECKS[tid](params) == pytest.approx(float(v.value), rel=1e-5), v.params

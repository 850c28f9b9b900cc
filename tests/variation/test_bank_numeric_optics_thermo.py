"""Optics and thermodynamics numeric bank templates: hand-worked values and independent numerics.

Each template id below has a HAND_WORKED row (a parameter set with the answer worked out step by
step in the comment, never with the template's formula) and, for most, a NUMERICAL_CHECKS row: a
function that reaches the answer without the closed form (ray tracing with Snell's law, Fermat's
principle, Fresnel/Airy reflectance, quadrature of p dV, ODE integration, root finding). The
generic checks (loading, 1,000 distinct valid variants, round-trips) live in test_bank_numeric.py.
"""

from __future__ import annotations

import cmath
import math
from decimal import Decimal

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq, minimize_scalar

from physeval.variation import Template, load_template, vary
from physeval.variation.bank import BANK_DIR
from physeval.variation.engine import check_values, make_variant

R_GAS = 8.314  # J/(mol K), as stated in the templates' texts
SIGMA = 5.67e-8  # W/(m^2 K^4), as stated in the probe template
ZERO_C = 273.15  # K

OWN_IDS = [
    "opt_two_lens_image_height", "opt_concave_mirror_virtual_image", "opt_laser_tank_refraction",
    "opt_apparent_depth_two_layers", "opt_double_slit_immersed", "opt_soap_film_oblique",
    "opt_rainbow_width",
    "thermo_isothermal_adiabatic_work", "thermo_ice_calorimeter", "thermo_composite_wall_interface",
    "thermo_otto_cycle_work", "thermo_mixing_water_entropy", "thermo_newton_cooling_time",
    "thermo_probe_radiative_balance", "thermo_adiabatic_atmosphere_pressure",
]

# (template id, parameter values as written, answer in the answer's unit worked out by hand)
HAND_WORKED: list[tuple[str, dict[str, str], float]] = [
    # lens 1: 1/v1 = 1/10 - 1/30 = 1/15 -> v1 = 15 cm; lens 2 object distance u2 = 25 - 15 = 10 cm;
    # 1/v2 = 1/8 - 1/10 = 1/40 -> v2 = 40 cm; |m| = (15/30)(40/10) = 2 -> 2 * 5.0 mm
    ("opt_two_lens_image_height", {"h": "5.0", "u1": "30.0", "f1": "10.0", "f2": "8.0", "d": "25.0"}, 10.0),
    # virtual object: v1 = 1/(1/10 - 1/20) = 20 cm lies 5 cm beyond lens 2, u2 = -5 cm;
    # 1/v2 = 1/10 + 1/5 = 3/10 -> v2 = 10/3 cm; |m| = (20/20)(10/3)/5 = 2/3 -> 6.0 * 2/3 = 4.0 mm
    ("opt_two_lens_image_height", {"h": "6.0", "u1": "20.0", "f1": "10.0", "f2": "10.0", "d": "15.0"}, 4.0),
    # f = 30 cm; 1/v = 1/30 - 1/20 = -1/60 -> virtual image 60 cm behind the mirror
    ("opt_concave_mirror_virtual_image", {"R": "60.0", "u": "20.0"}, 60.0),
    # f = 25 cm; 1/v = 1/25 - 1/10 = -3/50 -> 50/3 = 16.667 cm behind the mirror
    ("opt_concave_mirror_virtual_image", {"R": "50.0", "u": "10.0"}, 16.6667),
    # sin(i) = 1/sqrt(1^2 + 2^2) = 0.447214; sin(t) = 1.33 * 0.447214 = 0.594794;
    # cos(t) = sqrt(1 - 0.353780) = 0.803878; tan(t) = 0.739906; D = 1.00 + 1.50 * 0.739906 = 2.10986 m
    ("opt_laser_tank_refraction", {"n": "1.33", "h": "2.00", "x": "1.00", "H": "1.50"}, 2.10986),
    # oil: 2.0/1.47 = 1.360544 cm; water: 8.0/1.33 = 6.015038 cm; total 7.375582 cm
    ("opt_apparent_depth_two_layers", {"tw": "8.0", "n_w": "1.33", "to": "2.0", "n_oil": "1.47"}, 7.37558),
    # fringe spacing = lam L/(n d) = 600e-9 * 1.50/(1.33 * 0.250e-3) = 2.706767 mm; 2nd orders: 4 spacings
    ("opt_double_slit_immersed", {"n": "1.33", "lam": "600", "d": "0.250", "L": "1.50"}, 10.82707),
    # n cos(t) = sqrt(1.33^2 - sin^2 30) = sqrt(1.7689 - 0.25) = 1.232437; 2 n t cos(t) = lam/2
    # -> t = 550/(4 * 1.232437) = 111.568 nm
    ("opt_soap_film_oblique", {"n": "1.33", "theta": "30", "lam": "550"}, 111.5676),
    # red: cos^2 i = (1.331^2 - 1)/3 = 0.257187 -> i = 59.52675 deg, r = asin(sin i/1.331) = 40.35583 deg,
    #      bow at 4r - 2i = 42.36984 deg;
    # violet: cos^2 i = (1.343^2 - 1)/3 = 0.267883 -> i = 58.83033 deg, r = 39.57663 deg, bow at 40.64588 deg;
    # width 42.36984 - 40.64588 = 1.72396 deg
    ("opt_rainbow_width", {"nr": "1.331", "nv": "1.343"}, 1.72396),
    # isothermal: 2 * 8.314 * 400 * ln 3 = 6651.2 * 1.098612 = 7307.09 J;
    # adiabatic: T3 = 400 * 0.4^0.4 = 277.2579 K, W = 2 * 8.314 * (400 - 277.2579)/0.4 = 5102.39 J; sum 12.4095 kJ
    ("thermo_isothermal_adiabatic_work",
     {"nmol": "2.00", "gam": "1.40", "T1": "400", "V1": "2.00", "V2": "6.00", "V3": "15.0"}, 12.40948),
    # hot side: 0.300 * 4190 + 0.100 * 385 = 1295.5 J/K; ice to 0 C liquid: 0.050 * 2100 * 10 + 0.050 * 334000
    # = 1050 + 16700 = 17750 J; 1295.5 (40 - T) = 17750 + 209.5 T -> T = (51820 - 17750)/1505 = 22.6379 C
    ("thermo_ice_calorimeter",
     {"m_c": "100", "m_w": "300", "T_w": "40.0", "m_i": "50", "T_i": "-10.0", "c_c": "385", "c_w": "4190",
      "c_i": "2100", "L_f": "334", "T_m": "0"}, 22.63787),
    # resistances per m^2: brick 0.12/0.72 = 0.166667, foam 0.05/0.04 = 1.25, film 1/25 = 0.04 -> 1.456667;
    # q = 25/1.456667 = 17.16247 W/m^2; interface 20 - 17.16247 * 0.166667 = 17.13959 C
    ("thermo_composite_wall_interface",
     {"t1": "12.0", "k1": "0.720", "t2": "5.0", "k2": "0.040", "T_in": "20.0", "T_out": "-5.0", "hc": "25.0"},
     17.13959),
    # n = 1e5 * 5e-4/(8.314 * 300) = 0.02004651 mol; T2 = 300 * 9^0.4 = 722.4674 K; T4 = 2000/9^0.4 = 830.4873 K;
    # W = n * 8.314/0.4 * ((2000 - 830.4873) - (722.4674 - 300)) = 0.4166667 * 747.0453 = 311.269 J
    ("thermo_otto_cycle_work",
     {"V1": "500", "p1": "100.0", "T1": "300", "r": "9.0", "T3": "2000", "gam": "1.40"}, 311.2689),
    # Tf = (0.5 * 353.15 + 1.0 * 293.15)/1.5 = 313.15 K;
    # dS = 4186 * (0.5 ln(313.15/353.15) + ln(313.15/293.15)) = 4186 * (-0.0601053 + 0.0659979) = 24.6664 J/K
    ("thermo_mixing_water_entropy", {"m1": "0.500", "T1": "80.0", "m2": "1.00", "T2": "20.0", "c": "4186"}, 24.6664),
    # k = ln(70/55)/5 = 0.0482324 /min; further time = ln(55/25)/k = 0.788457/0.0482324 = 16.3470 min
    ("thermo_newton_cooling_time", {"T0": "90.0", "Ta": "20.0", "t1": "5.0", "T1": "75.0", "T2": "45.0"}, 16.34704),
    # absorbed: 0.60 * 1361 * pi * 0.25 + 100 = 641.356 + 100 = 741.356 W; emitting area 4 pi 0.25 = 3.141593 m^2;
    # T^4 = 741.356/(3.141593 * 0.80 * 5.67e-8) = 5.20240e9 K^4 -> T = 268.566 K
    ("thermo_probe_radiative_balance", {"rad": "0.500", "S": "1361", "a": "0.60", "e": "0.80", "P": "100"}, 268.566),
    # lapse: (0.4/1.4) * 0.029 * 9.81/8.314 = 9.77662e-3 K/m -> T(5 km) = 288 - 48.8831 = 239.1169 K;
    # p = 101 * (239.1169/288)^3.5 = 101 * 0.830267^3.5 = 52.6724 kPa
    ("thermo_adiabatic_atmosphere_pressure",
     {"M": "29.0", "gam": "1.40", "T0": "288", "p0": "101", "g": "9.81", "z": "5.00"}, 52.67244),
]


# --- numerical computations that do not use the templates' closed forms ---------------------------

def _two_lens_rays(p: dict[str, float]) -> float:
    """Trace two paraxial rays from the arrow tip through both thin lenses; height where they cross."""
    def trace(slope: float) -> tuple[float, float]:
        y = p["h"] / 10 + slope * p["u1"]  # cm, at lens 1
        slope -= y / p["f1"]
        y += slope * p["d"]  # at lens 2
        slope -= y / p["f2"]
        return y, slope
    ya, sa = trace(0.0)
    yb, sb = trace(-p["h"] / 10 / p["u1"])
    s = brentq(lambda x: (ya + sa * x) - (yb + sb * x), 0.0, 11 * p["f2"], xtol=1e-14)
    return abs(ya + sa * s) * 10


def _laser_fermat(p: dict[str, float]) -> float:
    """Fermat: find the detector distance D whose least-optical-path surface crossing is at x."""
    n, h, x, big_h = p["n"], p["h"], p["x"], p["H"]

    def crossing(d: float) -> float:
        slope = lambda s: n * s / math.hypot(h, s) - (d - s) / math.hypot(big_h, d - s)  # dL/ds  # noqa: E731
        return brentq(slope, 0.0, d, xtol=1e-15, rtol=1e-15)

    return brentq(lambda d: crossing(d) - x, x, x + 20 * big_h, xtol=1e-14, rtol=1e-14)


def _apparent_depth_trace(p: dict[str, float]) -> float:
    """Exact Snell refraction of a ray leaving the coin nearly vertically, extrapolated back from the air."""
    air = 1e-6  # rad, angle of the emerging ray to the vertical
    in_oil = math.asin(math.sin(air) / p["n_oil"])
    in_water = math.asin(math.sin(air) / p["n_w"])
    offset = p["tw"] * math.tan(in_water) + p["to"] * math.tan(in_oil)
    return offset / math.tan(air)


def _soap_film_airy(p: dict[str, float]) -> float:
    """First thickness maximising the Airy (all-orders) reflectance of the film, s-polarised."""
    n, lam, ti = p["n"], p["lam"], math.radians(p["theta"])
    cos_t = math.sqrt(1 - (math.sin(ti) / n) ** 2)
    r12 = (math.cos(ti) - n * cos_t) / (math.cos(ti) + n * cos_t)  # air -> film (Fresnel, s)
    r23 = -r12  # film -> air

    def reflectance(t: float) -> float:
        phase = cmath.exp(1j * 4 * math.pi * n * t * cos_t / lam)
        return abs((r12 + r23 * phase) / (1 + r12 * r23 * phase)) ** 2

    t = 0.0
    while reflectance(t + 1.0) >= reflectance(t):  # climb to the first maximum in 1 nm steps
        t += 1.0
    best = minimize_scalar(lambda s: -reflectance(s), bounds=(max(t - 1.0, 0.0), t + 1.0), method="bounded",
                           options={"xatol": 1e-10})
    return best.x


def _bow_angle(n: float) -> float:
    """Largest exit angle from the antisolar point over all impact parameters (one internal reflection)."""
    angle = lambda i: 4 * math.asin(math.sin(i) / n) - 2 * i  # noqa: E731
    best = minimize_scalar(lambda i: -angle(i), bounds=(1e-6, math.pi / 2 - 1e-9), method="bounded",
                           options={"xatol": 1e-12})
    return math.degrees(angle(best.x))


def _rainbow(p: dict[str, float]) -> float:
    return _bow_angle(p["nr"]) - _bow_angle(p["nv"])


def _work_quad(p: dict[str, float]) -> float:
    """Integrate p dV along the isotherm, then along the adiabat starting from its end state."""
    n, t, g = p["nmol"], p["T1"], p["gam"]
    v1, v2, v3 = p["V1"] * 1e-3, p["V2"] * 1e-3, p["V3"] * 1e-3
    w1, _ = quad(lambda v: n * R_GAS * t / v, v1, v2, epsabs=0, epsrel=1e-12)
    p2 = n * R_GAS * t / v2
    w2, _ = quad(lambda v: p2 * (v2 / v) ** g, v2, v3, epsabs=0, epsrel=1e-12)
    return (w1 + w2) / 1e3


def _calorimeter_root(p: dict[str, float]) -> float:
    """Root of the net heat gained by everything, as a function of the common final temperature."""
    m_c, m_w, m_i = p["m_c"] / 1e3, p["m_w"] / 1e3, p["m_i"] / 1e3
    c_c, c_w, c_i, lf = p["c_c"], p["c_w"], p["c_i"], p["L_f"] * 1e3

    def net_heat(tf: float) -> float:  # J, temperatures in C, ice fully melted
        ice = m_i * c_i * (p["T_m"] - p["T_i"]) + m_i * lf + m_i * c_w * (tf - p["T_m"])
        return ice + (m_w * c_w + m_c * c_c) * (tf - p["T_w"])

    return brentq(net_heat, p["T_m"], p["T_w"], xtol=1e-13)


def _wall_finite_volume(p: dict[str, float]) -> float:
    """Steady 1-D conduction on a grid (brick + foam + convective film), solved as a linear system."""
    cells = 40
    dx1, dx2 = p["t1"] / 100 / cells, p["t2"] / 100 / cells
    # nodes 0..2*cells along the wall; node 0 is the inner face, node 2*cells the outer face
    conductances = [p["k1"] / dx1] * cells + [p["k2"] / dx2] * cells
    size = 2 * cells + 1
    a, b = np.zeros((size, size)), np.zeros(size)
    a[0, 0], b[0] = 1.0, p["T_in"]
    for i in range(1, size):
        g_left = conductances[i - 1]
        a[i, i - 1] -= g_left
        a[i, i] += g_left
        if i < size - 1:
            g_right = conductances[i]
            a[i, i + 1] -= g_right
            a[i, i] += g_right
        else:
            a[i, i] += p["hc"]
            b[i] += p["hc"] * p["T_out"]
    temps = np.linalg.solve(a, b)
    return float(temps[cells])


def _otto_quad(p: dict[str, float]) -> float:
    """Net work = area between the expansion and compression adiabats, by quadrature of p dV."""
    g, v1 = p["gam"], p["V1"] * 1e-6
    v2 = v1 / p["r"]
    p1 = p["p1"] * 1e3
    n = p1 * v1 / (R_GAS * p["T1"])
    p3 = n * R_GAS * p["T3"] / v2  # after constant-volume heating at V2
    w_exp, _ = quad(lambda v: p3 * (v2 / v) ** g, v2, v1, epsabs=0, epsrel=1e-12)
    w_comp, _ = quad(lambda v: p1 * (v1 / v) ** g, v2, v1, epsabs=0, epsrel=1e-12)
    return w_exp - w_comp


def _entropy_quad(p: dict[str, float]) -> float:
    """Final temperature from the energy balance (root), then dS = integral of m c dT / T for each part."""
    m1, m2, c = p["m1"], p["m2"], p["c"]
    t1, t2 = p["T1"] + ZERO_C, p["T2"] + ZERO_C
    tf = brentq(lambda t: m1 * c * (t1 - t) - m2 * c * (t - t2), t2, t1, xtol=1e-13)
    s1, _ = quad(lambda t: m1 * c / t, t1, tf, epsabs=0, epsrel=1e-12)
    s2, _ = quad(lambda t: m2 * c / t, t2, tf, epsabs=0, epsrel=1e-12)
    return s1 + s2


def _cooling_ivp(p: dict[str, float]) -> float:
    """Integrate dT/dt = -(T - Ta) (unit rate); the real rate only rescales time, fixed by the t1 reading."""
    ta = p["Ta"]
    reach1 = lambda t, y: y[0] - p["T1"]  # noqa: E731
    reach2 = lambda t, y: y[0] - p["T2"]  # noqa: E731
    reach2.terminal = True
    sol = solve_ivp(lambda t, y: [-(y[0] - ta)], (0, 100), [p["T0"]], events=[reach1, reach2],
                    rtol=1e-12, atol=1e-12)
    tau1, tau2 = sol.t_events[0][0], sol.t_events[1][0]
    return (tau2 - tau1) * p["t1"] / tau1


def _probe_root(p: dict[str, float]) -> float:
    """Temperature at which emitted power balances absorbed sunlight plus internal dissipation."""
    r = p["rad"]
    balance = lambda t: p["e"] * SIGMA * 4 * math.pi * r**2 * t**4 - (p["a"] * p["S"] * math.pi * r**2 + p["P"])  # noqa: E731
    return brentq(balance, 1.0, 5000.0, xtol=1e-12)


def _atmosphere_ivp(p: dict[str, float]) -> float:
    """Hydrostatic dp/dz = -p M g/(R T) with every level on the surface adiabat T = T0 (p/p0)^((g-1)/g)."""
    m, g, gam, t0, p0 = p["M"] / 1e3, p["g"], p["gam"], p["T0"], p["p0"]
    def rhs(z: float, y: list[float]) -> list[float]:
        temp = t0 * (y[0] / p0) ** ((gam - 1) / gam)
        return [-y[0] * m * g / (R_GAS * temp)]
    sol = solve_ivp(rhs, (0.0, p["z"] * 1e3), [p0], rtol=1e-12, atol=1e-12 * p0)
    return sol.y[0][-1]


# template id -> function(written parameter values as floats) -> answer in the answer's unit
NUMERICAL_CHECKS = {
    "opt_two_lens_image_height": _two_lens_rays,
    "opt_laser_tank_refraction": _laser_fermat,
    "opt_apparent_depth_two_layers": _apparent_depth_trace,
    "opt_soap_film_oblique": _soap_film_airy,
    "opt_rainbow_width": _rainbow,
    "thermo_isothermal_adiabatic_work": _work_quad,
    "thermo_ice_calorimeter": _calorimeter_root,
    "thermo_composite_wall_interface": _wall_finite_volume,
    "thermo_otto_cycle_work": _otto_quad,
    "thermo_mixing_water_entropy": _entropy_quad,
    "thermo_newton_cooling_time": _cooling_ivp,
    "thermo_probe_radiative_balance": _probe_root,
    "thermo_adiabatic_atmosphere_pressure": _atmosphere_ivp,
}


def _template(tid: str) -> Template:
    return load_template(BANK_DIR / "numeric" / f"{tid}.yaml")


def test_every_own_template_has_a_hand_worked_row_and_level_spread() -> None:
    assert {row[0] for row in HAND_WORKED} == set(OWN_IDS)
    levels = [_template(tid).level for tid in OWN_IDS]
    assert levels.count("olympiad") >= 2
    domains = {tid: _template(tid).domain for tid in OWN_IDS}
    assert all(d == ("optics" if tid.startswith("opt_") else "thermodynamics") for tid, d in domains.items())


@pytest.mark.parametrize("tid,params,expected", HAND_WORKED, ids=[row[0] for row in HAND_WORKED])
def test_hand_worked_value(tid: str, params: dict[str, str], expected: float) -> None:
    t = _template(tid)
    values = [Decimal(params[p.name]) for p in t.parameters]
    assert check_values(t, t.compiled, values) is None, "the hand-worked set must itself be a valid variant"
    variant = make_variant(t, 0, values)
    assert float(variant.value) == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize("tid", sorted(NUMERICAL_CHECKS))
def test_numerical_check_without_closed_form(tid: str) -> None:
    for v in vary(_template(tid), 6, seed=11):
        params = {name: float(text) for name, text in v.params.items()}
        assert NUMERICAL_CHECKS[tid](params) == pytest.approx(float(v.value), rel=1e-6), v.params


def test_refraction_never_meets_total_internal_reflection() -> None:
    """Across many variants the laser's angle of incidence stays below the critical angle."""
    for v in vary(_template("opt_laser_tank_refraction"), 300, seed=0):
        n, h, x = (float(v.params[k]) for k in ("n", "h", "x"))
        assert math.atan2(x, h) < math.asin(1 / n)


def test_calorimeter_and_wall_answers_stay_clear_of_zero_celsius() -> None:
    """Celsius answers near 0 would make 3 significant figures meaningless; the constraints prevent it."""
    for tid in ("thermo_ice_calorimeter", "thermo_composite_wall_interface"):
        assert min(float(v.value) for v in vary(_template(tid), 300, seed=0)) > 1.0

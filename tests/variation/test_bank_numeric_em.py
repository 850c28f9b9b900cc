"""The electromagnetism (``em_``) numeric bank templates: hand-worked values and numerical checks.

Each template is evaluated at a written parameter set and compared with an answer worked out by
hand (the arithmetic is in the comment above the row), and with a computation that does not use
the template's closed form: ODE integration of the circuit or the particle's motion, Biot-Savart
and Coulomb integrals with ``quad``, a linear solve of Kirchhoff's equations, a root find.
The generic checks (1,000 distinct valid variants, round-tripping answers) live in
tests/variation/test_bank_numeric.py and run for every bank file.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from decimal import Decimal

import numpy as np
import pytest
from scipy.integrate import IntegrationWarning, quad, solve_ivp
from scipy.optimize import brentq

from physeval.variation import Template, load_bank, vary
from physeval.variation.engine import make_variant

# CODATA 2018, the values the engine's built-in constants use
K_C = 8.9875517923e9  # Coulomb constant, N m^2/C^2
EPS0 = 8.8541878128e-12  # F/m
MU0 = 1.25663706212e-6  # H/m
E_CHARGE = 1.602176634e-19  # C
M_PROTON = 1.67262192369e-27  # kg
DALTON = 1.66053906892e-27  # kg: pint's "u", the unit the mass-spectrometer text states

# (template id, parameter values as written, answer in the answer's unit worked out by hand)
HAND_WORKED: list[tuple[str, dict[str, str], float]] = [
    # A->C: k*20nC*10nC/(3cm)^2 = 8.98755e9*2e-16/9e-4 = 1.99723e-3 N along +y.
    # B->C: k*15nC*10nC/(5cm)^2 = 5.39253e-4 N towards B, direction (0.8, -0.6).
    # Fx = 4.31402e-4, Fy = 1.99723e-3 - 3.23552e-4 = 1.67368e-3; |F| = 1.72839e-3 N
    ("em_coulomb_triangle_force", {"qA": "20.0", "qB": "15.0", "qC": "10.0", "a": "4.00", "b": "3.00"}, 1.72839),
    # inside: E = rho0/eps0*(r/3 - r^2/(4R)) = 5e-6/8.85419e-12*(0.02 - 0.009) = 564706*0.011 = 6211.75 V/m
    ("em_gauss_sphere_graded_charge", {"R": "10.0", "rho0": "5.00", "r": "6.00"}, 6.21175),
    # outside: Q = pi*rho0*R^3/3 = pi*6e-6*1e-3/3 = 6.28319e-9 C; E = kQ/r^2 = 56.4705/0.04 = 1411.76 V/m
    ("em_gauss_sphere_graded_charge", {"R": "10.0", "rho0": "6.00", "r": "20.0"}, 1.41176),
    # C1 = eps0*0.01/(1.0mm + 1.0mm/5) = 8.85419e-14/1.2e-3 = 73.7849 pF; series with 100 pF:
    # Q = 20 V * (73.7849*100/173.7849) pF = 849.152 pC; U1 = Q^2/(2 C1) = 7.21060e-19/1.47570e-10 = 4.88622 nJ
    ("em_capacitor_dielectric_series_energy",
     {"A": "100", "d": "2.00", "t": "1.00", "kappa": "5.0", "C2": "100", "V": "20.0"}, 4.88622),
    # node P: (12/40 + 6/20)/(1/40 + 1/20 + 1/60) = 0.6/(11/120) = 72/11 = 6.54545 V;
    # battery 2 carries (72/11 - 6)/20 = (6/11)/20 = 0.0272727 A
    ("em_kirchhoff_two_battery", {"E1": "12.0", "R1": "40.0", "E2": "6.00", "R2": "20.0", "R3": "60.0"}, 27.2727),
    # RC = 15 kOhm * 10 uF = 0.15 s; t = 0.15*ln((12-2)/(12-9)) = 0.15*1.203973 = 0.180596 s
    ("em_rc_charging_time", {"C": "10.0", "V1": "2.00", "R": "15.0", "emf": "12.0", "V2": "9.00"}, 180.596),
    # tau = L/R = 0.2/25 = 8 ms = t; i = (9/25)*(1 - e^-1) = 0.36*0.632121 = 0.227563 A;
    # U = 0.5*0.2*0.227563^2 = 0.1*0.0517851 = 5.17851e-3 J
    ("em_rl_energy_buildup", {"L": "200", "R": "25.0", "emf": "9.00", "t": "8.00"}, 5.17851),
    # omega = 628.319 rad/s; XL = 62.8319, XC = 1/(628.319e-5) = 159.155; X = -96.3231;
    # Z^2 = 2500 + 9278.14 = 11778.14; P = 100^2*50/11778.14 = 42.4515 W
    ("em_ac_rlc_power", {"R": "50.0", "L": "100", "C": "10.0", "Vrms": "100", "f": "100"}, 42.4515),
    # v = 40e3/0.2 = 2e5 m/s; separation = 2*(2 u)*v/(e*0.5 T) = 1.6e6*1.66054e-27/1.60218e-19 = 0.0165828 m
    ("em_mass_spectrometer_separation", {"m1": "20", "m2": "22", "Ef": "40.0", "B1": "200", "B2": "500"}, 16.5828),
    # z at the end: B = mu0*n*I/2 * l/sqrt(l^2 + a^2), n = 1000/0.2 = 5000 /m;
    # = 1.256637e-6*5000*2/2 * 0.2/0.206155 = 6.28319e-3*0.970143 = 6.09559e-3 T
    ("em_finite_solenoid_axis_field", {"ell": "20.0", "a": "5.00", "Nt": "1000", "cur": "2.00", "z": "10.0"}, 6.09559),
    # tau = m R/(B l)^2 = 0.1*1/(0.4*0.5)^2 = 2.5 s; x = v0*tau*(1 - e^(-0.8)) = 5*(1 - 0.449329) = 2.75336 m
    ("em_rod_rails_magnetic_braking",
     {"ell": "50.0", "R": "1.00", "m": "100", "B": "400", "v0": "2.00", "t": "2.00"}, 2.75336),
    # omega = 3000 rpm = 314.159 rad/s; emf0 = 100*0.2*0.01*314.159 = 62.8319 V, rms 44.4288 V;
    # secondary 88.8577 V -> 88.8577 mA in 1 kOhm; primary current = 2*88.8577 = 177.715 mA
    ("em_generator_transformer_current",
     {"Nc": "100", "A": "100", "rate": "3000", "B": "200", "Np": "100", "Ns": "200", "RL": "1000"}, 177.715),
    # kqQ/a = 8.98755e9*1e-16/0.1 = 8.98755e-6 J; centre: 3*sqrt(2) = 4.24264; corner: 2 + 1/sqrt(2) = 2.70711;
    # W = 8.98755e-6*1.53553 = 1.38007e-5 J
    ("em_square_charges_work", {"q": "10.0", "a": "10.0", "Q": "10.0"}, 13.8007),
    # omega = eB/m = 1.60218e-19*0.1/1.67262e-27 = 9.57883e6 rad/s; omega t = 3.14186 (just past half a turn);
    # u = E/B = 1e5 m/s; x = u(t - sin(wt)/w) = 0.0328028 m, y = u(1 - cos wt)/w = 0.0208794 m; d = 0.0388840 m
    ("em_crossed_fields_cycloid", {"Ef": "10.0", "B": "100", "t": "0.328"}, 3.88840),
    # g = R/2L = 100 /s, w0 = 1/sqrt(0.1*1e-5) = 1000 /s, wd = sqrt(1e6 - 1e4) = 994.987 /s;
    # t_max = atan(wd/g)/wd = 1.470629/994.987 = 1.478038e-3 s; I = V0 sqrt(C/L) e^(-g t) = 1*e^(-0.147804) = 0.862600 A
    ("em_rlc_discharge_peak_current", {"C": "10.0", "V0": "100", "R": "20.0", "L": "100"}, 862.600),
]


def _coulomb(p: dict[str, float]) -> float:
    """Vector sum of the two Coulomb forces on C, written with position vectors."""
    charges = {"A": (p["qA"] * 1e-9, np.array([0.0, 0.0])), "B": (-p["qB"] * 1e-9, np.array([p["a"] * 1e-2, 0.0]))}
    qc, rc = p["qC"] * 1e-9, np.array([0.0, p["b"] * 1e-2])
    total = np.zeros(2)
    for q, pos in charges.values():
        sep = rc - pos
        total += K_C * q * qc * sep / np.linalg.norm(sep) ** 3
    return float(np.linalg.norm(total)) * 1e3


def _gauss_by_superposition(p: dict[str, float]) -> float:
    """Coulomb's law summed over the ball: thin shells, each integrated over the polar angle."""
    big_r, rho0, r = p["R"] * 1e-2, p["rho0"] * 1e-6, p["r"] * 1e-2

    def shell(rp: float) -> float:
        val, _ = quad(lambda u: (r - rp * u) / (r * r + rp * rp - 2 * r * rp * u) ** 1.5, -1, 1,
                      epsabs=0, epsrel=1e-10, limit=200)
        return val

    integrand = lambda rp: K_C * rho0 * (1 - rp / big_r) * 2 * math.pi * rp * rp * shell(rp)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IntegrationWarning)
        field, _ = quad(integrand, 0, big_r, points=[r] if r < big_r else None, epsabs=0, epsrel=1e-10, limit=400)
    return field / 1e3


def _capacitor_by_fields(p: dict[str, float]) -> float:
    """Find the charge with brentq so the two voltages add to V; the gap voltage and energy by quad."""
    area, d, t, kappa = p["A"] * 1e-4, p["d"] * 1e-3, p["t"] * 1e-3, p["kappa"]
    c2, v = p["C2"] * 1e-12, p["V"]

    def e_field(x: float, q: float) -> float:  # slab against the plate at x = 0
        sigma = q / area
        return sigma / (kappa * EPS0) if x < t else sigma / EPS0

    def gap_voltage(q: float) -> float:
        return quad(e_field, 0, d, args=(q,), points=[t], epsabs=0, epsrel=1e-12)[0]

    q = brentq(lambda q: gap_voltage(q) + q / c2 - v, 0.0, v * c2 * 1.0000001, xtol=1e-30, rtol=1e-14)
    energy = quad(lambda x: 0.5 * (q / area) * e_field(x, q) * area, 0, d, points=[t], epsabs=0, epsrel=1e-12)[0]
    return energy * 1e9


def _kirchhoff(p: dict[str, float]) -> float:
    """Branch currents I1, I2 into P and I3 out of P through R3: one junction rule, two loop rules."""
    r1, r2, r3 = p["R1"], p["R2"], p["R3"]
    a = np.array([[1.0, 1.0, -1.0], [r1, 0.0, r3], [0.0, r2, r3]])
    b = np.array([0.0, p["E1"], p["E2"]])
    currents = np.linalg.solve(a, b)
    return abs(float(currents[1])) * 1e3


def _rc_charging(p: dict[str, float]) -> float:
    rc = p["R"] * 1e3 * p["C"] * 1e-6
    reach = lambda t, y: y[0] - p["V2"]  # noqa: E731
    reach.terminal = True
    sol = solve_ivp(lambda t, y: [(p["emf"] - y[0]) / rc], (0, 100 * rc), [p["V1"]], events=reach,
                    rtol=1e-11, atol=1e-12)
    return sol.t_events[0][0] * 1e3


def _rl_energy(p: dict[str, float]) -> float:
    """Integrate L di/dt = emf - R i and the power into the coil, i L di/dt."""
    ind, res, emf = p["L"] * 1e-3, p["R"], p["emf"]

    def rhs(t: float, y: list[float]) -> list[float]:
        di = (emf - res * y[0]) / ind
        return [di, ind * y[0] * di]

    sol = solve_ivp(rhs, (0, p["t"] * 1e-3), [0.0, 0.0], rtol=1e-11, atol=1e-14)
    return sol.y[1][-1] * 1e3


def _ac_power_periodic_orbit(p: dict[str, float]) -> float:
    """Steady state as the fixed point of the one-period map of L q'' + R q' + q/C = V0 sin(wt)."""
    res, ind, cap = p["R"], p["L"] * 1e-3, p["C"] * 1e-6
    omega, v0 = 2 * math.pi * p["f"], p["Vrms"] * math.sqrt(2)
    period = 1 / p["f"]

    def rhs(t: float, y: list[float]) -> list[float]:
        q, i, _ = y
        return [i, (v0 * math.sin(omega * t) - res * i - q / cap) / ind, res * i * i]

    def one_period(q0: float, i0: float) -> np.ndarray:
        sol = solve_ivp(rhs, (0, period), [q0, i0, 0.0], method="DOP853", rtol=1e-12, atol=1e-15)
        return sol.y[:, -1]

    base = one_period(0.0, 0.0)
    scale_q, scale_i = v0 * cap, v0 / res
    col_q = (one_period(scale_q, 0.0)[:2] - base[:2]) / scale_q
    col_i = (one_period(0.0, scale_i)[:2] - base[:2]) / scale_i
    monodromy = np.column_stack([col_q, col_i])
    start = np.linalg.solve(np.eye(2) - monodromy, base[:2])
    return one_period(*start)[2] / period


def _mass_spec_orbits(p: dict[str, float]) -> float:
    """Selector speed from the force balance (brentq), then integrate each ion's half turn in B2."""
    ef, b1, b2 = p["Ef"] * 1e3, p["B1"] * 1e-3, p["B2"] * 1e-3
    v = brentq(lambda v: E_CHARGE * ef - E_CHARGE * v * b1, 0.0, 1e8, xtol=1e-12, rtol=1e-15)

    def landing(mass: float) -> float:
        def rhs(t: float, y: list[float]) -> list[float]:  # plate is y = 0, B along -z
            return [y[2], y[3], -E_CHARGE * y[3] * b2 / mass, E_CHARGE * y[2] * b2 / mass]

        back = lambda t, y: y[1] if t > 0 else 1.0  # noqa: E731
        back.terminal, back.direction = True, -1
        turn = 2 * math.pi * mass / (E_CHARGE * b2)
        sol = solve_ivp(rhs, (0, turn), [0.0, 0.0, 0.0, v], events=back, rtol=1e-12, atol=1e-15)
        return abs(sol.y_events[0][0][0])

    return abs(landing(p["m2"] * DALTON) - landing(p["m1"] * DALTON)) * 1e3


def _solenoid_biot_savart(p: dict[str, float]) -> float:
    """Sum dl x r / r^3 around each loop (quad over phi), then over the winding (quad over z')."""
    ell, a, z = p["ell"] * 1e-2, p["a"] * 1e-2, p["z"] * 1e-2
    n_current = p["Nt"] / ell * p["cur"]
    point = np.array([0.0, 0.0, z])

    def loop_bz(zp: float) -> float:
        def integrand(phi: float) -> float:
            src = np.array([a * math.cos(phi), a * math.sin(phi), zp])
            dl = np.array([-a * math.sin(phi), a * math.cos(phi), 0.0])
            sep = point - src
            return float(np.cross(dl, sep)[2] / np.linalg.norm(sep) ** 3)

        return MU0 / (4 * math.pi) * quad(integrand, 0, 2 * math.pi, epsabs=0, epsrel=1e-11)[0]

    field = quad(lambda zp: n_current * loop_bz(zp), -ell / 2, ell / 2, epsabs=0, epsrel=1e-10, limit=200)[0]
    return abs(field) * 1e3


def _rod_braking(p: dict[str, float]) -> float:
    """m dv/dt = -B I l with I = B l v / R."""
    bl = p["B"] * 1e-3 * p["ell"] * 1e-2
    mass, res = p["m"] * 1e-3, p["R"]
    sol = solve_ivp(lambda t, y: [y[1], -bl * (bl * y[1] / res) / mass], (0, p["t"]), [0.0, p["v0"]],
                    rtol=1e-12, atol=1e-14)
    return sol.y[0][-1]


def _generator_power_balance(p: dict[str, float]) -> float:
    """EMF as -N dPhi/dt (central difference), rms by quad; primary current from P_in = P_out."""
    omega = p["rate"] * 2 * math.pi / 60
    flux = lambda t: p["B"] * 1e-3 * p["A"] * 1e-4 * math.cos(omega * t)  # noqa: E731
    h = 1e-6 / omega

    def emf(t: float) -> float:
        return -p["Nc"] * (flux(t + h) - flux(t - h)) / (2 * h)

    period = 2 * math.pi / omega
    vp = math.sqrt(quad(lambda t: emf(t) ** 2, 0, period, epsabs=0, epsrel=1e-12)[0] / period)
    vs = vp * p["Ns"] / p["Np"]
    return (vs * vs / p["RL"]) / vp * 1e3


def _square_work_by_path(p: dict[str, float]) -> float:
    """Integrate -F.dl for Q along the straight path from its corner to the centre."""
    q, big_q, a = p["q"] * 1e-9, p["Q"] * 1e-9, p["a"] * 1e-2
    fixed = [np.array([0.0, 0.0]), np.array([a, 0.0]), np.array([a, a])]
    start, end = np.array([0.0, a]), np.array([a / 2, a / 2])
    step = end - start

    def f_dot_dl(s: float) -> float:
        pos = start + s * step
        force = sum(K_C * q * big_q * (pos - c) / np.linalg.norm(pos - c) ** 3 for c in fixed)
        return float(np.dot(force, step))

    return -quad(f_dot_dl, 0, 1, epsabs=0, epsrel=1e-12)[0] * 1e6


def _crossed_fields_orbit(p: dict[str, float]) -> float:
    """Integrate m dv/dt = e(E + v x B), E along y, B along z, from rest."""
    ef, bz = p["Ef"] * 1e3, p["B"] * 1e-3
    qm = E_CHARGE / M_PROTON

    def rhs(t: float, y: list[float]) -> list[float]:
        _, _, vx, vy = y
        return [vx, vy, qm * vy * bz, qm * (ef - vx * bz)]

    sol = solve_ivp(rhs, (0, p["t"] * 1e-6), [0.0, 0.0, 0.0, 0.0], method="DOP853", rtol=1e-12, atol=1e-15)
    return math.hypot(sol.y[0][-1], sol.y[1][-1]) * 1e2


def _rlc_peak(p: dict[str, float]) -> float:
    """Integrate L di/dt = -q/C - R i from q = C V0, i = 0; stop where di/dt = 0 (the first extremum)."""
    cap, ind, res = p["C"] * 1e-6, p["L"] * 1e-3, p["R"]
    rhs = lambda t, y: [y[1], (-y[0] / cap - res * y[1]) / ind]  # noqa: E731
    turn = lambda t, y: -y[0] / cap - res * y[1] if t > 0 else -1.0  # noqa: E731
    turn.terminal = True
    sol = solve_ivp(rhs, (0, 10 * math.sqrt(ind * cap)), [cap * p["V0"], 0.0], events=turn,
                    method="DOP853", rtol=1e-12, atol=1e-16)
    return abs(sol.y_events[0][0][1]) * 1e3


# template id -> (function(written parameter values as floats) -> answer in the answer's unit, rel tol)
NUMERICAL_CHECKS: dict[str, tuple[Callable[[dict[str, float]], float], float]] = {
    "em_coulomb_triangle_force": (_coulomb, 1e-9),
    "em_gauss_sphere_graded_charge": (_gauss_by_superposition, 1e-6),
    "em_capacitor_dielectric_series_energy": (_capacitor_by_fields, 1e-8),
    "em_kirchhoff_two_battery": (_kirchhoff, 1e-9),
    "em_rc_charging_time": (_rc_charging, 1e-6),
    "em_rl_energy_buildup": (_rl_energy, 1e-6),
    "em_ac_rlc_power": (_ac_power_periodic_orbit, 1e-5),
    "em_mass_spectrometer_separation": (_mass_spec_orbits, 1e-5),
    "em_finite_solenoid_axis_field": (_solenoid_biot_savart, 1e-7),
    "em_rod_rails_magnetic_braking": (_rod_braking, 1e-7),
    "em_generator_transformer_current": (_generator_power_balance, 1e-6),
    "em_square_charges_work": (_square_work_by_path, 1e-8),
    "em_crossed_fields_cycloid": (_crossed_fields_orbit, 1e-6),
    "em_rlc_discharge_peak_current": (_rlc_peak, 1e-6),
}

TEMPLATES: dict[str, Template] = {t.id: t for t in load_bank("numeric") if t.id in {r[0] for r in HAND_WORKED}}
EM_IDS = sorted({row[0] for row in HAND_WORKED})


def _at(template: Template, params: dict[str, str]) -> float:
    """The template's unrounded answer (in its answer unit) at a written parameter set."""
    values = [Decimal(params[p.name]) for p in template.parameters]
    return float(make_variant(template, 0, values).value)


def test_all_my_templates_are_in_the_bank() -> None:
    assert set(TEMPLATES) == set(EM_IDS)
    assert len(EM_IDS) == 14


def test_every_em_template_has_a_numerical_check() -> None:
    assert set(NUMERICAL_CHECKS) == set(EM_IDS)


@pytest.mark.parametrize("tid", EM_IDS)
def test_em_template_metadata(tid: str) -> None:
    t = TEMPLATES[tid]
    assert t.domain == "electromagnetism" and t.kind == "numeric" and tid.startswith("em_")


def test_levels_are_spread_with_two_olympiad_problems() -> None:
    levels = [TEMPLATES[tid].level for tid in EM_IDS]
    assert levels.count("olympiad") >= 2
    assert {"high_school", "first_year", "second_year", "olympiad"} <= set(levels)


@pytest.mark.parametrize("tid,params,expected", HAND_WORKED, ids=[f"{r[0]}-{i}" for i, r in enumerate(HAND_WORKED)])
def test_em_hand_worked_value(tid: str, params: dict[str, str], expected: float) -> None:
    assert _at(TEMPLATES[tid], params) == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize("tid,params,expected", HAND_WORKED, ids=[f"{r[0]}-{i}" for i, r in enumerate(HAND_WORKED)])
def test_em_numerical_check_agrees_with_hand_worked_value(tid: str, params: dict[str, str], expected: float) -> None:
    check, _ = NUMERICAL_CHECKS[tid]
    assert check({k: float(v) for k, v in params.items()}) == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize("tid", EM_IDS)
def test_em_numerical_check_without_closed_form(tid: str) -> None:
    check, tol = NUMERICAL_CHECKS[tid]
    for v in vary(TEMPLATES[tid], 5, seed=11):
        params = {name: float(text) for name, text in v.params.items()}
        assert check(params) == pytest.approx(float(v.value), rel=tol), v.params


def test_gauss_template_covers_inside_and_outside() -> None:
    variants = vary(TEMPLATES["em_gauss_sphere_graded_charge"], 200, seed=0)
    inside = [float(v.params["r"]) < float(v.params["R"]) for v in variants]
    assert any(inside) and not all(inside)


def test_kirchhoff_template_has_both_current_directions() -> None:
    """Battery 2 is sometimes charged and sometimes discharging: the answer is not a one-sided formula."""
    signs = set()
    for v in vary(TEMPLATES["em_kirchhoff_two_battery"], 200, seed=0):
        e1, r1, e2, r2, r3 = (float(v.params[k]) for k in ("E1", "R1", "E2", "R2", "R3"))
        vp = (e1 / r1 + e2 / r2) / (1 / r1 + 1 / r2 + 1 / r3)
        signs.add(vp > e2)
    assert signs == {True, False}

"""Bank templates of modern physics (``modern_*``): hand-worked values and closed-form-free checks.

Each template gets a row in ``HAND_WORKED`` (written parameter values and the answer worked out
by hand, step by step in the comment) and, where the physics allows, a row in
``NUMERICAL_CHECKS``: a function that recomputes the answer from the written parameters
*without* the template's closed form (root finding on a defining equation, an ODE integration,
a discretised Hamiltonian, a quadrature, explicit Lorentz matrices), compared on a few variants.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import mpmath
import numpy as np
import pytest
import yaml
from scipy.integrate import quad, solve_ivp
from scipy.linalg import eigh_tridiagonal
from scipy.optimize import brentq

from physeval.variation import load_template, vary

BANK = Path(__file__).resolve().parents[2] / "src" / "physeval" / "variation" / "bank" / "numeric"

# CODATA 2018, typed here so that the checks do not share the engine's constant table
H = 6.62607015e-34
HBAR = H / (2 * math.pi)
C = 299792458.0
QE = 1.602176634e-19
ME = 9.1093837015e-31
KB = 1.380649e-23
NA = 6.02214076e23
WIEN_B = 2.897771955e-3
ME_C2_EV = ME * C**2 / QE  # 510998.95 eV

MODERN_IDS = sorted(p.stem for p in BANK.glob("modern_*.yaml") if p.stem != "modern_relativistic_electron_speed")
MINE = [
    "modern_photoelectric_stopping_voltage",
    "modern_compton_bragg_recoil_energy",
    "modern_debroglie_electron_nonrelativistic",
    "modern_debroglie_electron_relativistic",
    "modern_hydrogen_transition_wavelength",
    "modern_particle_box_photon_wavelength",
    "modern_decay_activity",
    "modern_binding_energy_per_nucleon",
    "modern_muon_survival",
    "modern_relativity_probe_length",
    "modern_gamma_gamma_pair_threshold",
    "modern_reaction_threshold_mass_excess",
    "modern_blackbody_star_photon_rate",
]


def _raw(template_id: str) -> dict:
    return yaml.safe_load((BANK / f"{template_id}.yaml").read_text(encoding="utf-8"))


def answer_at(template_id: str, params: dict[str, str]) -> float:
    """The template's unrounded answer (in its answer unit) for the given written parameter values.

    Done through the public API: the parameters become the canonical values of a copy of the
    template, whose variant 0 is then made.
    """
    raw = _raw(template_id)
    for name, written in params.items():
        raw["parameters"][name]["value"] = written
    return float(vary(load_template(raw), 1, 0)[0].value)


def _num(written: str) -> float:
    """A written parameter value (``2.30`` or ``6.96 \\times 10^{8}``) as a float."""
    m = re.fullmatch(r"\s*(-?[0-9.]+)\s*\\times\s*10\^\{(-?\d+)\}\s*", written)
    return float(m.group(1)) * 10.0 ** int(m.group(2)) if m else float(written)


# ---------------------------------------------------------------------------------------------
# Hand-worked rows. hc = 1239.84198 eV nm = 1239.84198 keV pm; m_e c^2 = 510.998950 keV.
HAND_WORKED: list[tuple[str, dict[str, str], float]] = [
    # E_photon = 1239.84198/250 = 4.959368 eV; V_s = (4.959368 - 2.30) eV / e = 2.659368 V
    ("modern_photoelectric_stopping_voltage", {"lam": "250", "W": "2.30"}, 2.659368),
    # lam0 = 2*201*sin(12.5 deg) = 402*0.2164396 = 87.008725 pm; Compton length h/(m_e c) = 2.426310 pm,
    # phi = 90 deg -> lam1 = 89.435035 pm; K = 1239.84198*(1/87.008725 - 1/89.435035) keV
    # = 1239.84198*(0.01149310 - 0.01118131) = 1239.84198*3.11800e-4 = 0.386582 keV
    ("modern_compton_bragg_recoil_energy", {"d": "201", "thetaB": "12.5", "phi": "90"}, 0.386582),
    # p = sqrt(2*9.1093837e-31*1.6021766e-19*150) = sqrt(4.378297e-47) = 6.616870e-24 kg m/s;
    # lam = 6.62607015e-34/6.616870e-24 = 1.001373e-10 m = 100.1373 pm
    ("modern_debroglie_electron_nonrelativistic", {"U": "150"}, 100.1373),
    # K = 300 keV; (pc)^2 = K^2 + 2 K m_e c^2 = 90000 + 306599.37 = 396599.37 keV^2, pc = 629.76136 keV;
    # lam = hc/pc = 1239.84198/629.76136 = 1.968749 pm
    ("modern_debroglie_electron_relativistic", {"U": "300"}, 1.968749),
    # 1/lam = R (1/4 - 1/25) = 10973731.568*0.21 = 2304483.63 /m -> lam = 4.339367e-7 m
    ("modern_hydrogen_transition_wavelength", {"ni": "5", "nf": "2"}, 4.339367e-7),
    # dE = (9 - 4) h^2/(8 m L^2); lam = hc/dE = 8 m c L^2/(5 h)
    # = 8*9.1093837e-31*2.99792458e8*1.44e-18/(5*6.62607015e-34) = 3.146092e-45/3.313035e-33 = 9.495900e-7 m
    ("modern_particle_box_photon_wavelength", {"L": "1.20", "ni": "3", "nf": "2"}, 949.5900),
    # N0 = 2.00e-3 g/131 g/mol * 6.02214076e23 = 9.194108e18; k = 0.6931472/(8.02*86400 s) = 1.000316e-6 /s;
    # e^{-k t} = e^{-0.6931472*20.0/8.02} = e^{-1.728547} = 0.1775423; A = 1.000316e-6*9.194108e18*0.1775423
    # = 1.632859e12 Bq
    ("modern_decay_activity", {"m": "2.00", "M": "131", "T": "8.02", "t": "20.0"}, 1.632859e12),
    # A = 56; Z m_H + N m_n = 26*1.007825 + 30*1.008665 = 26.20345 + 30.25995 = 56.46340 u;
    # M = 56 - 0.0651 = 55.9349 u; mass defect 0.5285 u -> 0.5285*931.494 = 492.2946 MeV; /56 = 8.790975 MeV
    ("modern_binding_energy_per_nucleon", {"Z": "26", "dN": "4", "delta": "-0.0651", "mH": "1.007825", "mn": "1.008665", "uc2": "931.494"}, 8.790975),
    # gamma = 1/sqrt(1 - 0.995^2) = 1/sqrt(0.009975) = 10.012523; lab time 12000/(0.995*2.99792458e8)
    # = 4.022884e-5 s; proper time 4.022884e-5/10.012523 = 4.017852e-6 s = 1.828790 tau;
    # fraction = e^{-1.828790} = 0.1606078
    ("modern_muon_survival", {"h": "12.0", "beta": "0.9950", "tau": "2.197"}, 0.1606078),
    # w = (0.6 + 0.5)/(1 + 0.3) = 11/13; 1 - w^2 = 48/169; L = 12*sqrt(48)/13 = 48*sqrt(3)/13 = 6.395265 m
    ("modern_relativity_probe_length", {"b1": "0.600", "b2": "0.500", "L0": "12.0"}, 6.395265),
    # head-on: s = 2 E eps (1 - cos 180) = 4 E eps = (2 m c^2)^2 -> E = (m c^2)^2/eps
    # = (510998.95 eV)^2/1.00 eV = 2.611199e11 eV = 0.2611199 TeV
    ("modern_gamma_gamma_pair_threshold", {"eps": "1.00", "theta": "180"}, 0.2611199),
    # rest energies (MeV): alpha 4*931.494 + 2.425 = 3728.401; X 7*931.494 + 14.907 = 6535.365;
    # n 931.494 + 8.071 = 939.565; Y 10*931.494 + 12.051 = 9326.991. Q = 10263.766 - 10266.556 = -2.790 MeV.
    # Threshold: s = (m_a + m_X)^2 + 2 m_X K = (m_n + m_Y)^2
    # -> K = (10266.556^2 - 10263.766^2)/(2*6535.365) = 2.790*20530.322/13070.730 = 4.382280 MeV
    ("modern_reaction_threshold_mass_excess", {"A": "7", "DHe": "2.425", "Dn": "8.071", "DX": "14.907", "DY": "12.051", "uc2": "931.494"}, 4.382280),
    # T = 2.897771955e-3/502e-9 = 5772.454 K; x = kT/(hc) = 1.380649e-23*5772.454/1.98644586e-25 = 401205.65 /m;
    # photon flux = 4 pi zeta(3) c x^3 = 4*3.14159265*1.20205690*2.99792458e8*6.458029e16 = 2.924534e26 /(m^2 s);
    # rate = 4 pi (6.96e8)^2 * 2.924534e26 = 6.087345e18*2.924534e26 = 1.780267e45 /s
    ("modern_blackbody_star_photon_rate", {"R": "6.96e8", "lmax": "502"}, 1.780267e45),
]


@pytest.mark.parametrize("template_id, params, expected", HAND_WORKED, ids=[r[0] for r in HAND_WORKED])
def test_hand_worked_value(template_id: str, params: dict[str, str], expected: float) -> None:
    assert answer_at(template_id, params) == pytest.approx(expected, rel=1e-3)


def test_every_modern_template_has_a_hand_worked_row() -> None:
    assert set(MINE) <= set(MODERN_IDS)
    assert sorted(r[0] for r in HAND_WORKED) == sorted(MINE)


def test_levels_and_domain() -> None:
    levels = [_raw(t)["level"] for t in MINE]
    assert levels.count("olympiad") >= 2
    assert {"high_school", "first_year", "second_year", "olympiad"} <= set(levels)
    assert all(_raw(t)["domain"] == "modern_physics" for t in MINE)


# ---------------------------------------------------------------------------------------------
# Checks without the closed form. Each takes the written parameters, returns the answer in the
# template's answer unit.


def _debroglie_relativistic_brentq(p: dict[str, str]) -> float:
    """Solve E(p) - m c^2 = eU for the momentum with brentq, then lambda = h/p (in pm)."""
    kinetic = QE * _num(p["U"]) * 1e3
    rest = ME * C**2

    def excess(momentum: float) -> float:
        return (math.sqrt((momentum * C) ** 2 + rest**2) - rest - kinetic) / kinetic

    momentum = brentq(excess, 1e-30, 1e-18, xtol=1e-40, rtol=1e-14)
    return H / momentum * 1e12


def _box_finite_difference(p: dict[str, str]) -> float:
    """Lowest eigenvalues of a discretised -hbar^2/2m d^2/dx^2 on (0, L) with hard walls (nm)."""
    length, ni, nf = _num(p["L"]) * 1e-9, int(p["ni"]), int(p["nf"])
    n_grid = 3000
    dx = 1.0 / (n_grid + 1)  # dimensionless x/L
    diag = np.full(n_grid, 1.0 / dx**2)
    off = np.full(n_grid - 1, -0.5 / dx**2)
    eig = eigh_tridiagonal(diag, off, eigvals_only=True, select="i", select_range=(0, ni - 1))
    scale = HBAR**2 / (ME * length**2)  # energy unit of the dimensionless operator
    d_energy = (eig[ni - 1] - eig[nf - 1]) * scale
    return H * C / d_energy * 1e9


def _decay_ode(p: dict[str, str]) -> float:
    """Integrate dN/dt = -N ln2/T from the initial atom count, return the activity (Bq)."""
    n0 = _num(p["m"]) * 1e-3 / _num(p["M"]) * NA
    rate = math.log(2) / (_num(p["T"]) * 86400.0)
    t_end = _num(p["t"]) * 86400.0
    sol = solve_ivp(lambda _t, y: -rate * y, (0.0, t_end), [1.0], method="DOP853", rtol=1e-11, atol=1e-14)
    return rate * n0 * float(sol.y[0, -1])


def _gamma_gamma_four_vectors(p: dict[str, str]) -> float:
    """Bisect (in log E) the invariant mass of the two-photon 4-vector against 2 m_e c^2 (TeV)."""
    eps, theta = _num(p["eps"]), math.radians(_num(p["theta"]))
    with mpmath.workdps(60):
        soft = [mpmath.mpf(eps), eps * mpmath.cos(theta), eps * mpmath.sin(theta), mpmath.mpf(0)]

        def excess(log_e: float) -> float:
            e = mpmath.e ** mpmath.mpf(log_e)
            total = [e + soft[0], e + soft[1], soft[2], soft[3]]
            s = total[0] ** 2 - total[1] ** 2 - total[2] ** 2 - total[3] ** 2
            return float(mpmath.sqrt(s) - 2 * ME_C2_EV)

        log_e = brentq(excess, math.log(1e3), math.log(1e22), xtol=1e-12)
    return math.exp(log_e) / 1e12


def _reaction_threshold_brentq(p: dict[str, str]) -> float:
    """Find the alpha kinetic energy at which sqrt(s) equals the final rest energy (MeV)."""
    uc2 = 931.494
    a = int(p["A"])
    m_a, m_x = 4 * uc2 + 2.425, a * uc2 + _num(p["DX"])
    m_b, m_y = uc2 + 8.071, (a + 3) * uc2 + _num(p["DY"])

    def excess(kinetic: float) -> float:
        e_a = m_a + kinetic
        p_a = math.sqrt(e_a**2 - m_a**2)
        return math.sqrt((e_a + m_x) ** 2 - p_a**2) - (m_b + m_y)

    return brentq(excess, 0.0, 200.0, xtol=1e-12, rtol=1e-13)


def _blackbody_quadrature(p: dict[str, str]) -> float:
    """T from the numerical maximum of Planck's B_lambda, then integrate the photon spectrum (1/s)."""
    lmax = _num(p["lmax"]) * 1e-9
    # the peak of B_lambda in x = hc/(lambda k T) solves d/dx [x^5/(e^x - 1)] = 0
    x_peak = brentq(lambda x: 5 * (math.exp(x) - 1) - x * math.exp(x), 1.0, 10.0, xtol=1e-14)
    temp = H * C / (x_peak * KB * lmax)

    def photon_flux_per_log_lambda(log_lam: float) -> float:
        lam = math.exp(log_lam)
        arg = H * C / (lam * KB * temp)
        # spectral photon exitance 2 pi c / lambda^4 / (e^arg - 1), times lambda for d(log lambda)
        return 2 * math.pi * C / lam**3 / math.expm1(arg) if arg < 700 else 0.0

    lo, hi = math.log(lmax / 200), math.log(lmax * 1e5)
    pieces = np.linspace(lo, hi, 12)
    flux = sum(quad(photon_flux_per_log_lambda, a, b, epsabs=0, epsrel=1e-10)[0] for a, b in zip(pieces, pieces[1:]))
    return 4 * math.pi * _num(p["R"]) ** 2 * flux


def _probe_lorentz_matrices(p: dict[str, str]) -> float:
    """Transform the probe's end worldlines to the station frame with boost matrices and measure
    the distance between simultaneous (station time) events (m)."""
    b1, b2, length0 = _num(p["b1"]), _num(p["b2"]), _num(p["L0"])

    def boost(beta: float) -> np.ndarray:  # coordinates (ct, x) of a frame moving at +beta -> rest frame
        g = 1 / math.sqrt(1 - beta**2)
        return np.array([[g, g * beta], [g * beta, g]])

    to_station = boost(b1) @ boost(b2)  # probe frame -> ship frame -> station frame

    def event(ct_probe: float, x_probe: float) -> np.ndarray:
        return to_station @ np.array([ct_probe, x_probe])

    rear = event(0.0, 0.0)
    # find the probe-frame time of the front end whose station time equals the rear event's
    ct_front = brentq(lambda ct: event(ct, length0)[0] - rear[0], -1e3 * length0, 1e3 * length0, xtol=1e-13)
    return float(event(ct_front, length0)[1] - rear[1])


NUMERICAL_CHECKS: list[tuple[str, Callable[[dict[str, str]], float], float]] = [
    ("modern_debroglie_electron_relativistic", _debroglie_relativistic_brentq, 1e-6),
    ("modern_particle_box_photon_wavelength", _box_finite_difference, 1e-4),
    ("modern_decay_activity", _decay_ode, 1e-6),
    ("modern_gamma_gamma_pair_threshold", _gamma_gamma_four_vectors, 1e-6),
    ("modern_reaction_threshold_mass_excess", _reaction_threshold_brentq, 1e-6),
    ("modern_blackbody_star_photon_rate", _blackbody_quadrature, 1e-6),
    ("modern_relativity_probe_length", _probe_lorentz_matrices, 1e-6),
]


@pytest.mark.parametrize("template_id, check, rel", NUMERICAL_CHECKS, ids=[r[0] for r in NUMERICAL_CHECKS])
def test_numerical_check(template_id: str, check: Callable[[dict[str, str]], float], rel: float) -> None:
    for variant in vary(BANK / f"{template_id}.yaml", 6, 0):
        assert check(variant.params) == pytest.approx(float(variant.value), rel=rel), variant.params


def _hand_row(template_id: str) -> tuple[dict[str, str], float]:
    return next((params, expected) for tid, params, expected in HAND_WORKED if tid == template_id)


@pytest.mark.parametrize("template_id, check, rel", NUMERICAL_CHECKS, ids=[r[0] for r in NUMERICAL_CHECKS])
def test_numerical_check_agrees_with_hand_worked_value(template_id: str, check: Callable[[dict[str, str]], float],
                                                       rel: float) -> None:
    params, expected = _hand_row(template_id)
    full = {**{k: str(v["value"]) for k, v in _raw(template_id)["parameters"].items()}, **params}
    assert check(full) == pytest.approx(expected, rel=1e-5)


def test_numerical_checks_can_fail() -> None:
    """The checks tell physics apart: the relativistic wavelength is not the classical one at 300 kV,
    and the well's levels are not equally spaced."""
    classical = answer_at("modern_debroglie_electron_nonrelativistic", {"U": "300"}) / math.sqrt(1000)
    assert _debroglie_relativistic_brentq({"U": "300"}) < 0.9 * classical
    assert _box_finite_difference({"L": "1.20", "ni": "3", "nf": "2"}) != pytest.approx(
        _box_finite_difference({"L": "1.20", "ni": "2", "nf": "1"}), rel=0.1)

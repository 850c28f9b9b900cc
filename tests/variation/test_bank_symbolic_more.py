"""The 28 ``sym_{mech,em,opt,thermo,modern}_*`` symbolic bank templates: they load, spread over every
domain and level, vary into distinct problems, match an expression derived by hand and, for most,
agree with a numerical computation (ODE integration, quadrature, root finding, ray tracing, a
step-by-step simulation) that never uses the closed form.

Adding a template of this family = its YAML file + one HAND_WORKED row (+ a NUMERICAL_CHECKS row).
"""

from __future__ import annotations

import math
import random
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
import sympy
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from physeval.units import parse_dimension
from physeval.variation import Template, load_template, vary
from physeval.variation.engine import make_variant

BANK = Path(__file__).resolve().parents[2] / "src" / "physeval" / "variation" / "bank" / "symbolic"
PREFIXES = ("sym_mech_", "sym_em_", "sym_opt_", "sym_thermo_", "sym_modern_")

# (template id, parameter values as written, the answer derived by hand as a SymPy string)
HAND_WORKED: list[tuple[str, dict[str, str], str]] = [
    # I = m L^2/3 + 2m (L/2)^2 = 5 m L^2/6; torque per radian = m g L/2 + 2 m g L/2 = 3 m g L/2
    # T = 2 pi sqrt((5/6) L / ((3/2) g)) = 2 pi sqrt(5 L / (9 g))
    ("sym_mech_rod_bead_pendulum", {"k": "2", "f": "0.5"}, "2*pi*sqrt(5*L/(9*g))"),
    # I = m L^2 (1/3 + 1) = 4 m L^2/3; torque per radian = m g L (1/2 + 1); T = 2 pi sqrt(8 L/(9 g))
    ("sym_mech_rod_bead_pendulum", {"k": "1", "f": "1.0"}, "2*pi*sqrt(8*L/(9*g))"),
    # m dv/dt = m g - c v^2 -> v = v_t tanh(g t / v_t), v_t = sqrt(m g / c)
    # t = (v_t/g) atanh(0.9) = (v_t/g) * ln(1.9/0.1)/2 = sqrt(m/(g c)) ln(19)/2
    ("sym_mech_quadratic_drag_time", {"f": "0.90"}, "sqrt(m/(g*c))*log(19)/2"),
    # hexagon: the two threads at a bead pull inwards with 2 T sin(30 deg) = T = m omega^2 R
    ("sym_mech_polygon_beads_tension", {"n": "6"}, "m*omega**2*R"),
    # square: 2 T sin(45 deg) = sqrt(2) T = m omega^2 R
    ("sym_mech_polygon_beads_tension", {"n": "4"}, "m*omega**2*R/sqrt(2)"),
    # I = m (R^2 + R^2/4)/2 = 5 m R^2/8; a = g sin(theta)/(1 + 5/8) = 8 g sin(theta)/13
    # t = sqrt(2 d / a) = sqrt(13 d / (4 g sin(theta)))
    ("sym_mech_thick_pipe_rolling", {"f": "0.50"}, "sqrt(13*d/(4*g*sin(theta)))"),
    # cos(theta0) = g/(omega^2 R) = 1/4, sin^2 = 15/16; Omega^2 = omega^2 sin^2 = (4 g/R)(15/16) = 15 g/(4 R)
    ("sym_mech_bead_rotating_hoop", {"k": "4.0"}, "2*pi*sqrt(4*R/(15*g))"),
    # energy: (1/2) m v^2 = m g L/2 - (m/4)(g L/8) = m g L (1/2 - 1/32) -> v^2 = 15 g L/16
    ("sym_mech_chain_off_table", {"f": "0.25"}, "sqrt(15*g*L)/4"),
    # m(t) = m0 (1 - 3t/(4 tau)); v = -u ln(1 - 3t/(4 tau)) - g t;
    # integral of -ln(1 - 3t/(4tau)) over [0, tau] = (4 tau/3)(1 - ln(4)/4 - 1/4) = tau (1 - ln(4)/3)
    ("sym_mech_rocket_burnout_height", {"k": "4.0"}, "u*tau*(1 - 2*log(2)/3) - g*tau**2/2"),
    # contact lost when sin(theta) = (2/3)(3/4) = 1/2; theta'^2 = 3 g (3/4 - 1/2)/L = 3 g/(4 L)
    # bottom end speed = L sin(theta) |theta'| = (L/2) sqrt(3 g/(4 L)) = sqrt(3 g L)/4
    ("sym_mech_ladder_leaves_wall", {"f": "0.75"}, "sqrt(3*g*L)/4"),
    # wedge: 2m A = N sin; block in the wedge frame, normal direction: N = m g cos - m A sin
    # -> N (1 + sin^2/2) = m g cos -> N = 2 m g cos/(2 + sin^2)
    ("sym_mech_wedge_block_normal_force", {"k": "2.0"}, "2*m*g*cos(theta)/(2 + sin(theta)**2)"),
    # vis-viva: 1.44 G M / R = G M (2/R - 1/a) -> a = R/0.56 = 25 R/14; T = 2 pi sqrt(a^3/(G M))
    ("sym_mech_orbit_boost_period", {"b": "1.20"}, "2*pi*sqrt((25*R/14)**3/(G*M))"),
    # z = R: E = Q R / (4 pi eps0 (2 R^2)^(3/2)) = Q / (8 sqrt(2) pi eps0 R^2)
    ("sym_em_ring_axis_field", {"k": "1.0"}, "Q/(8*sqrt(2)*pi*epsilon_0*R**2)"),
    # 1/C = (ln 2 / 4 + ln(4/2)) / (2 pi eps0 L) = (5 ln 2/4)/(2 pi eps0 L); U = C V^2/2
    ("sym_em_coax_layered_dielectric_energy", {"p": "2", "q": "4", "kap": "4.0"},
     "4*pi*epsilon_0*L*V**2/(5*log(2))"),
    # q = C V + 2C (V/2) = 2 C V; V_f = 2V/3; before: C V^2/2 + 2C V^2/8 = 3 C V^2/4;
    # after: 3C (2V/3)^2 / 2 = 2 C V^2/3; heat = (3/4 - 2/3) C V^2 = C V^2/12
    ("sym_em_capacitor_sharing_loss", {"k": "2.0", "f": "0.5"}, "C*V**2/12"),
    # emf = B d v cos(theta), I = emf/(1.5 R), force along the slope = B I d cos(theta)
    # m g sin(theta) = B^2 d^2 v cos^2(theta)/(1.5 R)
    ("sym_em_inclined_rails_terminal_speed", {"r": "0.5"}, "3*m*g*R*sin(theta)/(2*B**2*d**2*cos(theta)**2)"),
    # square: each side at R/sqrt(2), seen under +-45 deg: B_side = mu0 I/(4 pi R/sqrt 2) * sqrt 2
    # = mu0 I/(2 pi R); four sides: 2 mu0 I/(pi R)
    ("sym_em_polygon_loop_centre_field", {"n": "4"}, "2*mu_0*I_0/(pi*R)"),
    # hexagon: side at sqrt(3) R/2, seen under +-30 deg: B_side = mu0 I/(4 pi sqrt(3) R/2) = mu0 I/(2 sqrt 3 pi R)
    # six sides: sqrt(3) mu0 I/(pi R)
    ("sym_em_polygon_loop_centre_field", {"n": "6"}, "sqrt(3)*mu_0*I_0/(pi*R)"),
    # sigma = Q/(pi R^2 * 3/4); B = integral of mu0 sigma omega dr/2 over [R/2, R] = mu0 sigma omega R/4
    ("sym_em_rotating_annulus_field", {"f": "0.50"}, "mu_0*Q*omega/(3*pi*R)"),
    # images: -q/2 at R/2 (distance 3R/2 from q) and +q/2 at the centre (distance 2R)
    # F = q^2/(4 pi eps0 R^2) * ((1/2)/(9/4) - (1/2)/4) = q^2/(4 pi eps0 R^2) * 7/72
    ("sym_em_neutral_sphere_image_force", {"k": "2.0"}, "7*q**2/(288*pi*epsilon_0*R**2)"),
    # 1/F = 1/f - 1/(2f) + d/(2 f^2) = (f + d)/(2 f^2)
    ("sym_opt_telephoto_pair_focal_length", {"k": "2.0"}, "2*f**2/(f + d)"),
    # front surface: 1.5/s = 0.5/R -> s = 3R, i.e. R beyond the back surface (virtual object)
    # back surface: 1.5/(-R) + 1/s' = (1 - 1.5)/(-R) -> 1/s' = 2/R
    ("sym_opt_ball_lens_focus", {"n": "1.50"}, "R/2"),
    # one reflection with a phase jump: dark when 2 n t = m lam, t = r^2/(2R) -> r^2 = 4 lam R/1.33
    ("sym_opt_newton_rings_liquid", {"n": "1.33", "m": "4"}, "sqrt(400*lam*R/133)"),
    # W = p1 V1 (1 - a^(1-k))/(k-1) = nu R T1 (1 - 4^(-1/2))/(1/2) = nu R T1
    ("sym_thermo_polytropic_work", {"a": "4", "k": "1.50"}, "nu*R*T_1"),
    # k = 2: W = nu R T1 (1 - 1/8)/1
    ("sym_thermo_polytropic_work", {"a": "8", "k": "2.00"}, "7*nu*R*T_1/8"),
    # entropy: C ln(Tf/T) + C ln(Tf/(4T)) = 0 -> Tf = 2T; W = C(4T - 2T) - C(2T - T) = C T
    ("sym_thermo_two_bodies_max_work", {"k": "4.0"}, "C*T"),
    # gamma = 7/5, load 2m; p_eq A = p0 A + 2 m g; stiffness = gamma p_eq A/h
    # T = 2 pi sqrt(2 m h / ((7/5)(p0 A + 2 m g)))
    ("sym_thermo_piston_adiabatic_oscillation", {"f": "5", "k": "1.0"}, "2*pi*sqrt(10*m*h/(7*(p_0*A + 2*m*g)))"),
    # p = 4 p0 - p0 x (x = V/V0); dQ/dx = (5/2)(4 p0 V0) - 4 p0 V0 x -> switch at x = 5/2
    # Q = p0 V0 * integral of (10 - 4x) over [1, 5/2] = p0 V0 (12.5 - 8)
    ("sym_thermo_linear_process_heat_in", {"k": "3.0"}, "9*p_0*V_0/2"),
    # each reflection on the receding mirror multiplies the frequency by (c - v)/(c + v)
    ("sym_modern_receding_mirror_doppler", {"k": "2"}, "f_0*(c - v)**2/(c + v)**2"),
    # 90 deg Compton: 1/E' = 1/E + 1/(m c^2); three times: 1/E3 = 1/E0 + 3/(m c^2)
    ("sym_modern_repeated_compton", {"n": "3"}, "E_0*m_e*c**2/(m_e*c**2 + 3*E_0)"),
    # s = 2 m_p^2 c^4 + 2 m_p c^2 (K + m_p c^2) = (2 m_p + 2 m_pi)^2 c^4
    # K = (8 m_p m_pi + 4 m_pi^2) c^2/(2 m_p)
    ("sym_modern_pion_threshold", {"k": "2"}, "2*m_pi*c**2*(2*m_p + m_pi)/m_p"),
    # E = Z^2 m q^4/(8 eps0^2 h^2) (1/4 - 1/9) = 4 * (5/36) * m q^4/(8 eps0^2 h^2) = 5 m q^4/(72 eps0^2 h^2)
    ("sym_modern_hydrogenlike_wavelength", {"Z": "2", "n1": "2", "n2": "3"},
     "72*epsilon_0**2*h**3*c/(5*m_e*q_e**4)"),
]


# ---------------------------------------------------------------------------- numerical checks
# Each function takes the variant's parameter values (floats) and the symbol values (floats) and
# returns the answer computed without the closed form.

def _period_from_ode(accel, x0: float, amp: float, t_max: float) -> float:
    """Period of small oscillations about x0 of x'' = accel(x), released at rest from x0 + amp.

    The motion from one turning point to the other takes half a period (time reversal), so the
    integration stops at the first minimum of x (velocity crossing zero upwards).
    """
    bottom = lambda t, y: y[1]  # noqa: E731
    bottom.direction, bottom.terminal = 1, True
    sol = solve_ivp(lambda t, y: [y[1], accel(y[0])], (0, t_max), [x0 + amp, 0.0], events=bottom,
                    rtol=1e-11, atol=1e-14 * max(1.0, abs(x0)))
    return 2 * sol.t_events[0][0]


def _rod_bead(p, s):
    L, g = s["L"], s["g"]
    inertia = quad(lambda x: x * x / L, 0, L)[0] + p["k"] * (p["f"] * L) ** 2  # per unit m
    torque = quad(lambda x: g * x / L, 0, L)[0] + p["k"] * g * p["f"] * L
    return _period_from_ode(lambda th: -torque / inertia * math.sin(th), 0.0, 1e-4, 100)


def _drag(p, s):
    m, c, g = s["m"], s["c"], s["g"]
    v_t = brentq(lambda v: m * g - c * v * v, 0, 1e6)
    reach = lambda t, y: y[0] - p["f"] * v_t  # noqa: E731
    reach.terminal = True
    sol = solve_ivp(lambda t, y: [g - c * y[0] ** 2 / m], (0, 1e3), [0.0], events=reach, rtol=1e-12, atol=1e-14)
    return sol.t_events[0][0]


def _polygon_beads(p, s):
    n, m, w, R = int(p["n"]), s["m"], s["omega"], s["R"]
    pts = [np.array([R * math.cos(2 * math.pi * i / n), R * math.sin(2 * math.pi * i / n)]) for i in range(n)]
    # inward pull on bead 0 of two threads of unit tension, projected on the direction to the centre
    pull = sum((pts[j] - pts[0]) / np.linalg.norm(pts[j] - pts[0]) for j in (1, n - 1))
    inward = float(np.dot(pull, -pts[0] / R))
    return brentq(lambda T: T * inward - m * w * w * R, 0, 1e9)


def _pipe(p, s):
    R, d, g, th = s["R"], s["d"], s["g"], s["theta"]
    r0 = p["f"] * R
    mass = quad(lambda r: 2 * math.pi * r, r0, R)[0]
    inertia = quad(lambda r: 2 * math.pi * r ** 3, r0, R)[0]
    acc = g * math.sin(th) / (1 + inertia / (mass * R * R))
    done = lambda t, y: y[0] - d  # noqa: E731
    done.terminal = True
    sol = solve_ivp(lambda t, y: [y[1], acc], (0, 1e4), [0.0, 0.0], events=done, rtol=1e-12, atol=1e-14)
    return sol.t_events[0][0]


def _hoop(p, s):
    R, g = s["R"], s["g"]
    w2 = p["k"] * g / R
    accel = lambda th: math.sin(th) * (w2 * math.cos(th) - g / R)  # noqa: E731
    theta0 = brentq(accel, 1e-6, math.pi / 2 - 1e-9)
    return _period_from_ode(accel, theta0, 1e-5, 200)


def _chain(p, s):
    L, g = s["L"], s["g"]
    off = lambda t, y: y[0] - L  # noqa: E731
    off.terminal = True
    sol = solve_ivp(lambda t, y: [y[1], g * y[0] / L], (0, 1e3), [p["f"] * L, 0.0], events=off,
                    rtol=1e-12, atol=1e-14)
    return sol.y_events[0][0][1]


def _rocket(p, s):
    u, g, tau = s["u"], s["g"], s["tau"]
    burn = (1 - 1 / p["k"]) / tau  # mass loss rate per unit initial mass
    sol = solve_ivp(lambda t, y: [y[1], u * burn / (1 - burn * t) - g], (0, tau), [0.0, 0.0],
                    rtol=1e-12, atol=1e-12)
    return sol.y[0][-1]


def _ladder(p, s):
    L, g = s["L"], s["g"]

    def rhs(t, y):
        return [y[1], -1.5 * g / L * math.cos(y[0])]

    def wall_force(t, y):  # proportional to the horizontal acceleration of the centre of mass
        return math.cos(y[0]) * y[1] ** 2 + math.sin(y[0]) * rhs(t, y)[1]

    wall_force.terminal = True
    sol = solve_ivp(rhs, (0, 100), [math.asin(p["f"]), 0.0], events=wall_force, rtol=1e-12, atol=1e-14)
    th, om = sol.y_events[0][0]
    return L * math.sin(th) * abs(om)


def _wedge(p, s):
    m, g, th = s["m"], s["g"], s["theta"]
    M = p["k"] * m
    # unknowns: block ax, ay, wedge A, normal force N
    a = np.array([
        [m, 0, 0, -math.sin(th)],
        [0, m, 0, -math.cos(th)],
        [0, 0, M, math.sin(th)],
        [math.sin(th), math.cos(th), -math.sin(th), 0],
    ])
    b = np.array([0, -m * g, 0, 0])
    return float(np.linalg.solve(a, b)[3])


def _orbit(p, s):
    G, M, R = s["G"], s["M"], s["R"]
    mu = G * M

    def rhs(t, y):
        r3 = (y[0] ** 2 + y[1] ** 2) ** 1.5
        return [y[2], y[3], -mu * y[0] / r3, -mu * y[1] / r3]

    apo = lambda t, y: y[0] * y[2] + y[1] * y[3]  # radial velocity; zero at apoapsis and periapsis  # noqa: E731
    apo.direction, apo.terminal = -1, True
    v = p["b"] * math.sqrt(mu / R)
    sol = solve_ivp(rhs, (0, 1e3), [R, 0.0, 0.0, v], events=apo, rtol=1e-12, atol=1e-14)
    return 2 * sol.t_events[0][0]  # periapsis -> apoapsis is half an orbit


def _ring(p, s):
    Q, R, eps = s["Q"], s["R"], s["epsilon_0"]
    z = p["k"] * R

    def ez(phi):
        rvec = np.array([-R * math.cos(phi), -R * math.sin(phi), z])
        return Q / (2 * math.pi) / (4 * math.pi * eps) * rvec[2] / np.linalg.norm(rvec) ** 3

    return quad(ez, 0, 2 * math.pi, epsrel=1e-12)[0]


def _coax(p, s):
    a, L, V, eps = s["a"], s["L"], s["V"], s["epsilon_0"]
    kappa = lambda r: p["kap"] if r < p["p"] * a else 1.0  # noqa: E731
    brk = [p["p"] * a]
    field_per_charge = lambda r: 1 / (2 * math.pi * eps * kappa(r) * r)  # Gauss, per unit line charge  # noqa: E731
    volt_per_charge = quad(field_per_charge, a, p["q"] * a, points=brk, epsrel=1e-12)[0]
    lam = V / volt_per_charge
    dens = lambda r: 0.5 * eps * kappa(r) * (lam * field_per_charge(r)) ** 2 * 2 * math.pi * r * L  # noqa: E731
    return quad(dens, a, p["q"] * a, points=brk, epsrel=1e-12)[0]


def _sharing(p, s):
    C, V, res = s["C"], s["V"], 1.0
    c1, c2 = C, p["k"] * C

    def rhs(t, y):
        cur = (y[0] / c1 - y[1] / c2) / res
        return [-cur, cur, cur * cur * res]

    tau = res * c1 * c2 / (c1 + c2)
    sol = solve_ivp(rhs, (0, 60 * tau), [c1 * V, c2 * p["f"] * V, 0.0], rtol=1e-12, atol=1e-15)
    return sol.y[2][-1]


def _polygon_loop(p, s):
    n, cur, R, mu0 = int(p["n"]), s["I_0"], s["R"], s["mu_0"]
    total = 0.0
    for i in range(n):
        a = np.array([R * math.cos(2 * math.pi * i / n), R * math.sin(2 * math.pi * i / n), 0.0])
        b = np.array([R * math.cos(2 * math.pi * (i + 1) / n), R * math.sin(2 * math.pi * (i + 1) / n), 0.0])

        def dbz(t, a=a, b=b):
            pos = a + t * (b - a)
            rvec = -pos  # from the wire element to the centre
            return np.cross(b - a, rvec)[2] / np.linalg.norm(rvec) ** 3

        total += mu0 * cur / (4 * math.pi) * quad(dbz, 0, 1, epsrel=1e-12)[0]
    return total


def _annulus(p, s):
    Q, R, w, mu0 = s["Q"], s["R"], s["omega"], s["mu_0"]
    area = quad(lambda r: 2 * math.pi * r, p["f"] * R, R)[0]
    sigma = Q / area
    # each thin ring of radius r carries dI = sigma omega r dr and gives mu0 dI/(2 r) at the centre
    return quad(lambda r: mu0 * sigma * w * r / (2 * r), p["f"] * R, R)[0]


def _telephoto(p, s):
    f, d = s["f"], s["d"]
    lens = lambda fl: np.array([[1, 0], [-1 / fl, 1]])  # noqa: E731
    gap = np.array([[1, d], [0, 1]])
    system = lens(-p["k"] * f) @ gap @ lens(f)
    return -1 / system[1, 0]


def _ball_lens(p, s):
    R, n = s["R"], p["n"]
    h = 1e-4 * R  # a paraxial ray, traced exactly with Snell's law
    x1 = -math.sqrt(R * R - h * h)
    normal = np.array([x1, h]) / R
    d = np.array([1.0, 0.0])

    def refract(d, nrm, n1, n2):
        nrm = nrm if np.dot(d, nrm) < 0 else -nrm
        cos_i = -np.dot(d, nrm)
        ratio = n1 / n2
        cos_t = math.sqrt(1 - ratio ** 2 * (1 - cos_i ** 2))
        return ratio * d + (ratio * cos_i - cos_t) * nrm

    d = refract(d, normal, 1.0, n)
    pt = np.array([x1, h])
    t = -2 * np.dot(pt, d)  # second intersection with the sphere |pt + t d| = R
    pt = pt + t * d
    d = refract(d, pt / R, n, 1.0)
    x_axis = pt[0] - pt[1] * d[0] / d[1]
    return x_axis - R


def _newton(p, s):
    lam, R = s["lam"], s["R"]
    gap = lambda r: R - math.sqrt(R * R - r * r)  # exact sag of the sphere  # noqa: E731
    return brentq(lambda r: 2 * p["n"] * gap(r) - p["m"] * lam, 0, 0.5 * R, xtol=1e-15, rtol=1e-14)


def _polytropic(p, s):
    nu, Rg, T1, V1 = s["nu"], s["R"], s["T_1"], s["V_1"]
    const = nu * Rg * T1 / V1 * V1 ** p["k"]
    return quad(lambda V: const / V ** p["k"], V1, p["a"] * V1, epsrel=1e-12)[0]


def _two_bodies(p, s):
    C, T = s["C"], s["T"]
    meet = lambda th, y: y[0] - th  # noqa: E731
    meet.terminal = True
    # the hot body gives C dT_h; the engine passes dQ_h T_c/T_h to the cold one
    sol = solve_ivp(lambda th, y: [-y[0] / th], (p["k"] * T, T), [T], events=meet, rtol=1e-12, atol=1e-14)
    t_final = sol.t_events[0][0]
    return C * (p["k"] * T - t_final) - C * (t_final - T)


def _piston(p, s):
    m, h, A, p0, g = s["m"], s["h"], s["A"], s["p_0"], s["g"]
    gam = (p["f"] + 2) / p["f"]
    mass = (1 + p["k"]) * m
    p_eq = p0 + mass * g / A
    accel = lambda y: (p_eq * (h / y) ** gam * A - p0 * A - mass * g) / mass  # noqa: E731
    return _period_from_ode(accel, h, 1e-6 * h, 1e3)


def _linear_heat(p, s):
    p0, V0, k = s["p_0"], s["V_0"], p["k"]
    press = lambda V: (k + 1) * p0 - p0 * V / V0  # noqa: E731

    def dq_dv(V, dv=1e-6 * V0):  # first law, monatomic: dQ = (3/2) d(pV) + p dV
        d_pv = (press(V + dv) * (V + dv) - press(V - dv) * (V - dv)) / (2 * dv)
        return 1.5 * d_pv + press(V)

    switch = brentq(dq_dv, V0, k * V0)
    return quad(dq_dv, V0, switch, epsrel=1e-12)[0]


def _doppler(p, s):
    f0, v, c = s["f_0"], s["v"], s["c"]
    x0 = 1.0  # mirror position at t = 0

    def history(t_emit: float) -> float:
        """Follow one wavefront: k bounces on the moving mirror, then back at the fixed mirror x = 0."""
        t = t_emit
        for _ in range(int(p["k"])):
            t = brentq(lambda tt, t=t: c * (tt - t) - (x0 + v * tt), t, t + 1e6)  # reaches the moving mirror
            t = t + (x0 + v * t) / c  # comes back to x = 0
        return t

    period = 1 / f0
    return 1 / (history(period) - history(0.0))


def _compton(p, s):
    E, m, c = s["E_0"], s["m_e"], s["c"]
    mc2 = m * c * c
    direction = np.array([1.0, 0.0])
    for _ in range(int(p["n"])):
        new_dir = np.array([-direction[1], direction[0]])  # deflected by 90 degrees
        p_in = E / c * direction

        def balance(e_out, p_in=p_in, new_dir=new_dir, E=E):
            p_e = p_in - e_out / c * new_dir  # electron momentum
            return E + mc2 - e_out - math.sqrt((np.dot(p_e, p_e) * c * c) + mc2 * mc2)

        E = brentq(balance, 1e-12 * E, E)
        direction = new_dir
    return E


def _pion(p, s):
    mp, mpi, c = s["m_p"], s["m_pi"], s["c"]
    final = (2 * mp + p["k"] * mpi) * c * c

    def invariant_mass_gap(K):
        e_tot = K + 2 * mp * c * c
        pc = math.sqrt(K * K + 2 * K * mp * c * c)
        return math.sqrt(e_tot ** 2 - pc ** 2) - final

    return brentq(invariant_mass_gap, 0, 1e4 * final, xtol=1e-14, rtol=1e-14)


# template id -> (function(params, symbols) -> answer, {symbol: value}, relative tolerance)
NUMERICAL_CHECKS = {
    "sym_mech_rod_bead_pendulum": (_rod_bead, {"m": 0.7, "L": 1.3, "g": 9.8}, 1e-6),
    "sym_mech_quadratic_drag_time": (_drag, {"m": 0.2, "c": 0.01, "g": 9.8}, 1e-6),
    "sym_mech_polygon_beads_tension": (_polygon_beads, {"m": 0.3, "omega": 2.5, "R": 0.8}, 1e-9),
    "sym_mech_thick_pipe_rolling": (_pipe, {"R": 0.1, "d": 2.0, "g": 9.8, "theta": 0.4}, 1e-6),
    "sym_mech_bead_rotating_hoop": (_hoop, {"R": 0.5, "g": 9.8}, 1e-5),
    "sym_mech_chain_off_table": (_chain, {"L": 2.0, "g": 9.8}, 1e-6),
    "sym_mech_rocket_burnout_height": (_rocket, {"u": 3000.0, "g": 9.8, "tau": 50.0}, 1e-6),
    "sym_mech_ladder_leaves_wall": (_ladder, {"L": 3.0, "g": 9.8}, 1e-6),
    "sym_mech_wedge_block_normal_force": (_wedge, {"m": 1.3, "g": 9.8, "theta": 0.6}, 1e-9),
    "sym_mech_orbit_boost_period": (_orbit, {"G": 1.0, "M": 1.0, "R": 1.0}, 1e-6),
    "sym_em_ring_axis_field": (_ring, {"Q": 2e-9, "R": 0.05, "epsilon_0": 8.854e-12}, 1e-9),
    "sym_em_coax_layered_dielectric_energy": (_coax, {"a": 0.002, "L": 1.5, "V": 100.0, "epsilon_0": 8.854e-12}, 1e-8),
    "sym_em_capacitor_sharing_loss": (_sharing, {"C": 1.0, "V": 1.0}, 1e-6),
    "sym_em_polygon_loop_centre_field": (_polygon_loop, {"I_0": 2.0, "R": 0.1, "mu_0": 1.2566e-6}, 1e-9),
    "sym_em_rotating_annulus_field": (_annulus, {"Q": 1e-6, "R": 0.2, "omega": 300.0, "mu_0": 1.2566e-6}, 1e-9),
    "sym_opt_telephoto_pair_focal_length": (_telephoto, {"f": 0.1, "d": 0.04}, 1e-9),
    "sym_opt_ball_lens_focus": (_ball_lens, {"R": 0.01}, 1e-5),
    "sym_opt_newton_rings_liquid": (_newton, {"lam": 5.5e-7, "R": 1.2}, 1e-4),
    "sym_thermo_polytropic_work": (_polytropic, {"nu": 2.0, "R": 8.314, "T_1": 300.0, "V_1": 0.01}, 1e-9),
    "sym_thermo_two_bodies_max_work": (_two_bodies, {"C": 500.0, "T": 280.0}, 1e-6),
    "sym_thermo_piston_adiabatic_oscillation": (
        _piston, {"m": 2.0, "h": 0.3, "A": 0.01, "p_0": 1.0e5, "g": 9.8}, 1e-5),
    "sym_thermo_linear_process_heat_in": (_linear_heat, {"p_0": 1.0e5, "V_0": 0.002}, 1e-6),
    "sym_modern_receding_mirror_doppler": (_doppler, {"f_0": 1.0, "v": 0.3, "c": 1.0}, 1e-8),
    "sym_modern_repeated_compton": (_compton, {"E_0": 0.7, "m_e": 1.0, "c": 1.0}, 1e-9),
    "sym_modern_pion_threshold": (_pion, {"m_p": 938.272, "m_pi": 134.977, "c": 1.0}, 1e-9),
}


# ------------------------------------------------------------------------------------- helpers

def _load_all() -> dict[str, Template]:
    return {p.stem: load_template(p) for p in sorted(BANK.glob("*.yaml")) if p.stem.startswith(PREFIXES)}


TEMPLATES = _load_all()


def _symbols(template: Template) -> dict[str, sympy.Symbol]:
    return {s.name: sympy.Symbol(s.name, positive=True) for s in template.symbols}


def _at(template: Template, params: dict[str, str]):
    """The variant of ``template`` with the given written parameter values."""
    return make_variant(template, 0, [Decimal(params[p.name]) for p in template.parameters])


def _equivalent(a: sympy.Expr, b: sympy.Expr, names: list[str]) -> bool:
    """Numeric probe at random positive values (angles stay below pi/2), then SymPy as a fallback."""
    rng = random.Random(7)
    for _ in range(6):
        point = {sympy.Symbol(n, positive=True): sympy.Float(rng.uniform(0.15, 1.4), 30) for n in names}
        va, vb = complex(a.xreplace(point).evalf(30)), complex(b.xreplace(point).evalf(30))
        if abs(va - vb) > 1e-12 * max(1.0, abs(vb)):
            return sympy.simplify(a - b) == 0
    return True


# --------------------------------------------------------------------------------------- tests

def test_family_size_spread_and_levels() -> None:
    assert len(TEMPLATES) == 28
    by_domain: dict[str, int] = {}
    for t in TEMPLATES.values():
        by_domain[t.domain] = by_domain.get(t.domain, 0) + 1
    assert by_domain == {"mechanics": 10, "electromagnetism": 7, "optics": 3, "thermodynamics": 4,
                         "modern_physics": 4}
    levels = [t.level for t in TEMPLATES.values()]
    assert levels.count("olympiad") >= 5
    assert {"high_school", "first_year", "second_year", "olympiad"} <= set(levels)


def test_every_template_of_the_family_has_a_hand_worked_row() -> None:
    assert set(TEMPLATES) == {row[0] for row in HAND_WORKED}
    assert set(NUMERICAL_CHECKS) <= set(TEMPLATES) and len(NUMERICAL_CHECKS) >= 6


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_template_is_symbolic_with_declared_dimensions(tid: str) -> None:
    t = TEMPLATES[tid]
    assert t.kind == "symbolic" and t.id == tid and t.varying
    assert all(not p.unit for p in t.parameters)  # structural, dimensionless numbers
    assert t.compiled.dimension == parse_dimension(t.answer.dimension)
    answer = sympy.sympify(vary(t, 1)[0].value, locals=_symbols(t))
    assert {x.name for x in answer.free_symbols} <= {s.name for s in t.symbols}
    for s in t.symbols:  # every symbol is introduced in the text
        assert s.name.split("_")[0] in t.text or (s.latex or "") in t.text, s.name


@pytest.mark.parametrize("tid", sorted(TEMPLATES))
def test_variants_are_distinct_problems_with_distinct_answers(tid: str) -> None:
    variants = vary(TEMPLATES[tid], 8, seed=0)
    assert len({v.question for v in variants}) == 8
    assert len({v.value for v in variants}) == 8
    assert all("{{" not in v.question and v.answer for v in variants)


@pytest.mark.parametrize("tid,params,expected", HAND_WORKED, ids=[f"{r[0]}-{i}" for i, r in enumerate(HAND_WORKED)])
def test_hand_worked_expression(tid: str, params: dict[str, str], expected: str) -> None:
    t = TEMPLATES[tid]
    syms = _symbols(t)
    got = sympy.sympify(_at(t, params).value, locals=syms)
    want = sympy.sympify(expected, locals=syms)
    assert _equivalent(got, want, list(syms)), (got, want)


@pytest.mark.parametrize("tid", sorted(NUMERICAL_CHECKS))
def test_numerical_check_without_closed_form(tid: str) -> None:
    t = TEMPLATES[tid]
    func, point, rel = NUMERICAL_CHECKS[tid]
    syms = _symbols(t)
    for v in vary(t, 3, seed=9):
        params = {name: float(text) for name, text in v.params.items()}
        closed = float(sympy.sympify(v.value, locals=syms).xreplace({syms[n]: x for n, x in point.items()}))
        assert func(params, point) == pytest.approx(closed, rel=rel), v.params

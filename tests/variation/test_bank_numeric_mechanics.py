"""The mechanics templates of the numeric bank: hand-worked values and closed-form-free numerics.

Each template has a HAND_WORKED row (arithmetic done step by step in the comment, not by calling the
template's formula) and a NUMERICAL_CHECKS row that recomputes the answer from the equations of
motion (solve_ivp), a defining equation (brentq) or an integral (quad), never from the closed form.
The generic checks (loading, 1,000 distinct valid variants, answer round-trips) live in
test_bank_numeric.py; run them for these ids with ``pytest tests/variation -k mech_``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from physeval.variation import load_template, vary
from physeval.variation.bank import BANK_DIR
from physeval.variation.engine import make_variant
from physeval.variation.plain import parse_written_number

G_N = 9.81  # every template here states g = 9.81 m/s^2 as a fixed parameter

# (template id, parameter values as written, answer in the answer's unit worked out by hand)
HAND_WORKED: list[tuple[str, dict[str, str], float]] = [
    # sin30 = 0.5, cos30 = 0.866025; mu cos = 0.173205; (0.5-0.173205)/(0.5+0.173205) = 0.485431;
    # sqrt = 0.696729; v = 6.00 * 0.696729 = 4.18037 m/s
    ("mech_incline_return_speed", {"v0": "6.00", "theta": "30", "mu": "0.20", "g": "9.81"}, 4.18037),
    # sin12 = 0.207912, cos12 = 0.978148; num = 0.207912 + 0.4*0.978148 = 0.599171;
    # den = 0.978148 - 0.4*0.207912 = 0.894983; ratio 0.669477; R g ratio = 1177.2*0.669477 = 788.109;
    # v = 28.0733 m/s = 101.064 km/h
    ("mech_banked_curve_max_speed", {"R": "120", "theta": "12", "mu": "0.40", "g": "9.81"}, 101.064),
    # F = 0.25*1.50*9.81 = 3.67875 N; F^2 = 13.5332; k m v0^2 = 400*1.5*9 = 5400; sqrt(5413.53) = 73.5767;
    # x = (73.5767 - 3.67875)/400 = 0.174745 m = 17.4745 cm
    ("mech_spring_friction_compression", {"m": "1.50", "v0": "3.00", "k": "400", "mu": "0.25", "g": "9.81"}, 17.4745),
    # m1 cos60 = 100 g; m1^2 sin^2 60 = 30000; sqrt(250000 - 30000) = 469.042;
    # v = 3.00 * (100 + 469.042)/700 = 2.43875 m/s
    ("mech_elastic_collision_2d", {"m1": "200", "v1": "3.00", "m2": "500", "phi": "60"}, 2.43875),
    # V = 0.010*400/2.51 = 1.593625 m/s; V^2 = 2.539642; /(2*9.81*1.50 = 29.43) = 0.0862943;
    # cos = 0.9137057 -> 23.9774 deg
    ("mech_ballistic_pendulum_angle", {"M": "2.50", "L": "1.50", "m": "10.0", "v": "400", "g": "9.81"}, 23.9774),
    # t = (7.00 + 20.0*0.110)/(3.5*0.10*9.81) = 9.2/3.4335 = 2.679482 s; 7*t = 18.75637;
    # mu g t^2/2 = 0.4905*7.179624 = 3.521604; d = 15.23477 m
    ("mech_bowling_ball_skid", {"v0": "7.00", "omega": "20.0", "R": "0.110", "mu": "0.10", "g": "9.81"}, 15.2348),
    # I = 1.2/3 + 0.08*0.5625 = 0.445; L = 0.08*8*0.75 = 0.48; KE*2 = L^2/I = 0.517753;
    # 2 g (M L/2 + m d) = 2*9.81*0.66 = 12.9492; cos = 1 - 0.0399834 = 0.9600166 -> 16.2568 deg
    ("mech_rod_putty_swing", {"M": "1.20", "L": "1.00", "m": "80.0", "v": "8.00", "d": "0.750", "g": "9.81"}, 16.2568),
    # I/m = 1/12 + 0.09 = 0.173333; g x = 2.943; ratio 0.0588968; sqrt = 0.242687; T = 2 pi * that = 1.524845 s
    ("mech_physical_pendulum_rod", {"L": "1.00", "x": "0.300", "g": "9.81"}, 1.524845),
    # w = 6 pi = 18.849556; m w^2 = 177.65288; k - m w^2 = 22.34712; b w = 28.274334;
    # sqrt(499.394 + 799.438) = 36.03931; A = 2/36.03931 m = 55.4950 mm
    ("mech_driven_damped_amplitude", {"m": "0.500", "k": "200", "b": "1.50", "F0": "2.00", "f": "3.00"}, 55.4950),
    # GM = 6.674e-11*5.97e24 = 3.984378e14; rp = 6.871e6 m; rp vp^2 = 4.9642975e14;
    # 2GM/(rp vp^2) = 1.6052132; ra = 6.871e6/0.6052132 = 1.1353023e7 m; h = 11353.02 - 6371 = 4982.02 km
    ("mech_orbit_apogee_altitude",
     {"hp": "500", "vp": "8.50", "M": "5.97e24", "R": "6371", "G": "6.674e-11"}, 4982.02),
    # x = 6371/1e5 = 0.06371; sqrt(r0^3/(2GM)) = sqrt(1e24/7.968756e14) = 35424.58 s;
    # acos(sqrt x) = 1.3156279, sqrt(x(1-x)) = 0.2442356; t = 35424.58*1.5598635 s = 15.3493 h
    ("mech_radial_fall_time", {"r0": "1.00e5", "M": "5.97e24", "R": "6371", "G": "6.674e-11"}, 15.3493),
    # 850 a = 1000 y + 700 (a - y) -> y = 10.0 * 150/300 = 5.00 cm
    ("mech_floating_interface", {"a": "10.0", "rho_c": "850", "rho_o": "700", "rho_w": "1000"}, 5.0),
    # r = (0.025/1.20)^2 = 4.340278e-4; sqrt 2 - sqrt 0.5 = 0.7071068; sqrt(2(1 - r^2)/9.81) = 0.4515236;
    # t = 0.7071068*0.4515236/4.340278e-4 = 735.610 s = 12.2602 min
    ("mech_tank_drain_time", {"D": "1.20", "d": "2.50", "h1": "2.00", "h2": "0.500", "g": "9.81"}, 12.2602),
    # vx = 15 cos40 = 11.490667, vy = 15 sin40 = 9.641814; vy^2 + 2gH = 92.96458 + 490.5 = 583.46458;
    # sqrt = 24.155012; t = 33.796826/9.81 = 3.445140 s; x = 11.490667*3.445140 = 39.5870 m
    ("mech_projectile_cliff", {"H": "25.0", "v0": "15.0", "theta": "40", "g": "9.81"}, 39.5870),
    # mf = 2.00 kg; ln 2.5 = 0.9162907; vb = 1099.5489 - 98.1 = 1001.4489 m/s;
    # hb = 12000 - 490.5 - 12000*(2/3)*0.9162907 = 4179.174 m; coast 1001.4489^2/19.62 = 51116.20 m;
    # H = 55295.37 m = 55.2954 km
    ("mech_rocket_max_altitude", {"m0": "5.00", "mp": "3.00", "tb": "10.0", "u": "1200", "g": "9.81"}, 55.2954),
    # L^2 - x0^2 = 4 - 0.36 = 3.64; mu (L - x0)^2 = 0.2*1.96 = 0.392; g*3.248/2 = 15.93144; v = 3.99142 m/s
    ("mech_chain_rough_table", {"L": "2.00", "x0": "0.600", "mu": "0.20", "g": "9.81"}, 3.99142),
    # cos th0 = 9.81/(144*0.2) = 0.340625; 1 - cos^2 = 0.8839746; Omega = 12*0.9401992 = 11.282391;
    # T = 2 pi/11.282391 = 0.556902 s
    ("mech_bead_rotating_hoop", {"R": "0.200", "omega": "12.0", "g": "9.81"}, 0.556902),
]

MY_IDS = sorted(row[0] for row in HAND_WORKED)


def _template(tid: str):
    return load_template(BANK_DIR / "numeric" / f"{tid}.yaml")


# --- numerical checks: written parameter values (floats, in the text's units) -> answer in the answer's unit


def _incline(p: dict[str, float]) -> float:
    th, mu, g = math.radians(p["theta"]), p["mu"], p["g"]
    stop = lambda t, y: y[1]  # noqa: E731
    stop.terminal, stop.direction = True, -1
    up = solve_ivp(lambda t, y: [y[1], -g * math.sin(th) - mu * g * math.cos(th)], (0, 100), [0.0, p["v0"]],
                   events=stop, rtol=1e-11, atol=1e-12)
    top = up.y_events[0][0][0]
    back = lambda t, y: y[0]  # noqa: E731
    back.terminal, back.direction = True, -1
    down = solve_ivp(lambda t, y: [y[1], -g * math.sin(th) + mu * g * math.cos(th)], (0, 1000), [top, 0.0],
                     events=back, rtol=1e-11, atol=1e-12)
    return abs(down.y_events[0][0][1])


def _banked(p: dict[str, float]) -> float:
    """Solve the 2x2 force balance for N and the friction f at speed v; find v where f = mu N."""
    th, mu, r, g = math.radians(p["theta"]), p["mu"], p["R"], p["g"]

    def excess(v: float) -> float:
        # unknowns (N, f), f pointing down the slope: horizontal -> centripetal, vertical -> balance
        a = np.array([[math.sin(th), math.cos(th)], [math.cos(th), -math.sin(th)]])
        n, f = np.linalg.solve(a, [v**2 / r, g])
        return f - mu * n

    return brentq(excess, math.sqrt(g * r * math.tan(th)) + 1e-9, 1e3, xtol=1e-13, rtol=1e-14) * 3.6


def _spring(p: dict[str, float]) -> float:
    m, k, f = p["m"], p["k"], p["mu"] * p["m"] * p["g"]
    stop = lambda t, y: y[1]  # noqa: E731
    stop.terminal, stop.direction = True, -1
    sol = solve_ivp(lambda t, y: [y[1], (-k * y[0] - f) / m], (0, 100), [0.0, p["v0"]], events=stop,
                    rtol=1e-11, atol=1e-13)
    return sol.y_events[0][0][0] * 100


def _elastic_2d(p: dict[str, float]) -> float:
    """Momentum fixes puck 2's momentum for a trial final speed u; energy conservation picks u."""
    m1, m2, v1, phi = p["m1"] / 1e3, p["m2"] / 1e3, p["v1"], math.radians(p["phi"])

    def energy_gap(u: float) -> float:
        p2 = np.array([m1 * v1, 0.0]) - m1 * u * np.array([math.cos(phi), math.sin(phi)])
        return 0.5 * m1 * v1**2 - 0.5 * m1 * u**2 - p2 @ p2 / (2 * m2)

    return brentq(energy_gap, 0.0, v1, xtol=1e-14, rtol=1e-14)


def _ballistic(p: dict[str, float]) -> float:
    m, big_m, g, length = p["m"] / 1e3, p["M"], p["g"], p["L"]
    speed = m * p["v"] / (m + big_m)  # momentum conservation during the short impact
    top = lambda t, y: y[1]  # noqa: E731
    top.terminal, top.direction = True, -1
    sol = solve_ivp(lambda t, y: [y[1], -g / length * math.sin(y[0])], (0, 100), [0.0, speed / length],
                    events=top, rtol=1e-11, atol=1e-13)
    return math.degrees(sol.y_events[0][0][0])


def _bowling(p: dict[str, float]) -> float:
    """Integrate slide + spin-up (I = 2/5 M R^2) until the contact point stops slipping."""
    mu, g, r = p["mu"], p["g"], p["R"]
    roll = lambda t, y: y[1] - y[2] * r  # noqa: E731
    roll.terminal = True
    rhs = lambda t, y: [y[1], -mu * g, mu * g * r / (0.4 * r**2)]  # noqa: E731
    sol = solve_ivp(rhs, (0, 1000), [0.0, p["v0"], -p["omega"]], events=roll, rtol=1e-11, atol=1e-12)
    return sol.y_events[0][0][0]


def _rod_putty(p: dict[str, float]) -> float:
    big_m, length, m, d, g = p["M"], p["L"], p["m"] / 1e3, p["d"], p["g"]
    rod_inertia, _ = quad(lambda s: big_m / length * s**2, 0, length, epsabs=0, epsrel=1e-13)
    inertia = rod_inertia + m * d**2
    omega = m * p["v"] * d / inertia  # angular momentum about the pivot
    torque = big_m * g * length / 2 + m * g * d
    top = lambda t, y: y[1]  # noqa: E731
    top.terminal, top.direction = True, -1
    sol = solve_ivp(lambda t, y: [y[1], -torque / inertia * math.sin(y[0])], (0, 100), [0.0, omega],
                    events=top, rtol=1e-11, atol=1e-13)
    return math.degrees(sol.y_events[0][0][0])


def _period_from_crossings(rhs: Callable, y0: list[float], centre: float, t_max: float) -> float:
    cross = lambda t, y: y[0] - centre  # noqa: E731
    cross.direction, cross.terminal = -1, 2  # stop at the second downward crossing
    sol = solve_ivp(rhs, (0, t_max), y0, events=cross, rtol=1e-11, atol=1e-14)
    t1, t2 = sol.t_events[0][:2]
    return t2 - t1


def _physical_pendulum(p: dict[str, float]) -> float:
    length, x, g = p["L"], p["x"], p["g"]
    lam = 1.0 / length  # unit mass
    inertia, _ = quad(lambda s: lam * (s - x) ** 2, -length / 2, length / 2, epsabs=0, epsrel=1e-13)
    amp = 1e-4  # small enough that the amplitude correction (amp^2/16) is far below the tolerance
    rhs = lambda t, y: [y[1], -g * x / inertia * math.sin(y[0])]  # noqa: E731
    return _period_from_crossings(rhs, [amp, 0.0], 0.0, 50.0)


def _driven(p: dict[str, float]) -> float:
    """Find the periodic orbit by shooting over one drive period (the period map is affine), then
    read the amplitude of that orbit off a fine grid."""
    m, k, b, f0, w = p["m"], p["k"], p["b"], p["F0"], 2 * math.pi * p["f"]
    period = 2 * math.pi / w
    rhs = lambda t, y: [y[1], (f0 * math.cos(w * t) - b * y[1] - k * y[0]) / m]  # noqa: E731

    def flow(y0: list[float]) -> np.ndarray:
        return solve_ivp(rhs, (0, period), y0, rtol=1e-12, atol=1e-15).y[:, -1]

    c = flow([0.0, 0.0])
    phi = np.column_stack([flow([1.0, 0.0]) - c, flow([0.0, 1.0]) - c])
    start = np.linalg.solve(np.eye(2) - phi, c)
    orbit = solve_ivp(rhs, (0, period), start, dense_output=True, rtol=1e-12, atol=1e-15)
    xs = orbit.sol(np.linspace(0, period, 40001))[0]
    return float(np.max(np.abs(xs))) * 1e3


def _orbit(p: dict[str, float]) -> float:
    gm, big_r = p["G"] * p["M"], p["R"] * 1e3
    rp = big_r + p["hp"] * 1e3

    def rhs(t, y):
        r3 = (y[0] ** 2 + y[1] ** 2) ** 1.5
        return [y[2], y[3], -gm * y[0] / r3, -gm * y[1] / r3]

    apo = lambda t, y: y[0] * y[2] + y[1] * y[3]  # noqa: E731  radial velocity * r
    apo.terminal, apo.direction = True, -1
    sol = solve_ivp(rhs, (0, 1e7), [rp, 0.0, 0.0, p["vp"] * 1e3], events=apo, method="DOP853",
                    rtol=1e-12, atol=1e-6)
    x, y = sol.y_events[0][0][:2]
    return (math.hypot(x, y) - big_r) / 1e3


def _radial_fall(p: dict[str, float]) -> float:
    gm, big_r = p["G"] * p["M"], p["R"] * 1e3
    land = lambda t, y: y[0] - big_r  # noqa: E731
    land.terminal = True
    sol = solve_ivp(lambda t, y: [y[1], -gm / y[0] ** 2], (0, 1e8), [p["r0"] * 1e3, 0.0], events=land,
                    method="DOP853", rtol=1e-12, atol=1e-6)
    return sol.t_events[0][0] / 3600


def _floating(p: dict[str, float]) -> float:
    """Buoyancy = (pressure under the cube - pressure on top) * area, pressures by integrating rho g dz."""
    a, rc, ro, rw, g = p["a"] / 100, p["rho_c"], p["rho_o"], p["rho_w"], G_N
    oil_depth = 3 * a  # oil surface to interface; cancels out

    def pressure(depth: float) -> float:  # gauge pressure at depth below the oil surface
        rho = lambda z: ro if z < oil_depth else rw  # noqa: E731
        val, _ = quad(lambda z: rho(z) * g, 0, depth, points=[oil_depth] if depth > oil_depth else None,
                      epsabs=0, epsrel=1e-13)
        return val

    def net_up(y: float) -> float:  # y = depth of the bottom face below the interface
        bottom = oil_depth + y
        return (pressure(bottom) - pressure(bottom - a)) * a**2 - rc * a**3 * g

    return brentq(net_up, 1e-12, a - 1e-12, xtol=1e-15, rtol=1e-14) * 100


def _tank(p: dict[str, float]) -> float:
    big_a, small_a, g = math.pi * p["D"] ** 2 / 4, math.pi * (p["d"] / 100) ** 2 / 4, p["g"]

    def rhs(t, y):
        # Bernoulli surface -> jet with continuity v_s A = v_j a: v_j^2 - v_s^2 = 2 g h
        v_jet = math.sqrt(2 * g * max(y[0], 0.0) / (1 - (small_a / big_a) ** 2))
        return [-small_a / big_a * v_jet]

    reach = lambda t, y: y[0] - p["h2"]  # noqa: E731
    reach.terminal = True
    sol = solve_ivp(rhs, (0, 1e7), [p["h1"]], events=reach, rtol=1e-11, atol=1e-13)
    return sol.t_events[0][0] / 60


def _cliff(p: dict[str, float]) -> float:
    th, g, v0 = math.radians(p["theta"]), p["g"], p["v0"]
    splash = lambda t, y: y[1] + p["H"]  # noqa: E731
    splash.terminal, splash.direction = True, -1
    sol = solve_ivp(lambda t, y: [y[2], y[3], 0.0, -g], (0, 100), [0, 0, v0 * math.cos(th), v0 * math.sin(th)],
                    events=splash, rtol=1e-11, atol=1e-12)
    return sol.y_events[0][0][0]


def _rocket(p: dict[str, float]) -> float:
    m0, mp, tb, u, g = p["m0"], p["mp"], p["tb"], p["u"], p["g"]
    rate = mp / tb
    # burn: d(m v)/dt with thrust u*rate and weight m g; state (h, v, m)
    burn = solve_ivp(lambda t, y: [y[1], u * rate / y[2] - g, -rate], (0, tb), [0.0, 0.0, m0],
                     rtol=1e-12, atol=1e-10)
    h_b, v_b, _ = burn.y[:, -1]
    apex = lambda t, y: y[1]  # noqa: E731
    apex.terminal, apex.direction = True, -1
    coast = solve_ivp(lambda t, y: [y[1], -g], (0, 1e4), [h_b, v_b], events=apex, rtol=1e-12, atol=1e-10)
    return coast.y_events[0][0][0] / 1e3


def _chain(p: dict[str, float]) -> float:
    length, mu, g = p["L"], p["mu"], p["g"]
    off = lambda t, y: y[0] - length  # noqa: E731
    off.terminal = True
    rhs = lambda t, y: [y[1], (g * y[0] - mu * g * (length - y[0])) / length]  # noqa: E731
    sol = solve_ivp(rhs, (0, 100), [p["x0"], 0.0], events=off, rtol=1e-11, atol=1e-13)
    return sol.y_events[0][0][1]


def _bead(p: dict[str, float]) -> float:
    """Equilibrium by brentq on the rotating-frame force, period by integrating a small oscillation."""
    w, r, g = p["omega"], p["R"], p["g"]
    accel = lambda th: math.sin(th) * (w**2 * math.cos(th) - g / r)  # noqa: E731
    th0 = brentq(accel, 1e-6, math.pi / 2 - 1e-12, xtol=1e-15)
    rhs = lambda t, y: [y[1], accel(y[0])]  # noqa: E731
    return _period_from_crossings(rhs, [th0 + 1e-5, 0.0], th0, 50.0)


# template id -> function(written parameter values as floats) -> answer in the answer's unit
NUMERICAL_CHECKS: dict[str, Callable[[dict[str, float]], float]] = {
    "mech_incline_return_speed": _incline,
    "mech_banked_curve_max_speed": _banked,
    "mech_spring_friction_compression": _spring,
    "mech_elastic_collision_2d": _elastic_2d,
    "mech_ballistic_pendulum_angle": _ballistic,
    "mech_bowling_ball_skid": _bowling,
    "mech_rod_putty_swing": _rod_putty,
    "mech_physical_pendulum_rod": _physical_pendulum,
    "mech_driven_damped_amplitude": _driven,
    "mech_orbit_apogee_altitude": _orbit,
    "mech_radial_fall_time": _radial_fall,
    "mech_floating_interface": _floating,
    "mech_tank_drain_time": _tank,
    "mech_projectile_cliff": _cliff,
    "mech_rocket_max_altitude": _rocket,
    "mech_chain_rough_table": _chain,
    "mech_bead_rotating_hoop": _bead,
}


def test_every_mechanics_template_of_this_file_exists_and_is_spread_over_levels() -> None:
    templates = [_template(tid) for tid in MY_IDS]
    assert all(t.domain == "mechanics" and t.kind == "numeric" for t in templates)
    levels = [t.level for t in templates]
    assert levels.count("olympiad") >= 3
    assert {"high_school", "first_year", "second_year", "olympiad"} <= set(levels)
    assert set(NUMERICAL_CHECKS) <= set(MY_IDS)


@pytest.mark.parametrize("tid,params,expected", HAND_WORKED, ids=[r[0] for r in HAND_WORKED])
def test_hand_worked_value(tid: str, params: dict[str, str], expected: float) -> None:
    t = _template(tid)
    values = [parse_written_number(params[p.name]) for p in t.parameters]
    variant = make_variant(t, 0, values)
    assert float(variant.value) == pytest.approx(expected, rel=1e-4)


@pytest.mark.parametrize("tid", sorted(NUMERICAL_CHECKS))
def test_numerical_check_without_closed_form(tid: str) -> None:
    t = _template(tid)
    for v in vary(t, 5, seed=11):
        params = {name: float(parse_written_number(text)) for name, text in v.params.items()}
        assert NUMERICAL_CHECKS[tid](params) == pytest.approx(float(v.value), rel=1e-6), v.params


def test_numerical_checks_can_fail() -> None:
    """The checks are sharp: dropping the friction from the chain's equation of motion is caught."""
    v = vary(_template("mech_chain_rough_table"), 2, seed=3)[1]
    params = {name: float(parse_written_number(text)) for name, text in v.params.items()}
    frictionless = dict(params, mu=0.0)
    assert _chain(frictionless) != pytest.approx(float(v.value), rel=1e-3)

"""template_from_plain's options: physical constants the text does not state, SI ranges, integer
parameters and fixed constants; without them the conversion behaves as before."""

from __future__ import annotations

from decimal import Decimal

import pytest

from physeval.variation import find_constants, template_from_plain
from physeval.variation.plain import recompute

SUFFIX = r" (Results should be expressed with units of $ \mathrm{\;s} $,and rounded to 3 significant figures)"
FALL = r"A stone is dropped from a height of \( h = 20.0\,\mathrm{m} \). How long does it fall?" + SUFFIX
# t = sqrt(2 h / g): 2.02 s with g = 9.8 m/s^2, 2.019 s with standard gravity


def _values(question: str) -> dict[str, Decimal]:
    return {c.name: c.value for c in find_constants(question)}


def test_a_named_physical_constant_is_fixed_and_available_to_the_solution() -> None:
    conv = template_from_plain(FALL, "2.02", "sqrt(2*h/g)", constants={"g": "9.8 m/s^2"})
    assert conv.ok, conv.reason
    assert conv.recomputed == pytest.approx(2.0203, rel=1e-4)
    assert [c.name for c in conv.template.constants] == ["g"]
    for variant in conv.vary(6, seed=3):
        h = float(_values(variant.question)["h"])
        assert float(variant.value) == pytest.approx((2 * h / 9.8) ** 0.5, rel=1e-9)


def test_a_builtin_constant_by_name_and_recompute_with_constants() -> None:
    value, reason = recompute(FALL, "sqrt(2*h/g)", constants={"g": "standard_gravity"})
    assert reason == "" and float(value) == pytest.approx((40 / 9.80665) ** 0.5, rel=1e-12)
    value, reason = recompute(FALL, "sqrt(2*h/g)")
    assert value is None and "g" in reason  # without the option g is an unknown name


@pytest.mark.parametrize("constants,needle", [
    ({"g": "9.8 blorgs"}, "constants.g"),
    ({"h": "9.8 m/s^2"}, "the question itself has a constant called 'h'"),
    ({"g": "gravity_of_mars"}, "neither 'VALUE UNIT' nor one of"),
])
def test_bad_constants_are_reported_by_name(constants: dict[str, str], needle: str) -> None:
    conv = template_from_plain(FALL, "2.02", "sqrt(2*h/g)", constants=constants)
    assert not conv.ok and needle in conv.reason


def test_ranges_narrow_a_parameter_in_si_units() -> None:
    q = r"A cart covers \( d = 150\,\mathrm{cm} \) at \( v = 0.50\,\mathrm{m/s} \). How long does it take?" + SUFFIX
    conv = template_from_plain(q, "3.00", "d/v", ranges={"d": [1.4, 1.6]})
    assert conv.ok, conv.reason
    d = conv.template.parameter("d")
    assert (d.rule, d.low, d.high) == ("range", Decimal(140), Decimal(160))  # cm, the written unit
    seen = {float(_values(v.question)["d"]) for v in conv.vary(20, seed=1)}
    assert len(seen) > 3 and all(140 <= x <= 160 for x in seen)


def test_a_range_that_excludes_the_question_itself_is_refused() -> None:
    conv = template_from_plain(FALL, "2.02", "sqrt(2*h/g)", constants={"g": "9.8 m/s^2"}, ranges={"h": [25, 30]})
    assert not conv.ok and "ranges.h" in conv.reason


def test_a_range_on_a_step_or_the_answer_becomes_a_constraint() -> None:
    q = (r"A ball is thrown up at \( v = 10.0\,\mathrm{m/s} \) from a balcony \( H = 5.0\,\mathrm{m} \) high;"
         r" a ceiling is \( L = 6.0\,\mathrm{m} \) above it. How long until it lands?" + SUFFIX)
    steps = ["top = v**2/(2*g)", "(v + sqrt(v**2 + 2*g*H))/g"]
    conv = template_from_plain(q, "2.46", steps, constants={"g": "9.8 m/s^2"}, ranges={"top": [None, 6.0]})
    assert conv.ok, conv.reason
    assert len(conv.template.constraints) == 1
    for variant in conv.vary(30, seed=2):
        v = float(_values(variant.question)["v"])
        assert v**2 / (2 * 9.8) <= 6.0  # the ball never reaches the ceiling


def test_integers_are_drawn_as_integers_and_fixed_constants_stay() -> None:
    q = (r"A string carries 3 loops of a standing wave of speed \( v = 120\,\mathrm{m/s} \)"
         r" on a length of \( L = 0.60\,\mathrm{m} \). Find the period." + SUFFIX)
    conv = template_from_plain(q, "3.33e-3", "2*L/(c1*v)", integers=["c1"], fixed=["v"])
    assert conv.ok, conv.reason
    assert conv.template.parameter("c1").decimals == 0 and "v" not in {p.name for p in conv.template.parameters}
    variants = conv.vary(20, seed=0)
    counts = {_values(v.question)["c1"] for v in variants}
    assert counts <= {Decimal(n) for n in (1, 2, 3, 4)} and len(counts) > 1
    assert {_values(v.question)["v"] for v in variants} == {Decimal(120)}


def test_draws_widen_a_few_valued_integer_to_its_interval() -> None:
    q = "一个物体从静止状态开始做自由落体运动，求其在第2秒末的瞬时速度。 (结果保留4位有效数字)"
    conv = template_from_plain(q, "19.6", "g*c1", constants={"g": "9.8 m/s^2"}, integers=["c1"],
                               draws={"c1": [1, 12]})
    assert conv.ok, conv.reason
    seconds = {int(v.params["c1"]) for v in conv.vary(10, seed=0)}
    assert seconds <= set(range(1, 13)) and len(seconds) == 10  # +/- 30 % of 2 s would give 1, 2, 3 only
    assert not template_from_plain(q, "19.6", "g*c1", constants={"g": "9.8 m/s^2"}, integers=["c1"],
                                   draws={"c1": [3, 12]}).ok  # the question's own 2 s must be inside


def test_options_naming_nothing_are_errors() -> None:
    conv = template_from_plain(FALL, "2.02", "sqrt(2*h/g)", constants={"g": "9.8 m/s^2"}, integers=["x"])
    assert not conv.ok and "integers: 'x' names no constant" in conv.reason


def test_no_options_keep_the_old_behaviour() -> None:
    q = r"A cart covers \( d = 150\,\mathrm{cm} \) at \( v = 0.50\,\mathrm{m/s} \). How long does it take?" + SUFFIX
    conv = template_from_plain(q, "3.00", "d/v")
    assert conv.ok and all(p.rule == "perturb" for p in conv.template.parameters)
    assert conv.template.constraints == () and conv.template.constants == ()


def test_continuous_quantities_written_as_integers_get_decimals() -> None:
    q = r"A clock at rest reads \( 4\,\mathrm{s} \) between two ticks; a moving observer measures \( 5\,\mathrm{s} \)." + SUFFIX
    conv = template_from_plain(q, "0.600", "sqrt(1 - (c1/c2)**2)", continuous=["c1", "c2"],
                               ranges={"c1": [None, 4.4], "c2": [4.6, None]})
    assert conv.ok, conv.reason
    assert [p.sig_figs for p in conv.template.parameters] == [2, 2]
    assert len({v.question for v in conv.vary(12, seed=5)}) == 12


def test_answer_unit_applies_only_when_the_instruction_names_none() -> None:
    bare = r"A wave runs \( 8000\,\mathrm{km} \) at \( 740\,\mathrm{km/h} \). How long does it take? (结果保留3位有效数字)"
    assert float(recompute(bare, "c1/c2", answer_unit="h")[0]) == pytest.approx(10.81, rel=1e-3)
    assert float(recompute(bare, "c1/c2")[0]) == pytest.approx(10.81 * 3600, rel=1e-3)  # SI without it
    assert float(recompute(FALL, "sqrt(2*h/g)", constants={"g": "9.8 m/s^2"}, answer_unit="h")[0]) == \
        pytest.approx(2.0203, rel=1e-4)  # the instruction's own unit (s) wins


def test_coefficients_that_are_data_can_be_varied() -> None:
    q = (r"A standing wave \( y = 0.03 \cos(1.6\pi x) \cos(550\pi t) \) (SI units). Find the wave speed."
         r" (Results should be expressed with units of $ \mathrm{m/s} $,and rounded to 4 significant figures)")
    assert not template_from_plain(q, "343.8", "c3/c2").template.varying  # coefficients stay by default
    conv = template_from_plain(q, "343.8", "c3/c2*one", constants={"one": "1 m/s"}, vary_coefficients=["c2", "c3"])
    assert conv.ok, conv.reason
    for variant in conv.vary(6, seed=0):
        consts = {c.name: float(c.value) for c in find_constants(variant.question)}
        assert float(variant.value) == pytest.approx(consts["c3"] / consts["c2"], rel=1e-9)

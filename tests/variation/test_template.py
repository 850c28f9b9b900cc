"""The template format: a valid template loads; each kind of mistake is reported with its field."""

from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from physeval.variation import TemplateError, load_template
from physeval.variation.solution import template_from_dict


def _valid() -> dict[str, Any]:
    return {
        "id": "mech_test_fall",
        "kind": "numeric",
        "domain": "mechanics",
        "topic": "free fall",
        "level": "high_school",
        "text": r"A ball is dropped from a height \( h = {{h}}\,\mathrm{m} \) with \( g = {{g}}\,\mathrm{m/s^2} \). How long does it fall?",
        "parameters": {
            "h": {"value": "20.0", "unit": "m", "sig_figs": 3, "range": [1, 100]},
            "g": {"value": "9.81", "unit": "m/s**2", "sig_figs": 3, "fixed": True},
        },
        "solution": "sqrt(2*h/g)",
        "answer": {"unit": "s", "sig_figs": 3},
    }


def _errors(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(TemplateError) as info:
        template_from_dict(data)
    return dict(info.value.problems)


def _mutated(path: str, value: Any) -> dict[str, Any]:
    data = copy.deepcopy(_valid())
    target = data
    keys = path.split(".")
    for key in keys[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return data


_DELETE = object()


def test_valid_template_loads_with_typed_fields() -> None:
    t = template_from_dict(_valid())
    assert t.id == "mech_test_fall" and t.kind == "numeric"
    assert t.parameter("h").value == Decimal("20.0") and t.parameter("h").rule == "range"
    assert [p.name for p in t.varying] == ["h"]
    assert t.answer.unit_latex == r"\mathrm{s}"


def test_load_from_yaml_text_and_file(tmp_path: Path) -> None:
    import yaml

    text = yaml.safe_dump(_valid())
    assert load_template(text).id == "mech_test_fall"
    path = tmp_path / "mech_test_fall.yaml"
    path.write_text(text, encoding="utf-8")
    assert load_template(path).path == str(path)
    wrong = tmp_path / "other_name.yaml"
    wrong.write_text(text, encoding="utf-8")
    with pytest.raises(TemplateError, match="must equal the file name"):
        load_template(wrong)


@pytest.mark.parametrize(
    "path,value,field,fragment",
    [
        ("colour", "red", "colour", "unknown field"),
        ("id", "Bad-Id", "id", "lower_snake_case"),
        ("kind", "essay", "kind", "numeric or symbolic"),
        ("domain", "biology", "domain", "expected one of"),
        ("level", "phd", "level", "expected one of"),
        ("topic", "", "topic", "non-empty"),
        ("parameters.h.sig_figs", _DELETE, "parameters.h", "exactly one of sig_figs"),
        ("parameters.h.range", [100, 1], "parameters.h.range", "must be below high"),
        ("parameters.h.range", [1, 10], "parameters.h.value", "outside range"),
        ("parameters.h.value", "20.05", "parameters.h.value", "not written exactly"),
        ("parameters.h.value", "twenty", "parameters.h.value", "not a number"),
        ("parameters.h.unit", "blorps", "parameters.h.unit", "pint cannot read"),
        ("parameters.h.perturb", "0.2", "parameters.h", "exactly one sampling rule"),
        ("parameters.h.distribution", "gaussian", "parameters.h.distribution", "uniform or log"),
        ("parameters.h.speed", 3, "parameters.h.speed", "unknown field"),
        ("answer.sig_figs", 0, "answer.sig_figs", "integer from 1 to 10"),
        ("answer.unit", "kg", "answer", "dimension"),
        ("solution", "sqrt(2*h/g) + x", "solution", "unknown name"),
        ("solution", "foo(h)", "solution", "unknown function"),
        ("solution", "sqrt(2*h/g) + h", "solution", "cannot add"),
        ("text", "How long does a ball fall from {{h}} m?", "parameters.g", "never shown in text"),
        ("text", "From {{h}} m with g = {{g}} and {{k}}?", "text", "names no parameter"),
        ("text", "From {{h}} m, g = {{g}}. (Results should be expressed and rounded to 2 significant figures)", "text", "appends it"),
        ("constraints", ["h < g"], "constraints[0]", "compares length with length/time**2"),
        ("constraints", ["h + 1"], "constraints[0]", "not a comparison"),
        ("constraints", ["h > 50"], "constraints", "canonical values are not a valid variant"),
    ],
)
def test_each_mistake_names_its_field(path: str, value: Any, field: str, fragment: str) -> None:
    problems = _errors(_mutated(path, value))
    assert field in problems, problems
    assert fragment in problems[field], problems[field]


def test_every_problem_of_a_file_is_reported_together() -> None:
    data = _valid()
    data["domain"] = "biology"
    data["parameters"]["h"]["range"] = [100, 1]
    data["answer"]["sig_figs"] = 99
    problems = _errors(data)
    assert {"domain", "parameters.h.range", "answer.sig_figs"} <= set(problems)


def test_error_message_lists_fields_one_per_line() -> None:
    data = _mutated("parameters.h.range", [100, 1])
    with pytest.raises(TemplateError) as info:
        template_from_dict(data)
    assert "parameters.h.range: low 100 must be below high 1" in str(info.value)


def test_chain_of_equations_and_constants() -> None:
    data = _valid()
    data["solution"] = ["v = sqrt(2*g*h)", "t = v/g", "t"]
    t = template_from_dict(data)
    assert t.compiled is not None
    data["constants"] = {"c": "speed_of_light", "k": {"value": "0.5", "unit": ""}}
    data["solution"] = "k*2*sqrt(2*h/g) + h/c"
    assert template_from_dict(data).constants[0].builtin == "speed_of_light"
    data["constants"] = {"c": "speed_of_lite"}
    assert "unknown built-in" in _errors(data)["constants.c"]


def test_reserved_and_duplicate_names() -> None:
    data = _valid()
    data["parameters"]["lambda"] = {"value": "1.0", "sig_figs": 2, "fixed": True}
    assert "reserved" in _errors(data)["parameters.lambda"]
    data = _valid()
    data["constants"] = {"h": {"value": "1", "unit": "m"}}
    assert "declared twice" in _errors(data)["h"]


def test_symbolic_template_rules() -> None:
    data = {
        "id": "sym_test", "kind": "symbolic", "domain": "mechanics", "topic": "fall", "level": "high_school",
        "text": r"A ball falls from \( h/{{k}} \). Find the time.", "symbols": {"h": "length", "g": "length/time**2"},
        "parameters": {"k": {"value": "2", "decimals": 0, "range": [2, 9]}},
        "solution": "sqrt(2*h/(k*g))", "answer": {"dimension": "time"},
    }
    assert template_from_dict(data).symbols[0].dimension == "length"
    bad = copy.deepcopy(data)
    bad["answer"] = {"dimension": "length"}
    assert "dimension" in _errors(bad)["answer"]
    bad = copy.deepcopy(data)
    bad["symbols"] = {}
    assert "declares its symbols" in _errors(bad)["symbols"]
    bad = copy.deepcopy(data)
    bad["symbols"]["h"] = "lenght"
    assert "cannot read dimension" in _errors(bad)["symbols.h.dimension"]
    bad = copy.deepcopy(data)
    bad["parameters"]["k"]["unit"] = "m"
    assert "dimensionless" in _errors(bad)["parameters.k.unit"]


def test_degrees_and_offset_units_convert_exactly() -> None:
    data = _valid()
    data["text"] = r"Gas at \( {{T}}\,^\circ\mathrm{C} \) on a slope of \( {{a}}^\circ \)."
    data["parameters"] = {
        "T": {"value": "27", "unit": "degC", "decimals": 0, "range": [0, 100]},
        "a": {"value": "30", "unit": "degree", "decimals": 0, "range": [10, 80]},
    }
    data["solution"] = "T*sin(a)"
    data["answer"] = {"unit": "K", "sig_figs": 4}
    from physeval.variation import vary

    assert vary(template_from_dict(data), 1)[0].answer == "150.1"  # 300.15 K * 1/2

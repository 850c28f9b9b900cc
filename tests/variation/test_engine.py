"""The variation engine: canonical variant 0, seeded determinism (also across processes), constraints,
exact rounding and clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import Decimal
from typing import Any

import pytest

from physeval.variation import SamplingError, Variant, bank_problems, vary, vary_command
from physeval.variation.sampling import UniformStream, derive_key
from physeval.variation.solution import template_from_dict
from physeval.variation.writing import abench_suffix, round_sig, write_plain, write_scientific


def _template(**changes: Any):
    data = {
        "id": "mech_engine_fall",
        "kind": "numeric",
        "domain": "mechanics",
        "topic": "free fall",
        "level": "high_school",
        "text": r"A ball is dropped from \( h = {{h}}\,\mathrm{m} \) (take \( g = {{g}}\,\mathrm{m/s^2} \)). Find its speed on landing.",
        "parameters": {
            "h": {"value": "20.0", "unit": "m", "sig_figs": 3, "range": [1, 100]},
            "g": {"value": "9.81", "unit": "m/s**2", "sig_figs": 3, "fixed": True},
        },
        "solution": "sqrt(2*g*h)",
        "answer": {"unit": "m/s", "sig_figs": 3},
    }
    data.update(changes)
    return template_from_dict(data)


def test_variant_zero_uses_the_canonical_values() -> None:
    v0 = vary(_template(), 1)[0]
    assert isinstance(v0, Variant) and v0.index == 0
    assert v0.params == {"h": "20.0", "g": "9.81"}
    assert v0.answer == "19.8"  # sqrt(2 * 9.81 * 20) = 19.809
    assert v0.question.endswith(
        r"Find its speed on landing. (Results should be expressed with units of $ \mathrm{m/s} $,and rounded to 3 significant figures)"
    )
    assert v0.meta["unit"] == "m/s" and v0.meta["sig_figs"] == 3 and v0.meta["language"] == "en"


def test_same_seed_same_variants_and_prefix_property() -> None:
    t = _template()
    a = [v.to_dict() for v in vary(t, 20, seed=5)]
    b = [v.to_dict() for v in vary(t, 20, seed=5)]
    c = [v.to_dict() for v in vary(t, 4, seed=5)]
    d = [v.to_dict() for v in vary(t, 20, seed=6)]
    assert a == b and a[:4] == c
    assert a[1:] != d[1:] and a[0] == d[0]


def test_variants_are_distinct_and_in_range() -> None:
    variants = vary(_template(), 200, seed=1)
    assert len({v.params["h"] for v in variants}) == 200
    assert all(1 <= Decimal(v.params["h"]) <= 100 for v in variants)
    assert all(v.params["g"] == "9.81" for v in variants)


def test_determinism_across_processes() -> None:
    code = (
        "import json; from physeval.variation import vary_command; "
        "print(json.dumps(vary_command('mech_projectile_range', 6, 42), sort_keys=True))"
    )
    outputs = []
    for hash_seed in ("1", "2"):  # different str hashing must not matter
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert json.loads(outputs[0]) == vary_command("mech_projectile_range", 6, 42)


def test_stream_is_fixed_by_its_key() -> None:
    stream = UniformStream(derive_key(0, "x", 1))
    first = [stream.random() for _ in range(10)]
    assert first == [UniformStream(derive_key(0, "x", 1)).random() for _ in range(1)] + first[1:]
    assert all(0 <= u < 1 for u in first)
    # a golden value: changing the stream changes every published variant, so it must be deliberate
    assert derive_key(0, "mech_projectile_range", 1).hex()[:16] == derive_key(0, "mech_projectile_range", 1).hex()[:16]
    assert vary("mech_projectile_range", 2, 0)[1].params == {"v0": "58.5", "theta": "49", "g": "9.81"}


def test_constraints_are_respected() -> None:
    t = _template(constraints=["h < 30"], parameters={
        "h": {"value": "20.0", "unit": "m", "sig_figs": 3, "range": [1, 100]},
        "g": {"value": "9.81", "unit": "m/s**2", "sig_figs": 3, "fixed": True},
    })
    assert all(Decimal(v.params["h"]) < 30 for v in vary(t, 300, seed=2))


def test_impossible_constraints_raise_a_clear_error() -> None:
    t = _template(constraints=["h < 20.05", "h > 19.95"], max_tries=50)
    with pytest.raises(SamplingError, match=r"no valid new parameter set for variant 1 .* constraint 'h"):
        vary(t, 3, seed=0)


def test_exhausted_space_raises() -> None:
    t = _template(parameters={
        "h": {"value": "2", "unit": "m", "decimals": 0, "choices": ["2", "8"]},
        "g": {"value": "9.81", "unit": "m/s**2", "sig_figs": 3, "fixed": True},
    })
    assert [v.answer for v in vary(t, 2)] == ["6.26", "12.5"]
    with pytest.raises(SamplingError, match="repeats an earlier variant"):
        vary(t, 3)


def test_fixed_only_template_has_one_variant() -> None:
    t = _template(parameters={
        "h": {"value": "20.0", "unit": "m", "sig_figs": 3, "fixed": True},
        "g": {"value": "9.81", "unit": "m/s**2", "sig_figs": 3, "fixed": True},
    })
    assert len(vary(t, 1)) == 1
    with pytest.raises(SamplingError, match="no parameter varies"):
        vary(t, 2)


def test_invalid_draws_are_rejected_not_written() -> None:
    # sqrt of a negative number for h < 5: such draws must be redrawn, never written as complex
    t = _template(solution="sqrt(2*g*(h - h0))", constants={"h0": {"value": "5", "unit": "m"}}, parameters={
        "h": {"value": "8.00", "unit": "m", "sig_figs": 3, "range": [1, 10]},
        "g": {"value": "9.81", "unit": "m/s**2", "sig_figs": 3, "fixed": True},
    })
    for v in vary(t, 100, seed=3)[1:]:
        assert Decimal(v.params["h"]) > 5


def test_rounding_is_half_up_and_exact() -> None:
    # 0.125 m/s * 1 = exactly 0.125: two significant figures -> 0.13 (binary floats would give 0.12)
    t = _template(text="Speed {{v}} m/s.", solution="v", parameters={
        "v": {"value": "0.125", "unit": "m/s", "sig_figs": 3, "range": ["0.1", "0.9"]}},
        answer={"unit": "m/s", "sig_figs": 2})
    assert vary(t, 1)[0].answer == "0.13"
    # 2.675 rounds to 2.68 (float repr 2.67499999... would give 2.67)
    t = _template(text="Speed {{v}} m/s.", solution="v", parameters={
        "v": {"value": "2.675", "unit": "m/s", "sig_figs": 4, "range": ["1", "9"]}},
        answer={"unit": "m/s", "sig_figs": 3})
    assert vary(t, 1)[0].answer == "2.68"


def test_units_are_converted_to_the_answer_unit() -> None:
    t = _template(text="A car at {{v}} km/h.", solution="v", parameters={
        "v": {"value": "90", "unit": "km/h", "decimals": 0, "range": [10, 200]}},
        answer={"unit": "m/s", "sig_figs": 3})
    assert vary(t, 1)[0].answer == "25.0"


def test_scientific_answers_and_parameters() -> None:
    t = _template(text=r"A charge \( q = {{q}}\,\mathrm{C} \) in a field of {{E}} V/m.", solution="q*E", parameters={
        "q": {"value": "1.60e-19", "unit": "C", "sig_figs": 3, "scientific": True, "range": ["1e-19", "9e-19"]},
        "E": {"value": "2.0e4", "unit": "V/m", "sig_figs": 2, "range": ["1e3", "9e4"]}},
        answer={"unit": "N", "sig_figs": 2, "scientific": True})
    v0 = vary(t, 1)[0]
    assert v0.params["q"] == r"1.60 \times 10^{-19}" and v0.params["E"] == "20000"
    assert v0.answer == r"3.2 \times 10^{-15}"
    assert "in scientific notation, with units of $ \\mathrm{N} $,and rounded to 2 significant figures" in v0.question


def test_writing_helpers() -> None:
    assert write_plain(round_sig(Decimal("9.96"), 2)) == "10"
    assert write_plain(round_sig(Decimal("0.0012345"), 3)) == "0.00123"
    assert write_plain(round_sig(Decimal("12345"), 2)) == "12000"
    assert write_scientific(Decimal("0.00099996"), 3) == r"1.00 \times 10^{-3}"
    assert abench_suffix("", 2, False) == "(Results should be expressed and rounded to 2 significant figures)"
    assert abench_suffix("", 2, True) == "(Results should be expressed in scientific notation, and rounded to 2 significant figures)"


def test_bank_problems_shape() -> None:
    problems = bank_problems("numeric", variants=3, seed=0)
    ids = {p.id for p in problems}
    assert len(problems) == 3 * len(ids)
    first = problems[0]
    assert first.variant == "0" and {"domain", "topic", "level", "unit", "sig_figs", "scientific", "language"} <= set(first.meta)
    symbolic = bank_problems("symbolic", variants=2)
    assert all("dimensions" in p.meta for p in symbolic)
    with pytest.raises(ValueError):
        bank_problems("essay")  # type: ignore[arg-type]


def test_vary_command_accepts_paths_and_rejects_unknown_ids(tmp_path) -> None:
    from physeval.variation.bank import BANK_DIR

    path = BANK_DIR / "numeric" / "opt_thin_lens_image.yaml"
    rows = vary_command(str(path), 2, 0)
    assert rows[0]["answer"] == "24.0" and rows[0]["index"] == 0
    with pytest.raises(KeyError, match="did you mean"):
        vary_command("opt_thin_lens_imag", 2, 0)


def test_float_fast_path_writes_what_exact_arithmetic_writes(monkeypatch) -> None:
    import physeval.variation.engine as engine
    from physeval.variation import load_bank

    for template in load_bank("numeric"):
        fast = vary(template, 30, seed=99)
        monkeypatch.setattr(engine, "USE_FLOAT_FAST_PATH", False)
        slow = vary(template, 30, seed=99)
        monkeypatch.setattr(engine, "USE_FLOAT_FAST_PATH", True)
        assert [(v.params, v.answer) for v in fast] == [(v.params, v.answer) for v in slow], template.id
        for f, s in zip(fast, slow):
            assert float(f.value) == pytest.approx(float(s.value), rel=1e-10)

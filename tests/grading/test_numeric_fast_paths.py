"""The numeric grader's fast paths give exactly what the general path behind them gives.

Two fast paths: plain numbers (``-3.2``, ``1.4 \\times 10^{-2}``, ``3.0e5``) are read by one regex
instead of the normaliser and the splitting rules, and units are read from a table built from
pint (:mod:`physeval.units.table`) instead of pint's registry. Each test compares the two paths
on a large generated table (and on every ABench reference answer when ../shared/data is there):
the same parse, the same unit (identity, short form, conversion factors), the same grade in every
field. A fresh process grading plain answers builds neither pint nor SymPy.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from _numeric_table import rows

from physeval.answers.extract import extract_final_answer
from physeval.answers.quantity import _parse_general, parse_quantity
from physeval.grading.numeric import grade_numeric
from physeval.units import Unit, conversion, parse_unit, read_unit, registry, unit_conversion
from physeval.units.table import read_table_unit, table_available

HERE = Path(__file__).resolve().parent


def _plain_numbers() -> list[str]:
    """Plain numbers in the spellings the fast path takes, and near misses it must leave alone."""
    mantissas = ["0", "7", "2.97", "-50", "- 50", "+3", ".5", "-.25", "500.", "007.50", "1.", "123456789012", "0.000"]
    exponents = ["", "e5", "E-3", "e+07", "e400", "e-301", " \\times 10^{-2}", "\\times10^{3}", " \\cdot 10^{ 4 }",
                 " \\times 10^{+300}", " \\times 10^{-301}", " \\times 10^3", "e 5", " e5", "\\times 10^{2", "x10^{2}"]
    around = ["{}", " {} ", "\n{}\t", "{}.", "{} m", "{}\\%", "${}$", "{},"]
    return [a.format(m + e) for m, e, a in product(mantissas, exponents, around)]


def test_plain_numbers_read_as_the_general_path_reads_them() -> None:
    texts = _plain_numbers() + [t for r, ref, _q in rows() for t in (ref, extract_final_answer(r).text or "")]
    differ = [t for t in dict.fromkeys(texts) if parse_quantity.__wrapped__(t) != _parse_general(t)]
    assert differ == []


def test_every_abench_reference_reads_as_the_general_path_reads_it(shared_data: Path) -> None:
    from physeval.tasks.abench_data import load_abench

    problems = load_abench(shared_data / "abench", "a") + load_abench(shared_data / "abench", "b")
    assert len(problems) == 800
    assert [p.answer for p in problems if parse_quantity.__wrapped__(p.answer) != _parse_general(p.answer)] == []


def _pint_view(expression: str) -> tuple[object, str, Fraction, Fraction, object]:
    unit = registry().parse_units(expression)
    zero = Fraction(registry().Quantity(Fraction(0), unit).to_base_units().magnitude)
    one = Fraction(registry().Quantity(Fraction(1), unit).to_base_units().magnitude)
    dims = tuple(sorted((str(k), int(v)) for k, v in registry().Quantity(1, unit).dimensionality.items()))
    return Unit.from_pint(unit, expression).key, f"{unit:~}", one - zero, zero, dims


def _table_view(expression: str) -> tuple[object, str, Fraction, Fraction, object] | None:
    unit = read_table_unit(expression)
    if unit is None:
        return None
    assert unit.scale is not None and unit.offset is not None
    return unit.key, unit.short, unit.scale, unit.offset, unit.dimension


def test_the_shipped_table_matches_the_installed_pint(tmp_path: Path) -> None:
    from physeval.units.table import DATA_FILE, build_table, decode_table, shipped_table, write_table

    assert table_available(), "pint's definitions changed: run physeval.units.table.write_table()"
    built, shipped_tuples = build_table(), decode_table(shipped_table())
    assert (built["units"], built["tokens"]) == (shipped_tuples["units"], shipped_tuples["tokens"])
    # and write_table() from this pint writes the shipped file byte for byte
    shipped = Path(sys.modules["physeval.units.table"].__file__ or "").with_name(DATA_FILE)
    assert write_table(tmp_path / DATA_FILE).read_bytes() == shipped.read_bytes()


def test_every_table_spelling_is_the_unit_pint_reads() -> None:
    from physeval.units.table import shipped_table

    differ = [t for t in shipped_table()["tokens"] if _table_view(t) != _pint_view(t)]
    assert differ == []


COMMON = ["m", "km", "cm", "nm", "s", "ms", "min", "hour", "kg", "g", "N", "J", "kJ", "electron_volt", "MeV", "W",
          "Pa", "kPa", "standard_atmosphere", "mmHg", "K", "degC", "A", "µA", "mA", "V", "C", "T", "Hz", "mol",
          "liter", "rad", "degree", "percent", "Ω", "kΩ", "F", "µF"]


def _compounds() -> list[str]:
    out = list(COMMON)
    for a, b in product(COMMON[:24], COMMON[:24]):
        out += [f"{a}/{b}", f"{a}*{b}", f"{a}*{b}**-1", f"{a}/{b}**2", f"1/{a}", f"{a}**3/({b}*s)", f"({a}*{b})/K"]
    return list(dict.fromkeys(out))


def test_compound_units_are_read_as_pint_reads_them() -> None:
    differ = []
    for expression in _compounds():
        table = _table_view(expression)
        if table is not None and table != _pint_view(expression):
            differ.append(expression)
    assert differ == []
    # and the table does take the compounds (offset units in a compound are pint's: a difference)
    assert read_table_unit("km/s") is not None and read_table_unit("degC/s") is None


def test_conversions_between_table_units_are_pints() -> None:
    units = [u for u in (read_unit(t) for t in _compounds()[:400]) if u is not None]
    assert sum(u.exact for u in units) > 300  # the rest (degC inside a compound) are pint's: mixed pairs too
    checked = 0
    for a, b in product(units[:120], units[:120]):
        assert unit_conversion(a, b) == conversion(parse_unit(a.expression), parse_unit(b.expression)), (a, b)
        checked += unit_conversion(a, b) is not None
    assert checked > 500


_CHILD = """
import json, sys
sys.path.insert(0, {here!r})
from physeval.units import table
if {disable}:
    table._STATE["table"] = None  # the general path: every unit read by pint
from physeval.grading.numeric import grade_numeric
from _numeric_table import rows
out = [grade_numeric(r, ref, q).to_dict() for r, ref, q in rows()]
print(json.dumps([out, "pint" in sys.modules, "sympy" in sys.modules]))
"""


def _grades(disable_table: bool) -> tuple[list[dict[str, object]], bool, bool]:
    code = _CHILD.format(here=str(HERE), disable=disable_table)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    out, pint_loaded, sympy_loaded = json.loads(proc.stdout)
    return out, pint_loaded, sympy_loaded


def test_grades_are_the_same_with_the_unit_table_and_with_pint() -> None:
    fast, _, _ = _grades(False)
    general, pint_loaded, _ = _grades(True)
    assert pint_loaded
    assert len(fast) == len(rows()) > 10_000
    assert [i for i, (a, b) in enumerate(zip(fast, general)) if a != b] == []
    here = [grade_numeric(r, ref, q).to_dict() for r, ref, q in rows()]  # and in this process, caches warm
    assert json.loads(json.dumps(here)) == fast


PLAIN_CASES = [
    ("\\boxed{1.4 \\times 10^{-2}}", "0.014", "correct"),
    ("\\boxed{30\\,\\mathrm{km/s}}", "3 \\times 10^{4}", "correct"),
    ("Final answer: 3.0e5 m/s", "300000", "correct"),
    ("\\boxed{- 50\\ \\mathrm{cm\\,s^{-1}}}", "-0.5", "correct"),
    ("\\boxed{2.97}", "3.10", "wrong"),
    ("\\boxed{17\\,\\mathrm{MeV}}", "2.72 \\times 10^{-12}", "correct"),
]
Q_MS = "求速度。 (结果以$ \\mathrm{\\;m}/\\mathrm{s} $为单位，保留3位有效数字)"
Q_J = "Find Q. (Results should be expressed with units of $ \\mathrm{J} $,and rounded to 3 significant figures)"


def test_grades_and_quantities_built_by_the_fast_paths_are_the_constructors_objects() -> None:
    import dataclasses

    from physeval.answers.quantity import ParsedQuantity
    from physeval.grading.numeric import NumericGrade

    for response, reference, question in rows()[::50]:
        grade = grade_numeric(response, reference, question)
        again = NumericGrade(**{f.name: getattr(grade, f.name) for f in dataclasses.fields(NumericGrade)})
        assert (grade, hash(grade), repr(grade)) == (again, hash(again), repr(again))
        q = parse_quantity(reference)
        built = ParsedQuantity(**{f.name: getattr(q, f.name) for f in dataclasses.fields(ParsedQuantity)})
        assert (q, hash(q), repr(q)) == (built, hash(built), repr(built))


def test_plain_answers_need_neither_pint_nor_sympy() -> None:
    cases = [(r, ref, Q_J if "MeV" in r else Q_MS) for r, ref, _ in PLAIN_CASES]
    code = (
        "import json, sys\n"
        "from physeval.grading.numeric import grade_numeric\n"
        "grades = [grade_numeric(*case) for case in json.loads(sys.argv[1])]\n"
        "print(json.dumps([[str(g.outcome) for g in grades], 'pint' in sys.modules, 'sympy' in sys.modules]))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(cases)], capture_output=True, text=True, check=True)
    outcomes, pint_loaded, sympy_loaded = json.loads(proc.stdout)
    assert outcomes == [expected for *_, expected in PLAIN_CASES]
    assert (pint_loaded, sympy_loaded) == (False, False)


@pytest.mark.parametrize(("response", "reference"), [
    ("\\boxed{6.6 \\times 10^{-34}}", "1.0 \\times 10^{-34}"),  # Math-Verify calls these equal (6 decimal places)
    ("\\boxed{6.6e-34}", "1.0e-34"),
    ("\\boxed{1.0 \\times 10^{-34}}", "6.63 \\times 10^{-34}"),
    ("\\boxed{2 \\times 10^{-9}}", "1 \\times 10^{-9}"),
])
def test_tiny_values_are_compared_relatively(response: str, reference: str) -> None:
    grade = grade_numeric(response, reference)
    assert (grade.correct, grade.outcome) == (False, "wrong")
    assert "relative error" in grade.reason
    assert grade_numeric(response, response[len("\\boxed{"):-1]).correct

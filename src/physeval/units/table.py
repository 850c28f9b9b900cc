"""Units read without pint: a table built from pint, shipped with physeval, checked against pint.

Why: building the pint registry costs about 0.7 s of CPU (importing pint, parsing its definition
files, building its caches), and a fresh process grading numeric answers paid it on the first
answer with a unit, about a hundred times the cost of grading that answer. The units that
answers and questions use (SI units with their prefixes, eV, atm, mmHg, degC, minutes, hours, %,
...) are few, and pint's answer for each of them never changes while pint's definitions do not.
So :func:`build_table` asks pint, once, what each spelling of those units means (its pint name,
its symbol, its exact factor and offset to base units, its dimension), and the answer is shipped
as the package data file ``units/table_data.json`` (read once per process by :func:`shipped_table`).
:func:`read_table_unit` reads a unit expression (the text
:func:`physeval.units.reader.unit_expression` gives pint) from the table: names, ``*``, ``/``,
integer ``**`` powers and parentheses, with pint's precedence. It returns ``None`` - "ask pint" -
for anything else: an unknown name, an offset unit inside a compound (pint reads it as a
difference), a fractional power, a number other than ``1``, a logarithmic unit, or an installed
pint whose definition files differ from the ones the table was built from (their SHA-256 is
checked once per process, without importing pint).

What stays exactly pint's: which unit a spelling means, the unit's identity (its names and
exponents), its short form (pint's ``f"{unit:~}"``: numerator and denominator terms sorted by unit
name, ``" * "``, ``" / "``, ``" ** "``) and every conversion factor (exact fractions).
``tests/units/test_table.py`` holds all of it equal to pint's, unit by unit and over generated
compounds; ``python -c 'from physeval.units.table import write_table; write_table()'`` rewrites the data
file after a pint upgrade.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from physeval.units.unit import Unit

__all__ = ["DATA_FILE", "build_table", "decode_table", "definitions_digest", "encode_table", "read_table_unit",
           "shipped_table", "table_available", "write_table"]

# The units whose spellings the table holds: SI and common units, with every prefix pint accepts
# for the first group and none for the second. A unit not listed is simply read by pint.
PREFIXED = (
    "meter", "second", "gram", "ampere", "kelvin", "mole", "candela", "newton", "joule", "watt", "pascal",
    "hertz", "coulomb", "volt", "farad", "ohm", "siemens", "weber", "tesla", "henry", "electron_volt",
    "liter", "becquerel", "gray", "sievert", "lumen", "lux", "radian", "steradian", "bar", "calorie",
    "barn", "parsec", "gauss", "watt_hour", "dyne", "erg", "curie", "rem", "roentgen",
)
UNPREFIXED = (
    "minute", "hour", "day", "week", "year", "degree", "arcminute", "arcsecond", "revolution",
    "standard_atmosphere", "technical_atmosphere", "millimeter_Hg", "cmHg", "torr", "psi", "percent",
    "permille", "ppm", "degree_Celsius", "degree_Fahrenheit", "angstrom", "fermi", "light_year",
    "astronomical_unit", "dalton", "inch", "foot", "mile", "yard", "nautical_mile", "knot", "pound",
    "kilowatt_hour", "horsepower", "debye", "rpm", "hectare", "are", "gallon", "tonne", "kilometer_per_hour",
)
PREFIXES = (
    "yocto", "zepto", "atto", "femto", "pico", "nano", "micro", "milli", "centi", "deci", "", "deca", "hecto",
    "kilo", "mega", "giga", "tera", "peta", "exa", "zetta", "yotta",
)
DEFINITION_FILES = ("default_en.txt", "constants_en.txt")

Fr = tuple[int, int]
Dim = tuple[tuple[str, int], ...]


# ------------------------------------------------------------------------------ building (needs pint)


def definitions_digest(pint_dir: str | Path) -> str:
    """SHA-256 of pint's definition files in ``pint_dir`` and physeval's additions (what the table was built from)."""
    from physeval.units.registry import DEFINITIONS

    digest = hashlib.sha256()
    for name in DEFINITION_FILES:
        path = Path(pint_dir) / name
        digest.update(path.read_bytes() if path.is_file() else b"")
    digest.update("\n".join(DEFINITIONS).encode())
    return digest.hexdigest()


def _fraction(value: Any) -> Fr:
    f = Fraction(value)
    return (f.numerator, f.denominator)


def _candidates(ureg: Any) -> Iterator[str]:
    for root in PREFIXED:
        for prefix in PREFIXES:
            yield prefix + root
    yield from UNPREFIXED


def build_table() -> dict[str, Any]:
    """Ask the shared pint registry what each spelling of the listed units means (slow: uses pint)."""
    import pint

    from physeval.units.registry import registry

    ureg = registry()
    units: dict[str, tuple[str, Fr, Fr, Dim]] = {}
    tokens: dict[str, str] = {}
    for name in _candidates(ureg):
        try:
            parsed = ureg.parse_units(name)
        except Exception:  # noqa: BLE001 - a prefix pint does not combine with this unit
            continue
        items = dict(parsed._units)
        if len(items) != 1:
            continue
        (canonical, exponent), = items.items()
        if exponent != 1 or canonical in units:
            continue
        definition = ureg._units[canonical]
        converter = getattr(definition, "converter", None)
        if type(converter).__name__ not in ("ScaleConverter", "OffsetConverter"):
            continue  # logarithmic units (dB, Np): pint converts them non-linearly
        dimensionality = ureg.get_dimensionality(canonical)
        if any(Fraction(v).denominator != 1 for v in dimensionality.values()):
            continue
        dims = tuple(sorted((str(k), int(v)) for k, v in dimensionality.items()))
        zero = ureg.Quantity(Fraction(0), canonical).to_base_units().magnitude
        one = ureg.Quantity(Fraction(1), canonical).to_base_units().magnitude
        units[canonical] = (ureg.get_symbol(canonical), _fraction(Fraction(one) - Fraction(zero)),
                            _fraction(zero), dims)
        spellings = {canonical, ureg.get_symbol(canonical), *getattr(definition, "aliases", ())}
        spellings |= {s.replace("µ", "u") for s in spellings}
        for spelling in sorted(spellings):
            if not re.fullmatch(r"[A-Za-zµΩ_]+", spelling) or spelling in tokens:
                continue
            try:
                check = dict(ureg.parse_units(spelling)._units)
            except Exception:  # noqa: BLE001
                continue
            if check == {canonical: 1}:
                tokens[spelling] = canonical
    pint_dir = Path(pint.__file__).parent
    return {"digest": definitions_digest(pint_dir), "units": units, "tokens": tokens}


DATA_FILE = "table_data.json"
"""The shipped table, beside this module: package data (``pyproject.toml``'s package-data ships ``**/*.json``)."""
_ABOUT = "Generated by physeval.units.table.write_table() from pint's definitions: do not edit."


def encode_table(table: dict[str, Any]) -> str:
    """The JSON text of ``table`` (:func:`build_table`'s dict): one unit or spelling a line, sorted, so a
    pint upgrade shows as a readable diff. Tuples become lists; :func:`decode_table` turns them back."""
    import json

    def entries(mapping: dict[str, Any]) -> str:
        return ",\n".join(f"    {json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
                           for k, v in sorted(mapping.items()))

    return (f'{{\n  "about": {json.dumps(_ABOUT)},\n  "digest": {json.dumps(table["digest"])},\n'
            f'  "units": {{\n{entries(table["units"])}\n  }},\n  "tokens": {{\n{entries(table["tokens"])}\n  }}\n}}\n')


def decode_table(raw: dict[str, Any]) -> dict[str, Any]:
    """:func:`build_table`'s dict from the parsed JSON of :func:`encode_table`: the same content, with
    the same tuples (factors and offsets as ``(numerator, denominator)``, dimensions as ``((name, exponent), ...)``)."""
    units = {name: (symbol, (scale[0], scale[1]), (offset[0], offset[1]), tuple((d, e) for d, e in dims))
             for name, (symbol, scale, offset, dims) in raw["units"].items()}
    return {"digest": raw["digest"], "units": units, "tokens": dict(raw["tokens"])}


def write_table(path: str | Path | None = None) -> Path:
    """Write the shipped table (:data:`DATA_FILE`, or ``path``) from the installed pint."""
    target = Path(path) if path else Path(__file__).with_name(DATA_FILE)
    target.write_text(encode_table(build_table()), encoding="utf-8")
    return target


# ------------------------------------------------------------------------------ reading (no pint)

_LOCK = threading.RLock()  # re-entrant: _load holds it while shipped_table takes it
_STATE: dict[str, Any] = {}


def _pint_dir() -> Path | None:
    """Where ``import pint`` would load pint from (the first ``sys.path`` entry holding it), not importing it."""
    import sys

    loaded = sys.modules.get("pint")
    where = getattr(loaded, "__file__", None) if loaded is not None else None
    if where:
        return Path(where).parent
    for entry in sys.path:
        candidate = Path(entry or ".") / "pint"
        if (candidate / "__init__.py").is_file():
            return candidate
    return None


def shipped_table() -> dict[str, Any]:
    """The table shipped with physeval (:data:`DATA_FILE`) as parsed JSON, read once per process under
    the lock, whichever thread asks first. Its unit entries are lists, turned into
    :func:`build_table`'s tuples one at a time as units are read (:func:`decode_table` turns them
    all); whether it fits the installed pint is :func:`table_available`."""
    found = _STATE.get("shipped")
    if found is not None:
        return found
    with _LOCK:
        if "shipped" not in _STATE:
            import json

            _STATE["shipped"] = json.loads(Path(__file__).with_name(DATA_FILE).read_text(encoding="utf-8"))
        return _STATE["shipped"]


_ENTRIES: dict[str, tuple[str, Fr, Fr, Dim]] = {}


def _entry(units: dict[str, Any], name: str) -> tuple[str, Fr, Fr, Dim]:
    """The shipped entry of unit ``name`` as :func:`build_table` makes it, decoded on first use
    (decoding all 859 at load would cost a fresh process more than reading the few it needs)."""
    found = _ENTRIES.get(name)
    if found is None:
        symbol, scale, offset, dims = units[name]
        found = _ENTRIES[name] = (symbol, (scale[0], scale[1]), (offset[0], offset[1]), tuple((d, e) for d, e in dims))
    return found


def _load() -> dict[str, Any] | None:
    """The table, or ``None`` when the installed pint's definitions are not the ones it was built from."""
    state = _STATE.get("table", False)
    if state is not False:
        return state
    with _LOCK:
        if "table" not in _STATE:
            shipped = shipped_table()
            pint_dir = _pint_dir()
            ok = pint_dir is not None and definitions_digest(pint_dir) == shipped["digest"]
            _STATE["table"] = shipped if ok else None
    return _STATE["table"]


def table_available() -> bool:
    """Whether the shipped table matches the installed pint (else every unit is read by pint)."""
    return _load() is not None


_TOKEN = re.compile(r"\s*(?:(?P<name>[A-Za-zµΩ_]+)|(?P<num>\d+(?:\.\d*)?)|(?P<op>\*\*|[*/()])|(?P<neg>-))")


class _Unknown(Exception):
    """The expression is outside the table's grammar: let pint read it."""


def _tokens(expr: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    expr = expr.rstrip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if m is None or m.end() == pos:
            raise _Unknown
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    """pint's unit grammar on the table: ``*`` and ``/`` left to right, ``**`` binding tighter."""

    def __init__(self, tokens: list[tuple[str, str]], table: dict[str, Any]) -> None:
        self.tokens, self.pos, self.table = tokens, 0, table

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def expression(self) -> dict[str, int]:
        result = self.power()
        while (tok := self.peek()) is not None and tok[0] == "op" and tok[1] in "*/":
            self.pos += 1
            right = self.power()
            sign = 1 if tok[1] == "*" else -1
            for name, exp in right.items():
                result[name] = result.get(name, 0) + sign * exp
        return result

    def power(self) -> dict[str, int]:
        base = self.atom()
        tok = self.peek()
        if tok is not None and tok == ("op", "**"):
            self.pos += 1
            negative = False
            if self.peek() == ("neg", "-"):
                self.pos += 1
                negative = True
            number = self.peek()
            if number is None or number[0] != "num" or not number[1].isdigit():
                raise _Unknown
            self.pos += 1
            exponent = -int(number[1]) if negative else int(number[1])
            nxt = self.peek()
            if nxt is not None and nxt == ("op", "**"):
                raise _Unknown
            return {name: exp * exponent for name, exp in base.items()}
        return base

    def atom(self) -> dict[str, int]:
        tok = self.peek()
        if tok is None:
            raise _Unknown
        self.pos += 1
        kind, text = tok
        if kind == "name":
            canonical = self.table["tokens"].get(text)
            if canonical is None:
                raise _Unknown
            return {canonical: 1}
        if kind == "num" and text == "1":
            return {}
        if tok == ("op", "("):
            inner = self.expression()
            if self.peek() != ("op", ")"):
                raise _Unknown
            self.pos += 1
            return inner
        raise _Unknown


def _short(key: tuple[tuple[str, Fraction], ...], units: dict[str, tuple[str, Fr, Fr, Dim]]) -> str:
    """The short form pint writes, ``f"{unit:~}"`` (sorted by unit name; ratio form; ``{:n}`` exponents)."""
    pos = [units[n][0] if e == 1 else f"{units[n][0]} ** {int(e)}" for n, e in key if e > 0]
    neg = [units[n][0] if e == -1 else f"{units[n][0]} ** {int(-e)}" for n, e in key if e < 0]
    if not pos and not neg:
        return ""
    top = " * ".join(pos) or "1"
    return top if not neg else top + " / " + " / ".join(neg)


_CACHE: dict[str, Unit | None] = {}


def read_table_unit(expression: str) -> Unit | None:
    """The unit the pint expression ``expression`` means, from the table; ``None``: ask pint."""
    hit = _CACHE.get(expression, False)
    if hit is not False:
        return hit  # type: ignore[return-value]
    table = _load()
    unit = None if table is None else _read(expression, table)
    if len(_CACHE) < 8192:
        _CACHE[expression] = unit
    return unit


def _read(expression: str, table: dict[str, Any]) -> Unit | None:
    try:
        parser = _Parser(_tokens(expression), table)
        exps = parser.expression()
        if parser.pos != len(parser.tokens):
            return None
    except (_Unknown, RecursionError):
        return None
    key = tuple(sorted((n, Fraction(e)) for n, e in exps.items() if e != 0))
    if not key:
        return None  # "m/m": dimensionless, rare; pint says what it is
    units = {n: _entry(table["units"], n) for n, _ in key}
    offsets = [n for n, _ in key if units[n][2] != (0, 1)]
    if offsets and (len(key) != 1 or key[0][1] != 1 or len(parser.tokens) != 1):
        return None  # an offset unit in a compound is a difference in pint (delta_degC)
    scale = Fraction(1)
    dims: dict[str, int] = {}
    for name, exp in key:
        _symbol, (num, den), _offset, unit_dims = units[name]
        scale *= Fraction(num, den) ** int(exp)
        for dim, dexp in unit_dims:
            dims[dim] = dims.get(dim, 0) + dexp * int(exp)
    offset = Fraction(*units[key[0][0]][2]) if offsets else Fraction(0)
    dimension = tuple(sorted((d, e) for d, e in dims.items() if e != 0))
    return Unit(key, _short(key, units), expression, scale=scale, offset=offset, dimension=dimension)

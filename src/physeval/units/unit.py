"""A unit as the numeric grader needs it: pint's identity and short form, exact factors, pint only on demand.

Why: the grader compares units, converts between them and names them in its reasons. A pint
unit does all three but needs pint's registry (about 0.7 s to build); most answers use units the
shipped table (:mod:`physeval.units.table`) knows, so a :class:`Unit` carries what pint would say
(its names and exponents, its short form, its exact affine map to base units) and builds the
pint unit only when asked (:attr:`Unit.pint`). A unit the table does not know is read by pint
and wrapped (:meth:`Unit.from_pint`), so every unit has the same interface either way.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

__all__ = ["PERCENT_KEY", "Unit"]

Key = tuple[tuple[str, Fraction], ...]
PERCENT_KEY: Key = (("percent", Fraction(1)),)
"""The key of pint's ``percent``."""


class Unit:
    """One unit: equal to another exactly when pint's units would be equal.

    Attributes:
        key: pint's unit names and exponents, sorted by name (``Unit._units`` of pint).
        short: pint's short form, ``f"{unit:~}"`` (``"km / s"``, ``"°C"``, ``"1 / s"``).
        scale, offset: ``value_in_base_units = scale * value + offset`` exactly, or ``None`` when
            the unit came from pint (its conversions are then pint's own).
        dimension: pint's dimensionality as sorted ``(name, exponent)`` pairs, or ``None`` as above.
        expression: The pint expression the unit was read from.
    """

    __slots__ = ("key", "_short", "scale", "offset", "dimension", "expression", "_pint")

    def __init__(self, key: Key, short: str | None, expression: str, *, scale: Fraction | None = None,
                 offset: Fraction | None = None, dimension: tuple[tuple[str, int], ...] | None = None,
                 pint_unit: Any = None) -> None:
        self.key, self._short, self.expression = key, short, expression
        self.scale, self.offset, self.dimension = scale, offset, dimension
        self._pint = pint_unit

    @classmethod
    def from_pint(cls, unit: Any, expression: str) -> Unit:
        """Wrap a pint unit of the shared registry (its short form is formatted when first asked for)."""
        key = tuple(sorted((str(n), Fraction(e)) for n, e in unit._units.items()))
        return cls(key, None, expression, pint_unit=unit)

    @property
    def short(self) -> str:
        """The short form pint writes, ``f"{unit:~}"`` (formatted by pint for a unit the table does not hold)."""
        if self._short is None:
            self._short = f"{self.pint:~}"  # physeval.units.reader.format_unit
        return self._short

    @property
    def pint(self) -> Any:
        """The pint unit (of the shared registry), built on first use."""
        if self._pint is None:
            from physeval.units.registry import registry

            self._pint = registry().parse_units(self.expression)
        return self._pint

    @property
    def exact(self) -> bool:
        """Whether the exact factors are known without pint."""
        return self.scale is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"Unit({self.short!r})"

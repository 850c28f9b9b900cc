"""Units and dimensions for every part of physeval: one registry, one dimension algebra, one unit reader.

* :mod:`physeval.units.registry` -- the one pint registry (exact ``Fraction`` magnitudes,
  offset units, ``cmHg``), built once under a lock;
* :mod:`physeval.units.reader` -- LaTeX / plain / Chinese unit text -> pint, with the one
  alias table (:data:`~physeval.units.reader.CJK_UNITS`, :data:`~physeval.units.reader.TOKEN_ALIASES`);
* :mod:`physeval.units.table` -- the common units read without pint (a table built from pint,
  shipped, checked against it), giving :class:`~physeval.units.unit.Unit` values that build their
  pint unit only when asked (:func:`read_unit`);
* :mod:`physeval.units.convert` -- exact affine conversions between units and to SI;
* :mod:`physeval.units.dimension` -- the :data:`Dimension` type, its algebra, parsing and the
  dimension of a SymPy expression.

Importing this package loads neither pint nor SymPy; they load on first use. The official
ABench evaluator's unit stripping is reproduced bug for bug elsewhere
(:mod:`physeval.grading.compat.abench`) and deliberately does not use this package.
"""

from physeval.units.convert import (
    UnitConversion,
    conversion,
    default_unit_latex,
    unit_conversion,
    unit_to_si,
)
from physeval.units.dimension import (
    DIMENSIONLESS,
    Dimension,
    InconsistentDimension,
    UnitError,
    UnknownDimension,
    expression_dimension,
    format_dimension,
    parse_dimension,
    unit_dimension,
)
from physeval.units.reader import (
    CJK_UNITS,
    CJK_UNITS_AFTER_NUMBERS,
    format_unit,
    normalize_unit_text,
    parse_unit,
    pint_unit_string,
    read_unit,
    unit_expression,
)
from physeval.units.registry import registry
from physeval.units.unit import PERCENT_KEY, Unit

__all__ = [
    "CJK_UNITS",
    "CJK_UNITS_AFTER_NUMBERS",
    "DIMENSIONLESS",
    "Dimension",
    "InconsistentDimension",
    "PERCENT_KEY",
    "Unit",
    "UnitConversion",
    "UnitError",
    "UnknownDimension",
    "conversion",
    "default_unit_latex",
    "expression_dimension",
    "format_dimension",
    "format_unit",
    "normalize_unit_text",
    "parse_dimension",
    "parse_unit",
    "pint_unit_string",
    "read_unit",
    "registry",
    "unit_conversion",
    "unit_dimension",
    "unit_expression",
    "unit_to_si",
]

"""The graders: pure, deterministic functions usable without the rest of physeval.

The names below load lazily, so importing one grader (``physeval.grading.numeric``) does not
import the others (the symbolic grader and EED bring SymPy and the LaTeX parser).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS: dict[str, str] = {
    "DimensionCheck": "physeval.grading.dimensions", "check_dimensions": "physeval.grading.dimensions",
    "EEDResult": "physeval.grading.eed", "eed": "physeval.grading.eed",
    "NumericGrade": "physeval.grading.numeric", "grade_numeric": "physeval.grading.numeric",
    "Equivalence": "physeval.grading.symbolic", "SymbolicGrade": "physeval.grading.symbolic",
    "check_equivalence": "physeval.grading.symbolic", "grade_symbolic": "physeval.grading.symbolic",
    "grade_symbolic_many": "physeval.grading.symbolic",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'physeval.grading' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from physeval.grading.dimensions import DimensionCheck as DimensionCheck
    from physeval.grading.dimensions import check_dimensions as check_dimensions
    from physeval.grading.eed import EEDResult as EEDResult
    from physeval.grading.eed import eed as eed
    from physeval.grading.numeric import NumericGrade as NumericGrade
    from physeval.grading.numeric import grade_numeric as grade_numeric
    from physeval.grading.symbolic import Equivalence as Equivalence
    from physeval.grading.symbolic import SymbolicGrade as SymbolicGrade
    from physeval.grading.symbolic import check_equivalence as check_equivalence
    from physeval.grading.symbolic import grade_symbolic as grade_symbolic
    from physeval.grading.symbolic import grade_symbolic_many as grade_symbolic_many

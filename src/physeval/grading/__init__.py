"""The graders: pure, deterministic functions usable without the rest of physeval."""

from physeval.grading.dimensions import DimensionCheck, check_dimensions
from physeval.grading.eed import EEDResult, eed
from physeval.grading.numeric import NumericGrade, grade_numeric
from physeval.grading.symbolic import Equivalence, SymbolicGrade, check_equivalence, grade_symbolic, grade_symbolic_many

__all__ = [
    "DimensionCheck", "EEDResult", "Equivalence", "NumericGrade", "SymbolicGrade", "check_dimensions",
    "check_equivalence", "eed", "grade_numeric", "grade_symbolic", "grade_symbolic_many",
]

"""The graders: pure, deterministic functions usable without the rest of physeval."""

from physeval.grading.numeric import NumericGrade, grade_numeric

__all__ = ["NumericGrade", "grade_numeric"]

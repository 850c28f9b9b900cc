"""One audit finding: a suspect answer (or family), its kind and severity, and the evidence."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from decimal import Decimal
from typing import Any

__all__ = ["SEVERITY_ORDER", "Finding", "jsonable"]

SEVERITY_ORDER = {"high": 0, "medium": 1, "figures": 2, "low": 3}


@dataclass(frozen=True)
class Finding:
    """One suspect answer (or family), why it is suspect, and the numbers that show it.

    Attributes:
        problem_id: The problem (family) id.
        variant: The suspect variant, or ``None`` for the family as a whole.
        kind: ``answer_mismatch``, ``figure_mismatch``, ``ill_posed``, ``unread_variant``,
            ``documented_error``, ``scaling_violation``,
            ``power_law_outlier``, ``no_power_law``,
            ``same_constants_different_answer``, ``format_inconsistent``, ``unparseable_answer``,
            ``solution_error``, ``template_mismatch`` or ``structure_mismatch``.
        severity: ``high``, ``medium``, ``figures`` or ``low``.
        message: One readable sentence.
        evidence: The numbers behind it (stated and expected answers, ratios, fitted exponents).
    """

    problem_id: str
    variant: str | None
    kind: str
    severity: str
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return jsonable(asdict(self))


def jsonable(value: Any) -> Any:
    """``value`` with Decimals as floats and non-finite floats as ``None`` (JSON has neither)."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value

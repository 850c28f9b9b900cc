"""The records of the poisoning probe: a proposed edit of a solution and an accepted one.

:class:`Candidate` is what a rule proposes (offsets in the solution, the replacement, the additive
fragment around it and the token it acts on); :class:`Perturbation` is an accepted edit with its
context; :class:`PerturbationResult` is the outcome of perturbing one solution with one kind.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Candidate", "Perturbation", "PerturbationResult"]


@dataclass(frozen=True)
class Candidate:
    """A proposed edit: replace ``text[start:end]`` (offsets in the solution) by ``after``."""

    kind: str
    rule: str
    equation: int | None
    start: int
    end: int
    before: str
    after: str
    fragment_before: str = ""
    fragment_after: str = ""
    token: str = ""


@dataclass(frozen=True)
class Perturbation:
    """One accepted edit of a solution.

    Attributes:
        kind: The perturbation kind (a base kind; ``combined`` is two of these).
        rule: The rule that fired (``"X^2 -> X"``, ``"delete \\hbar"``, ``"+ -> -"``...).
        equation: Index of the equation edited (``None`` for a prose edit).
        start, end: Offsets of the edited characters in the original solution.
        line: 1-based line number of ``start``.
        before, after: The edited characters before and after.
        context_before, context_after: The whole equation (or the prose line) before and after.
        token: What was deleted or unsquared (``\\hbar``, ``\\omega``), for carrying the edit.
        fragment_before, fragment_after: The additive piece holding the edit, before and after.
    """

    kind: str
    rule: str
    equation: int | None
    start: int
    end: int
    line: int
    before: str
    after: str
    context_before: str
    context_after: str
    token: str = ""
    fragment_before: str = ""
    fragment_after: str = ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field."""
        return asdict(self)


@dataclass(frozen=True)
class PerturbationResult:
    """The outcome of :func:`perturb`: the poisoned text (``None`` when no edit was accepted),
    the edits, and the rejected candidates counted by reason (``unchanged``, ``unparsable``,
    ``no_effect``; ``no_site`` when the kind had nowhere to apply)."""

    kind: str
    text: str | None
    perturbations: tuple[Perturbation, ...] = ()
    rejected: dict[str, int] = field(default_factory=dict)
    tried: int = 0

    @property
    def ok(self) -> bool:
        """True when the solution was perturbed."""
        return self.text is not None and bool(self.perturbations)

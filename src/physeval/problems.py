"""The shared vocabulary: problems, grades and the outcomes a grader may return.

Everything here is plain, immutable data. Tasks produce :class:`Problem` records,
graders return a :class:`Grade` (or a subclass carrying track-specific fields), and the
run store keeps ``Grade.to_dict()`` as JSON. No module here imports models, runs or I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Problem", "Grade", "Outcome", "first_duplicate", "with_ids"]


class Outcome(StrEnum):
    """Every grading outcome, defined once (members are strings: ``Outcome.CORRECT == "correct"``).

    ``error`` means the grader itself failed (the row becomes an error row of kind ``grader``
    or ``judge``); every other outcome is a measurement of the answer.
    """

    CORRECT = "correct"
    WRONG = "wrong"
    NO_ANSWER = "no_answer"
    UNPARSEABLE = "unparseable"
    AMBIGUOUS = "ambiguous"
    DIMENSION_MISMATCH = "dimension_mismatch"
    UNDECIDED = "undecided"
    TIMEOUT = "timeout"
    TOO_LARGE = "too_large"
    BUDGET = "budget"
    ERROR = "error"
    # scene track: where the program stopped (the render stages of physeval.scenes.render.Stage)
    NO_CODE = "no_code"
    RUNTIME_ERROR = "runtime_error"
    EXECUTABLE = "executable"
    RENDERED = "rendered"
    UNJUDGED = "unjudged"


@dataclass(frozen=True)
class Problem:
    """One problem (or one variant of a dynamic problem) as a task loaded it.

    Attributes:
        id: The dataset's problem id, always a string (``7`` and ``"7"`` are the same).
        question: The question text shown to the model.
        answer: The reference answer as the dataset writes it (number, LaTeX, ...).
        variant: Variant id within a dynamic family; ``"0"`` is the original problem.
        meta: Free-form facts for grading and breakdowns (``language``, ``domain``, ``tag``,
            ``level``, ``unit``, ``sig_figs``, ...). Must be JSON-serialisable.
    """

    id: str
    question: str
    answer: str
    variant: str = "0"
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str]:
        """The (problem id, variant id) pair that identifies this record in a run."""
        return (self.id, self.variant)


@dataclass(frozen=True)
class Grade:
    """What a grader decided and why.

    Attributes:
        correct: The verdict used for accuracy.
        outcome: A short machine-readable outcome name (see :class:`Outcome`).
        reason: A human-readable explanation of the verdict.
        score: Partial credit in [0, 1] where the track defines one (EED / 100, judge ratio);
            ``None`` where it does not.
        extracted: The final answer text the grader read from the response, if any.
        answer_key: A label for the answer's equivalence class (two answers the grader
            considers the same get the same key); maj@K votes over these.
    """

    correct: bool
    outcome: str
    reason: str = ""
    score: float | None = None
    extracted: str | None = None
    answer_key: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of every field, including a subclass's own (nested dataclasses
        as dicts, tuples as lists, NaN as ``None``, anything else as its text).

        One walk over the fields, not :func:`dataclasses.asdict` (which deep-copies every value
        first: half the harness's own CPU per numeric sample).
        """
        return {f.name: _jsonable(getattr(self, f.name)) for f in dataclasses.fields(self)}


def first_duplicate(problems: Iterable[Problem]) -> Problem | None:
    """The first problem whose (id, variant) an earlier one already has, or ``None``."""
    seen: set[tuple[str, str]] = set()
    for problem in problems:
        if problem.key in seen:
            return problem
        seen.add(problem.key)
    return None


def _jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return None if value != value else value  # NaN is not JSON
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    return str(value)


def with_ids(ids: Collection[str]) -> Callable[[list[Problem]], list[Problem]]:
    """A selection for :meth:`physeval.tasks.base.Task.load_selected`: the problems (every variant)
    whose id is in ``ids``, or all of them when none is; so ``regrade`` and ``score`` build only the
    problems their rows name (the poisoning probe perturbs nothing else)."""
    wanted = {str(i) for i in ids}

    def select(found: list[Problem]) -> list[Problem]:
        return [p for p in found if p.id in wanted] or list(found)

    return select

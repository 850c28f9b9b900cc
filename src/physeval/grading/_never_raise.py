"""The never-raise guard shared by the public graders.

Why: a grader that raises takes a sample out of the run as if it had been answered wrong, and
the failure is lost. Every public grader (``grade_numeric``, ``grade_symbolic``, ``eed``, the
judge-reply parser) is therefore wrapped in :func:`never_raises`: an unexpected exception becomes
an explicit error result (``outcome="error"``, not correct) whose reason names the exception type,
its message and the line that raised it, so the bug stays visible and the runner can store the
sample as an error row of kind ``grader`` (re-gradable once the bug is fixed). The guard does not
catch ``KeyboardInterrupt`` or ``SystemExit``; the full traceback goes to the ``physeval.grading``
logger at DEBUG level.
"""

from __future__ import annotations

import functools
import logging
import os
import traceback
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from physeval.problems import Outcome

__all__ = ["GRADER_ERROR_PREFIX", "check_box", "error_grade", "error_reason", "error_result", "never_raises"]

GRADER_ERROR_PREFIX = "grader error: "
"""How the reason of every guarded failure begins (tests and the runner look for it)."""

_MESSAGE_CHARS = 300
_log = logging.getLogger("physeval.grading")

R = TypeVar("R")
F = TypeVar("F", bound=Callable[..., Any])


def error_reason(exc: BaseException) -> str:
    """``"grader error: TypeError: message (at physeval/x.py:12 in f)"``: what, and where it was raised."""
    message = " ".join(str(exc).split())[:_MESSAGE_CHARS]
    where = ""
    frames = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ is not None else []
    if frames:
        last = frames[-1]
        parts = last.filename.replace(os.sep, "/").split("/")
        short = "/".join(parts[parts.index("physeval"):]) if "physeval" in parts else "/".join(parts[-2:])
        where = f" (at {short}:{last.lineno} in {last.name})"
    return f"{GRADER_ERROR_PREFIX}{type(exc).__name__}: {message}{where}"


def error_result(cls: Callable[..., R], **fields: Any) -> Callable[..., R]:
    """An ``on_error`` factory: ``cls(outcome="error", reason=<reason>, **fields)``.

    For result types that are not grades (``EEDResult``); the call's own arguments are ignored.
    """

    def build(reason: str, *_args: Any, **_kwargs: Any) -> R:
        return cls(outcome=Outcome.ERROR, reason=reason, **fields)

    return build


def error_grade(cls: Callable[..., R], **fields: Any) -> Callable[..., R]:
    """An ``on_error`` factory for a :class:`~physeval.problems.Grade` subclass.

    ``error_grade(SymbolicGrade, score=0.0)`` builds ``SymbolicGrade(correct=False,
    outcome="error", reason=<reason>, score=0.0)``; the call's own arguments are ignored.
    """
    return error_result(cls, correct=False, **fields)


def check_box(box: object) -> None:
    """The ``box`` option of the graders: ``"last"`` or ``"first"``; ``ValueError`` otherwise."""
    if box not in ("last", "first"):
        raise ValueError(f"box must be 'last' or 'first', not {box!r}")


def never_raises(
    on_error: Callable[..., Any], *, options: Mapping[str, Callable[[Any], object]] | None = None
) -> Callable[[F], F]:
    """Decorate a public grader so that an unexpected exception becomes ``on_error(reason, *args, **kwargs)``.

    ``on_error`` receives the reason from :func:`error_reason` followed by the grader's own
    arguments (so a parser can answer with the labels it was asked about) and must not raise.
    ``options`` maps keyword-option names (``compat``, ``box``) to checks run *before* the guard:
    a bad option is the caller's programming error and raises ``ValueError`` as before, while no
    input (response, reference, question) can make the grader raise. The decorated function
    keeps its name, signature and docstring; ``__wrapped__`` is the unguarded original.
    """
    checks = dict(options or {})

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def guarded(*args: Any, **kwargs: Any) -> Any:
            for name, check in checks.items():
                if name in kwargs:
                    check(kwargs[name])
            try:
                return fn(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the point of the guard; the reason carries it
                _log.debug("%s raised; returned as an error outcome", fn.__qualname__, exc_info=True)
                return on_error(error_reason(exc), *args, **kwargs)

        return guarded  # type: ignore[return-value]

    return decorate

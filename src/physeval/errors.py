"""One vocabulary for what can go wrong, so the CLI can tell a user's mistake from a bug.

- :class:`UserError`: something the user can fix (data not found, a bad option, a template
  error, a missing extra, an unusable sandbox). The CLI prints its message as one line and
  exits 2; nothing else it catches.
- :class:`ModelError`: a model request that failed for good, with a short ``kind`` that the
  run records (``connection``, ``auth``, ``unknown_model`` ...). ``fatal`` kinds stop a run at
  once (a wrong key or model name will not get better by retrying the next item).
- :class:`StorageError`: the run folder's storage failed (a full disk, a read-only or failing
  file system, a damaged database). Nothing is wrong with the evaluation: the CLI prints the
  cause and what to do in one line and exits 5; every row already committed is kept.
  :class:`StoreDamaged` is the damaged-database case, with the number of rows still readable.
- Everything else is a bug: the CLI prints the traceback and asks for a report.

Each class is importable without heavy dependencies.
"""

from __future__ import annotations

__all__ = [
    "PhysevalError",
    "UserError",
    "OptionError",
    "DataError",
    "DataNotFoundError",
    "MissingExtraError",
    "ModelError",
    "RunAborted",
    "StorageError",
    "StoreDamaged",
    "FATAL_MODEL_ERRORS",
    "missing_extra",
]


class PhysevalError(Exception):
    """Base class of the errors physeval raises on purpose."""


class UserError(PhysevalError):
    """An error the user can fix; the message says what to do."""


class OptionError(UserError, ValueError):
    """An option with a value physeval cannot use (unknown model spec, samples < 1, a misspelt key)."""


class DataError(UserError, ValueError):
    """A dataset that cannot be read as the task expects (missing file, field or column)."""


class DataNotFoundError(UserError, FileNotFoundError):
    """A dataset file or folder that is not where the user said; the message names what is expected."""


class MissingExtraError(UserError, ImportError):
    """An optional dependency is not installed; the message has the exact ``pip install`` line."""


def missing_extra(feature: str, extra: str, module: str) -> MissingExtraError:
    """The error for ``feature`` needing the ``extra`` (whose import ``module`` failed)."""
    return MissingExtraError(f"{feature} needs the {module!r} package: pip install 'physeval[{extra}]'")


FATAL_MODEL_ERRORS = frozenset({"auth", "unknown_model", "not_found", "local_model", "local_crashed"})
"""Model error kinds that no retry and no other item will fix: a run stops at the first one."""


class ModelError(PhysevalError):
    """A request that failed for good (after retries), with a short ``kind`` for the record.

    Kinds: ``rate_limit``, ``server_error``, ``timeout``, ``connection``, ``bad_response``,
    ``bad_request``, ``auth``, ``not_found``, ``unknown_model``, ``local_model`` (the embedded model
    cannot start), ``local_crashed`` (its process died by a signal or exited).
    """

    def __init__(self, kind: str, message: str, *, attempts: int = 1, retryable: bool = False,
                 retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.attempts = attempts
        self.retryable = retryable
        self.retry_after = retry_after

    @property
    def fatal(self) -> bool:
        """Whether this failure stops a run (wrong key, wrong model name, rejected request)."""
        return self.kind in FATAL_MODEL_ERRORS


class RunAborted(PhysevalError):
    """A run stopped before its end because its model (or judge) cannot be used.

    Raised by the preflight check and by the circuit breaker; the finished rows are kept and
    the run can be resumed once the cause is fixed.
    """

    def __init__(self, message: str, *, kind: str, hint: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.hint = hint


class StorageError(PhysevalError):
    """A file physeval keeps (a run's ``samples.sqlite``, its summary) could not be written or read.

    Attributes:
        kind: ``disk_full``, ``read_only``, ``io_error``, ``damaged``, ``cannot_open`` or ``sqlite``.
        path: The file (or folder) concerned.
        cause: The system's or SQLite's own words (``database or disk is full``).
        hint: What to do, as a clause (``free space on the file system holding runs/x``).
    """

    def __init__(self, message: str, *, kind: str, path: str, cause: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.path = path
        self.cause = cause
        self.hint = hint


class StoreDamaged(StorageError):
    """A damaged database: ``readable`` rows can still be read (``physeval export DIR --salvage``)."""

    def __init__(self, message: str, *, path: str, cause: str = "", hint: str = "", readable: int = 0,
                 problems: tuple[str, ...] = ()) -> None:
        super().__init__(message, kind="damaged", path=path, cause=cause, hint=hint)
        self.readable = readable
        self.problems = problems

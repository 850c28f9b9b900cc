"""What every reader of another tool's output returns, and the error for a file of no known kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physeval.errors import UserError

__all__ = ["FORMATS_READ", "ForeignResponses", "Reader", "not_readable"]

FORMATS_READ = ("JSONL of {id, variant?, sample?, response} lines, a physeval export "
                "(`physeval export RUN`), an inspect log (.eval or .json) or an lm-eval samples_*.jsonl")


@dataclass(frozen=True)
class ForeignResponses:
    """Responses read from another tool's output.

    Attributes:
        format: The reader's name (``inspect``, ``lm-eval``).
        records: One dict per generation: ``id``, ``variant``, ``sample``, ``response`` (``None``
            when the tool recorded an error instead), ``usage`` (token counts, when logged).
        task: The physeval task the tool ran, when the output says (``None``: not a physeval task).
        task_options: That task's options as recorded.
        model: The model the tool named.
        errors: Generations the tool recorded as failed, with its message.
    """

    format: str
    records: list[dict[str, Any]]
    task: str | None = None
    task_options: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Reader:
    """One foreign format: its name, a sniff on (path, first bytes), and the reader."""

    name: str
    sniff: Callable[[Path, bytes], bool]
    read: Callable[[Path], ForeignResponses]


def not_readable(path: str | Path, why: str = "") -> UserError:
    """The one-line error for a file physeval does not read, naming the formats it reads."""
    detail = f" ({why})" if why else ""
    return UserError(f"{path}: not a responses file physeval reads{detail}; it reads {FORMATS_READ}")

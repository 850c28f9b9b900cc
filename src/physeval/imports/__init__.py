"""Responses other tools logged, read as physeval responses (for ``score``, ``report``, ``compare``...).

Why: a researcher who already paid for an inspect or lm-eval run should get physeval's EED,
dynamic metrics and intervals from it without generating again. Each reader is one module with a
``sniff(path, head)`` that says whether a file is its format (from the name and the first bytes)
and a ``read(path)`` that returns a :class:`ForeignResponses`; :data:`READERS` lists them in the
order they are tried, so a new format is one module and one entry. Responses become physeval's
records (``id``, ``variant``, ``sample``, ``response``, ``usage``) matched to problems by the ids
physeval exported into the tool (inspect sample metadata, lm-eval documents).

A file that is none of these, nor physeval's JSONL, gets one line naming the formats read
(:data:`FORMATS_READ`).
"""

from __future__ import annotations

from pathlib import Path

from physeval.errors import UserError
from physeval.imports import inspect_log, lm_eval_samples
from physeval.imports.base import FORMATS_READ, ForeignResponses, Reader, not_readable

__all__ = ["FORMATS_READ", "READERS", "ForeignResponses", "Reader", "not_readable", "read_foreign"]

READERS: tuple[Reader, ...] = (Reader("inspect", inspect_log.sniff, inspect_log.read),
                               Reader("lm-eval", lm_eval_samples.sniff, lm_eval_samples.read))
"""The foreign formats, tried in order (each module imports its tool only when it reads)."""


def read_foreign(path: str | Path) -> ForeignResponses | None:
    """The responses in ``path`` if it is another tool's output, else ``None`` (physeval's JSONL,
    or a file of no known kind: the JSONL reader says so)."""
    path = Path(path)
    try:
        with path.open("rb") as handle:
            head = handle.read(4096)
    except FileNotFoundError:
        raise UserError(f"no responses file at {path}") from None
    except IsADirectoryError:
        raise not_readable(path, "a directory") from None
    for reader in READERS:
        if reader.sniff(path, head):
            return reader.read(path)
    return None

"""The one reader of JSON-lines files: one behaviour for blank lines, bad lines and encodings.

Responses files (``physeval score``), lm-eval samples files, ``jsonl`` task data, SimuScene
JSONL and review sheets are all JSON lines; each once split and decoded them its own way, so a
byte-order mark, a line that is not JSON or a stray separator meant different things in each.
Here, for all of them:

- the file is UTF-8, with or without a byte-order mark; any other bytes are :class:`NotText`
  (a :class:`~physeval.errors.DataError` naming the file and the byte);
- lines end at ``\\n`` (``\\r\\n`` too) and nowhere else: a JSON string may hold U+2028 or
  U+0085 raw, which ``str.splitlines`` would have cut;
- a blank (whitespace-only) line is skipped, and still counted, so line numbers are the file's;
- a line that is not JSON is returned in order with its number and why (``not JSON (...)``):
  the caller decides whether it drops it (reported) or stops there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physeval.errors import DataError

__all__ = ["JsonLine", "NotText", "parse_json_lines", "read_json_lines"]


class NotText(DataError):
    """The file is not UTF-8 text."""


@dataclass(frozen=True)
class JsonLine:
    """One non-blank line: its number in the file (from 1) and its JSON value, or why it has none."""

    number: int
    value: Any = None
    error: str | None = None

    @property
    def problem(self) -> str:
        """``line N: not JSON (...)`` for a bad line (empty for a good one)."""
        return f"line {self.number}: {self.error}" if self.error else ""


def read_json_lines(path: str | Path) -> list[JsonLine]:
    """Every non-blank line of the file at ``path``, in order (see the module docstring).

    :class:`NotText` when the bytes are not UTF-8; ``FileNotFoundError`` and ``IsADirectoryError``
    pass through for the caller to word."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise NotText(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return list(parse_json_lines(text))


def parse_json_lines(text: str) -> Iterator[JsonLine]:
    """The non-blank lines of ``text``, decoded (a bad one carries its error instead)."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield JsonLine(number, json.loads(line))
        except json.JSONDecodeError as exc:
            yield JsonLine(number, error=f"not JSON ({exc.msg})")

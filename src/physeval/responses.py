"""Responses a user already has, read from a file: physeval's own layouts, or another tool's output.

``physeval score`` reads ``{"id", "variant"?, "sample"?, "response"}`` lines, physeval's own
export, an inspect log or an lm-eval samples file (the last two through :mod:`physeval.imports`).
Bad lines are reported, never fatal; a file that is none of these is a :class:`UserError`
naming the formats read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from physeval.errors import UserError
from physeval.imports import ForeignResponses
from physeval.json_lines import NotText, read_json_lines

__all__ = ["read_responses", "read_any_responses"]


def read_responses(path: str | Path) -> tuple[list[dict[str, Any]], list[str]]:
    """JSONL responses (read by :func:`~physeval.json_lines.read_json_lines`); bad lines are reported, not fatal.

    Two layouts are read: ``{"id", "variant"?, "sample"?, "response"}`` and physeval's own
    export (``problem_id``, ``variant``, ``sample``, ``completion``, ``status``); a row of the
    export whose request failed (no completion) is returned with ``response`` ``None``. Another
    tool's output (an inspect log, an lm-eval samples file) is read by :mod:`physeval.imports`
    (see :func:`read_any_responses`); a file that is none of these -- not text, or not one line
    physeval can use -- is a :class:`UserError` naming the formats read.
    """
    from physeval.imports import not_readable

    records, bad = [], []
    try:
        lines = read_json_lines(path)
    except FileNotFoundError as exc:
        raise UserError(f"no responses file at {path}") from exc
    except NotText:
        raise not_readable(path, "not UTF-8 text") from None
    except IsADirectoryError:
        raise not_readable(path, "a directory") from None
    for line in lines:
        number, record = line.number, line.value
        if line.error:
            bad.append(line.problem)
            continue
        if isinstance(record, dict) and "problem_id" in record and "id" not in record:
            record = {"id": record["problem_id"], "variant": record.get("variant", "0"),
                      "sample": record.get("sample", 0), "response": record.get("completion"),
                      "error_kind": record.get("error_kind"), "error_message": record.get("error_message"),
                      "export": True}
        if not isinstance(record, dict) or "id" not in record:
            bad.append(f"line {number}: needs an 'id' (or a physeval export's 'problem_id')")
            continue
        failed_export_row = record.get("export") and record.get("response") is None
        if not isinstance(record.get("response"), str) and not failed_export_row:
            bad.append(f"line {number}: needs a string 'response'")
            continue
        try:
            record["sample"] = int(record.get("sample", 0))
        except (TypeError, ValueError):
            bad.append(f"line {number}: 'sample' must be an integer")
            continue
        records.append(record)
    if bad and not records:
        raise not_readable(path, f"no line is a response; {bad[0]}")
    return records, bad


def read_any_responses(path: str | Path) -> tuple[list[dict[str, Any]], list[str], ForeignResponses | None]:
    """``(records, bad lines, foreign)``: another tool's output through :mod:`physeval.imports`
    (``foreign`` says which tool, task and model), else :func:`read_responses`."""
    from physeval.imports import read_foreign

    foreign = read_foreign(path)
    if foreign is not None:
        return foreign.records, list(foreign.errors), foreign
    records, bad = read_responses(path)
    return records, bad, None

"""Load ABench-Physics problems from the official CSV files.

``Phy_A_fixed_400.csv`` (``mid, standard_question, standard_answer``) is the static set;
``Phy_B_dynamic_100.csv`` (``mid, subid, standard_question, standard_answer``) holds 100
problems with four variants each (subid 0 is the original). Files are UTF-8 with a BOM and
every field quoted. A row missing a field raises ``ValueError`` naming the file and row: a
silently dropped problem would change every accuracy figure.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Literal

from physeval.answers.units import required_format
from physeval.errors import DataError, DataNotFoundError  # noqa: F401
from physeval.problems import Problem, first_duplicate

__all__ = ["ABENCH_FILES", "load_abench", "abench_file"]

ABENCH_FILES = {"a": "Phy_A_fixed_400.csv", "b": "Phy_B_dynamic_100.csv"}
_COLUMNS = {"a": ("mid", "standard_question", "standard_answer"),
            "b": ("mid", "subid", "standard_question", "standard_answer")}
_CJK = re.compile(r"[\u4e00-\u9fff]")


def abench_file(path: str | Path, which: Literal["a", "b"]) -> Path:
    """The CSV for set ``which`` at ``path`` (the file itself, or a folder holding it)."""
    if which not in ABENCH_FILES:
        raise DataError(f"which must be 'a' or 'b', not {which!r}")
    p = Path(path).expanduser()
    if p.is_dir():
        p = p / ABENCH_FILES[which]
    if not p.is_file():
        raise DataNotFoundError(
            f"ABench data not found at {str(path)!r}: expected {ABENCH_FILES[which]} "
            f"(set A: {ABENCH_FILES['a']}, set B: {ABENCH_FILES['b']}) or a folder containing it; "
            "get them from github.com/inclusionAI/ABench, Physics/data/"
        )
    return p


def load_abench(path: str | Path, which: Literal["a", "b"]) -> list[Problem]:
    """Problems of ABench-Physics set ``"a"`` (static) or ``"b"`` (dynamic), in file order.

    ``Problem.id`` is ``mid``; ``variant`` is ``subid`` (``"0"`` for set A); ``meta`` has
    ``language`` (``"zh"`` if the question contains CJK characters, else ``"en"``) and the
    ``unit``, ``sig_figs`` and ``scientific`` demands read from the question.

    Raises:
        FileNotFoundError: naming the expected file names when the file is missing.
        ValueError: naming the file and row when a row lacks a column or a value.
    """
    file = abench_file(path, which)
    columns = _COLUMNS[which]
    problems: list[Problem] = []
    with file.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        missing_columns = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing_columns:
            raise DataError(f"{file.name}: missing column(s) {missing_columns}; found {reader.fieldnames}")
        if which == "a" and "subid" in (reader.fieldnames or []):
            raise DataError(f"{file.name} has a 'subid' column: it is a Phy_B (dynamic) file; "
                            f"run it as abench-b, or give abench-a {ABENCH_FILES['a']}")
        for line, row in enumerate(reader, start=2):
            empty = [c for c in columns if row.get(c) is None or not str(row[c]).strip()]
            if empty:
                raise DataError(f"{file.name} line {line} (mid={row.get('mid')!r}): empty field(s) {empty}")
            question = row["standard_question"]
            fmt = required_format(question)
            problems.append(
                Problem(
                    id=str(row["mid"]).strip(),
                    question=question,
                    answer=row["standard_answer"].strip(),
                    variant=str(row["subid"]).strip() if which == "b" else "0",
                    meta={
                        "language": "zh" if _CJK.search(question) else "en",
                        "unit": fmt.unit,
                        "sig_figs": fmt.sig_figs,
                        "scientific": fmt.scientific,
                    },
                )
            )
    twice = first_duplicate(problems)
    if twice is not None:
        raise DataError(f"{file.name}: problem mid={twice.id} variant={twice.variant} appears twice")
    return problems

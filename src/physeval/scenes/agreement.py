"""Judge-vs-human agreement on verification questions (SimuScene's Table 6 layout).

Each judge's per-question verdicts are compared with human labels for the same
(problem, sample, question). For every judge the table counts judge true / human true (TT),
judge false / human false (FF), judge true / human false (TF, a lenient judge) and judge
false / human true (FT, a strict judge), and agreement = (TT + FF) / compared. Cohen's kappa
is given as well.

Human labels CSV (``LABELS.csv``), one row per labelled question, header required:

============  ==========================================================================
column        meaning
============  ==========================================================================
``id``        problem id as in the run (required)
``sample``    sample number within the problem, 0-based (optional; blank or absent = 0)
``index``     the question's index (``1``, ``2``...; ``Q1``/``1.`` are read as ``1``;
              text-mode extras are ``executes`` / ``saves_video``) (required)
``label``     the human verdict: ``true``/``false``, ``yes``/``no``, ``1``/``0`` (required)
============  ==========================================================================

Other columns (``question``, ``annotator``, ``note``...) are ignored. A row with an
unreadable label, or a key labelled twice with different verdicts, is an error naming the line.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from physeval.scenes.judge import JudgeVerdict, normalize_index

__all__ = [
    "LabelKey",
    "AgreementRow",
    "read_human_labels",
    "parse_human_labels",
    "judge_labels_from_verdicts",
    "agreement_table",
    "agreement_rich_table",
    "ENSEMBLE",
]

#: (problem id, sample number as a string, normalised question index)
LabelKey = tuple[str, str, str]

#: The name of the majority-vote row added when a run used several judges.
ENSEMBLE = "ensemble"

_TRUE = {"true", "yes", "y", "1", "t"}
_FALSE = {"false", "no", "n", "0", "f"}


@dataclass(frozen=True)
class AgreementRow:
    """One judge's agreement with the human labels.

    Attributes:
        judge: Judge name (or ``ensemble``).
        tt: Judge true, human true.
        ff: Judge false, human false.
        tf: Judge true, human false.
        ft: Judge false, human true.
        compared: Questions both labelled (``tt + ff + tf + ft``).
        agreement: ``(tt + ff) / compared`` in [0, 1]; ``None`` when nothing was compared.
        kappa: Cohen's kappa; ``None`` when undefined (nothing compared, or chance agreement 1).
        human_only: Human-labelled questions this judge gave no verdict for.
    """

    judge: str
    tt: int
    ff: int
    tf: int
    ft: int
    compared: int
    agreement: float | None
    kappa: float | None
    human_only: int = 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return asdict(self)


def _key(problem_id: Any, sample: Any, index: Any) -> LabelKey:
    sample_text = str(sample).strip() if sample not in (None, "") else "0"
    if sample_text.endswith(".0") and sample_text[:-2].isdigit():
        sample_text = sample_text[:-2]
    return (str(problem_id).strip(), sample_text, normalize_index(index))


def parse_human_labels(text: str, *, source: str = "labels") -> dict[LabelKey, bool]:
    """Parse LABELS.csv text (see the module docstring); raises ``ValueError`` naming the line."""
    reader = csv.DictReader(io.StringIO(text))
    fields = {f.strip().lower(): f for f in (reader.fieldnames or [])}
    missing = [c for c in ("id", "index", "label") if c not in fields]
    if missing:
        raise ValueError(f"{source}: missing column(s) {', '.join(missing)}; need id, index, label (sample optional)")
    labels: dict[LabelKey, bool] = {}
    for lineno, row in enumerate(reader, start=2):
        values = {name: (row.get(original) or "").strip() for name, original in fields.items()}
        if not any(values.values()):
            continue
        if not values["id"] or not values["index"]:
            raise ValueError(f"{source}:{lineno}: empty id or index")
        raw = values["label"].lower()
        if raw in _TRUE:
            verdict = True
        elif raw in _FALSE:
            verdict = False
        else:
            raise ValueError(f"{source}:{lineno}: label must be true/false, yes/no or 1/0, got {values['label']!r}")
        key = _key(values["id"], values.get("sample", ""), values["index"])
        if key in labels and labels[key] != verdict:
            raise ValueError(f"{source}:{lineno}: {key} is labelled both true and false")
        labels[key] = verdict
    return labels


def read_human_labels(path: str | Path) -> dict[LabelKey, bool]:
    """Read a LABELS.csv file into ``{(id, sample, index): bool}``."""
    path = Path(path)
    return parse_human_labels(path.read_text(encoding="utf-8-sig"), source=str(path))


def judge_labels_from_verdicts(
    verdicts: Iterable[tuple[Any, Any, JudgeVerdict | Mapping[str, Any]]],
    *,
    include_ensemble: bool | None = None,
) -> dict[str, dict[LabelKey, bool]]:
    """Per-judge question verdicts from ``(problem id, sample, verdict)`` triples.

    ``verdict`` is a :class:`JudgeVerdict` or its ``to_dict()`` (as the run store keeps it).
    A judge whose request failed (outcome ``error``) contributes nothing for that sample: it
    gave no verdict to compare. ``include_ensemble`` (default: when any verdict had more than
    one judge) adds the majority-vote row under :data:`ENSEMBLE`.
    """
    out: dict[str, dict[LabelKey, bool]] = {}
    ensemble: dict[LabelKey, bool] = {}
    multi = False
    for problem_id, sample, verdict in verdicts:
        data = verdict.to_dict() if isinstance(verdict, JudgeVerdict) else verdict
        judges = data.get("judges") or []
        multi = multi or len(judges) > 1
        for run in judges:
            if run.get("outcome") == "error":
                continue
            table = out.setdefault(str(run.get("judge", "judge")), {})
            for q_key, value in (run.get("results") or {}).items():
                table[_key(problem_id, sample, q_key)] = bool(value)
        if judges and not all(r.get("outcome") == "error" for r in judges):
            for q_key, value in (data.get("per_question") or {}).items():
                ensemble[_key(problem_id, sample, q_key)] = bool(value)
    if include_ensemble or (include_ensemble is None and multi):
        out[ENSEMBLE] = ensemble
    return out


def agreement_table(
    judge_labels: Mapping[str, Mapping[LabelKey, bool]],
    human: Mapping[LabelKey, bool],
) -> list[AgreementRow]:
    """One :class:`AgreementRow` per judge over the questions both the judge and humans labelled."""
    rows: list[AgreementRow] = []
    for judge, labels in judge_labels.items():
        tt = ff = tf = ft = human_only = 0
        for key, truth in human.items():
            if key not in labels:
                human_only += 1
                continue
            said = labels[key]
            if said and truth:
                tt += 1
            elif not said and not truth:
                ff += 1
            elif said:
                tf += 1
            else:
                ft += 1
        n = tt + ff + tf + ft
        rows.append(AgreementRow(judge, tt, ff, tf, ft, n, (tt + ff) / n if n else None,
                                 _kappa(tt, ff, tf, ft), human_only))
    return rows


def _kappa(tt: int, ff: int, tf: int, ft: int) -> float | None:
    n = tt + ff + tf + ft
    if not n:
        return None
    observed = (tt + ff) / n
    judge_true, human_true = (tt + tf) / n, (tt + ft) / n
    chance = judge_true * human_true + (1 - judge_true) * (1 - human_true)
    if chance >= 1:
        return None
    return (observed - chance) / (1 - chance)


def agreement_rich_table(rows: Iterable[AgreementRow], *, title: str = "Judge agreement with human labels") -> Any:
    """A ``rich.table.Table`` in the paper's Table 6 layout (plus compared count and kappa)."""
    from rich.table import Table

    table = Table(title=title)
    for header in ("judge", "judge T / human T", "judge F / human F", "judge T / human F",
                   "judge F / human T", "compared", "agreement %", "kappa"):
        table.add_column(header, justify="left" if header == "judge" else "right")
    for row in rows:
        table.add_row(
            row.judge, str(row.tt), str(row.ff), str(row.tf), str(row.ft), str(row.compared),
            "-" if row.agreement is None else f"{100 * row.agreement:.1f}",
            "-" if row.kappa is None else f"{row.kappa:.3f}",
        )
    return table

"""Small hand-written runs: a real run store per run, rows written the way the runner writes them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from physeval.analysis.runs import Run, load_run
from physeval.store import RunStore, SampleRow
from physeval.summary import RunSummary, write_summary


def row(pid: str, correct: bool | None, *, variant: str = "0", sample: int = 0, status: str = "answered",
        outcome: str | None = None, answer_key: str | None = None, score: float | None = None,
        finish_reason: str = "stop", tokens: int | None = None, question: str | None = None,
        error_kind: str | None = None, meta: dict[str, Any] | None = None, **grade: Any) -> SampleRow:
    """One sample's row (``question`` defaults to one naming the problem and variant)."""
    outcome = outcome or ("correct" if correct else "wrong")
    return SampleRow(problem_id=pid, variant=variant, sample=sample, status=status,
                     messages=[{"role": "user", "content": question or f"question {pid}/{variant}"}],
                     completion="answer", finish_reason=finish_reason,
                     usage={} if tokens is None else {"completion_tokens": tokens}, correct=correct, score=score,
                     outcome=outcome, error_kind=error_kind, problem_meta=meta or {},
                     grade={"correct": bool(correct), "outcome": outcome, "answer_key": answer_key, **grade})


def store_run(path: Path, rows: list[SampleRow], *, task: str = "bank-numeric", model: str = "m") -> Run:
    """Write ``rows`` to a run store at ``path`` with a minimal summary, and read it back."""
    with RunStore(path) as store:
        for r in rows:
            store.append(r)
    write_summary(path, RunSummary(task=task, model=model))
    return load_run(path)

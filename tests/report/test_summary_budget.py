"""summary.json counts the samples whose EED tree was scored under the budget (``counts.budget``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physeval import disk_cache
from physeval.cli import main


def test_summary_counts_the_samples_the_budget_applied_to(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PHYSEVAL_EED_CACHE", "on")  # --no-cache turns it off; restored after the test
    data = tmp_path / "problems.jsonl"
    data.write_text("\n".join(json.dumps(p) for p in [
        {"id": "radical", "question": "?", "answer": r"\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{2}"},
        {"id": "plain", "question": "?", "answer": r"2mg+4\frac{mv_0^2}{l}"},
    ]) + "\n")
    responses = tmp_path / "responses.jsonl"
    responses.write_text("\n".join(json.dumps(r) for r in [
        {"id": "radical", "sample": 0, "response": r"\boxed{\sqrt{a+b+c+d+f+g+h} \cdot \frac{k}{3}}"},  # budget
        {"id": "radical", "sample": 1, "response": r"\boxed{\frac{k}{2}\sqrt{a+b+c+d+f+g+h}}"},  # equivalent
        {"id": "plain", "sample": 0, "response": r"\boxed{2mg+2\frac{mv_0^2}{l}}"},
    ]) + "\n")
    out = tmp_path / "scored"
    main(["score", "jsonl", "--data", str(data), "-T", "kind=symbolic", "--responses", str(responses),
          "--out", str(out), "--no-cache"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["samples"] == 3
    assert summary["counts"]["budget"] == 1
    assert disk_cache.info().total == 0  # --no-cache: nothing read or written

"""summary.json is a type: built by one function from one read of the store, one writer, one reader.

A real run (the scripted arithmetic server, a real SQLite store) with failed requests is
summarised; the summary must name every number once, read back equal to what was written, match
the published JSON Schema, and a summary.json written before the type existed (version 1) must
still read, with its numbers under their one name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixture_tasks import ArithmeticTask, arithmetic_reply
from physeval import RunConfig, evaluate
from physeval.store import RunStore
from physeval.summary import SUMMARY_VERSION, RunSummary, read_summary, summary_schema, write_summary
from physeval.testing import Reply, Request, ScriptedServer

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "docs" / "summary.schema.json"

# A summary.json as physeval wrote it before the type existed (92a3499), trimmed: one number under
# two names (counts.answered and counts.graded; errors.count and counts.errors), the first errors
# under errors.first, and provenance.sessions a count.
VERSION_1 = {
    "task": "bank-numeric", "model": "flaky", "config": {"samples": 3, "task": {"variants": 1}},
    "counts": {"problems": 10, "samples": 30, "answered": 24, "errors": 6, "planned_samples": 30,
               "error_kinds": {"server_error": 6}, "outcomes": {"correct": 16, "wrong": 8},
               "reasons": {"correct": 16, "wrong": 8, "request_error": 6}, "budget": 0, "graded": 24, "missing": 0},
    "metrics": {"accuracy": {"value": 0.6666666666666666, "ci_low": 0.5, "ci_high": 0.8333333333333333, "n": 8,
                             "n_samples": 24},
                "maj@3": {"value": 1.0, "ci_low": None, "ci_high": None, "n": 1, "n_samples": 3}},
    "breakdowns": {"level": {"first_year": {"accuracy": {"value": 0.5555555555555555, "ci_low": 0.3333333333333333,
                                                         "ci_high": 0.6666666666666666, "n": 3, "n_samples": 9}}}},
    "notes": ["6 samples ended in an error (server_error 6) and are left out of every metric"],
    "complete": False, "status": "incomplete",
    "errors": {"count": 6, "by_kind": {"server_error": 6}, "first": ["server_error: HTTP 503 (scripted)"]},
    "provenance": {"physeval": "0.1.0", "python": "3.11.7", "platform": "Linux", "libraries": {"sympy": "1.14.0"},
                   "data_sha256": {}, "config_sha256": "a7591bdec0052993fb4b56b55d9f4b455d074244063cf5af781c0f82e3c71da4",
                   "started_at": "2026-12-02T14:24:37+00:00", "ended_at": "2026-12-02T14:24:37+00:00", "wall_s": 0.04,
                   "sessions": 1, "tokens": {"prompt_tokens": 3282, "completion_tokens": 2753, "reasoning_tokens": 0}},
}


def _failing_for_problem_4(request: Request) -> Reply:
    """The arithmetic server's answers, except a 400 (a request that fails for good) for problem 4."""
    if "[id=4]" in request.prompt:
        return Reply.error(400)
    return arithmetic_reply(request)


@pytest.fixture
def run_with_errors(tmp_path: Path) -> tuple[RunSummary, Path]:
    with ScriptedServer(_failing_for_problem_4) as server:
        summary, _ = evaluate(ArithmeticTask(n=6), "openai/test", base_url=server.base_url,
                              run_dir=tmp_path / "run", config=RunConfig(samples=2, preflight=False, use_cache=False,
                                                                         max_consecutive_errors=0),
                              show_progress=False)
    return summary, tmp_path / "run"


def test_a_run_returns_the_typed_summary_it_wrote(run_with_errors: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run_with_errors
    assert isinstance(summary, RunSummary) and summary.version == SUMMARY_VERSION
    assert read_summary(run_dir).to_dict() == json.loads((run_dir / "summary.json").read_text())
    assert summary.counts.errors == summary.counts.error_kinds["bad_request"] > 0
    assert summary.counts.graded + summary.counts.errors == summary.counts.samples == 12
    assert summary.metrics["accuracy"].n == 5  # problem 4 measured nothing: no metric stands on it
    assert summary.status == "incomplete" and not summary.complete and summary.first_errors


def test_every_number_has_one_name(run_with_errors: tuple[RunSummary, Path]) -> None:
    _, run_dir = run_with_errors
    written = json.loads((run_dir / "summary.json").read_text())
    assert "answered" not in written["counts"] and written["counts"]["graded"] == 10
    assert "errors" not in written  # errors.count and errors.by_kind were counts.errors and counts.error_kinds
    assert written["first_errors"] and written["version"] == SUMMARY_VERSION


def test_the_summary_is_built_from_one_read_of_the_store(run_with_errors: tuple[RunSummary, Path],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from physeval.flow.summarise import summarise_run

    _, run_dir = run_with_errors
    reads = []
    real = RunStore.iter_rows

    def counted(self: RunStore):  # type: ignore[no-untyped-def]
        reads.append(1)
        return real(self)

    monkeypatch.setattr(RunStore, "iter_rows", counted)
    summarise_run(ArithmeticTask(n=6), run_dir, model="openai/test", config={})
    assert len(reads) == 1


def test_a_version_1_summary_reads_with_each_number_under_its_one_name(tmp_path: Path) -> None:
    (tmp_path / "summary.json").write_text(json.dumps(VERSION_1))
    old = read_summary(tmp_path)
    assert old.version == 1 and old.counts.graded == 24 and old.counts.errors == 6
    assert old.first_errors == ("server_error: HTTP 503 (scripted)",)
    assert old.status == "incomplete" and not old.complete
    assert len(old.provenance.sessions) == 1 and old.provenance.wall_s == 0.04
    assert old.metrics["accuracy"].n == 8 and old.breakdowns["level"]["first_year"]["accuracy"].n_samples == 9
    assert old.metric("maj@3") is not None and old.provenance.tokens.completion_tokens == 2753
    write_summary(tmp_path, old)  # what it says survives a rewrite in the current layout
    again = read_summary(tmp_path)
    assert again.counts == old.counts and again.first_errors == old.first_errors and again.notes == old.notes


def test_the_published_schema_is_the_type_and_the_written_file_follows_it(
        run_with_errors: tuple[RunSummary, Path]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = summary_schema()
    assert json.loads(SCHEMA_FILE.read_text()) == schema, \
        "docs/summary.schema.json is stale: python -c 'import json; from physeval.summary import summary_schema; " \
        "print(json.dumps(summary_schema(), indent=2))' > docs/summary.schema.json"
    _, run_dir = run_with_errors
    jsonschema.validate(json.loads((run_dir / "summary.json").read_text()), schema)
    with pytest.raises(jsonschema.ValidationError):  # the schema says what is not a summary
        jsonschema.validate(VERSION_1, schema)
    written_before = json.loads((run_dir / "summary.json").read_text())  # before the reasoning estimate was kept
    for key in ("reasoning_estimated", "reasoning_estimated_samples"):
        del written_before["provenance"]["tokens"][key]
    jsonschema.validate(written_before, schema)

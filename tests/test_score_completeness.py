"""``physeval score`` against the plan: what was not answered never counts, and says so.

Each row of the table is a response set over real task data (bank-numeric's built-in bank, the
shared PHYBench file), scored through the command line. The plan is every variant of each problem
the responses name, K samples each (K = the largest sample index + 1). Expected metrics, ``complete``
and the exit status are worked by hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from physeval import regrade_run
from physeval.cli import EXIT_INCOMPLETE, EXIT_OK, main
from physeval.tasks.registry import get_task

PHYBENCH = Path(__file__).resolve().parents[2] / "shared" / "data" / "phybench" / "PHYBench-fullques_v1.json"

# A response set: (problem index, variant, sample) -> "right", "wrong" or "error" (an exported row
# whose request failed); a key that is absent has no response.
Responses = dict[tuple[int, str, int], str]


def _all(problems: int, variants: str, samples: int = 1, **changes: str) -> Responses:
    """Every item right, then ``changes`` ("1:3:0" -> problem 1, variant 3, sample 0; "" deletes)."""
    table = {(i, v, s): "right" for i in range(problems) for v in variants for s in range(samples)}
    for where, what in changes.items():
        i, v, s = where.split(":")
        key = (int(i), v, int(s))
        if what:
            table[key] = what
        else:
            del table[key]
    return table


# (case, task, response set, {metric: (value, n problems, n samples)}, metrics absent, complete, exit,
#  missing, errors, a note that must be there)
Row = tuple[str, str, Responses, dict[str, tuple[float, int, int]], set[str], bool, int, int, int, str | None]
TABLE: list[Row] = [
    # Two problems A, B x 4 variants, all right: every metric 1 over both problems.
    ("bank-numeric complete", "bank-numeric", _all(2, "0123"),
     {"accuracy": (1.0, 2, 8), "static_accuracy": (1.0, 2, 2), "dynamic_accuracy": (1.0, 2, 8), "delta": (0.0, 2, 8)},
     set(), True, EXIT_OK, 0, 0, None),
    # A has variant 2 wrong (dynamic 0); B answers only 3 of its 4 variants, all right. B must not count
    # as "all variants right": dynamic accuracy stands on A alone, 0 over n=1 (it was 0.5 over n=2).
    # accuracy per problem: A 3/4, B 3/3 -> (0.75 + 1)/2 = 0.875 over 7 samples.
    ("bank-numeric a variant missing", "bank-numeric", _all(2, "0123", **{"0:2:0": "wrong", "1:3:0": ""}),
     {"accuracy": (0.875, 2, 7), "static_accuracy": (1.0, 2, 2), "dynamic_accuracy": (0.0, 1, 4), "delta": (1.0, 1, 4)},
     set(), False, EXIT_INCOMPLETE, 1, 0, "B (variant 3: 0 of 1 samples graded)"),
    # B's variant 3 errored: an error row, not a wrong answer and not a right one. Same numbers as
    # above for A; B's three graded variants still count for accuracy: (0.75 + 1)/2.
    ("bank-numeric a variant errored", "bank-numeric", _all(2, "0123", **{"0:2:0": "wrong", "1:3:0": "error"}),
     {"accuracy": (0.875, 2, 7), "dynamic_accuracy": (0.0, 1, 4)},
     set(), False, EXIT_INCOMPLETE, 0, 1, "B (variant 3: 0 of 1 samples graded)"),
    # K = 2. A: variant 1's sample 1 wrong -> items 1, .5, 1, 1: dynamic .5, accuracy .875, pass@2 1.
    # B: all right but variant 2 lacks sample 1 -> left out of dynamic metrics; accuracy 1 over 7 samples.
    # accuracy (.875 + 1)/2 = .9375 over 15 samples; dynamic accuracy .5 and dynamic pass@2 1 over A alone.
    ("bank-numeric a sample missing", "bank-numeric", _all(2, "0123", 2, **{"0:1:1": "wrong", "1:2:1": ""}),
     {"accuracy": (0.9375, 2, 15), "dynamic_accuracy": (0.5, 1, 8), "dynamic_pass@2": (1.0, 1, 8),
      "delta": (0.5, 1, 8)},
     set(), False, EXIT_INCOMPLETE, 1, 0, "B (variant 2: 1 of 2 samples graded)"),
    # PHYBench is static (one variant per problem): three problems, the second wrong -> 2/3.
    ("phybench complete", "phybench", _all(3, "0", **{"1:0:0": "wrong"}),
     {"accuracy": (2 / 3, 3, 3)}, {"dynamic_accuracy"}, True, EXIT_OK, 0, 0, None),
    # A problem with no response at all is outside the plan (the responses score a subset): 2 of 2.
    ("phybench a problem without any response", "phybench", _all(3, "0", **{"1:0:0": ""}),
     {"accuracy": (1.0, 2, 2)}, set(), True, EXIT_OK, 0, 0, None),
    # The second problem's only variant errored: it measured nothing, so accuracy is 2/2 over n=2, not 2/3.
    ("phybench a variant errored", "phybench", _all(3, "0", **{"1:0:0": "error"}),
     {"accuracy": (1.0, 2, 2)}, set(), False, EXIT_INCOMPLETE, 0, 1, None),
    # K = 2, the third problem lacks sample 1: accuracy uses every sample, (1 + .5 + 1)/3 over 5;
    # pass@2 stands on the two full items: (1 + 1)/2.
    ("phybench a sample missing", "phybench", _all(3, "0", 2, **{"1:0:1": "wrong", "2:0:1": ""}),
     {"accuracy": (2.5 / 3, 3, 5), "pass@2": (1.0, 2, 4)}, set(), False, EXIT_INCOMPLETE, 1, 0,
     "pass@2: 1 of 3 items have fewer than 2 samples"),
]


def _task_args(task: str) -> list[str]:
    if task == "phybench":
        if not PHYBENCH.is_file():
            pytest.skip("../shared/data/phybench is not present")
        return ["--data", str(PHYBENCH), "-T", "grading_processes=0"]
    return []


def _write(task: str, responses: Responses, path: Path) -> list[str]:
    """Write ``responses`` as JSONL (errors as physeval export rows); return the problem ids used."""
    options: dict[str, Any] = {"data": str(PHYBENCH), "grading_processes": 0} if task == "phybench" else {}
    problems = get_task(task, **options).load()
    ids = list(dict.fromkeys(p.id for p in problems))
    by_key = {(p.id, p.variant): p for p in problems}
    lines = []
    for (i, variant, sample), what in sorted(responses.items()):
        problem = by_key[(ids[i], variant)]
        if what == "error":
            lines.append({"problem_id": problem.id, "variant": variant, "sample": sample, "completion": None,
                          "status": "error", "error_kind": "server_error", "error_message": "HTTP 500"})
            continue
        if task == "phybench":
            answer = problem.answer if what == "right" else "0"
        else:
            unit = problem.meta.get("unit_latex") or ""
            answer = f"{problem.answer}\\,{unit}" if what == "right" else "1.00 \\times 10^{9}"
        lines.append({"id": problem.id, "variant": variant, "sample": sample, "response": f"\\boxed{{{answer}}}"})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return ids


@pytest.mark.parametrize(("case", "task", "responses", "expected", "absent", "complete", "exit_status", "missing",
                          "errors", "note"), TABLE, ids=[row[0] for row in TABLE])
def test_response_set_table(case: str, task: str, responses: Responses, expected: dict[str, tuple[float, int, int]],
                            absent: set[str], complete: bool, exit_status: int, missing: int, errors: int,
                            note: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = _task_args(task)
    ids = _write(task, responses, tmp_path / "r.jsonl")
    code = main(["score", task, "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "run"), *args])
    err = capsys.readouterr().err
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert code == exit_status, err
    assert summary["complete"] is complete
    assert (summary["counts"]["missing"], summary["counts"]["errors"]) == (missing, errors)
    for name, (value, n, n_samples) in expected.items():
        got = summary["metrics"][name]
        assert (got["value"], got["n"], got["n_samples"]) == (pytest.approx(value), n, n_samples), f"{case}: {name}"
    assert not absent & set(summary["metrics"])
    if note is not None:
        named = note.replace("A (", f"{ids[0]} (").replace("B (", f"{ids[1]} (")
        assert any(named in n for n in summary["notes"]), summary["notes"]
    if not complete:
        assert "INCOMPLETE" in err and "what to do" in err


def test_regrade_keeps_the_plan_so_an_incomplete_problem_stays_out(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """A regrade into a new directory measures against the same plan as the scored run."""
    _write("bank-numeric", _all(2, "0123", **{"1:3:0": ""}), tmp_path / "r.jsonl")
    main(["score", "bank-numeric", "--responses", str(tmp_path / "r.jsonl"), "--out", str(tmp_path / "run")])
    summary, _ = regrade_run(tmp_path / "run", out=tmp_path / "again")
    assert summary.complete is False and summary.counts.missing == 1
    assert summary.metrics["dynamic_accuracy"].n == 1
    capsys.readouterr()
    assert main(["regrade", str(tmp_path / "run")]) == EXIT_INCOMPLETE
    assert "what to do" in capsys.readouterr().err

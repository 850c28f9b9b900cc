"""A run records where its numbers came from, and refuses to mix samples drawn differently."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from fixture_tasks import ArithmeticTask
from physeval import __version__
from physeval.cli import EXIT_OK, EXIT_USER_ERROR, main
from physeval.tasks.registry import register_task
from physeval.testing import ScriptedServer

register_task(ArithmeticTask)


def _run(server: ScriptedServer, out: Path, *extra: str) -> int:
    return main(["run", "arithmetic", "--model", "openai/m", "--base-url", server.base_url, "--out", str(out),
                 "--no-progress", *extra])


def test_resume_with_another_temperature_is_refused_with_the_difference(
        arithmetic_server: ScriptedServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert _run(arithmetic_server, out, "--limit", "2", "--temperature", "0.6") == EXIT_OK
    capsys.readouterr()
    assert main(["run", "--resume", str(out), "--temperature", "1.3", "--limit", "4", "--no-progress"]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "temperature: 0.6 -> 1.3" in err and "--force" in err
    assert json.loads((out / "summary.json").read_text())["config"]["temperature"] == 0.6  # nothing rewritten
    # more problems at the same settings is a plain resume
    assert main(["run", "--resume", str(out), "--limit", "4", "--no-progress"]) == EXIT_OK
    # --force accepts the change and records both
    assert main(["run", "--resume", str(out), "--temperature", "1.3", "--force", "--no-progress"]) == EXIT_OK
    history = json.loads((out / "summary.json").read_text())["provenance"]["settings_history"]
    assert history[0]["changes"] == ["temperature: 0.6 -> 1.3"]


def test_out_onto_another_tasks_run_is_refused(arithmetic_server: ScriptedServer, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert _run(arithmetic_server, out, "--limit", "1") == EXIT_OK
    before = (out / "samples.sqlite").read_bytes()
    assert main(["run", "bank-numeric", "--model", "openai/m", "--base-url", arithmetic_server.base_url,
                 "--out", str(out), "--no-progress"]) == EXIT_USER_ERROR
    assert "holds a run of task 'arithmetic'" in capsys.readouterr().err
    assert (out / "samples.sqlite").read_bytes() == before


def test_summary_carries_versions_hashes_times_and_tokens(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(arithmetic_server, out, "--limit", "3") == EXIT_OK
    provenance = json.loads((out / "summary.json").read_text())["provenance"]
    assert provenance["physeval"] == __version__ and provenance["python"].count(".") == 2
    assert {"sympy", "pint", "openai"} <= set(provenance["libraries"])
    assert len(provenance["config_sha256"]) == 64
    assert provenance["started_at"] <= provenance["ended_at"] and provenance["wall_s"] >= 0
    [session] = provenance["sessions"]  # one record per session; wall time is their sum
    assert session["new_samples"] == 3 and provenance["wall_s"] == session["wall_s"]
    tokens = provenance["tokens"]
    assert tokens["prompt_tokens"] > 0 and tokens["completion_tokens"] > 0 and tokens["reasoning_tokens"] == 0


def test_data_files_are_hashed(tmp_path: Path) -> None:
    data = tmp_path / "Phy_A_fixed_400.csv"
    data.write_text('"mid","standard_question","standard_answer"\n'
                    '"1","A stone falls for \\( t = 2\\,\\mathrm{s} \\). How far? (Results should be expressed '
                    'with units of $ \\mathrm{m} $, rounded to 2 significant figures)","20"\n', encoding="utf-8")
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps({"id": "1", "response": "\\boxed{19.6\\ \\mathrm{m}}"}) + "\n")
    assert main(["score", "abench-a", "--data", str(data), "--responses", str(responses),
                 "--out", str(tmp_path / "s")]) == EXIT_OK
    provenance = json.loads((tmp_path / "s" / "summary.json").read_text())["provenance"]
    assert provenance["data_sha256"] == {str(data): hashlib.sha256(data.read_bytes()).hexdigest()}


def test_sampling_seed_and_variant_seed_are_separate(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    from physeval.tasks.registry import get_task

    a = get_task("bank-numeric", variant_seed=1).load()
    b = get_task("bank-numeric", variant_seed=2).load()
    assert [p.question for p in a if p.variant == "1"] != [p.question for p in b if p.variant == "1"]
    out = tmp_path / "run"
    assert _run(arithmetic_server, out, "--limit", "1", "--seed", "7") == EXIT_OK
    body = arithmetic_server.requests[-1].body
    assert body["seed"] == 7

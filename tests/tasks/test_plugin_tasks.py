"""A new benchmark is one module: run by file path, found through an entry point, typed by -T."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from physeval.cli import EXIT_OK, EXIT_USER_ERROR, main
from physeval.testing import Reply, ScriptedServer

HERE = Path(__file__).resolve().parent
MODULE = HERE / "mc_fixture_benchmark.py"
sys.path.insert(0, str(HERE))
from mc_fixture_benchmark import reply_for  # noqa: E402


@pytest.fixture
def mc_server():  # type: ignore[no-untyped-def]
    with ScriptedServer(lambda request: Reply.text(reply_for(request.prompt))) as server:
        yield server


def _accuracy(out: Path) -> float:
    return float(json.loads((out / "summary.json").read_text())["metrics"]["accuracy"]["value"])


def test_a_task_file_runs_without_packaging(mc_server: ScriptedServer, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert main(["run", f"{MODULE}:MCPhysics", "--model", "openai/m", "--base-url", mc_server.base_url,
                 "-T", "letters=ABCDE", "--out", str(out), "--no-progress"]) == EXIT_OK
    assert _accuracy(out) == pytest.approx(0.7)
    assert "(E)" not in mc_server.requests[-1].prompt and "E. " in mc_server.requests[-1].prompt


def test_task_options_are_typed_and_checked(mc_server: ScriptedServer, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", f"{MODULE}:MCPhysics", "--model", "openai/m", "--base-url", mc_server.base_url,
                 "-T", "leters=ABCDE", "--out", str(tmp_path / "x"), "--no-progress"]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "has no option 'leters'; did you mean 'letters'?" in err and not (tmp_path / "x").exists()
    assert main(["run", "bank-numeric", "-T", "rel_tol=lots", "--out", str(tmp_path / "y"),
                 "--no-progress"]) == EXIT_USER_ERROR
    assert "rel_tol='lots'" in capsys.readouterr().err


def test_a_plugin_task_is_found_through_its_entry_point(mc_server: ScriptedServer, tmp_path: Path) -> None:
    dist = tmp_path / "site" / "mc_physics_plugin-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mc-physics-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[physeval.tasks]\nmc-physics = mc_fixture_benchmark:MCPhysics\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(HERE)])}
    out = tmp_path / "run"
    listed = subprocess.run([sys.executable, "-m", "physeval.cli", "tasks"], env=env, capture_output=True,
                            text=True, timeout=120)
    assert "mc-physics" in listed.stdout
    done = subprocess.run([sys.executable, "-m", "physeval.cli", "run", "mc-physics", "--model", "openai/m",
                           "--base-url", mc_server.base_url, "--letters", "ABCDE", "--out", str(out),
                           "--no-progress"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == EXIT_OK, done.stderr
    assert _accuracy(out) == pytest.approx(0.7)


def test_the_choice_grader_explains_itself() -> None:
    from physeval.grading.choice import grade_choice

    assert grade_choice("so \\boxed{(C)}", "C").reason == "chose C (boxed), reference C"
    assert grade_choice("the answer is a ball, so B", "B").outcome == "no_answer"
    assert grade_choice("\\boxed{A or B}", "A").outcome == "ambiguous"
    assert grade_choice("Answer: E", "E", letters="ABCDE").answer_key == "E"
    assert grade_choice("Answer: E", "A").outcome == "no_answer"  # E is not an option of ABCD
    assert grade_choice("\\boxed{B}", "Z").outcome == "error"

"""Help that fits the task: ``run --help`` is short, ``run TASK --help`` adds that task's options only."""

from __future__ import annotations

import pytest

from physeval.cli import main
from physeval.tasks.options import option_fields
from physeval.tasks.registry import task_class


def _help(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit_info:
        main([*argv, "--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


def test_run_help_fits_on_two_screens_and_says_how_to_see_task_options(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "run")
    assert len(text.splitlines()) < 60
    assert "physeval run TASK --help" in text and "--box" not in text and "--variants" not in text


def test_run_phybench_help_lists_phybench_options_and_no_other_tasks(capsys: pytest.CaptureFixture[str]) -> None:
    text = _help(capsys, "run", "phybench")
    for field, _ in option_fields(task_class("phybench").Options):
        if field.name not in ("data", "prompt_file"):
            assert "--" + field.name.replace("_", "-") in text
    assert "--variants" not in text and "--judge" not in text and "--fresh" not in text
    assert text.count("which \\boxed{} is the final answer") == 1


def test_bank_numeric_help_has_its_variants_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert "--variants" in _help(capsys, "run", "bank-numeric")


@pytest.mark.parametrize("spelling", ["bank_numeric", "physeval/bank_numeric", "Bank-Numeric"])
def test_task_names_are_accepted_in_every_spelling(spelling: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert "--variants" in _help(capsys, "run", spelling)
    assert task_class(spelling).name == "bank-numeric"


def test_an_unknown_task_suggests_the_closest_names(capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    responses = tmp_path / "r.jsonl"
    responses.write_text('{"id": "1", "response": "42"}\n')
    status = main(["score", "bank_numerc", "--responses", str(responses)])
    assert status == 2
    assert "did you mean 'bank-numeric'" in capsys.readouterr().err


def test_tasks_options_lists_one_tasks_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks", "--options", "bank-numeric"]) == 0
    out = capsys.readouterr().out
    assert "--variants" in out and "--variant-seed" in out and "--fresh" not in out

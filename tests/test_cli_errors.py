"""Every user mistake is one actionable line with exit status 2; a bug is a traceback and exit 1."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from physeval.cli import EXIT_BUG, EXIT_USER_ERROR, main


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "--samples", "0"], "samples must be at least 1"),
    (["run", "--limit", "0"], "limit must be at least 1"),
    (["run", "--limit", "-1"], "limit must be at least 1"),
    (["run", "--max-connections", "0"], "max_connections must be at least 1"),
    (["run", "--model", "nonsense"], "unknown model 'nonsense'"),
    (["vary", "no_such_template"], "no template file or bank id 'no_such_template'"),
    (["report", "/nonexistent/run"], "no summary.json in /nonexistent/run"),
    (["regrade", "/nonexistent/run"], "no physeval run there"),
    (["score", "bank-numeric", "--responses", "/nonexistent.jsonl"], "no responses file"),
])
def test_user_errors_are_one_line(argv: list[str], message: str, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "never"
    if argv[0] == "run":
        argv = [*argv, "--out", str(out), "--no-progress"]
    assert main(argv) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()  # nothing was written for a run that could not start


def test_a_phy_b_file_given_to_abench_a_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "Phy_B_dynamic_100.csv"
    data.write_text('"mid","subid","standard_question","standard_answer"\n"1","0","q","1"\n"1","1","q","2"\n',
                    encoding="utf-8")
    assert main(["run", "abench-a", "--data", str(data), "--out", str(tmp_path / "x"), "--no-progress"]) == 2
    assert "it is a Phy_B (dynamic) file" in capsys.readouterr().err


def test_hf_data_without_datasets_names_the_install_line(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # importing it now raises ImportError
    assert main(["run", "phybench", "--data", "hf:Eureka-Lab/PHYBench", "--out", str(tmp_path / "x"),
                 "--no-progress"]) == EXIT_USER_ERROR
    err = capsys.readouterr().err
    assert "pip install datasets" in err and "Traceback" not in err


def test_square_brackets_in_messages_survive_the_terminal(monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from physeval import cli
    from physeval.errors import UserError

    def fail(args: object) -> int:
        raise UserError("install it with: pip install 'physeval[local]'")

    parser_main = cli.main
    monkeypatch.setattr(cli, "build_parser", _parser_with(cli.build_parser, fail))
    assert parser_main(["tasks"]) == EXIT_USER_ERROR
    assert "pip install 'physeval[local]'" in capsys.readouterr().err


def test_an_internal_bug_prints_its_traceback_and_asks_for_a_report(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    from physeval import cli

    def bug(args: object) -> int:
        raise ValueError("an internal invariant broke")

    monkeypatch.setattr(cli, "build_parser", _parser_with(cli.build_parser, bug))
    assert cli.main(["tasks"]) == EXIT_BUG
    err = capsys.readouterr().err
    assert "Traceback" in err and "an internal invariant broke" in err and "please report" in err


def _parser_with(build, func):  # type: ignore[no-untyped-def]
    def patched(*args):  # type: ignore[no-untyped-def]
        parser = build(*args)
        for action in parser._subparsers._group_actions:  # the `tasks` subcommand runs `func`
            action.choices["tasks"].set_defaults(func=func)
        return parser

    return patched

"""``--progress rich|plain|none``: what a CI log, a pipe and a terminal get on stderr."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from physeval.cli import EXIT_OK, main
from physeval.progress import RunProgress, default_progress_mode
from physeval.testing import Reply, ScriptedServer


def test_plain_prints_a_line_at_each_tenth_and_at_the_end_without_redrawing() -> None:
    stream = io.StringIO()
    with RunProgress(total=25, label="bank-numeric", enabled="plain", stream=stream) as progress:
        for i in range(25):
            progress.advance(correct=None if i == 3 else i % 5 != 0, error=i == 3)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "bank-numeric: 0/25 (0%) started"
    assert [line.split()[1] for line in lines[1:]] == [f"{n}/25" for n in (*range(2, 25, 2), 25)]
    assert lines[-1].endswith("1 errors acc 79.2% (n=24)")  # 19 of the 24 graded (one was an error)
    assert "\r" not in stream.getvalue() and "\x1b" not in stream.getvalue()


def test_none_and_false_print_nothing_and_true_is_rich() -> None:
    stream = io.StringIO()
    with RunProgress(total=3, enabled="none", stream=stream) as progress:
        progress.advance(correct=True, error=False)
    assert stream.getvalue() == "" and RunProgress(total=1, enabled=False).mode == "none"
    assert RunProgress(total=1, enabled=True).mode == "rich"


def test_a_pipe_or_file_defaults_to_plain() -> None:
    assert default_progress_mode() == "plain"  # pytest captures stdout: not a terminal


@pytest.mark.parametrize(("flags", "lines"), [([], 11), (["--progress", "plain"], 11), (["--progress", "none"], 0),
                                              (["--no-progress"], 0)])
def test_physeval_run_progress_on_stderr(flags: list[str], lines: int, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(lambda request: Reply.text("so \\boxed{1}"), model="m") as server:
        assert main(["run", "bank-numeric", "--model", "openai/m", "--base-url", server.base_url, "--limit", "10",
                     "--variants", "1", "--out", str(tmp_path / "run"), "--no-cache", *flags]) in (EXIT_OK, 3)
    progress = [line for line in capsys.readouterr().err.splitlines() if line.startswith("bank-numeric: ")]
    assert len(progress) == lines  # "started" and one line per finished sample (a tenth of 10)
    if lines:
        assert progress[-1].startswith("bank-numeric: 10/10 (100%)")

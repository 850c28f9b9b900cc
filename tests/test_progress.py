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


def test_answers_from_the_cache_are_counted_apart_and_give_no_token_rate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # A second run answered from the response cache showed "203069 tok/s": tokens the server never sent now.
    monkeypatch.setenv("PHYSEVAL_CACHE_DIR", str(tmp_path / "cache"))
    with ScriptedServer(lambda request: Reply.text("so the answer is \\boxed{1}"), model="m") as server:
        for name in ("first", "second"):
            main(["run", "bank-numeric", "--model", "openai/m", "--base-url", server.base_url, "--limit", "10",
                  "--variants", "1", "--out", str(tmp_path / name), "--progress", "plain"])
            last = [line for line in capsys.readouterr().err.splitlines() if line.startswith("bank-numeric: 10/10")]
            if name == "first":
                assert "tok/s" in last[-1] and "cache" not in last[-1], last
        assert len(server.requests) == 11  # the preflight and ten answers, all from the first run
    assert "tok/s" not in last[-1] and "10 from cache" in last[-1], last


def test_a_slow_model_shows_seconds_a_sample_tokens_a_second_and_the_time_left(monkeypatch: pytest.MonkeyPatch) -> None:
    # The embedded model on a loaded CPU: 2.9 tokens a second, 512 tokens an answer (issue 36: `0.0/s`, no ETA).
    import physeval.progress as progress_module

    clock = [1000.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: clock[0])
    stream = io.StringIO()
    with RunProgress(total=20, label="bank-numeric", enabled="plain", stream=stream) as progress:
        for _ in range(4):
            clock[0] += 176.6  # 512 tokens at 2.9 tokens a second
            progress.advance(correct=False, error=False, tokens=512)
    line = stream.getvalue().splitlines()[-1]
    assert line == "bank-numeric: 4/20 (20%) 176.6 s each 2.9 tok/s ETA 47:06 acc 0.0% (n=4)", line
    assert "0.0/s" not in stream.getvalue()


def test_the_eta_counts_only_what_is_left_and_hours_show(monkeypatch: pytest.MonkeyPatch) -> None:
    import physeval.progress as progress_module

    clock = [0.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: clock[0])
    progress = RunProgress(total=260, already=10, enabled="none")
    clock[0] = 60.0
    progress.advance(correct=True, error=False, tokens=None)  # a server that sends no usage: no tok/s
    assert (progress._eta(), progress._tokens(), progress._rate()) == ("ETA 4:09:00", "", "60.0 s each")
    fast = RunProgress(total=10, enabled="none")
    clock[0] = 60.5
    for _ in range(5):
        fast.advance(correct=True, error=False, tokens=10)
    assert (fast._rate(), fast._tokens(), fast._eta()) == ("10.0/s", "100.0 tok/s", "ETA 0:01")


def test_a_reader_that_stops_early_turns_the_plain_line_off_and_the_run_goes_on(tmp_path: Path) -> None:
    """``physeval run ... 2>&1 | head -n 3``: the run stores every sample and ends (141: the pipe closed)."""
    import shlex
    import shutil
    import subprocess

    from physeval.store import RunStore

    out = tmp_path / "run"
    with ScriptedServer(lambda request: Reply.text("so \\boxed{1.00}")) as server:
        run = [shutil.which("physeval") or "physeval", "run", "bank-numeric", "--model", "openai/m", "--base-url",
               server.base_url, "--no-cache", "--progress", "plain", "--out", str(out)]
        script = f"{shlex.join(run)} 2>&1 | head -n 3; exit ${{PIPESTATUS[0]}}"
        done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=900)  # a hang guard
    assert done.returncode == 141, done.stderr
    assert len(done.stdout.splitlines()) == 3
    with RunStore(out) as store:
        assert store.count() == 260 and store.sessions()[-1]["ended"] == "finished"

"""A run that cannot reach its model says so: fast, loudly, with a non-zero exit and no score.

Each case goes through the real command line against a real HTTP endpoint on 127.0.0.1 (a
scripted server, or a port nobody listens on) and checks the three things a user sees: how long
it took, the exit status with the cause on the terminal, and a summary that does not claim to
be complete.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from fixture_tasks import ArithmeticTask, arithmetic_reply
from physeval.cli import EXIT_ABORTED, EXIT_INCOMPLETE, EXIT_OK, main
from physeval.tasks.registry import register_task
from physeval.testing import Reply, Request, ScriptedServer

register_task(ArithmeticTask)


def _dead_port() -> int:
    """A loopback port with nothing listening (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(base_url: str, out: Path, *extra: str, model: str = "openai/test") -> int:
    return main(["run", "arithmetic", "--model", model, "--base-url", base_url, "--out", str(out),
                 "--no-progress", "--no-cache", *extra])


def _assert_aborted(out: Path, code: int, err: str, cause: str, started: float) -> None:
    assert time.monotonic() - started < 60
    assert code == EXIT_ABORTED
    assert cause in err, err
    summary = json.loads((out / "summary.json").read_text())
    assert summary["complete"] is False and summary["status"] == "aborted"
    assert "accuracy" not in summary["metrics"]  # nothing was measured, so nothing is reported
    assert "0.0000" not in err


def test_a_dead_port_ends_the_run_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    started = time.monotonic()
    code = _run(f"http://127.0.0.1:{_dead_port()}/v1", tmp_path / "run")
    _assert_aborted(tmp_path / "run", code, capsys.readouterr().err, "connection", started)


def test_a_wrong_key_ends_the_run_with_the_servers_message(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(arithmetic_reply, api_key="right-key") as server:
        started = time.monotonic()
        code = _run(server.base_url, tmp_path / "run", "--api-key", "wrong-key")
        assert server.requests == []  # refused at GET /v1/models, before any chat request
    err = capsys.readouterr().err
    _assert_aborted(tmp_path / "run", code, err, "Incorrect API key provided", started)
    assert "--api-key" in err  # what to do


def test_a_wrong_model_name_lists_what_the_server_serves(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(arithmetic_reply, model="Qwen/Qwen3-8B") as server:
        started = time.monotonic()
        code = _run(server.base_url, tmp_path / "run", model="vllm/Qwen3-8B")
        assert server.requests == []
    err = capsys.readouterr().err
    _assert_aborted(tmp_path / "run", code, err, "does not serve 'Qwen3-8B'", started)
    assert "Qwen/Qwen3-8B" in err


def test_a_404_on_chat_requests_is_fatal_without_a_model_list(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(lambda r: Reply.error(404, "The model `x` does not exist.")) as server:
        started = time.monotonic()
        code = _run(server.base_url, tmp_path / "run")
        assert len(server.requests) == 1  # the preflight's one request; 404 is not retried
    _assert_aborted(tmp_path / "run", code, capsys.readouterr().err, "does not exist", started)


@pytest.mark.parametrize("reply", [Reply.error(500, "engine crashed"), Reply.garbage()], ids=["500", "garbage"])
def test_a_server_failing_every_request_ends_within_a_minute(tmp_path: Path, reply: Reply,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(lambda r: reply) as server:
        started = time.monotonic()
        code = _run(server.base_url, tmp_path / "run")
        assert len(server.requests) == 5  # the preflight's request and its four retries, nothing more
    cause = "engine crashed" if reply.kind == "status" else "bad_response"
    _assert_aborted(tmp_path / "run", code, capsys.readouterr().err, cause, started)


def test_the_circuit_breaker_stops_a_run_whose_server_dies_midway(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    def script(request: Request) -> Reply:
        return arithmetic_reply(request) if request.index < 3 else Reply.error(503, "overloaded")

    with ScriptedServer(script) as server:
        code = main(["run", "arithmetic", "--model", "openai/test", "--base-url", server.base_url,
                     "--out", str(tmp_path / "run"), "--no-progress", "--no-cache", "--max-attempts", "1",
                     "--max-connections", "1", "--max-consecutive-errors", "4"])
        asked = len(server.requests)
    err = capsys.readouterr().err
    assert code == EXIT_ABORTED and "4 samples in a row failed" in err and "overloaded" in err
    assert asked == 1 + 2 + 4  # preflight, two good samples, four failures: then it stopped (12 planned)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["status"] == "aborted" and summary["counts"]["missing"] == 12 - 6
    assert summary["counts"]["error_kinds"] == {"server_error": 4}
    assert summary["metrics"]["accuracy"]["n_samples"] == 2  # the metric says what it stands on


def test_some_failed_samples_give_a_distinct_status_and_name_the_error(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    def script(request: Request) -> Reply:
        return Reply.error(500, "too long for me") if "[id=4]" in request.prompt else arithmetic_reply(request)

    with ScriptedServer(script) as server:
        code = main(["run", "arithmetic", "--model", "openai/test", "--base-url", server.base_url,
                     "--out", str(tmp_path / "run"), "--no-progress", "--no-cache", "--max-attempts", "2"])
    err = capsys.readouterr().err
    assert code == EXIT_INCOMPLETE
    assert "INCOMPLETE" in err and "too long for me" in err
    assert f"physeval run --resume {tmp_path / 'run'} --retry-errors" in err  # the next step, as exit 4 gives it
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["complete"] is False and summary["counts"]["errors"] == 1
    assert summary["metrics"]["accuracy"]["n"] == 11  # problem 4 measured nothing and is not a zero


def test_a_dead_judge_stops_a_scene_run_before_any_render(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with ScriptedServer(lambda r: Reply.text("```python\nprint(1)\n```")) as server:
        started = time.monotonic()
        code = main(["run", "bank-scene", "--model", "openai/coder", "--base-url", server.base_url,
                     "--judge", "openai/vlm", "--judge-base-url", f"http://127.0.0.1:{_dead_port()}/v1",
                     "--limit", "1", "--out", str(tmp_path / "run"), "--no-progress", "--no-cache"])
    err = capsys.readouterr().err
    assert time.monotonic() - started < 60
    assert code == EXIT_ABORTED and "judge is not usable" in err and "connection" in err
    assert not (tmp_path / "run" / "videos").exists()


def test_a_complete_run_exits_zero_and_says_so(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    assert _run(arithmetic_server.base_url, tmp_path / "run") == EXIT_OK
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["complete"] is True and summary["status"] == "complete" and summary["counts"]["errors"] == 0


def test_a_variant_that_failed_leaves_its_problem_out_of_the_dynamic_metrics(tmp_path: Path) -> None:
    """Three problems x 2 variants. Problem 0 is answered wrong (both variants), problem 2 right;
    problem 1's variant 1 fails for good. Problem 1 measured only one of its variants, so it is not
    "every variant right": dynamic accuracy is (0 + 1)/2 over n = 2, not (0 + 1 + 1)/3."""
    from physeval import RunConfig, evaluate

    def script(request: Request) -> Reply:
        return Reply.error(500, "variant down") if "[id=1] Compute 4 + 8" in request.prompt else arithmetic_reply(request)

    with ScriptedServer(script) as server:
        summary, _ = evaluate(ArithmeticTask(n=3, variants=2), "openai/test", base_url=server.base_url,
                              run_dir=tmp_path / "run", max_attempts=1, show_progress=False,
                              config=RunConfig(use_cache=False))
    assert summary.complete is False and summary.counts.errors == 1
    dynamic = summary.metrics["dynamic_accuracy"]
    assert (dynamic.value, dynamic.n, dynamic.n_samples) == (0.5, 2, 4)
    assert any("1 (variant 1: 0 of 1 samples graded)" in note for note in summary.notes), summary.notes


class _GradesLate(ArithmeticTask):
    """Grades each answer only after the server has been asked ``after`` times (a slow grader)."""

    name = "arithmetic-grades-late"
    server: ScriptedServer | None = None
    after = 0

    async def agrade(self, problem, response, context):  # type: ignore[no-untyped-def]
        import asyncio

        for _ in range(10_000):  # bounded: the run asks the server long before this ends
            if self.server is not None and len(self.server.requests) >= self.after:
                break
            await asyncio.sleep(0.005)
        return self.grade(problem, response)


register_task(_GradesLate)


def test_a_grading_that_lands_after_failures_does_not_reset_the_breakers_streak(tmp_path: Path) -> None:
    """The streak follows the server's answers, not the order rows are stored: two good answers whose
    gradings land after the first two failures must not buy the dead server more requests."""

    def script(request: Request) -> Reply:
        return arithmetic_reply(request) if request.index < 3 else Reply.error(503, "overloaded")

    with ScriptedServer(script) as server:
        _GradesLate.server, _GradesLate.after = server, 1 + 2 + 2  # preflight, two answers, two failures
        try:
            code = main(["run", "arithmetic-grades-late", "--model", "openai/test", "--base-url", server.base_url,
                         "--out", str(tmp_path / "run"), "--no-progress", "--no-cache", "--max-attempts", "1",
                         "--max-connections", "1", "--max-consecutive-errors", "4"])
        finally:
            _GradesLate.server = None
        asked = len(server.requests)
    assert code == EXIT_ABORTED
    assert asked == 1 + 2 + 4

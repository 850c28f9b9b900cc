"""The runner end to end: a real HTTP server, real SQLite, every outcome recorded."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fixture_tasks import ArithmeticTask, arithmetic_reply
from physeval import RunConfig, run_task
from physeval.flow.plan import select_problems
from physeval.models import OpenAICompatibleModel, RetryPolicy
from physeval.store import RunStore
from physeval.testing import Reply, ScriptedServer, flaky


def _model(server: ScriptedServer, attempts: int = 3) -> OpenAICompatibleModel:
    return OpenAICompatibleModel("test-model", server.base_url, retry=RetryPolicy(attempts, base_s=0.005, cap_s=0.02))


def test_one_row_per_problem_variant_sample(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    task = ArithmeticTask(n=6, variants=2)
    result = asyncio.run(run_task(task, _model(arithmetic_server), tmp_path, RunConfig(samples=3, max_connections=4),
                                  show_progress=False))
    assert result.planned == 6 * 2 * 3 and result.completed_now == 36 and result.errors_now == 0
    rows = RunStore(tmp_path).rows()
    assert [r.key for r in rows][:4] == [("0", "0", 0), ("0", "0", 1), ("0", "0", 2), ("0", "1", 0)]
    assert len({r.key for r in rows}) == 36
    first = rows[0]
    assert first.completion == "The sum is \\boxed{7}."  # id 0 is answered wrong on purpose (1 + 5 = 6)
    assert first.reasoning == "1 plus 5" and first.correct is False and first.outcome == "wrong"
    assert first.messages == [{"role": "user", "content": "[id=0] Compute 1 + 5."}]
    assert first.usage["completion_tokens"] == 6 and first.latency_s > 0 and first.attempts == 1
    assert first.problem_meta == {"parity": "even"}


def test_twenty_percent_transient_failures_still_answer_everything(tmp_path: Path) -> None:
    with ScriptedServer(flaky(arithmetic_reply, failure_rate=0.2, seed=7)) as server:
        task = ArithmeticTask(n=30)
        result = asyncio.run(run_task(task, _model(server, attempts=10), tmp_path,
                                      RunConfig(samples=2, max_connections=8), show_progress=False))
        assert len(server.requests) > 60  # some requests were retried
    rows = RunStore(tmp_path).rows()
    assert result.errors_now == 0 and len(rows) == 60
    assert all(r.status == "answered" for r in rows)
    assert max(r.attempts for r in rows) > 1
    assert sum(r.correct for r in rows) == 2 * 20  # ids 0, 3, ..., 27 are wrong


def test_permanent_failure_is_a_row_and_the_run_goes_on(tmp_path: Path) -> None:
    def script(request):  # type: ignore[no-untyped-def]
        return Reply.error(500, "model exploded") if "[id=4]" in request.prompt else arithmetic_reply(request)

    with ScriptedServer(script) as server:
        result = asyncio.run(run_task(ArithmeticTask(n=8), _model(server, attempts=3), tmp_path,
                                      RunConfig(max_connections=3), show_progress=False))
    rows = {r.problem_id: r for r in RunStore(tmp_path).rows()}
    assert result.errors_now == 1 and len(rows) == 8
    failed = rows["4"]
    assert failed.status == "error" and failed.error_kind == "server_error" and failed.attempts == 3
    assert "model exploded" in failed.error_message and failed.correct is None
    assert rows["5"].status == "answered" and rows["5"].correct is True


def test_unreadable_reply_and_dropped_connection_are_explained(tmp_path: Path) -> None:
    def script(request):  # type: ignore[no-untyped-def]
        if "[id=1]" in request.prompt:
            return Reply.garbage()
        if "[id=2]" in request.prompt:
            return Reply.drop()
        return arithmetic_reply(request)

    with ScriptedServer(script) as server:
        asyncio.run(run_task(ArithmeticTask(n=3), _model(server, attempts=2), tmp_path, RunConfig(),
                             show_progress=False))
    rows = {r.problem_id: r for r in RunStore(tmp_path).rows()}
    assert rows["1"].error_kind == "bad_response" and rows["2"].error_kind == "connection"
    assert rows["0"].status == "answered"


def test_resume_skips_finished_rows(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    model = _model(arithmetic_server)
    config = RunConfig(use_cache=False, preflight=False)  # count generation requests only
    asyncio.run(run_task(ArithmeticTask(n=4), model, tmp_path, config, show_progress=False))
    asked = len(arithmetic_server.requests)
    again = asyncio.run(run_task(ArithmeticTask(n=10), _model(arithmetic_server), tmp_path, config,
                                 show_progress=False))
    assert again.skipped == 4 and again.completed_now == 6
    assert len(arithmetic_server.requests) == asked + 6


def test_cache_answers_a_repeated_run_without_requests(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    asyncio.run(run_task(ArithmeticTask(n=5), _model(arithmetic_server), tmp_path / "a", RunConfig(samples=2),
                         show_progress=False))
    asked = len(arithmetic_server.requests)
    asyncio.run(run_task(ArithmeticTask(n=5), _model(arithmetic_server), tmp_path / "b", RunConfig(samples=2),
                         show_progress=False))  # all cached: not even a preflight request
    assert len(arithmetic_server.requests) == asked
    assert all(r.cached for r in RunStore(tmp_path / "b").rows())
    asyncio.run(run_task(ArithmeticTask(n=5), _model(arithmetic_server), tmp_path / "c",
                         RunConfig(samples=2, use_cache=False, preflight=False), show_progress=False))
    assert len(arithmetic_server.requests) == asked + 10


def test_a_crashing_grader_is_recorded_not_fatal(arithmetic_server: ScriptedServer, tmp_path: Path) -> None:
    class Fragile(ArithmeticTask):
        def grade(self, problem, response):  # type: ignore[no-untyped-def]
            if problem.id == "2":
                raise ZeroDivisionError("boom")
            return super().grade(problem, response)

    asyncio.run(run_task(Fragile(n=4), _model(arithmetic_server), tmp_path, RunConfig(), show_progress=False))
    rows = {r.problem_id: r for r in RunStore(tmp_path).rows()}
    assert rows["2"].outcome == "error" and rows["2"].error_kind == "grader" and "boom" in rows["2"].error_message
    assert rows["2"].completion  # the model's answer is kept
    assert rows["1"].outcome == "correct" and rows["3"].outcome == "wrong"


def test_concurrency_is_bounded(tmp_path: Path) -> None:
    import threading

    live, peak, lock = 0, 0, threading.Lock()

    def script(request):  # type: ignore[no-untyped-def]
        nonlocal live, peak
        with lock:
            live += 1
            peak = max(peak, live)
        reply = arithmetic_reply(request)
        import time

        time.sleep(0.02)
        with lock:
            live -= 1
        return reply

    with ScriptedServer(script) as server:
        asyncio.run(run_task(ArithmeticTask(n=20), _model(server), tmp_path, RunConfig(max_connections=3),
                             show_progress=False))
    assert 1 <= peak <= 3


def test_limit_keeps_whole_variant_families() -> None:
    problems = ArithmeticTask(n=5, variants=3).load()
    chosen = select_problems(problems, 2)
    assert [(p.id, p.variant) for p in chosen] == [(i, v) for i in "01" for v in "012"]


def test_64_connections_score_exactly_what_a_serial_grading_scores(tmp_path: Path) -> None:
    """Known right answers, half written in another unit (kW for W): concurrency changes nothing."""
    from physeval import score_responses
    from physeval.tasks.registry import get_task

    task = get_task("bank-numeric")
    problems = task.load()[: 4 * 30]
    kilo = {"W", "J", "N", "V", "Pa", "m", "Hz", "A", "C", "eV", "g"}
    replies = {}
    for i, p in enumerate(problems):
        value = float(p.answer.replace("\\times 10^{", "e").replace("}", "").replace(" ", ""))
        unit = p.meta["unit"]
        if i % 2 and unit in kilo:
            replies[task.prompt(p)[-1]["content"]] = f"so \\boxed{{{value / 1000:.6g}\\ \\mathrm{{k{unit}}}}}"
        else:
            replies[task.prompt(p)[-1]["content"]] = f"so \\boxed{{{value:.6g}\\ \\mathrm{{{unit}}}}}"
    with ScriptedServer(lambda r: Reply.text(replies.get(r.prompt, "OK"))) as server:
        model = OpenAICompatibleModel("m", server.base_url)
        asyncio.run(run_task(task, model, tmp_path / "run", RunConfig(max_connections=64, use_cache=False),
                             problems=problems, show_progress=False))
    rows = RunStore(tmp_path / "run").rows()
    assert len(rows) == len(problems) and all(r.status == "answered" for r in rows)
    serial = {p.key: task.grade(p, replies[task.prompt(p)[-1]["content"]]) for p in problems}
    assert {(r.problem_id, r.variant): (r.correct, r.outcome) for r in rows} == {
        k: (g.correct, g.outcome) for k, g in serial.items()}
    assert sum(r.correct for r in rows) == len(rows)  # every known-right answer, units included, is right
    responses = [{"id": p.id, "variant": p.variant, "response": replies[task.prompt(p)[-1]["content"]]}
                 for p in problems]
    scored, _ = score_responses(task, responses, run_dir=tmp_path / "scored")
    assert scored.metrics["accuracy"].value == 1.0

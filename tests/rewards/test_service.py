"""The reward service: endpoints in process, then `physeval serve` as a real server under load.

The load tests run the real command on 127.0.0.1 (port 0) and a load client; the scene track
uses text mode with a scripted judge server that answers after a delay, so requests are slow
enough to fill a queue or to be in flight when SIGTERM arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra (fastapi, uvicorn) is not installed")
pytest.importorskip("uvicorn", reason="the serve extra (fastapi, uvicorn) is not installed")
import httpx

from _scene_programs import GOOD, fenced, judge_script
from physeval.rewards import RewardResult, SceneRewardOptions
from physeval.rewards.loadtest import run_load
from physeval.rewards.service import ServiceOptions, create_app
from physeval.rewards.trainers import openrlhf_result, verl_result
from physeval.testing import ScriptedServer

HANG_GUARD = 120  # seconds: reached only by a broken build; no verdict depends on it
Q_KMS = "How fast is the probe? (Results should be expressed with units of $ km/s $)"
CASES = [  # (completion, reference, question) -> reward, each worked by hand
    (r"\boxed{30000 m/s}", "30", Q_KMS, 1.0),     # converted to the asked unit
    (r"\boxed{3 m/s}", "30", Q_KMS, 0.0),          # wrong by a factor 10^4
    (r"\boxed{30}", "30", Q_KMS, 1.0),             # bare number read in the asked unit
    (r"\boxed{30}", None, Q_KMS, None),            # no reference: not scored
]


def _run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _with_app(options: ServiceOptions, body: Any) -> Any:
    app = create_app(options)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://service", timeout=60) as client:
            return await body(client)


# ----------------------------------------------------------------------------------- in process


def test_score_endpoint_answers_rewards_and_explanations() -> None:
    async def body(client: httpx.AsyncClient) -> None:
        payload = {"id": "req-1", "completions": [c for c, *_ in CASES], "references": [r for _, r, _, _ in CASES],
                   "questions": [q for *_, q, _ in CASES]}
        response = await client.post("/score", json=payload)
        assert response.status_code == 200
        data = response.json()
        assert data["id"] == "req-1"
        assert data["rewards"] == [expected for *_, expected in CASES]
        assert data["results"][0]["explanation"]["unit_required"] == "km/s"
        assert data["results"][3]["outcome"] == "no_reference"
        metrics = (await client.get("/metrics")).json()
        assert metrics["requests"] == 1 and metrics["items"] == 4 and metrics["responses"] == {"200": 1}
        assert metrics["latency_s"]["p50"] is not None
        assert metrics["stages"] == {"graded": 3, "no_reference": 1}
        health = (await client.get("/health")).json()
        assert health["status"] == "ok" and health["track"] == "numeric" and health["queue_depth"] == 0

    _run(_with_app(ServiceOptions(track="numeric"), body))


def test_openrlhf_remote_reward_model_protocol() -> None:
    async def body(client: httpx.AsyncClient) -> None:
        prompts = [f"<|im_start|>user\n{Q_KMS}<|im_end|>\n<|im_start|>assistant\n"] * 2
        queries = [prompts[0] + r"so \boxed{30 km/s}", prompts[1] + r"\boxed{3 km/s}"]
        response = await client.post("/get_reward", json={"query": queries, "prompts": prompts, "labels": ["30", "30"]})
        assert response.status_code == 200
        data = response.json()
        assert data["rewards"] == [1.0, 0.0] and data["scores"] == [1.0, 0.0]
        assert data["extra_logs"]["correct"] == [1.0, 0.0]

    _run(_with_app(ServiceOptions(track="numeric"), body))


def test_malformed_requests_are_answered_400_not_dropped() -> None:
    async def body(client: httpx.AsyncClient) -> None:
        assert (await client.post("/score", json={"completions": ["a", "b"], "references": ["1"]})).status_code == 400
        assert (await client.post("/score", json={"completions": "a"})).status_code == 400
        assert (await client.post("/get_reward", json={"query": ["a"], "labels": []})).status_code == 400
        assert (await client.get("/metrics")).json()["responses"] == {"400": 3}

    _run(_with_app(ServiceOptions(track="numeric"), body))


@pytest.fixture
def slow_judge() -> Iterator[ScriptedServer]:
    """A judge server answering every question true after 0.5 s."""
    with ScriptedServer(judge_script(True, delay_s=0.5)) as server:
        yield server


def _scene_options(judge: ScriptedServer, **kwargs: Any) -> ServiceOptions:
    scene = SceneRewardOptions(judges=("openai/judge",), judge_base_url=judge.base_url, mode="text")
    return ServiceOptions(track="scene", scene=scene, **kwargs)


def test_a_saturated_queue_answers_503_with_retry_after(slow_judge: ScriptedServer) -> None:
    async def body(client: httpx.AsyncClient) -> None:
        payload = {"completions": [fenced(GOOD)], "scenes": ["em-lorentz-circle"]}
        responses = await asyncio.gather(*(client.post("/score", json={**payload, "id": i}) for i in range(8)))
        statuses = [r.status_code for r in responses]
        # at most one scored and one waiting (concurrency 1, queue 1); the rest refused at once with the time
        # to come back; nothing else (no hang, no drop)
        assert 1 <= statuses.count(200) <= 2 and statuses.count(200) + statuses.count(503) == 8, statuses
        refused = [r for r in responses if r.status_code == 503]
        assert all(r.headers["Retry-After"] == "3" for r in refused)
        assert all(r.json()["rewards"] == [1.0] for r in responses if r.status_code == 200)
        metrics = (await client.get("/metrics")).json()
        assert metrics["rejected_503"] == statuses.count(503) and metrics["requests"] == statuses.count(200)

    _run(_with_app(_scene_options(slow_judge, queue_size=1, concurrency=1, retry_after_s=3), body))


def test_a_request_timeout_answers_null_not_a_zero_and_every_adapter_passes_it_on(slow_judge: ScriptedServer) -> None:
    """The judge takes 0.5 s, the request timeout is 0.1 s: nothing was measured, so the reward is null."""
    async def body(client: httpx.AsyncClient) -> None:
        response = await client.post("/score", json={"id": "t", "completions": [fenced(GOOD)] * 2,
                                                     "scenes": ["em-lorentz-circle"] * 2})
        assert response.status_code == 200
        data = response.json()
        assert data["rewards"] == [None, None]
        assert [r["reward"] for r in data["results"]] == [None, None]
        assert data["results"][0]["outcome"] == "timeout" and "0.1 s request timeout" in data["results"][0]["reason"]
        results = [RewardResult.from_dict(r) for r in data["results"]]
        # TRL: the reward function's list holds None, which GRPOTrainer skips (NaN, then nansum)
        assert [r.reward for r in results] == [None, None]
        # verl: its reward tensor takes numbers; the item says it was not measured, and why
        assert [verl_result(r) for r in results] == [{"score": 0.0, "acc": False, "pred": "", "outcome": "timeout",
                                                      "scored": False}] * 2
        # OpenRLHF: extra_logs counts it as not scored
        assert openrlhf_result(results)["extra_logs"]["scored"] == [0.0, 0.0]
        remote = (await client.post("/get_reward", json={"query": ["p" + fenced(GOOD)], "prompts": ["p"],
                                                         "labels": ["em-lorentz-circle"]})).json()
        assert remote["extra_logs"]["scored"] == [0.0]
        assert (await client.get("/metrics")).json()["timeouts"] == 2

    _run(_with_app(_scene_options(slow_judge, request_timeout=0.1), body))


# ----------------------------------------------------------------------------------- physeval serve


class _Served:
    """``physeval serve`` in a subprocess; its stderr lines collected by a thread."""

    def __init__(self, *args: str) -> None:
        command = [sys.executable, "-m", "physeval.cli", "serve", "--port", "0", *args]
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                                        env={**os.environ, "PHYSEVAL_GRADING_PROCESSES": "2"})
        self.lines: queue.Queue[str] = queue.Queue()
        self.log: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.url = ""
        self.wait_for(r"listening on (http://\S+)", 60)
        self.wait_for(r"physeval serve: ready", 120)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line)

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.5)
            except queue.Empty:
                if self.process.poll() is not None:
                    break
                continue
            self.log.append(line)
            match = re.search(pattern, line)
            if match:
                if match.groups() and match.group(1).startswith("http"):
                    self.url = match.group(1)
                return match
        raise AssertionError(f"no {pattern!r} from physeval serve; it said: {''.join(self.log)[-2000:]}")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()


def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (read from /proc: each process's parent pid)."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        parents[int(stat.parent.name)] = int(text.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs Linux pidfds to name the workers across the kill")
def test_a_server_killed_with_sigkill_leaves_no_grading_worker_behind() -> None:
    """Issue 33, finding 7: ``kill -9`` of ``physeval serve`` used to leave its two grading workers and
    multiprocessing's resource tracker alive under PID 1 for ever. Each worker now watches its parent
    and ends with it; the tracker ends when the last worker closes its pipe.

    The verdict is the kernel's: a pidfd opened on each process while the server lives (so a pid
    reused later cannot be mistaken for it) becomes readable when that process exits. The bound only
    keeps a broken build from hanging the suite.
    """
    served = _Served("--track", "symbolic")
    pidfds: dict[int, int] = {}
    try:
        reply = httpx.post(f"{served.url}/score", json={"completions": [r"\boxed{2 m g}"] * 6,
                                                       "references": ["2mg"] * 6}, timeout=120)
        assert reply.status_code == 200 and reply.json()["rewards"] == [1.0] * 6  # graded by the workers
        children = _descendants(served.process.pid)
        commands = {pid: _command_line(pid) for pid in children}
        workers = [pid for pid, command in commands.items() if "multiprocessing" in command]
        assert len([c for c in commands.values() if "spawn_main" in c]) == 2, commands  # PHYSEVAL_GRADING_PROCESSES
        assert any("resource_tracker" in c for c in commands.values()), commands
        pidfds = {pid: os.pidfd_open(pid) for pid in workers}
        served.process.kill()
        assert served.process.wait(HANG_GUARD) == -signal.SIGKILL
        left = set(pidfds.values())
        while left:
            ready, _, _ = select.select(list(left), [], [], HANG_GUARD)
            assert ready, f"still running {HANG_GUARD} s after physeval serve was killed: " + "; ".join(
                f"{pid} {commands[pid]}" for pid, fd in pidfds.items() if fd in left)
            left -= set(ready)
    finally:
        for fd in pidfds.values():
            with contextlib.suppress(OSError):  # a failed test leaves no orphan behind either
                signal.pidfd_send_signal(fd, signal.SIGKILL)
            os.close(fd)
        served.stop()


def test_load_500_requests_from_64_clients_none_lost_none_duplicated() -> None:
    served = _Served("--track", "numeric")
    try:
        payloads = []
        for i in range(500):
            completion, reference, question, _ = CASES[i % len(CASES)]
            payloads.append({"id": f"r{i}", "completions": [completion], "references": [reference],
                             "questions": [question]})
        expected = {f"r{i}": [CASES[i % len(CASES)][3]] for i in range(500)}
        report = _run(run_load(f"{served.url}/score", payloads, clients=64, expected=lambda p: expected[p["id"]]))
        print(f"\nphyseval serve --track numeric: {report.summary()}")
        assert (report.answered, report.lost, report.duplicated, report.wrong) == (500, 0, 0, 0), report.errors
        metrics = httpx.get(f"{served.url}/metrics").json()
        assert metrics["requests"] == 500 and metrics["responses"] == {"200": 500}  # each scored exactly once
        assert metrics["latency_s"]["p99"] is not None
    finally:
        served.stop()
    assert served.process.returncode == 0


def test_sigterm_mid_load_finishes_the_requests_in_flight(slow_judge: ScriptedServer) -> None:
    served = _Served("--track", "scene", "--judge", "openai/judge", "--judge-base-url", slow_judge.base_url,
                     "--judge-mode", "text", "--concurrency", "16")
    payloads = [{"id": i, "completions": [fenced(GOOD)], "scenes": ["em-lorentz-circle"]} for i in range(300)]
    sent = threading.Event()

    def on_answer(count: int) -> None:
        if count == 20 and not sent.is_set():
            sent.set()
            served.process.send_signal(signal.SIGTERM)  # mid-load: about 40 requests are in flight now

    try:
        report = _run(run_load(f"{served.url}/score", payloads, clients=64, expected=lambda p: [1.0],
                               on_answer=on_answer, max_503_retries=0))
        assert served.process.wait(60) == 0
        stopped = served.wait_for(r"stopped; requests=(\d+) answered=(\d+) responses=(\{.*\}) in_flight=(\d+)", 10)
    finally:
        served.stop()
    accepted, answered, in_flight = int(stopped.group(1)), int(stopped.group(2)), int(stopped.group(4))
    print(f"\nSIGTERM after 20 answers: server accepted {accepted}, answered {answered}; client: {report.summary()}")
    assert sent.is_set() and 20 < accepted < 300  # the signal came mid-load
    assert answered == accepted and in_flight == 0  # everything received was finished
    assert json.loads(stopped.group(3).replace("'", '"')) == {"200": accepted}
    assert report.answered == accepted and report.duplicated == 0 and report.wrong == 0  # and reached its client
    assert report.lost == 300 - accepted  # the rest were refused a connection, never half-answered

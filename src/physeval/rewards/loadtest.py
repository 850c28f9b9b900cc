"""A load test for a running reward service: N requests from C concurrent clients, nothing lost.

Why: a reward service sits inside a training loop; a request it loses or answers twice corrupts
a GRPO step silently. :func:`run_load` sends every request exactly once per attempt (retrying
only a 503, after its ``Retry-After``), checks that each answer carries its own request ``id``
and the expected rewards, and reports latency percentiles. ``physeval serve`` is one target;
any service speaking ``POST /score`` is another.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["LoadReport", "run_load"]


@dataclass
class LoadReport:
    """What happened to every request.

    Attributes:
        sent: Requests to send.
        answered: Requests answered 200 (each counted once).
        lost: Requests never answered 200 (connection errors, other statuses, 503 after the retries).
        duplicated: Answers whose ``id`` was already answered, or is not the request's own.
        wrong: Answers whose rewards differ from the expected ones.
        retried_503: 503 answers received (each retried after its ``Retry-After``).
        retry_after: The ``Retry-After`` values seen.
        errors: The first few failures, for the report.
        latencies_s: Seconds per answered request (the final attempt).
        wall_s: Seconds for the whole test.
    """

    sent: int = 0
    answered: int = 0
    lost: int = 0
    duplicated: int = 0
    wrong: int = 0
    retried_503: int = 0
    retry_after: set[str] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    latencies_s: list[float] = field(default_factory=list)
    wall_s: float = 0.0

    def percentile(self, q: float) -> float | None:
        """The ``q``-th percentile latency in seconds (nearest rank), ``None`` when nothing was answered."""
        values = sorted(self.latencies_s)
        if not values:
            return None
        return values[max(0, min(len(values) - 1, int(round(q / 100 * (len(values) - 1)))))]

    def summary(self) -> str:
        """One line of figures."""
        p50, p99 = self.percentile(50), self.percentile(99)
        rate = self.answered / self.wall_s if self.wall_s else 0.0
        return (f"sent {self.sent}, answered {self.answered}, lost {self.lost}, duplicated {self.duplicated}, "
                f"wrong {self.wrong}, 503 retried {self.retried_503}; p50 {_ms(p50)}, p99 {_ms(p99)}; "
                f"{self.wall_s:.1f} s, {rate:.0f} requests/s")


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.1f} ms"


async def run_load(
    url: str,
    payloads: Sequence[dict[str, Any]],
    *,
    clients: int = 64,
    expected: Callable[[dict[str, Any]], list[Any]] | None = None,
    max_503_retries: int = 50,
    timeout_s: float = 120.0,
    on_answer: Callable[[int], None] | None = None,
) -> LoadReport:
    """POST every payload (each with a unique ``id``) to ``url`` from ``clients`` concurrent clients.

    ``expected(payload)`` gives the rewards the answer must carry. ``on_answer(n)`` is called with
    the running count of answers (a test sends SIGTERM from it). Never raises for a failed request:
    it is counted as lost with its error.
    """
    import httpx

    report = LoadReport(sent=len(payloads))
    seen: collections.Counter[Any] = collections.Counter()
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for payload in payloads:
        queue.put_nowait(payload)
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def client(http: httpx.AsyncClient) -> None:
        while True:
            try:
                payload = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            for _attempt in range(max_503_retries + 1):
                started = time.perf_counter()
                try:
                    response = await http.post(url, json=payload)
                except httpx.HTTPError as exc:
                    report.lost += 1
                    if len(report.errors) < 5:
                        report.errors.append(f"{payload.get('id')}: {type(exc).__name__}: {exc}")
                    break
                if response.status_code == 503:
                    report.retried_503 += 1
                    retry_after = response.headers.get("Retry-After", "")
                    report.retry_after.add(retry_after)
                    await asyncio.sleep(min(float(retry_after or 1), 5.0))
                    continue
                if response.status_code != 200:
                    report.lost += 1
                    if len(report.errors) < 5:
                        report.errors.append(f"{payload.get('id')}: HTTP {response.status_code} {response.text[:200]}")
                    break
                report.latencies_s.append(time.perf_counter() - started)
                body = response.json()
                answered_id = body.get("id")
                seen[answered_id] += 1
                if answered_id != payload.get("id") or seen[answered_id] > 1:
                    report.duplicated += 1
                else:
                    report.answered += 1
                    if on_answer is not None:
                        on_answer(report.answered)
                if expected is not None and body.get("rewards") != expected(payload):
                    report.wrong += 1
                break
            else:
                report.lost += 1

    started = time.perf_counter()
    async with httpx.AsyncClient(limits=limits, timeout=timeout_s) as http:
        await asyncio.gather(*(client(http) for _ in range(clients)))
    report.wall_s = time.perf_counter() - started
    return report

"""Harness overhead: physeval's runner vs a bare async OpenAI client on the same server.

Runs N requests against the scripted server (127.0.0.1, zero latency) at concurrency 1
and 64, once through ``physeval.run_task`` (prompt, request, grade, SQLite row,
progress accounting; response cache off) and once as a plain ``AsyncOpenAI`` loop that
only sends the same requests. Prints requests/s and the per-request overhead physeval adds.

    python bench/harness_overhead.py --requests 2000
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

import openai

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fixture_tasks import ArithmeticTask, arithmetic_reply  # noqa: E402
from physeval import RunConfig, run_task  # noqa: E402
from physeval.models import OpenAICompatibleModel  # noqa: E402
from physeval.testing import ScriptedServer  # noqa: E402


async def _bare(base_url: str, prompts: list[list[dict]], concurrency: int) -> float:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="x", max_retries=0)
    queue = list(prompts)
    started = time.perf_counter()

    async def worker() -> None:
        while queue:
            messages = queue.pop()
            await client.chat.completions.create(model="m", messages=messages, temperature=0.0, top_p=1.0, n=1)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    await client.close()
    return elapsed


async def _physeval(base_url: str, task: ArithmeticTask, concurrency: int, run_dir: Path) -> float:
    model = OpenAICompatibleModel("m", base_url)
    started = time.perf_counter()
    await run_task(task, model, run_dir, RunConfig(max_connections=concurrency, use_cache=False), show_progress=False)
    elapsed = time.perf_counter() - started
    await model.aclose()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=1000)
    args = parser.parse_args()
    task = ArithmeticTask(n=args.requests)
    prompts = [task.prompt(p) for p in task.load()]
    print(f"{args.requests} requests per measurement, scripted server on 127.0.0.1, zero latency")
    print(f"{'concurrency':>11} {'bare req/s':>11} {'physeval req/s':>15} {'overhead ms/req':>16} {'ratio':>6}")
    with ScriptedServer(arithmetic_reply) as server, tempfile.TemporaryDirectory() as tmp:
        for concurrency in (1, 64):
            bare = asyncio.run(_bare(server.base_url, prompts, concurrency))
            ours = asyncio.run(_physeval(server.base_url, task, concurrency, Path(tmp) / f"c{concurrency}"))
            n = args.requests
            overhead_ms = (ours - bare) / n * 1000
            print(f"{concurrency:>11} {n / bare:>11.0f} {n / ours:>15.0f} {overhead_ms:>16.3f} {bare / ours:>6.2f}")


if __name__ == "__main__":
    main()
